import type { Job } from "bullmq";
import type { Harness } from "../../dev/harness/harness.js";
import { webhookExample } from "../../dev/harness/examples.js";
import { demoConfig, demoPullFiles } from "../../dev/harness/demo-repo.js";
import type { CheckRun } from "../../dev/github-standin/state.js";
import { jobId } from "../../src/runtime/names.js";

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- raw webhook payloads, edited in place
export type Payload = any;

export const MERGE_BASE = "c0ffee".padEnd(40, "0");

/** A 40-hex head SHA from a small number, distinct per test. */
export function sha(n: number): string {
  return n.toString(16).padStart(8, "0").repeat(5);
}

/** Options of {@link openPull}. */
export interface OpenOptions {
  head: string;
  /** the text of .github/diffward.yml on the default branch; `null` for none */
  config?: string | null;
  files?: ReturnType<typeof demoPullFiles>;
  private?: boolean;
  draft?: boolean;
  number?: number;
  repo?: string;
  permissions?: Record<string, "admin" | "maintain" | "write" | "triage" | "read" | "none">;
  deliveryId?: string;
  send?: boolean;
  /** the installation's id (default: the example's); GitHub gives each installation its own */
  installationId?: number;
  /** the repository's owner (default: the example's user, Codertocat) */
  owner?: { login: string; type: "User" | "Organization" };
}

/** What {@link seedPull} seeded: the payload to send and where the pull request lives. */
export interface SeededPull {
  payload: Payload;
  owner: string;
  repo: string;
  number: number;
}

/**
 * Seeds the GitHub stand-in with a pull request from the real `pull_request.opened` example (the demo
 * files, merge base {@link MERGE_BASE}, `.github/diffward.yml`) without sending it: for tests that send
 * the delivery themselves (twice, under a chosen id, through a proxy).
 */
export function seedPull(h: Pick<Harness, "seed">, o: OpenOptions): SeededPull {
  const p: Payload = webhookExample("pull_request", "opened");
  p.pull_request.head.sha = o.head;
  p.pull_request.updated_at = new Date(Date.now()).toISOString();
  if (o.number) {
    p.number = o.number;
    p.pull_request.number = o.number;
  }
  if (o.owner) p.repository.owner = { ...p.repository.owner, ...o.owner };
  if (o.repo || o.owner) {
    p.repository.name = o.repo ?? p.repository.name;
    p.repository.full_name = `${p.repository.owner.login}/${p.repository.name}`;
    p.repository.id = 1000 + p.repository.name.length * 7 + p.repository.name.charCodeAt(0);
    // same-repository pull request: head and base live in the renamed repository
    for (const side of [p.pull_request.head, p.pull_request.base])
      if (side.repo) side.repo = { ...p.repository };
  }
  if (o.installationId !== undefined) p.installation.id = o.installationId;
  if (o.private !== undefined) p.repository.private = o.private;
  if (o.draft !== undefined) p.pull_request.draft = o.draft;
  const config = o.config === undefined ? demoConfig() : o.config;
  h.seed(p, {
    files: o.files ?? demoPullFiles(),
    mergeBaseSha: MERGE_BASE,
    repoFiles: config === null ? {} : { [p.repository.default_branch]: { ".github/diffward.yml": config } },
    ...(o.permissions ? { permissions: o.permissions } : {}),
  });
  return { payload: p, owner: p.repository.owner.login, repo: p.repository.name, number: p.number };
}

/** {@link seedPull}, then sends the `pull_request.opened` delivery (unless `send: false`); `ack` is its answer. */
export async function openPull(h: Harness, o: OpenOptions) {
  const pr = seedPull(h, o);
  const ack = o.send === false ? undefined : await h.send("pull_request", pr.payload, o.deliveryId);
  return { ...pr, ack };
}

/** Moves the pull request to a new head and sends the real `pull_request.synchronize` example. */
export async function pushPull(
  h: Harness,
  pr: { owner: string; repo: string; number: number; payload: Payload },
  head: string,
) {
  const p: Payload = webhookExample("pull_request", "synchronize");
  p.number = pr.number;
  p.repository = pr.payload.repository;
  p.installation = pr.payload.installation; // the pull request's own (openPull's `installationId`)
  p.pull_request.number = pr.number;
  p.pull_request.head.sha = head;
  p.pull_request.base = pr.payload.pull_request.base;
  p.pull_request.updated_at = new Date(Date.now() + 1000).toISOString();
  h.github.state.updatePullRequestHead({
    owner: pr.owner,
    repo: pr.repo,
    number: pr.number,
    sha: head,
    mergeBaseSha: MERGE_BASE,
  });
  return h.send("pull_request", p);
}

export function checkRuns(h: Harness, owner: string, repo: string, head?: string): CheckRun[] {
  return h.github.state.checkRuns(owner, repo).filter((c) => head === undefined || c.headSha === head);
}

/**
 * Waits for the completed diffward check run on `head` and, when it names a scan, for that scan's poll job
 * to end: the report completes the check run first and posts the review after, so a test that
 * reads the review waits for the whole report.
 */
export async function completedRun(
  h: Harness,
  owner: string,
  repo: string,
  head: string,
  timeoutMs = 25_000,
) {
  const run = await h.waitFor(
    () => checkRuns(h, owner, repo, head).find((c) => c.status === "completed"),
    timeoutMs,
    `completed check run on ${head.slice(0, 7)}`,
  );
  await reportEnded(h, run.externalId, timeoutMs);
  return run;
}

/**
 * Waits until the service has a scan of `head` (launched) and returns its id. Tests that act on a running
 * scan wait for this rather than for the scan id on the check run: that write is progress, the last in the
 * installation's write lane, and may show only with the completion.
 */
export async function launchedScan(h: Harness, head: string, timeoutMs = 10_000): Promise<string> {
  const scan = await h.waitFor(
    () => [...h.sandbox.state.scans.values()].find((s) => s.commitHash === head),
    timeoutMs,
    `scan of ${head.slice(0, 7)} launched`,
  );
  return scan.id;
}

/**
 * Waits until the poll job of `scanId` (when given) has ended and so has the report job it handed the scan
 * to (queue `diffward-reports`): its report, review included, is done.
 */
export async function reportEnded(h: Harness, scanId: string | undefined | null, timeoutMs = 25_000) {
  if (!scanId) return;
  const ended = async (job: Job | undefined) =>
    !job || ["completed", "failed"].includes(await job.getState());
  await h.waitFor(
    async () =>
      (await ended(await h.booted.rt.queues.scans.getJob(jobId("poll", scanId)))) &&
      (await ended(await h.booted.rt.queues.reports.getJob(jobId("report", scanId)))),
    timeoutMs,
    `report of scan ${scanId}`,
  );
}

/** Launch requests the sandbox received (`POST /projects/{projectId}/scans`). */
export function scansLaunched(h: Harness): number {
  return h.sandbox.state.scans.size;
}

/** `POST /projects/{projectId}/scans` requests the sandbox answered so far, whatever their status. */
export function launchPosts(h: Harness): number {
  const counts = h.sandbox.state.stats.requests["POST /projects/:projectId/scans"] ?? {};
  return Object.values(counts).reduce((a, b) => a + b, 0);
}
