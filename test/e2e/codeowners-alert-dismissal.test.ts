/**
 * Code owners approve dismissals made in GitHub code scanning (`triage.approval.codeowners`) end to end: real
 * webhooks through the app, Redis, the sandbox over HTTP and the GitHub stand-in with diffward's alerts and a
 * CODEOWNERS on the base branch. A writer's dismissal of an alert in GitHub's UI is held like a `/fp` in the
 * pull request: the held message names the code owners of the finding's file (or says why the role rule
 * applies alone), and the request keeps the rule and its owners, so turning the setting off later does not let
 * the role alone decide.
 */
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { Harness } from "../../dev/harness/harness.js";
import { dismissAlertAs } from "../../dev/harness/code-scanning.js";
import { demoConfig } from "../../dev/harness/demo-repo.js";
import {
  conversationAnswers,
  nextAnswer,
  sandboxFinding,
  SECRET,
  type ReportedPull,
} from "../support/reported-pull.js";
import * as commands from "../support/commands.js";
import type { AuditEntry } from "../../src/stores/audit-log.js";

const { openConfiguredPull, replyTo, setCodeowners, waitCommandJob, waitEventJob, WRITER } = commands;

const MAINTAINER = "octo-maintainer"; // the role, no code owner
const DANA = "octo-dana"; // the role, user owner of src/server.js (SECRET's file)
const UPLOAD = "codeScanning:\n  upload: true\n";
const APPROVAL = `${UPLOAD}triage:\n  approval:\n    minSeverity: high\n    approvers: maintain`;
const CODEOWNERS = `${APPROVAL}\n    codeowners: true`;
const OWNERS_FILE = "/src/server.js @Octo-Dana\n";
const NAMED =
  "The approver must also be a code owner of `src/server.js` in `.github/CODEOWNERS` (`triage.approval.codeowners`): `@Octo-Dana`.";

let h: Harness;
commands.useCommandHarness((started) => (h = started));

let nextPull = 700;
/** Opens a reported pull request with `config` and `codeowners` on its base branch (`null`: no CODEOWNERS). */
async function pull(codeowners: string | null, config = CODEOWNERS): Promise<ReportedPull> {
  nextPull += 1;
  const pr = await openConfiguredPull(
    h,
    nextPull,
    { [WRITER]: "write", [MAINTAINER]: "maintain", [DANA]: "maintain" },
    config,
  );
  setCodeowners(h, pr, codeowners);
  return pr;
}

/**
 * Dismisses the alert of the finding titled `title` as `login` in GitHub's UI; returns diffward's answer once
 * the alert's job has completed (its audit entry is written after the answer).
 */
async function dismissInUi(pr: ReportedPull, title: string, login = WRITER): Promise<string> {
  const id = pr.byTitle.get(title)!;
  const alert = await h.waitFor(
    () =>
      h.github.state
        .codeScanningAlerts(pr.owner, pr.repo)
        .find(
          (a) => a.mostRecent.ref === `refs/pull/${pr.pullNumber}/head` && a.mostRecent.message.includes(id),
        ),
    20_000,
    `code scanning alert of ${title}`,
  );
  const before = conversationAnswers(h, pr).length;
  const target = { owner: pr.owner, repo: pr.repo, alertNumber: alert.number };
  const payload = dismissAlertAs(h, { ...target, login, reason: "false positive", comment: "not reachable" });
  const delivery = randomUUID();
  expect((await h.send("code_scanning_alert", payload, delivery)).status).toBe(200);
  const answer = await nextAnswer(h, () => conversationAnswers(h, pr), before, "held dismissal announced");
  expect((await waitEventJob(h, "alert", delivery)).value).toBe("approval-requested");
  return answer.body;
}

async function reply(pr: ReportedPull, body: string, login: string): Promise<string> {
  const { answer, id } = await replyTo(h, pr, SECRET, body, login);
  await waitCommandJob(h, id);
  return answer;
}

describe("code owners approve dismissals made in GitHub code scanning", () => {
  it("the held message names the owners; a maintainer outside them is refused, an owner applies", async () => {
    const pr = await pull(OWNERS_FILE);
    const held = await dismissInUi(pr, SECRET);
    expect(held).toContain("approval requested");
    expect(held).toContain(NAMED);
    expect(held).not.toMatch(/(^|[^`])@Octo-Dana/); // named, not mentioned
    expect(sandboxFinding(h, pr, SECRET).resolutionStatus).toBe("NOT_STARTED");
    // the held request's audit entry names the owners it was held for, as a held `/fp`'s does
    const id = pr.byTitle.get(SECRET)!;
    const audit: AuditEntry[] = [];
    for await (const e of h.booted.rt.stores.audit.read({ repository: `${pr.owner}/${pr.repo}` }))
      if (e.pullNumber === pr.pullNumber && e.findingId === id) audit.push(e);
    expect(audit.map((e) => [e.action, e.outcome, e.source, e.codeOwners])).toEqual([
      ["approval-request", "held", "code-scanning", ["@Octo-Dana"]],
    ]);

    const outsider = await reply(pr, "/approve", MAINTAINER);
    expect(outsider).toContain(
      "needs a code owner of `src/server.js` (`triage.approval.codeowners`): `@Octo-Dana`.",
    );
    expect(outsider).toContain(
      `\`@${MAINTAINER}\` is not a code owner of that file, so nothing was changed.`,
    );
    expect(sandboxFinding(h, pr, SECRET).resolutionStatus).toBe("NOT_STARTED");

    const ok = await reply(pr, "/approve", DANA);
    expect(ok).toContain("is now **False positive**");
    expect(ok).toContain("Approved as a code owner of `src/server.js` (`@Octo-Dana`).");
    expect(sandboxFinding(h, pr, SECRET).resolutionStatus).toBe("FALSE_POSITIVE");
  });

  it("codeowners turned off after the hold: the request keeps the rule and its owners", async () => {
    const pr = await pull(OWNERS_FILE);
    expect(await dismissInUi(pr, SECRET)).toContain(NAMED);
    const branch = pr.payload.repository.default_branch as string;
    h.github.state.setFile(pr.owner, pr.repo, branch, ".github/diffward.yml", demoConfig(APPROVAL));

    expect(await reply(pr, "/approve", MAINTAINER)).toContain("is not a code owner of that file");
    expect(sandboxFinding(h, pr, SECRET).resolutionStatus).toBe("NOT_STARTED");
    expect(await reply(pr, "/approve", DANA)).toContain("is now **False positive**");
  });

  it("notify: true mentions the owners once; without a CODEOWNERS the held message says the role rule applies alone", async () => {
    const notified = await pull(OWNERS_FILE, `${CODEOWNERS}\n    notify: true`);
    const held = await dismissInUi(notified, SECRET);
    expect(held.match(/(?<!`)@Octo-Dana/g)).toHaveLength(1);

    const bare = await pull(null);
    const alone = await dismissInUi(bare, SECRET);
    expect(alone).toContain("Code owners do not limit who approves this one");
    expect(alone).toContain("has no CODEOWNERS file; the role rule applies alone");
    expect(await reply(bare, "/approve", MAINTAINER)).toContain("is now **False positive**");
  });
});
