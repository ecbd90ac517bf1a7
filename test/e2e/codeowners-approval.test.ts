/**
 * Code owners approve dismissals (`triage.approval.codeowners`) end to end: real webhooks through the app,
 * Redis, the sandbox over HTTP and the GitHub stand-in with a CODEOWNERS on the base branch and team
 * memberships. The approver must meet the role rule and own the finding's file (a user owner, or an active
 * member of a team owner); a file without an owner, an invalid or oversized CODEOWNERS, or team membership
 * the app may not read leaves the role rule alone, and the held message says why.
 */
import { describe, expect, it } from "vitest";
import type { Harness } from "../../dev/harness/harness.js";
import type { AuditEntry } from "../../src/stores/audit-log.js";
import { sandboxFinding, SECRET, SQLI, type ReportedPull } from "../support/reported-pull.js";
import {
  openConfiguredPull,
  replyTo,
  sandboxCalls,
  setCodeowners,
  useCommandHarness,
  waitCommandJob,
  WRITER,
} from "../support/commands.js";

const MAINTAINER = "octo-maintainer"; // the role, no code owner
const DANA = "octo-dana"; // the role, user owner of src/db.js
const TEAMMATE = "octo-teammate"; // the role, active member of @octo-org/app-sec (owns src/server.js)
const INVITED = "octo-invited"; // the role, pending member of @octo-org/app-sec
const TEAM = { org: "octo-org", slug: "app-sec" };
const APPROVAL = "triage:\n  approval:\n    minSeverity: high\n    approvers: maintain\n    codeowners: true";
const CODEOWNERS = "# owners\n/src/db.js @Octo-Dana ops@example.com\n/src/server.js @octo-org/app-sec\n";
const PATCH_RESOLUTION = "PATCH /projects/:projectId/findings/:findingId/resolution";

let h: Harness;
useCommandHarness((started) => (h = started));

let nextPull = 600;
/**
 * Opens a reported pull request with `config` after putting `codeowners` at a new commit of the base branch
 * (a CODEOWNERS change is a new base commit; `null`: no CODEOWNERS file).
 */
async function pull(codeowners: string | Uint8Array | null, config = APPROVAL): Promise<ReportedPull> {
  nextPull += 1;
  const pr = await openConfiguredPull(
    h,
    nextPull,
    {
      [WRITER]: "write",
      [MAINTAINER]: "maintain",
      [DANA]: "maintain",
      [TEAMMATE]: "maintain",
      [INVITED]: "admin",
    },
    config,
  );
  setCodeowners(h, pr, codeowners);
  h.github.state.teams.setMembership(TEAM.org, TEAM.slug, TEAMMATE, "active");
  h.github.state.teams.setMembership(TEAM.org, TEAM.slug, INVITED, "pending");
  return pr;
}

async function reply(pr: ReportedPull, title: string, body: string, login = WRITER) {
  const { answer, id } = await replyTo(h, pr, title, body, login);
  await waitCommandJob(h, id);
  return answer;
}

const patches = () => sandboxCalls(h, PATCH_RESOLUTION);
const installationOf = (pr: ReportedPull) => h.github.state.repository(pr.owner, pr.repo)!.installationId;

async function auditOf(pr: ReportedPull, findingId: string): Promise<AuditEntry[]> {
  const out: AuditEntry[] = [];
  for await (const e of h.booted.rt.stores.audit.read({ repository: `${pr.owner}/${pr.repo}` }))
    if (e.pullNumber === pr.pullNumber && e.findingId === findingId) out.push(e);
  return out;
}

describe("code owners approve dismissals (triage.approval.codeowners)", () => {
  it("a team's active member approves; a maintainer outside the team and a pending member are refused, owners named", async () => {
    const pr = await pull(CODEOWNERS);
    const held = await reply(pr, SECRET, "/fp not_reachable");
    expect(held).toContain("**Approval requested**");
    expect(held).toContain(
      "The approver must also be a code owner of `src/server.js` in `.github/CODEOWNERS` (`triage.approval.codeowners`): `@octo-org/app-sec`.",
    );
    expect(held).not.toMatch(/(^|[^`])@octo-org\/app-sec/); // named, not mentioned
    const before = patches();

    const outsider = await reply(pr, SECRET, "/approve", MAINTAINER);
    expect(outsider).toContain(
      "needs a code owner of `src/server.js` (`triage.approval.codeowners`): `@octo-org/app-sec`.",
    );
    expect(outsider).toContain(
      `\`@${MAINTAINER}\` is not a code owner of that file, so nothing was changed.`,
    );
    const invited = await reply(pr, SECRET, "/approve", INVITED);
    expect(invited).toContain("Your membership of `@octo-org/app-sec` is pending");
    expect(patches()).toBe(before);
    expect(sandboxFinding(h, pr, SECRET).resolutionStatus).toBe("NOT_STARTED");

    const ok = await reply(pr, SECRET, "/approve", TEAMMATE);
    expect(ok).toContain("is now **False positive**");
    expect(ok).toContain("Approved as a code owner of `src/server.js` (`@octo-org/app-sec`).");
    expect(patches()).toBe(before + 1);
    expect(sandboxFinding(h, pr, SECRET).resolutionStatus).toBe("FALSE_POSITIVE");

    const audit = await auditOf(pr, pr.byTitle.get(SECRET)!);
    expect(audit.map((e) => [e.action, e.outcome, e.approver ?? e.actor, e.codeOwners])).toEqual([
      ["approval-request", "held", WRITER, ["@octo-org/app-sec"]],
      ["approve", "refused", MAINTAINER, ["@octo-org/app-sec"]],
      ["approve", "refused", INVITED, ["@octo-org/app-sec"]],
      ["approve", "applied", TEAMMATE, ["@octo-org/app-sec"]],
    ]);
  });

  it("a user owner approves (login without case); the e-mail owner is skipped with a note; self-approval stays refused", async () => {
    const pr = await pull(CODEOWNERS);
    const held = await reply(pr, SQLI, "/wontfix risk_accepted");
    expect(held).toContain("(`triage.approval.codeowners`): `@Octo-Dana`.");
    expect(held).toContain(
      "The e-mail owner `ops@example.com` cannot be checked by diffward and is skipped.",
    );
    // the requester is refused whoever owns the file
    h.github.state.setPermission(pr.owner, pr.repo, WRITER, "admin");
    expect(await reply(pr, SQLI, "/approve", WRITER)).toContain("you cannot approve it too");
    h.github.state.setPermission(pr.owner, pr.repo, WRITER, "write");
    const ok = await reply(pr, SQLI, "/approve", DANA);
    expect(ok).toContain("is now **Won't fix**");
    expect(sandboxFinding(h, pr, SQLI).resolutionStatus).toBe("WONT_FIX");
  });

  it.each([
    {
      name: "a file no rule owns",
      codeowners: "/docs/ @octo-dana\n",
      why: "no rule of `.github/CODEOWNERS` names a user or team owning `src/server.js`",
    },
    { name: "no CODEOWNERS file", codeowners: null, why: "has no CODEOWNERS file" },
    {
      name: "an invalid CODEOWNERS (GitHub's errors)",
      codeowners: "/src/server.js @octo-org/app-sec\n/src/ owner-without-at\n",
      why: "GitHub lists 1 error in `.github/CODEOWNERS` (line 2: Invalid owner), so it is not used",
    },
    {
      name: "a CODEOWNERS over GitHub's 3 MB",
      codeowners: `/src/server.js @octo-org/app-sec\n${"# padding line of a very large CODEOWNERS file\n".repeat(70_000)}`,
      why: "over GitHub's 3 MB limit for CODEOWNERS, so GitHub ignores it",
    },
    {
      name: "a binary CODEOWNERS",
      codeowners: Uint8Array.from([0x2f, 0x73, 0x72, 0x63, 0x00, 0xff, 0x40, 0x0a]),
      why: "is a binary file",
    },
  ])("$name: the role rule alone, and the held message says why", async ({ codeowners, why }) => {
    const pr = await pull(codeowners);
    const held = await reply(pr, SECRET, "/fp not_reachable");
    expect(held).toContain("Code owners do not limit who approves this one");
    expect(held).toContain(why);
    const ok = await reply(pr, SECRET, "/approve", MAINTAINER);
    expect(ok).toContain("is now **False positive**");
    expect(ok).toContain("; the role rule applied alone");
    const [request] = await auditOf(pr, pr.byTitle.get(SECRET)!);
    expect(request!.codeOwnersNote).toContain(why);
  });

  it("a CODEOWNERS of 100,000 lines is read whole: its last matching rule names the owners", async () => {
    const rules = Array.from({ length: 100_000 }, (_, i) => `/g/${i} @u${i}`).join("\n"); // 1.5 MB
    const pr = await pull(`/src/ @octo-dana\n${rules}\n/src/server.js @octo-org/app-sec\n`);
    const held = await reply(pr, SECRET, "/fp not_reachable");
    expect(held).toContain("(`triage.approval.codeowners`): `@octo-org/app-sec`.");
    expect(await reply(pr, SECRET, "/approve", DANA)).toContain("is not a code owner of that file");
    expect(await reply(pr, SECRET, "/approve", TEAMMATE)).toContain("is now **False positive**");
  });

  it("without members: read, team owners cannot be checked: the role rule alone, and the held message says so", async () => {
    // users whose memberships no earlier test read (a membership read is kept a minute)
    const [requester, approver] = ["octo-writer-b", "octo-maintainer-b"];
    const pr = await pull(CODEOWNERS);
    h.github.state.setPermission(pr.owner, pr.repo, requester, "write");
    h.github.state.setPermission(pr.owner, pr.repo, approver, "maintain");
    h.github.state.teams.setMembersRead(installationOf(pr), false);
    try {
      const held = await reply(pr, SECRET, "/fp not_reachable", requester);
      expect(held).toContain("the app lacks the `members: read` permission");
      expect(held).toContain("; the role rule applies alone");
      const ok = await reply(pr, SECRET, "/approve", approver);
      expect(ok).toContain("is now **False positive**");
    } finally {
      h.github.state.teams.setMembersRead(installationOf(pr), true);
    }
  });

  it("notify: true mentions the owners once, in the held message only", async () => {
    const pr = await pull(CODEOWNERS, `${APPROVAL}\n    notify: true`);
    const held = await reply(pr, SECRET, "/fp not_reachable");
    expect(held.match(/(?<!`)@octo-org\/app-sec/g)).toHaveLength(1);
    const refused = await reply(pr, SECRET, "/approve", MAINTAINER);
    expect(refused).toContain("`@octo-org/app-sec`");
    expect(refused).not.toMatch(/(^|[^`])@octo-org\/app-sec/);
  });

  it("the organization floor's codeowners: true binds a repository that leaves it off", async () => {
    const pr = await pull(CODEOWNERS, "triage:\n  approval:\n    minSeverity: high\n    approvers: maintain");
    h.github.state.addRepository({
      owner: pr.owner,
      name: ".github",
      installationId: installationOf(pr),
      files: {
        main: { ".github/diffward.yml": "enforce:\n  triage:\n    approval:\n      codeowners: true\n" },
      },
    });
    const held = await reply(pr, SECRET, "/fp not_reachable");
    expect(held).toContain("code owner of `src/server.js`");
    const outsider = await reply(pr, SECRET, "/approve", MAINTAINER);
    expect(outsider).toContain("is not a code owner of that file");
    expect(await reply(pr, SECRET, "/approve", TEAMMATE)).toContain("is now **False positive**");
  });
});
