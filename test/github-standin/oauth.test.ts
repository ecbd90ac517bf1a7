import { exchangeWebFlowCode } from "@octokit/oauth-methods";
import { Octokit } from "@octokit/rest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGitHubStandIn, type GitHubStandIn } from "../../dev/github-standin/index.js";
import { STANDIN_CLIENT, hop, seedSignIn } from "../../dev/harness/sign-in.js";

/** The stand-in's web flow and `/user` routes, driven with Octokit's own OAuth methods and REST client. */
let github: GitHubStandIn;
const redirect = "http://127.0.0.1:9/login/callback";

beforeAll(async () => {
  github = await startGitHubStandIn();
  github.state.addInstallation({ id: 5, account: { login: "acme", type: "Organization" } });
  github.state.addInstallation({ id: 6, account: { login: "globex", type: "Organization" } });
  github.state.addRepository({ owner: "acme", name: "one", installationId: 5 });
  github.state.addRepository({ owner: "acme", name: "two", installationId: 5 });
  github.state.addRepository({ owner: "globex", name: "three", installationId: 6 });
  seedSignIn(github, [
    { login: "amy", installations: { "5": ["two"] }, orgs: { acme: "member" } },
    { login: "gus", installations: { "6": "all" }, orgs: { globex: "admin" } },
  ]);
});
afterAll(() => github.close());

/** A code for `login` from `/login/oauth/authorize` (the redirect's `code`), with the state handed back. */
async function codeFor(login: string, state = "s1"): Promise<{ code: string; state: string | null }> {
  const q = new URLSearchParams({ client_id: STANDIN_CLIENT.clientId, redirect_uri: redirect, state, login });
  const h = await hop(`${github.url}/login/oauth/authorize?${q.toString()}`);
  expect(h.status).toBe(302);
  const back = new URL(h.location!);
  expect(`${back.origin}${back.pathname}`).toBe(redirect);
  return { code: back.searchParams.get("code")!, state: back.searchParams.get("state") };
}

const exchange = (code: string, clientSecret = STANDIN_CLIENT.clientSecret) =>
  exchangeWebFlowCode({
    clientType: "github-app",
    clientId: STANDIN_CLIENT.clientId,
    clientSecret,
    code,
    redirectUrl: redirect,
    request: new Octokit({ baseUrl: github.url }).request,
  });

describe("the App's web flow", () => {
  it("shows a page to pick the user, and redirects back with a code and the state once one is picked", async () => {
    const page = await fetch(
      `${github.url}/login/oauth/authorize?client_id=${STANDIN_CLIENT.clientId}&state=x`,
    );
    expect(await page.text()).toContain("Sign in as amy");
    expect((await codeFor("amy", "st-9")).state).toBe("st-9");
    expect((await hop(`${github.url}/login/oauth/authorize?client_id=unknown&login=amy`)).status).toBe(404);
  });

  it("exchanges a code once, with the right client secret, for a user access token", async () => {
    const { code } = await codeFor("amy");
    await expect(exchange(code, "wrong-secret")).rejects.toThrow(/incorrect_client_credentials/);
    const { code: second } = await codeFor("amy");
    const { authentication } = await exchange(second);
    expect(authentication.token).toMatch(/^ghu_/);
    await expect(exchange(second)).rejects.toThrow(/bad_verification_code/);
  });
});

describe("a user's routes", () => {
  it("answers as the token's user: installations, their repositories, organization role", async () => {
    const { authentication } = await exchange((await codeFor("amy")).code);
    const amy = new Octokit({ baseUrl: github.url, auth: authentication.token });
    expect((await amy.rest.users.getAuthenticated()).data.login).toBe("amy");
    const installations = await amy.paginate(amy.rest.apps.listInstallationsForAuthenticatedUser);
    expect(installations.map((i) => i.id)).toEqual([5]);
    const repos = await amy.paginate(amy.rest.apps.listInstallationReposForAuthenticatedUser, {
      installation_id: 5,
    });
    expect(repos.map((r) => r.full_name)).toEqual(["acme/two"]);
    await expect(
      amy.rest.apps.listInstallationReposForAuthenticatedUser({ installation_id: 6 }),
    ).rejects.toMatchObject({ status: 404 });
    expect((await amy.rest.orgs.getMembershipForAuthenticatedUser({ org: "acme" })).data).toMatchObject({
      role: "member",
      state: "active",
    });
    await expect(amy.rest.orgs.getMembershipForAuthenticatedUser({ org: "globex" })).rejects.toMatchObject({
      status: 404,
    });
    await expect(new Octokit({ baseUrl: github.url }).rest.users.getAuthenticated()).rejects.toMatchObject({
      status: 401,
    });
    expect(github.violations()).toEqual([]);
  });
});
