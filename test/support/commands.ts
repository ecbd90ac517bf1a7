/**
 * Set-up shared by the tests that drive commands end to end (the real app on Redis, the sandbox over HTTP
 * with the triage scenario, the GitHub stand-in): the harness's start and stop, opening a reported pull
 * request with a given config, and writing a command as a thread reply or a conversation comment.
 */
import { afterAll, beforeAll, expect } from "vitest";
import { startHarness, type Harness } from "../../dev/harness/harness.js";
import { webhookExample } from "../../dev/harness/examples.js";
import { demoConfig } from "../../dev/harness/demo-repo.js";
import { writeConversationComment, writeReviewReply } from "../../dev/harness/triage.js";
import {
  TRIAGE_SCENARIO,
  conversationAnswers,
  nextAnswer,
  openReportedPull,
  threadAnswers,
  type ReportedPull,
} from "./reported-pull.js";
import type { ScenarioInput } from "../../dev/sandbox/schemas.js";
import { UnthrottledOctokit } from "./octokit.js";
import { jobId } from "../../src/runtime/names.js";

/** The login that writes commands unless a test names another. */
export const WRITER = "octo-writer";

/** How a file's harness differs from the shared one. */
export interface CommandHarnessOptions {
  /** How long a sandbox scan runs, in milliseconds (default 1,000). */
  scanDurationMs?: number;
  /** `settings.publicUrl` of the app (the service's public base URL), when a test needs one. */
  publicUrl?: string;
  /** the sandbox's findings (default {@link TRIAGE_SCENARIO}) */
  scenario?: ScenarioInput;
}

/**
 * Starts the harness before the file's tests (triage scenario, `Retry-After: 1` s) and closes it after;
 * `started` receives the running harness. GitHub's secondary-limit pacing (one write per second,
 * comments 3 s apart) is for real GitHub only: the app's Octokit runs unthrottled here.
 */
export function useCommandHarness(started: (h: Harness) => void, options: CommandHarnessOptions = {}): void {
  let h: Harness | undefined;
  beforeAll(async () => {
    h = await startHarness({
      sandbox: {
        scenario: options.scenario ?? TRIAGE_SCENARIO,
        scanDurationMs: options.scanDurationMs ?? 1_000,
        retryAfterSeconds: 1,
      },
      ...(options.publicUrl === undefined ? {} : { settings: { publicUrl: options.publicUrl } }),
      boot: {
        Octokit: UnthrottledOctokit,
      },
    });
    started(h);
  });
  afterAll(async () => {
    await h?.close();
  });
}

/**
 * Opens pull request `pullNumber` with `permissions` seeded and `.github/diffward.yml` set to
 * `demoConfig(config)`, and waits until diffward has reported it. The stand-in keeps a repository's files
 * from its first seed, so the config file is written first when the repository already exists.
 */
export async function openConfiguredPull(
  h: Harness,
  pullNumber: number,
  permissions: Parameters<typeof openReportedPull>[2],
  config = "",
): Promise<ReportedPull> {
  const p = webhookExample("pull_request", "opened") as {
    repository: { owner: { login: string }; name: string; default_branch: string };
  };
  const owner = p.repository.owner.login;
  const repo = p.repository.name;
  if (h.github.state.repository(owner, repo))
    h.github.state.setFile(
      owner,
      repo,
      p.repository.default_branch,
      ".github/diffward.yml",
      demoConfig(config),
    );
  return openReportedPull(h, pullNumber, permissions, config);
}

/**
 * Replies `body` as `login` to diffward's comment of the finding titled `title` and waits for diffward's
 * answer in that thread. Returns the answer's body, the webhook payload sent, the thread's root comment id
 * and the delivery id.
 */
export async function replyTo(h: Harness, pr: ReportedPull, title: string, body: string, login = WRITER) {
  const parentId = pr.comments.get(pr.byTitle.get(title)!)!;
  const before = threadAnswers(h, pr, parentId).length;
  const payload = writeReviewReply(h, { ...pr, parentId, login, body });
  const sent = await h.send("pull_request_review_comment", payload);
  expect(sent.status).toBe(200);
  const answer = await nextAnswer(h, () => threadAnswers(h, pr, parentId), before, `answer to ${body}`);
  return { answer: answer.body, payload, parentId, id: sent.id };
}

/**
 * Writes `body` as `login` in the pull request's conversation and waits for diffward's answer there.
 * Returns the answer's body, the webhook payload sent and the delivery id.
 */
export async function sayIn(h: Harness, pr: ReportedPull, body: string, login = WRITER) {
  const before = conversationAnswers(h, pr).length;
  const payload = writeConversationComment(h, { ...pr, login, body });
  const sent = await h.send("issue_comment", payload);
  expect(sent.status).toBe(200);
  const answer = await nextAnswer(h, () => conversationAnswers(h, pr), before, `answer to ${body}`);
  return { answer: answer.body, payload, id: sent.id };
}

let nextBase = 0;
/**
 * Puts `text` as the only CODEOWNERS of the pull request's base branch (`.github/CODEOWNERS`; `null`: none) at
 * a new commit of that branch, as a CODEOWNERS change is one (diffward keeps a commit's parse).
 */
export function setCodeowners(h: Harness, pr: ReportedPull, text: string | Uint8Array | null): void {
  const base = pr.payload.pull_request.base.ref as string;
  const files = h.github.state.repository(pr.owner, pr.repo)!.files.get(base)!;
  for (const path of [".github/CODEOWNERS", "CODEOWNERS", "docs/CODEOWNERS"]) files.delete(path);
  if (text !== null) h.github.state.setFile(pr.owner, pr.repo, base, ".github/CODEOWNERS", text);
  nextBase += 1;
  h.github.state.setBranchHead(pr.owner, pr.repo, base, `c0de${String(nextBase).padStart(36, "0")}`);
}

/** How many requests the sandbox answered on `key` ("METHOD /route/pattern"), any status. */
export function sandboxCalls(h: Harness, key: string): number {
  return Object.values(h.sandbox.state.stats.requests[key] ?? {}).reduce((a, b) => a + b, 0);
}

/**
 * Waits until the events job `kind` (`cmd`: a command, `alert`: a code scanning alert event, `pr`: a pull
 * request event) of delivery
 * `deliveryId` has completed and returns `{ value }`, the job's outcome. A job's visible effect (an answer, a
 * held message) is posted before its last steps (the audit entry) end, so a test that reads those waits here.
 */
export async function waitEventJob(
  h: Harness,
  kind: "cmd" | "alert" | "pr",
  deliveryId: string,
): Promise<{ value: unknown }> {
  const id = jobId(kind, deliveryId);
  return h.waitFor(
    async () => {
      const job = await h.booted.rt.queues.events.getJob(id);
      if (!job || !(await job.isCompleted())) return undefined;
      // read it again: a copy fetched before the job completed has no return value yet
      return { value: (await h.booted.rt.queues.events.getJob(id))?.returnvalue };
    },
    20_000,
    `${kind} job ${deliveryId}`,
  );
}

/** {@link waitEventJob} for the command job of delivery `deliveryId`. */
export async function waitCommandJob(h: Harness, deliveryId: string): Promise<{ value: unknown }> {
  return waitEventJob(h, "cmd", deliveryId);
}
