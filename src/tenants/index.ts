import type { Token } from "../scanner/schemas.js";
import { ScannerClient } from "../scanner/client.js";

/** A scanner client bound to one token, with the project that token belongs to. */
export interface ScannerTenant {
  client: ScannerClient;
  /** `token.project.id` from `GET /token` (spec "Token") */
  projectId: string;
  token: Token;
}

/**
 * Gives each GitHub account (organization or user login) its scanner client. Tokens come from the app's
 * settings only (`SCANNER_TOKEN`, or the `SCANNER_TOKENS_FILE` map), never from repository files.
 */
export interface ScannerAccess {
  /** @returns the tenant, or `undefined` when the account has no token (nothing is sent to the service). */
  forAccount(login: string): Promise<ScannerTenant | undefined>;
  /** forgets cached `GET /token` answers (tokens rotated or revoked) */
  invalidate(): void;
}

/** Options of {@link createScannerAccess}. */
export interface ScannerAccessOptions {
  baseUrl: string;
  /** the default token (`SCANNER_TOKEN`); used for every account without its own token */
  defaultToken?: string;
  /** per-account tokens (login → token); logins compare case-insensitively */
  tokens?: () => Record<string, string>;
  userAgent?: string;
  timeoutMs?: number;
  onResponse?: ConstructorParameters<typeof ScannerClient>[0]["onResponse"];
}

/**
 * Builds a {@link ScannerAccess} that caches one client and its `GET /token` answer per token
 * (project ids are cached per token, issue "One app, many organizations").
 */
export function createScannerAccess(options: ScannerAccessOptions): ScannerAccess {
  const cache = new Map<string, Promise<ScannerTenant>>();
  const tokenFor = (login: string): string | undefined => {
    const map = options.tokens?.() ?? {};
    const hit = Object.entries(map).find(([k]) => k.toLowerCase() === login.toLowerCase());
    return hit?.[1] ?? options.defaultToken;
  };
  return {
    async forAccount(login) {
      const token = tokenFor(login);
      if (!token) return undefined;
      let tenant = cache.get(token);
      if (!tenant) {
        const client = new ScannerClient({
          baseUrl: options.baseUrl,
          token,
          ...(options.userAgent ? { userAgent: options.userAgent } : {}),
          ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
          ...(options.onResponse ? { onResponse: options.onResponse } : {}),
        });
        tenant = client.getToken().then((t) => ({ client, projectId: t.project.id, token: t }));
        cache.set(token, tenant);
        tenant.catch(() => cache.delete(token));
      }
      return tenant;
    },
    invalidate() {
      cache.clear();
    },
  };
}
