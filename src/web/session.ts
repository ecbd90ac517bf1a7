import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { parseCookie, stringifySetCookie } from "cookie";
import { z } from "zod";
import type { RedisConnection } from "../runtime/connection.js";

/** The session cookie: `<session id>.<HMAC-SHA256>`, base64url both. */
export const SESSION_COOKIE = "dw_session";
/** The sign-in state cookie, the browser's half of the OAuth `state` check (login CSRF). */
export const STATE_COOKIE = "dw_oauth_state";
/**
 * How long a session lasts, in seconds (15 minutes, not renewed). What a user may see is read from GitHub at
 * sign-in and never refreshed with their token (it is not kept), so a session ends soon after GitHub's answer
 * would change; signing in again is a redirect through GitHub, without a prompt once the App is authorized.
 */
export const SESSION_TTL_SECONDS = 15 * 60;
/** How long a sign-in may take between the redirect to GitHub and the callback, in seconds. */
export const STATE_TTL_SECONDS = 10 * 60;

/** One installation a signed-in user may see, as GitHub told at sign-in. */
export const InstallationAccess = z.object({
  id: z.number().int(),
  account: z.string(),
  kind: z.enum(["Organization", "User"]),
  /** organization-wide figures (balance, month's spend, cap, token health): org owners, the account itself */
  orgWide: z.boolean(),
  /** the repositories (`owner/name`) the user can access in it; `"all"` for those who see it org-wide */
  repositories: z.union([z.literal("all"), z.array(z.string())]),
});
export type InstallationAccess = z.infer<typeof InstallationAccess>;

/** What a session holds: who the user is and what they may see. Never their GitHub token. */
export const SessionData = z.object({
  login: z.string(),
  userId: z.number().int(),
  installations: z.array(InstallationAccess),
});
export type SessionData = z.infer<typeof SessionData>;

/** A session read from its cookie. */
export interface Session extends SessionData {
  /** the session id (the cookie's value without its signature) */
  id: string;
}

/** Where the sign-in comes back to: the page first asked for, checked to be a path of this site. */
export interface SignInState {
  nonce: string;
  returnTo: string;
}

const b64 = (buf: Buffer) => buf.toString("base64url");

/** Cookie attributes of every cookie the page sets: HttpOnly, SameSite=Lax, Secure over HTTPS. */
export interface CookieOptions {
  /** `Secure` (production: the site is served over HTTPS) */
  secure: boolean;
}

/**
 * Signed sessions and sign-in state, kept in Redis under the state prefix (`session:<sha256 of id>`, TTL
 * {@link SESSION_TTL_SECONDS}; `oauthstate:<nonce>`, TTL {@link STATE_TTL_SECONDS}). Every value a browser
 * sends back is HMAC-SHA256-signed with the session secret (`DIFFWARD_SESSION_SECRET`) and compared in
 * constant time; Redis holds the session under a hash of its id, so reading Redis gives no usable cookie.
 */
export class SessionStore {
  readonly #secret: Buffer;

  constructor(
    private readonly redis: RedisConnection,
    private readonly prefix: string,
    secret: string,
    private readonly cookies: CookieOptions,
    private readonly now: () => number = Date.now,
  ) {
    this.#secret = Buffer.from(secret, "utf8");
  }

  #mac(purpose: string, value: string): string {
    return b64(createHmac("sha256", this.#secret).update(`${purpose}\n${value}`).digest());
  }

  /** `value` when `mac` is its signature for `purpose` (constant-time), else `undefined`. */
  #verified(purpose: string, value: string, mac: string): string | undefined {
    const want = Buffer.from(this.#mac(purpose, value));
    const got = Buffer.from(mac);
    return want.length === got.length && timingSafeEqual(want, got) ? value : undefined;
  }

  #sessionKey(id: string): string {
    return `${this.prefix}:session:${createHash("sha256").update(id).digest("hex")}`;
  }

  /** A `Set-Cookie` value: HttpOnly, SameSite=Lax, Path=/, Secure when configured, Max-Age in seconds. */
  setCookie(name: string, value: string, maxAgeSeconds: number): string {
    return stringifySetCookie(name, value, {
      httpOnly: true,
      sameSite: "lax",
      secure: this.cookies.secure,
      path: "/",
      maxAge: maxAgeSeconds,
    });
  }

  /** Stores a new session and returns its `Set-Cookie` value. */
  async create(data: SessionData): Promise<{ id: string; cookie: string }> {
    const id = b64(randomBytes(32));
    await this.redis.set(this.#sessionKey(id), JSON.stringify(data), "EX", SESSION_TTL_SECONDS);
    return {
      id,
      cookie: this.setCookie(SESSION_COOKIE, `${id}.${this.#mac("session", id)}`, SESSION_TTL_SECONDS),
    };
  }

  /** The session of a request's `Cookie` header: `undefined` when absent, tampered, expired or ended. */
  async read(cookieHeader: string | undefined): Promise<Session | undefined> {
    const id = this.#sessionId(cookieHeader);
    if (id === undefined) return undefined;
    const raw = await this.redis.get(this.#sessionKey(id));
    if (raw === null) return undefined;
    const parsed = SessionData.safeParse(JSON.parse(raw));
    return parsed.success ? { ...parsed.data, id } : undefined;
  }

  #sessionId(cookieHeader: string | undefined): string | undefined {
    const value = parseCookie(cookieHeader ?? "")[SESSION_COOKIE];
    const m = /^([\w-]{43})\.([\w-]{43})$/.exec(value ?? "");
    return m ? this.#verified("session", m[1]!, m[2]!) : undefined;
  }

  /** Ends the session of a request's cookie (if any) and returns the `Set-Cookie` value that clears it. */
  async end(cookieHeader: string | undefined): Promise<string> {
    const id = this.#sessionId(cookieHeader);
    if (id !== undefined) await this.redis.del(this.#sessionKey(id));
    return this.setCookie(SESSION_COOKIE, "", 0);
  }

  /** The session's CSRF token for its forms (signed session id: nothing stored). */
  csrfToken(session: Pick<Session, "id">): string {
    return this.#mac("csrf", session.id);
  }

  /** Whether `token` is the session's CSRF token (constant-time). */
  checkCsrf(session: Pick<Session, "id">, token: string | undefined): boolean {
    return token !== undefined && this.#verified("csrf", session.id, token) !== undefined;
  }

  /**
   * A new sign-in's `state` (nonce, expiry, return path, signature) and the `Set-Cookie` value that binds it
   * to this browser: GitHub hands `state` back unchanged, and the callback accepts it only from the browser
   * that started the sign-in (GitHub Docs, "Authorizing OAuth apps": the state "should be used to protect
   * against cross-site request forgery attacks").
   */
  startSignIn(returnTo: string): { state: string; cookie: string } {
    const expires = Math.floor(this.now() / 1000) + STATE_TTL_SECONDS;
    const body = `${b64(randomBytes(18))}.${expires}.${b64(Buffer.from(safeReturnPath(returnTo)))}`;
    const state = `${body}.${this.#mac("state", body)}`;
    return { state, cookie: this.setCookie(STATE_COOKIE, state, STATE_TTL_SECONDS) };
  }

  /**
   * Checks a callback's `state`: the one this browser's cookie holds, correctly signed, not expired, and not
   * used before (claimed once in Redis). @returns the state, or `undefined` with nothing claimed when invalid.
   */
  async finishSignIn(
    state: string | undefined,
    cookieHeader: string | undefined,
  ): Promise<SignInState | undefined> {
    const m = /^([\w-]{24})\.(\d{1,12})\.([\w-]{0,2800})\.([\w-]{43})$/.exec(state ?? "");
    const cookie = parseCookie(cookieHeader ?? "")[STATE_COOKIE];
    if (!m || cookie === undefined || !sameText(cookie, state!)) return undefined;
    const [, nonce, expires, to] = m as unknown as [string, string, string, string, string];
    if (this.#verified("state", `${nonce}.${expires}.${to}`, m[4]!) === undefined) return undefined;
    if (Number(expires) * 1000 < this.now()) return undefined;
    const claimed = await this.redis.set(
      `${this.prefix}:oauthstate:${nonce}`,
      "1",
      "EX",
      STATE_TTL_SECONDS,
      "NX",
    );
    if (claimed !== "OK") return undefined;
    return { nonce, returnTo: safeReturnPath(Buffer.from(to, "base64url").toString("utf8")) };
  }

  /** The `Set-Cookie` value that clears the sign-in state cookie. */
  clearSignIn(): string {
    return this.setCookie(STATE_COOKIE, "", 0);
  }
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * `path` when it is a path of this site (`/…`, not `//host` nor `/\host`, which browsers read as another
 * host), else `/`: the callback never redirects elsewhere (an open redirect).
 */
export function safeReturnPath(path: string): string {
  return /^\/(?![/\\])[\x21-\x7e]{0,1999}$/.test(path) ? path : "/";
}
