import { expect } from "vitest";
import type { Harness } from "../../dev/harness/harness.js";
import { webhookExample } from "../../dev/harness/examples.js";
import { demoConfig, demoPullFiles } from "../../dev/harness/demo-repo.js";
import { findingComments } from "../../dev/harness/triage.js";
import { reportEnded, type Payload } from "./pr.js";
import type { ScenarioInput } from "../../dev/sandbox/schemas.js";

/** The titles of {@link TRIAGE_SCENARIO}'s findings: CRITICAL, HIGH and MEDIUM. */
export const SQLI = "SQL injection in user lookup";
export const SECRET = "Session secret hard-coded";
export const RATE = "Missing rate limit on login";

/** Two blocking findings with comments (CRITICAL, HIGH), one MEDIUM below `failOn: high`. */
export const TRIAGE_SCENARIO: ScenarioInput = {
  name: "triage",
  spendCredits: 10,
  findings: [
    {
      title: SQLI,
      location: "src/db.js:12",
      severity: "CRITICAL",
      category: "injection",
      triageStatus: "CONFIRMED",
      confirmationEvidence: "POC",
      description: "`findUser` concatenates `req.query.name` into SQL.",
    },
    {
      title: SECRET,
      location: "src/server.js:8",
      severity: "HIGH",
      category: "secrets",
      description: "The session secret is a literal.",
    },
    {
      title: RATE,
      location: "src/server.js:31",
      severity: "MEDIUM",
      category: "authentication",
      description: "`POST /login` accepts unlimited attempts.",
    },
  ],
};

let shaCounter = 0;
/** A fresh 40-hex head SHA. */
export function nextSha(): string {
  shaCounter += 1;
  return (Date.now().toString(16) + shaCounter.toString(16).padStart(6, "0")).padStart(40, "a").slice(-40);
}

/** One reported pull request of the harness. */
export interface ReportedPull {
  owner: string;
  repo: string;
  pullNumber: number;
  headSha: string;
  payload: Payload;
  /** finding id → diffward's review comment id */
  comments: Map<string, number>;
  /** finding ids by title */
  byTitle: Map<string, string>;
}

/** The sandbox's record of the finding titled `title` on `pr` (resolution status, notes, severity). */
export function sandboxFinding(h: Harness, pr: Pick<ReportedPull, "byTitle">, title: string) {
  return h.sandbox.state.findings.get(pr.byTitle.get(title)!)!;
}

/**
 * Opens pull request `pullNumber` of the example repository (real `pull_request.opened` payload), with
 * `permissions` seeded, and waits until diffward has reported its scan (check run completed).
 */
export async function openReportedPull(
  h: Harness,
  pullNumber: number,
  permissions: Record<string, "admin" | "maintain" | "write" | "triage" | "read" | "none"> = {},
  configExtra = "",
): Promise<ReportedPull> {
  const headSha = nextSha();
  const p: Payload = webhookExample("pull_request", "opened");
  p.number = pullNumber;
  p.pull_request.number = pullNumber;
  p.pull_request.head.sha = headSha;
  p.pull_request.updated_at = new Date().toISOString();
  const owner = p.repository.owner.login as string;
  const repo = p.repository.name as string;
  h.seed(p, {
    files: demoPullFiles(),
    repoFiles: { [p.repository.default_branch]: { ".github/diffward.yml": demoConfig(configExtra) } },
    permissions,
  });
  expect((await h.send("pull_request", p)).status).toBe(200);
  const run = await h.waitFor(
    () =>
      h.github.state.checkRuns(owner, repo).find((c) => c.headSha === headSha && c.status === "completed"),
    30_000,
    `check run of #${pullNumber}`,
  );
  await reportEnded(h, run.externalId, 30_000); // the review goes after the completion
  const at = { owner, repo, pullNumber };
  const comments = new Map(findingComments(h, at).map((c) => [c.findingId, c.id]));
  const byTitle = new Map<string, string>();
  for (const f of h.sandbox.state.findings.values()) {
    const scan = h.sandbox.state.scans.get(f.scanId);
    if (scan?.commitHash === headSha) byTitle.set(f.title, f.id);
  }
  return { owner, repo, pullNumber, headSha, payload: p, comments, byTitle };
}

/** The latest check run of a head. */
export function checkOf(h: Harness, pr: { owner: string; repo: string; headSha: string }) {
  return h.github.state
    .checkRuns(pr.owner, pr.repo)
    .filter((c) => c.headSha === pr.headSha)
    .at(-1)!;
}

/** diffward's answers in a thread (bot replies to `rootId`). */
export function threadAnswers(h: Harness, pr: ReportedPull, rootId: number) {
  return h.github.state
    .reviewComments(pr.owner, pr.repo, pr.pullNumber)
    .filter((c) => c.inReplyToId === rootId && c.user.type === "Bot");
}

/** diffward's conversation answers on a pull request. */
export function conversationAnswers(h: Harness, pr: ReportedPull) {
  return h.github.state.issueComments(pr.owner, pr.repo, pr.pullNumber).filter((c) => c.user.type === "Bot");
}

/** Waits until there are more than `count` items and returns the last one. */
export async function nextAnswer<T>(h: Harness, list: () => T[], count: number, what: string): Promise<T> {
  await h.waitFor(() => list().length > count, 20_000, what);
  return list().at(-1)!;
}

/**
 * Pushes a new head to `pr` (the stand-in's pull request head moves; a real `synchronize` payload is
 * sent) and waits until diffward has reported the scan of the new head. Returns the new head SHA and the
 * new scan's findings by title (sandbox state).
 */
export async function pushAndReport(h: Harness, pr: ReportedPull) {
  return waitForReport(h, pr, await pushHead(h, pr));
}

/** Moves `pr`'s head to a new SHA and sends the real `synchronize` payload; returns the new head. */
export async function pushHead(h: Harness, pr: ReportedPull): Promise<string> {
  const head = nextSha();
  h.github.state.updatePullRequestHead({ owner: pr.owner, repo: pr.repo, number: pr.pullNumber, sha: head });
  const sync = structuredClone(pr.payload);
  sync.action = "synchronize";
  sync.pull_request.head.sha = head;
  sync.pull_request.updated_at = new Date(Date.now() + 1000).toISOString();
  expect((await h.send("pull_request", sync)).status).toBe(200);
  return head;
}

/** Waits until diffward has reported the scan of `head` and its jobs are idle (see {@link pushAndReport}). */
export async function waitForReport(h: Harness, pr: ReportedPull, head: string) {
  const check = await h.waitFor(
    () =>
      h.github.state.checkRuns(pr.owner, pr.repo).find((c) => c.headSha === head && c.status === "completed"),
    30_000,
    `scan of ${head.slice(0, 7)} reported`,
  );
  // The check completes before the report state is stored and threads are synced: wait for the job's end.
  await h.waitFor(
    async () =>
      (await h.booted.rt.stores.reports.get(`${pr.owner}/${pr.repo}#${pr.pullNumber}`))?.headSha === head ||
      undefined,
    20_000,
    "report state stored",
  );
  await h.waitFor(
    async () => {
      const counts = await Promise.all(
        Object.values(h.booted.rt.queues).map((q) => q.getJobCounts("active", "waiting", "prioritized")),
      );
      return (
        counts.every((c) => (c.active ?? 0) + (c.waiting ?? 0) + (c.prioritized ?? 0) === 0) || undefined
      );
    },
    20_000,
    "queues idle",
  );
  const findings = [...h.sandbox.state.findings.values()].filter(
    (f) => h.sandbox.state.scans.get(f.scanId)?.commitHash === head,
  );
  return { head, check, byTitle: new Map(findings.map((f) => [f.title, f])) };
}

/**
 * The pull request's current `diffward` check run as GitHub shows it in the checks list: asked from the
 * stand-in's "List check runs for a Git reference" (default `filter=latest`: the most recent run of each
 * name wins), with every annotation it carries (the stand-in appends them on each update, as GitHub does).
 */
export async function currentCheckRun(h: Harness, pr: { owner: string; repo: string; headSha: string }) {
  const res = await fetch(
    `${h.github.url}/repos/${pr.owner}/${pr.repo}/commits/${pr.headSha}/check-runs?check_name=diffward`,
  );
  const body = (await res.json()) as { total_count: number; check_runs: Array<{ id: number }> };
  if (body.total_count !== 1) throw new Error(`expected one latest diffward run, got ${body.total_count}`);
  return h.github.state.checkRuns(pr.owner, pr.repo).find((c) => c.id === body.check_runs[0]!.id)!;
}
