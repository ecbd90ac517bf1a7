/**
 * The audit trail end to end: real webhooks through the app, the sandbox over HTTP, the GitHub stand-in and a
 * real Redis. An author's `/wontfix … for 30d`, a held `/fp` on a HIGH finding, the author's own `/approve`
 * (refused) and a maintainer's (applied), a `/reopen` (which cancels the acceptance's expiry), a reader's refused
 * command, a dismissal in GitHub's code scanning UI, a `/note`, a `/severity` and an acceptance of a few seconds
 * that expires each leave their entry, with the right actor, approver, action, states and outcome, listed by
 * `GET /audit` (bearer `DIFFWARD_ADMIN_TOKEN`; 401 without) and by `npm run audit:export`.
 */
import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Harness } from "../../dev/harness/harness.js";
import { dismissAlertAs } from "../../dev/harness/code-scanning.js";
import type { AuditEntry } from "../../src/stores/audit-log.js";
import { findingLabel } from "../../src/scanner/labels.js";
import { startWebServer, type WebServer } from "../../src/web.js";
import { openConfiguredPull, replyTo, useCommandHarness, waitEventJob } from "../support/commands.js";
import { type ReportedPull, SQLI, SECRET, RATE } from "../support/reported-pull.js";

const AUTHOR = "octo-writer";
const MAINTAINER = "octo-maintainer";
const READER = "octo-reader";
const TOKEN = "audit-admin-token";
const CONFIG =
  "codeScanning:\n  upload: true\ntriage:\n  approval:\n    minSeverity: high\n    approvers: maintain";

let h: Harness;
useCommandHarness((started) => (h = started));

let web: WebServer;
let pr: ReportedPull;
const started = new Date().toISOString();

beforeAll(async () => {
  // the web process's /audit, on the harness's Redis and state prefix (as src/index.ts serves it)
  web = await startWebServer({
    probot: h.booted.probot,
    app: () => undefined,
    rt: h.booted.rt,
    port: 0,
    audit: { token: TOKEN, trail: h.booted.rt.stores.audit },
  });
  pr = await openConfiguredPull(
    h,
    701,
    { [AUTHOR]: "write", [MAINTAINER]: "maintain", [READER]: "read" },
    CONFIG,
  );
});
afterAll(async () => web?.close());

/** Waits for a command's job to end (the entry is appended after its answer). */
async function reply(title: string, body: string, login: string) {
  const { answer, id } = await replyTo(h, pr, title, body, login);
  await waitEventJob(h, "cmd", id);
  return answer;
}

/** Sends a `code_scanning_alert` delivery and waits for its job. */
async function deliverAlert(payload: Record<string, unknown>): Promise<void> {
  const id = randomUUID();
  expect((await h.send("code_scanning_alert", payload, id)).status).toBe(200);
  await waitEventJob(h, "alert", id);
}

const idOf = (title: string) => pr.byTitle.get(title)!;
const labelOf = (title: string) => findingLabel(idOf(title), "SC");
const parse = (text: string) =>
  text
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as AuditEntry);

describe("audit trail (stand-in, sandbox, Redis)", () => {
  it("records each decision, applied, held or refused, and GET /audit and npm run audit:export list them", async () => {
    expect(await reply(RATE, "/wontfix risk_accepted for 30d", AUTHOR)).toContain("is now **Won't fix**");
    expect(await reply(SECRET, "/fp not_reachable", AUTHOR)).toContain("**Approval requested**");
    expect(await reply(SECRET, "/approve", AUTHOR)).toContain("you cannot approve it too");
    expect(await reply(SECRET, "/approve looked at it", MAINTAINER)).toContain("approved by");
    expect(await reply(RATE, "/reopen", MAINTAINER)).toContain("is now **Not started**");
    expect(await reply(SQLI, "/wontfix", READER)).toContain("nothing was changed");
    const alert = h.github.state
      .codeScanningAlerts(pr.owner, pr.repo)
      .find((a) => a.mostRecent.message.includes(idOf(SQLI)))!;
    await deliverAlert(
      dismissAlertAs(h, {
        owner: pr.owner,
        repo: pr.repo,
        alertNumber: alert.number,
        login: MAINTAINER,
        reason: "false positive",
        comment: "the query is parameterized upstream",
      }),
    );

    expect(await reply(SQLI, "/note tracked in JIRA-7", AUTHOR)).toContain("Added your note");
    expect(await reply(SQLI, "/severity low only the test fixtures reach it", MAINTAINER)).toContain(
      "Severity of",
    );

    // an acceptance of a few seconds: at its end the expiry job sets the finding back, without anyone acting
    const until = new Date(Date.now() + 3_000).toISOString();
    expect(await reply(RATE, `/wontfix risk_accepted until ${until}`, AUTHOR)).toContain("Accepted until");

    const repository = `${pr.owner}/${pr.repo}`;
    const read = async () => {
      const res = await fetch(`${web.url}/audit?repository=${repository}&since=${started}`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("application/x-ndjson; charset=utf-8");
      return parse(await res.text());
    };
    const entries = await h.waitFor(
      async () => {
        const all = await read();
        return all.some((e) => e.action === "expire") ? all : undefined;
      },
      20_000,
      "the expiry's audit entry",
    );
    const common = { installationId: expect.any(Number), repository, pullNumber: pr.pullNumber };
    expect(entries).toEqual([
      {
        ...common,
        time: expect.any(String),
        findingId: idOf(RATE),
        findingLabel: labelOf(RATE),
        actor: AUTHOR,
        action: "resolve",
        from: "NOT_STARTED",
        to: "WONT_FIX",
        reason: "risk_accepted",
        expiresAt: expect.any(String),
        source: "command",
        outcome: "applied",
      },
      expect.objectContaining({
        ...common,
        findingId: idOf(SECRET),
        actor: AUTHOR,
        action: "approval-request",
        to: "FALSE_POSITIVE",
        reason: "not_reachable",
        source: "command",
        outcome: "held",
      }),
      expect.objectContaining({
        findingId: idOf(SECRET),
        actor: AUTHOR,
        action: "approve",
        outcome: "refused",
        detail: expect.stringContaining("you cannot approve it too"),
      }),
      expect.objectContaining({
        findingId: idOf(SECRET),
        actor: AUTHOR,
        approver: MAINTAINER,
        action: "approve",
        from: "NOT_STARTED",
        to: "FALSE_POSITIVE",
        reason: "not_reachable",
        source: "command",
        outcome: "applied",
      }),
      // the /reopen ends the acceptance's expiry first, then is itself recorded
      expect.objectContaining({
        findingId: idOf(RATE),
        actor: MAINTAINER,
        action: "expiry-cancelled",
        from: "WONT_FIX",
        to: "NOT_STARTED",
        expiresAt: entries[0]!.expiresAt,
        source: "command",
        outcome: "applied",
      }),
      expect.objectContaining({
        findingId: idOf(RATE),
        actor: MAINTAINER,
        action: "reopen",
        from: "WONT_FIX",
        to: "NOT_STARTED",
        source: "command",
        outcome: "applied",
      }),
      // refused below the permission floor, before the finding is read: the thread names it
      expect.objectContaining({
        findingId: idOf(SQLI),
        actor: READER,
        action: "resolve",
        outcome: "refused",
        detail: expect.stringContaining("nothing was changed"),
      }),
      expect.objectContaining({
        ...common,
        findingId: idOf(SQLI),
        findingLabel: labelOf(SQLI),
        actor: MAINTAINER,
        action: "resolve",
        from: "NOT_STARTED",
        to: "FALSE_POSITIVE",
        reason: "the query is parameterized upstream",
        source: "code-scanning",
        outcome: "applied",
        detail: `code scanning alert #${alert.number}`,
      }),
      expect.objectContaining({
        findingId: idOf(SQLI),
        actor: AUTHOR,
        action: "note",
        reason: "tracked in JIRA-7",
        source: "command",
        outcome: "applied",
      }),
      expect.objectContaining({
        findingId: idOf(SQLI),
        actor: MAINTAINER,
        action: "severity",
        from: "CRITICAL",
        to: "LOW",
        reason: "only the test fixtures reach it",
        source: "command",
        outcome: "applied",
      }),
      expect.objectContaining({
        findingId: idOf(RATE),
        actor: AUTHOR,
        action: "resolve",
        to: "WONT_FIX",
        expiresAt: until,
        source: "command",
        outcome: "applied",
      }),
      expect.objectContaining({
        findingId: idOf(RATE),
        actor: AUTHOR,
        action: "expire",
        from: "WONT_FIX",
        to: "NOT_STARTED",
        expiresAt: until,
        source: "expiry",
        outcome: "applied",
      }),
    ]);
    // not before its moment
    expect(Date.parse(entries.at(-1)!.time)).toBeGreaterThanOrEqual(Date.parse(until));
    // the acceptance's end: 30 days from the command
    const days = (Date.parse(entries[0]!.expiresAt!) - Date.parse(entries[0]!.time)) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThanOrEqual(30);
    // nothing secret: no token of the harness in any entry
    const text = JSON.stringify(entries);
    for (const secret of [TOKEN, h.webhookSecret, "sandbox-token"]) expect(text).not.toContain(secret);

    // without the token, or with another, nothing
    expect((await fetch(`${web.url}/audit`)).status).toBe(401);
    expect((await fetch(`${web.url}/audit`, { headers: { authorization: "Bearer nope" } })).status).toBe(401);

    // the same lines from the export script, on the same Redis and prefix
    const out = join(tmpdir(), `audit-${randomUUID()}.jsonl`);
    try {
      const run = await promisify(execFile)(
        process.execPath,
        [
          "--import",
          "tsx",
          "scripts/audit-export.ts",
          "--prefix",
          h.prefix,
          "--repository",
          repository,
          "--since",
          started,
          "--out",
          out,
        ],
        { env: { ...process.env, REDIS_URL: process.env.REDIS_URL ?? "redis://127.0.0.1:6379" } },
      );
      expect(run.stderr).toContain(`audit entries: ${entries.length}, written to ${out}`);
      expect(parse(await readFile(out, "utf8"))).toEqual(entries);
    } finally {
      await rm(out, { force: true });
    }
  });
});
