import { exchangeWebFlowCode, getWebFlowAuthorizationUrl } from "@octokit/oauth-methods";
import { Octokit } from "@octokit/rest";
import { VERSION } from "../runtime/version.js";

/** The App's OAuth client (`GITHUB_CLIENT_ID`, `GITHUB_CLIENT_SECRET`) and where GitHub is. */
export interface OAuthClient {
  clientId: string;
  clientSecret: string;
  /**
   * GitHub's REST API base URL: `https://api.github.com`, or `<protocol>://<GHE_HOST>/api/v3` on GitHub
   * Enterprise Server; the web flow's pages are at the same host without `/api/v3` (`@octokit/oauth-methods`).
   */
  apiBaseUrl: string;
}

/** A sign-in GitHub did not complete: its HTTP status and GitHub's reason, never the code or the secret. */
export class SignInError extends Error {
  override readonly name = "SignInError";
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** An Octokit for `client`'s GitHub, authenticated with `token` when given. */
export function gitHubOctokit(client: Pick<OAuthClient, "apiBaseUrl">, token?: string): Octokit {
  return new Octokit({
    baseUrl: client.apiBaseUrl,
    userAgent: `diffward/${VERSION}`,
    ...(token === undefined ? {} : { auth: token }),
    log: { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined },
  });
}

/**
 * The URL of GitHub's authorization page for the App's web flow (GitHub Docs "Generating a user access token
 * for a GitHub App", step 1: `GET /login/oauth/authorize` with `client_id`, `redirect_uri` and `state`).
 */
export function authorizeUrl(client: OAuthClient, redirectUrl: string, state: string): string {
  return getWebFlowAuthorizationUrl({
    clientType: "github-app",
    clientId: client.clientId,
    redirectUrl,
    state,
    request: gitHubOctokit(client).request,
  }).url;
}

/**
 * Exchanges the callback's `code` for a user access token (step 3: `POST /login/oauth/access_token`).
 * @returns the token, for the caller to use at once and drop
 * @throws {SignInError} when GitHub refuses the code (expired, used, wrong redirect URL) or cannot be reached
 */
export async function exchangeCode(client: OAuthClient, code: string, redirectUrl: string): Promise<string> {
  try {
    const { authentication } = await exchangeWebFlowCode({
      clientType: "github-app",
      clientId: client.clientId,
      clientSecret: client.clientSecret,
      code,
      redirectUrl,
      request: gitHubOctokit(client).request,
    });
    return authentication.token;
  } catch (error) {
    // Octokit's error keeps the request, whose body holds the code and the client secret: only its status
    // and GitHub's message go on.
    const status = (error as { status?: number }).status ?? 0;
    const reason = error instanceof Error ? error.message.split("\n")[0]!.slice(0, 300) : "unknown error";
    throw new SignInError(status, `GitHub did not exchange the sign-in code (${status}): ${reason}`);
  }
}
