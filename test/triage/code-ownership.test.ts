/**
 * Reading the code-owner facts of a dismissal (src/triage/code-ownership.ts) through Octokit against the GitHub
 * stand-in: the file's owners at the base branch, a user owner without a team read, team memberships read once
 * per minute, a refused membership read (no `members: read`) never kept, and why an unusable CODEOWNERS leaves
 * the role rule alone.
 */
import pino from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startGitHubStandIn, type GitHubStandIn } from "../../dev/github-standin/index.js";
import type { InstallationOctokit } from "../../src/github/octokit-types.js";
import { MEMBERS_READ_REFUSED, readCodeOwnership } from "../../src/triage/code-ownership.js";
import { installationOctokit } from "../support/standin-client.js";

const log = pino({ level: "silent" });
let sb: GitHubStandIn;
let octokit: InstallationOctokit;
let n = 0;
let at: { owner: string; repo: string; baseRef: string; installationId: number };

/** A repository of its own for each test, its base branch `main` holding `codeowners` at `path`. */
beforeEach(async () => {
  sb = await startGitHubStandIn();
  n += 1;
  at = { owner: "octo-org", repo: `app-${n}`, baseRef: "main", installationId: 40 + n };
  sb.state.addInstallation({ id: at.installationId, account: { login: "octo-org", type: "Organization" } });
  const files = { main: { "README.md": "# app\n" } };
  sb.state.addRepository({ owner: "octo-org", name: at.repo, installationId: at.installationId, files });
  octokit = (await installationOctokit(sb, at.installationId)) as unknown as InstallationOctokit;
});
afterEach(async () => sb.close());

const put = (text: string, path = ".github/CODEOWNERS") =>
  sb.state.setFile(at.owner, at.repo, "main", path, text);
const membershipReads = () =>
  sb.requests.filter((r) => r.path.includes("/teams/") && r.path.includes("/memberships/")).length;

describe("readCodeOwnership", () => {
  it("a user owner is one without any team read; a team's active member is one through the team", async () => {
    put("*.js @octo-org/web\n/src/ @Dana @octo-org/payments ops@example.com\n");
    sb.state.teams.setMembership("octo-org", "payments", "erin");
    const dana = await readCodeOwnership(octokit, at, "src/pay.js", "dana", log);
    expect(dana).toEqual({
      ownership: {
        file: "src/pay.js",
        source: ".github/CODEOWNERS",
        owners: ["@Dana", "@octo-org/payments"],
        notes: ["The e-mail owner `ops@example.com` cannot be checked by diffward and is skipped"],
      },
      approver: { owner: true, via: "@Dana" },
    });
    expect(membershipReads()).toBe(0);
    const erin = await readCodeOwnership(octokit, at, "src/pay.js", "erin", log);
    expect(erin.approver).toEqual({ owner: true, via: "@octo-org/payments" });
    // the last matching rule wins: lib/x.js is the web team's alone
    const web = await readCodeOwnership(octokit, at, "lib/x.js", "erin", log);
    expect(web.ownership.owners).toEqual(["@octo-org/web"]);
    expect(web.approver).toEqual({ owner: false, pending: [] });
  });

  it("memberships are read once a minute; a pending one does not count; a 403 falls back and is not kept", async () => {
    put("/src/ @octo-org/payments\n");
    sb.state.teams.setMembership("octo-org", "payments", "frank", "pending");
    const first = await readCodeOwnership(octokit, at, "src/a.ts", "frank", log);
    expect(first.approver).toEqual({ owner: false, pending: ["@octo-org/payments"] });
    const reads = membershipReads();
    sb.state.teams.setMembership("octo-org", "payments", "frank", "active");
    expect((await readCodeOwnership(octokit, at, "src/a.ts", "frank", log)).approver?.owner).toBe(false);
    expect(membershipReads()).toBe(reads);

    sb.state.teams.setMembersRead(at.installationId, false);
    const refused = await readCodeOwnership(octokit, at, "src/a.ts", "gina", log);
    expect(refused.ownership.fallback).toBe(MEMBERS_READ_REFUSED);
    expect(refused.approver).toBeUndefined();
    sb.state.teams.setMembersRead(at.installationId, true);
    sb.state.teams.setMembership("octo-org", "payments", "gina");
    expect((await readCodeOwnership(octokit, at, "src/a.ts", "gina", log)).approver?.owner).toBe(true);
  });

  it("says why the role rule applies alone: no file named, no CODEOWNERS, no owner, GitHub's errors", async () => {
    const fallback = async (file: string | undefined) =>
      (await readCodeOwnership(octokit, at, file, "dana", log)).ownership.fallback;
    expect(await fallback(undefined)).toBe("the finding's location names no file");
    expect(await fallback("src/a.ts")).toBe("the base branch `main` has no CODEOWNERS file");
    put("/docs/ @dana\n/src/generated/\n", "docs/CODEOWNERS");
    expect(await fallback("src/a.ts")).toBe(
      "no rule of `docs/CODEOWNERS` names a user or team owning `src/a.ts`",
    );
    expect(await fallback("src/generated/x.ts")).toBe(
      "no rule of `docs/CODEOWNERS` names a user or team owning `src/generated/x.ts`",
    );
    put("a @x\nb y\nc z\n!d @w\ne v\n", "CODEOWNERS");
    expect(await fallback("a")).toBe(
      "GitHub lists 4 errors in `CODEOWNERS` (line 2: Invalid owner; line 3: Invalid owner; line 4: Invalid pattern; 1 more), so it is not used",
    );
  });
});
