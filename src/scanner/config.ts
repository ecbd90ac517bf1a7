/**
 * Which deployment of the scanning service to call (spec §Versioning: a staging and a production
 * deployment, each with its own base address). The addresses are configuration, never code.
 */
import { ScannerConfigError } from "./errors.js";

export const SCANNER_ENVS = ["staging", "production"] as const;
export type ScannerEnv = (typeof SCANNER_ENVS)[number];

/** The environment variables {@link resolveScannerBaseUrl} reads. */
export interface ScannerEnvVars {
  SCANNER_API_URL?: string | undefined;
  SCANNER_ENV?: string | undefined;
  SCANNER_STAGING_URL?: string | undefined;
  SCANNER_PRODUCTION_URL?: string | undefined;
}

const URL_VARIABLE: Record<ScannerEnv, keyof ScannerEnvVars> = {
  staging: "SCANNER_STAGING_URL",
  production: "SCANNER_PRODUCTION_URL",
};

/**
 * Resolves the service base URL (ending in `/api/v1`, no trailing slash) from the environment:
 * 1. `SCANNER_API_URL`, when set (non-empty), wins;
 * 2. otherwise `SCANNER_ENV` = `staging` | `production` selects `SCANNER_STAGING_URL` |
 *    `SCANNER_PRODUCTION_URL`.
 * Empty strings count as unset.
 * @throws {ScannerConfigError} naming the variable at fault: neither variable set, an unknown
 *   `SCANNER_ENV`, the selected deployment's URL variable missing, or a URL that is not http(s) or does
 *   not end in `/api/v1`.
 */
export function resolveScannerBaseUrl(env: ScannerEnvVars | NodeJS.ProcessEnv): string {
  const get = (name: keyof ScannerEnvVars): string | undefined => {
    const v = (env as Record<string, string | undefined>)[name];
    return v === undefined || v.trim() === "" ? undefined : v.trim();
  };
  const direct = get("SCANNER_API_URL");
  if (direct !== undefined) return checkBaseUrl(direct, "SCANNER_API_URL");

  const which = get("SCANNER_ENV");
  if (which === undefined) {
    throw new ScannerConfigError(
      "SCANNER_API_URL",
      "not set; set SCANNER_API_URL (a base URL ending in /api/v1) or SCANNER_ENV=staging|production",
    );
  }
  if (!(SCANNER_ENVS as readonly string[]).includes(which)) {
    throw new ScannerConfigError(
      "SCANNER_ENV",
      `expected one of ${SCANNER_ENVS.join(", ")}, got ${JSON.stringify(which)}`,
    );
  }
  const variable = URL_VARIABLE[which as ScannerEnv];
  const url = get(variable);
  if (url === undefined) {
    throw new ScannerConfigError(
      variable,
      `not set; SCANNER_ENV=${which} needs it (a base URL ending in /api/v1)`,
    );
  }
  return checkBaseUrl(url, variable);
}

/**
 * Checks a deployment base address: an http(s) URL whose path ends in `/api/v1` (one trailing slash is
 * tolerated and removed). Returns it without trailing slash.
 * @throws {ScannerConfigError} naming `variable`.
 */
export function checkBaseUrl(value: unknown, variable: string): string {
  if (typeof value !== "string" || value.trim() === "") {
    throw new ScannerConfigError(variable, "expected the service base URL, ending in /api/v1");
  }
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new ScannerConfigError(variable, `not a URL: ${JSON.stringify(value)}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ScannerConfigError(variable, `expected an http or https URL, got ${url.protocol}`);
  }
  if (url.username || url.password || url.search || url.hash) {
    throw new ScannerConfigError(variable, "expected no credentials, query or fragment in the base URL");
  }
  const path = url.pathname.replace(/\/$/, "");
  if (!path.endsWith("/api/v1")) {
    throw new ScannerConfigError(
      variable,
      `expected the path to end in /api/v1, got ${JSON.stringify(url.pathname)}`,
    );
  }
  return `${url.origin}${path}`;
}
