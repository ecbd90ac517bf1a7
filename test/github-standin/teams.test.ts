import type { Octokit, RestEndpointMethodTypes } from "@octokit/rest";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { codeownersErrors, startGitHubStandIn, type GitHubStandIn } from "../../dev/github-standin/index.js";
import { seedFromPullRequestEvent } from "../../dev/github-standin/seed.js";
import { webhookExample } from "../../dev/harness/examples.js";
import { installationOctokit, refused } from "../support/standin-client.js";

const repo = { owner: "octo-org", repo: "app" };

type Membership = RestEndpointMethodTypes["teams"]["getMembershipForUserInOrg"]["response"]["data"];
type Errors = RestEndpointMethodTypes["repos"]["codeownersErrors"]["response"]["data"];

let sb: GitHubStandIn;
let gh: Octokit;

beforeEach(async () => {
  sb = await startGitHubStandIn();
  sb.state.addInstallation({ id: 42, account: { login: "octo-org", type: "Organization" } });
  sb.state.addRepository({ owner: "octo-org", name: "app", installationId: 42 });
  gh = await installationOctokit(sb, 42);
});
afterEach(async () => sb.close());

describe("GitHub stand-in: team memberships", () => {
  it("answers GitHub's { url, role, state } for a member, 404 for a non-member, case-insensitively", async () => {
    sb.state.teams.setMembership("octo-org", "payments", "Alice");
    sb.state.teams.setMembership("octo-org", "payments", "bob", "pending", "maintainer");
    const get = (username: string) =>
      gh.teams.getMembershipForUserInOrg({ org: "octo-org", team_slug: "payments", username });
    const alice: Membership = (await get("alice")).data;
    expect(alice).toMatchObject({ role: "member", state: "active" });
    expect(alice.url).toMatch(/\/team\/payments\/memberships\/alice$/);
    expect((await get("bob")).data).toMatchObject({ role: "maintainer", state: "pending" });
    expect((await refused(get("carol"))).status).toBe(404);
    sb.state.teams.removeMembership("octo-org", "payments", "alice");
    expect((await refused(get("alice"))).status).toBe(404);
    expect(sb.requests.filter((r) => r.openapiErrors.length > 0)).toEqual([]);
  });

  it("refuses an installation without members: read with 403", async () => {
    sb.state.teams.setMembership("octo-org", "payments", "alice");
    sb.state.teams.setMembersRead(42, false);
    const get = () =>
      gh.teams.getMembershipForUserInOrg({ org: "octo-org", team_slug: "payments", username: "alice" });
    expect((await refused(get())).status).toBe(403);
    sb.state.teams.setMembersRead(42, true);
    expect((await get()).data.state).toBe("active");
  });

  it("is seeded from a pull request event's extra teams", () => {
    const p = webhookExample("pull_request", "opened");
    seedFromPullRequestEvent(sb.state, p, { teams: { "octo-org/security": { dana: "pending" } } });
    expect(sb.state.teams.membership("octo-org", "security", "dana")?.state).toBe("pending");
  });
});

describe("GitHub stand-in: CODEOWNERS errors", () => {
  it("lists the errors of the first CODEOWNERS in GitHub's order of locations, at a ref; 404 without one", async () => {
    const list = (ref?: string) => gh.repos.codeownersErrors({ ...repo, ...(ref ? { ref } : {}) });
    expect((await refused(list())).status).toBe(404);
    sb.state.setFile("octo-org", "app", "main", "docs/CODEOWNERS", "* not-an-owner\n");
    sb.state.setFile("octo-org", "app", "main", ".github/CODEOWNERS", "# owners\n*.js @octo-org/web\n");
    const clean: Errors = (await list()).data;
    expect(clean).toEqual({ errors: [] });
    sb.state.setFile("octo-org", "app", "base-1", "CODEOWNERS", "/src/ @alice\n!/src/x @bob owner\n");
    const { errors } = (await list("base-1")).data;
    expect(errors.map((e) => [e.kind, e.line, e.column, e.path])).toEqual([
      ["Invalid pattern", 2, 1, "CODEOWNERS"],
      ["Invalid owner", 2, 14, "CODEOWNERS"],
    ]);
    expect(errors[1]!.message).toContain("Invalid owner on line 2");
    expect((await refused(list("no-such-ref"))).status).toBe(404);
  });

  it("accepts users, teams, e-mail owners, comments and a pattern without owners", () => {
    const text = "# c\n\n* @a @org/team-1 me@example.com # trailing\n/build/logs/\napps/ @x\n";
    expect(codeownersErrors(text, "CODEOWNERS")).toEqual([]);
    expect(codeownersErrors("[ab].js @a\n\\#x @b\n", "CODEOWNERS").map((e) => e.kind)).toEqual([
      "Invalid pattern",
      "Invalid pattern",
    ]);
  });
});
