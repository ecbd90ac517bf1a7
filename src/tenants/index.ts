import { createHash } from "node:crypto";
import type { Token } from "../scanner/schemas.js";
import { ScannerClient } from "../scanner/client.js";
import { isRetryable } from "../scanner/errors.js";

/** A scanner client bound to one token, with the project that token belongs to. */
export interface ScannerTenant {
  client: ScannerClient;
  /** `token.project.id` from `GET /token` (spec §Token) */
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
  /**
   * The account's service tenant as a short name safe in Redis keys, logs and metric labels (a hash of its
   * token: accounts sharing a token share the tenant), or `undefined` when the account has no token.
   */
  tenantKey(login: string): string | undefined;
  /**
   * Sends one `GET /token` for the account (spec §Token; any valid token may call it), whatever is cached,
   * and caches the fresh answer: the circuit breaker's probe.
   * @returns the tenant, or `undefined` when the account has no token.
   * @throws the client's typed errors (`src/scanner/errors.ts`).
   */
  probe(login: string): Promise<ScannerTenant | undefined>;
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
  /** how often `GET /token` is read again per token (scopes, expiry, allowlist can change), in ms; 1 hour */
  refreshMs?: number;
}

/**
 * Builds a {@link ScannerAccess} that caches one client and its `GET /token` answer per token
 * (one token per organization or user: `SCANNER_TOKENS_FILE`), read again every `refreshMs`
 * so a token's new scopes, expiry or allowlist show in the next check runs.
 */
export function createScannerAccess(options: ScannerAccessOptions): ScannerAccess {
  const cache = new Map<string, { at: number; tenant: Promise<ScannerTenant> }>();
  const refreshMs = options.refreshMs ?? 60 * 60_000;
  const tokenFor = (login: string): string | undefined => {
    const map = options.tokens?.() ?? {};
    const hit = Object.entries(map).find(([k]) => k.toLowerCase() === login.toLowerCase());
    return hit?.[1] ?? options.defaultToken;
  };
  return {
    async forAccount(login) {
      const token = tokenFor(login);
      if (!token) return undefined;
      const hit = cache.get(token);
      let tenant = hit && Date.now() - hit.at < refreshMs ? hit.tenant : undefined;
      if (!tenant) {
        const client = new ScannerClient({
          baseUrl: options.baseUrl,
          token,
          ...(options.userAgent ? { userAgent: options.userAgent } : {}),
          ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
          ...(options.onResponse ? { onResponse: options.onResponse } : {}),
        });
        const fresh = client.getToken().then((t) => ({ client, projectId: t.project.id, token: t }));
        // While a refresh is in flight (or if it fails transiently), the last good answer still serves.
        const previous = hit?.tenant;
        tenant = previous
          ? fresh.catch((e: unknown) => (isRetryable(e) ? previous : Promise.reject(e)))
          : fresh;
        cache.set(token, { at: Date.now(), tenant });
        fresh.catch(() => {
          if (cache.get(token)?.tenant === tenant) cache.delete(token);
        });
      }
      return tenant;
    },
    invalidate() {
      cache.clear();
    },
    tenantKey(login) {
      const token = tokenFor(login);
      return token ? createHash("sha256").update(token).digest("hex").slice(0, 16) : undefined;
    },
    probe(login) {
      const token = tokenFor(login);
      if (token) cache.delete(token);
      return this.forAccount(login);
    },
  };
}
