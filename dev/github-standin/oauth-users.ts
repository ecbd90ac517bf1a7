import { randomBytes } from "node:crypto";
import { z } from "zod";

/** A user who can sign in to the App through the stand-in, and what GitHub lets them see. */
export const OAuthUserInput = z.object({
  login: z.string().min(1),
  name: z.string().optional(),
  /**
   * The App's installations the user can access: every repository (`"all"`) or the names of some (without
   * owner), as GitHub's "List repositories accessible to the user access token" would list them.
   */
  installations: z.record(z.string().regex(/^\d+$/), z.union([z.literal("all"), z.array(z.string())])),
  /** The user's organization memberships and roles (`GET /user/memberships/orgs/{org}`). */
  orgs: z.record(z.string(), z.enum(["admin", "member"])).default({}),
});
export type OAuthUserInput = z.input<typeof OAuthUserInput>;
export type OAuthUser = z.infer<typeof OAuthUserInput>;

/** What the web flow's authorization left for the code exchange (GitHub: a code lasts 10 minutes, one use). */
interface IssuedCode {
  login: string;
  clientId: string;
  redirectUri: string | undefined;
  expiresAt: number;
}

/**
 * The App's OAuth client and its users, for the web flow (GitHub Docs "Generating a user access token for a
 * GitHub App"): `GET /login/oauth/authorize` issues a code for a user, `POST /login/oauth/access_token`
 * exchanges it once for a `ghu_…` token (8 hours), and the `/user` routes answer as that user.
 */
export class OAuthUsers {
  client: { clientId: string; clientSecret: string } | undefined;
  private readonly users = new Map<string, OAuthUser>();
  private readonly codes = new Map<string, IssuedCode>();
  private readonly tokens = new Map<string, { login: string; expiresAt: number }>();

  /** Registers the App's client id and secret (the App's settings page on GitHub). */
  registerClient(clientId: string, clientSecret: string): void {
    this.client = { clientId, clientSecret };
  }

  /** Adds or replaces a user. @throws ZodError for a bad input */
  addUser(input: OAuthUserInput): void {
    const user = OAuthUserInput.parse(input);
    this.users.set(user.login.toLowerCase(), user);
  }

  user(login: string): OAuthUser | undefined {
    return this.users.get(login.toLowerCase());
  }

  logins(): string[] {
    return [...this.users.values()].map((u) => u.login);
  }

  issueCode(login: string, clientId: string, redirectUri: string | undefined, now = Date.now()): string {
    const code = randomBytes(10).toString("hex");
    this.codes.set(code, { login, clientId, redirectUri, expiresAt: now + 600_000 });
    return code;
  }

  /** The code's grant, removed (a code is used once), or `undefined` when unknown or expired. */
  takeCode(code: string, now = Date.now()): IssuedCode | undefined {
    const issued = this.codes.get(code);
    this.codes.delete(code);
    return issued && issued.expiresAt > now ? issued : undefined;
  }

  issueToken(login: string, now = Date.now()): string {
    const token = `ghu_${randomBytes(27).toString("base64url").replace(/[-_]/g, "x")}`;
    this.tokens.set(token, { login, expiresAt: now + 8 * 3_600_000 });
    return token;
  }

  /** The user an unexpired user access token belongs to, or `undefined`. */
  tokenUser(token: string, now = Date.now()): string | undefined {
    const t = this.tokens.get(token);
    return t && t.expiresAt > now ? t.login : undefined;
  }

  /** Tokens issued so far (tests check none is kept by the app). */
  issuedTokens(): string[] {
    return [...this.tokens.keys()];
  }
}
