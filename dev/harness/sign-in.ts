import type { GitHubStandIn, OAuthUserInput } from "../github-standin/index.js";

/** The App's OAuth client in the stand-in (a GitHub App's client id starts with `Iv`). */
export const STANDIN_CLIENT = {
  clientId: "Iv23li0standin00client",
  clientSecret: "standin-client-secret-0123456789",
};

/** A session secret for tests and the demo (never a production one). */
export const STANDIN_SESSION_SECRET = "standin-session-secret-0123456789abcdef";

/** Registers the App's OAuth client and the users who may sign in with it. */
export function seedSignIn(github: GitHubStandIn, users: readonly OAuthUserInput[]): void {
  github.state.oauth.registerClient(STANDIN_CLIENT.clientId, STANDIN_CLIENT.clientSecret);
  for (const user of users) github.state.oauth.addUser(user);
}

/** Adds `login`, an owner (role `admin`) of organization `org`, who can access its installation `installationId`. */
export function addOrgOwner(github: GitHubStandIn, login: string, org: string, installationId: number): void {
  github.state.oauth.addUser({ login, installations: { [installationId]: "all" }, orgs: { [org]: "admin" } });
}

/** One HTTP answer of the sign-in walk: status, `Location` and `Set-Cookie` values. */
export interface Hop {
  url: string;
  status: number;
  location: string | undefined;
  setCookies: string[];
}

/** `GET url` without following redirects, with `cookie` sent as the `Cookie` header. */
export async function hop(url: string, cookie = "", headers: Record<string, string> = {}): Promise<Hop> {
  const res = await fetch(url, {
    redirect: "manual",
    headers: { ...headers, ...(cookie ? { cookie } : {}) },
  });
  await res.arrayBuffer();
  const location = res.headers.get("location") ?? undefined;
  return {
    url,
    status: res.status,
    location: location === undefined ? undefined : new URL(location, url).toString(),
    setCookies: res.headers.getSetCookie(),
  };
}

/** `name=value` pairs of `Set-Cookie` values, as a `Cookie` header (cleared cookies left out). */
export function cookieHeader(setCookies: readonly string[]): string {
  return setCookies
    .map((c) => c.split(";")[0]!)
    .filter((pair) => !pair.endsWith("="))
    .join("; ");
}

/**
 * Signs `login` in the way a browser does, without one: the page sends it to the stand-in's
 * `/login/oauth/authorize`, which redirects back to `/login/callback` with a code (`login` picks the user),
 * and the callback sets the session cookie.
 * @returns the `Cookie` header of the session, and the hops walked
 * @throws Error when a hop does not answer as the web flow should
 */
export async function signInOverHttp(
  webUrl: string,
  login: string,
  path = "/installations/",
): Promise<{ cookie: string; hops: Hop[] }> {
  const first = await hop(`${webUrl}${path}`);
  if (first.status !== 302 || !first.location)
    throw new Error(`${path} answered ${first.status}, not a redirect`);
  const authorize = new URL(first.location);
  authorize.searchParams.set("login", login);
  const github = await hop(authorize.toString());
  if (github.status !== 302 || !github.location) throw new Error(`authorize answered ${github.status}`);
  const callback = await hop(github.location, cookieHeader(first.setCookies));
  if (callback.status !== 302) throw new Error(`the callback answered ${callback.status}`);
  return { cookie: cookieHeader(callback.setCookies), hops: [first, github, callback] };
}
