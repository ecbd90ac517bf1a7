/**
 * The command job retried (BullMQ attempts): the pull request's lock busy (routine while the report's writes
 * wait in the write lane), a 5xx of the service on a later step. Each retry runs the command from the top,
 * and each of its service writes must still be sent once: the service records every `PATCH …/resolution`,
 * `PATCH …/severity` and `POST …/notes` it gets (spec §Findings). Real webhooks through the app, the sandbox
 * over HTTP, the GitHub stand-in, a real Redis.
 */
import { describe, expect, it } from "vitest";
import type { Harness } from "../../../dev/harness/harness.js";
import { jobId, pullKey } from "../../../src/runtime/names.js";
import { writeReviewReply } from "../../../dev/harness/triage.js";
import {
  nextAnswer,
  openReportedPull,
  threadAnswers,
  type ReportedPull,
  sandboxFinding,
  SQLI,
  SECRET,
  RATE,
} from "../../support/reported-pull.js";
import { replyTo, sandboxCalls, useCommandHarness, WRITER } from "../../support/commands.js";

const PATCH_RESOLUTION = "PATCH /projects/:projectId/findings/:findingId/resolution";
const PATCH_SEVERITY = "PATCH /projects/:projectId/findings/:findingId/severity";

let h: Harness;
useCommandHarness((started) => (h = started));

let nextPull = 700;
const pull = (): Promise<ReportedPull> => openReportedPull(h, (nextPull += 1), { [WRITER]: "write" });

/** The command job of a delivery, once it exists. */
async function commandJob(deliveryId: string) {
  return h.waitFor(
    async () => (await h.booted.rt.queues.events.getJob(jobId("cmd", deliveryId))) ?? undefined,
    10_000,
    `command job ${deliveryId}`,
  );
}

/**
 * Replies `command` to `title`'s comment while the pull request's lock is held by someone else, until the
 * command job has run into it `attempts` times; then frees the lock and waits for diffward's answer.
 */
async function withBusyLock(pr: ReportedPull, title: string, command: string, attempts = 2) {
  const lock = `${h.booted.rt.stores.prefix}:lock:${pullKey(pr.owner, pr.repo, pr.pullNumber)}`;
  expect(await h.booted.rt.redis.set(lock, "someone-else", "PX", 120_000, "NX")).toBe("OK");
  const parentId = pr.comments.get(pr.byTitle.get(title)!)!;
  const before = threadAnswers(h, pr, parentId).length;
  let id: string;
  try {
    const sent = await h.send(
      "pull_request_review_comment",
      writeReviewReply(h, { ...pr, parentId, login: WRITER, body: command }),
    );
    expect(sent.status).toBe(200);
    id = sent.id;
    await h.waitFor(
      async () => {
        const job = await h.booted.rt.queues.events.getJob(jobId("cmd", id));
        // a busy lock puts the job back to wait (it is contention, not failure): count its runs
        return job && job.attemptsStarted > attempts ? job : undefined;
      },
      20_000,
      `${attempts} attempts of ${command} on a busy lock`,
    );
  } finally {
    await h.booted.rt.redis.del(lock);
  }
  const answer = await nextAnswer(h, () => threadAnswers(h, pr, parentId), before, `answer to ${command}`);
  return { answer: answer.body, job: (await commandJob(id))! };
}

describe("a command retried sends each service write once", () => {
  it("/wontfix retried after a busy pull request lock: one resolution PATCH and one signed note", async () => {
    const pr = await pull();
    const patches = sandboxCalls(h, PATCH_RESOLUTION);
    const { answer, job } = await withBusyLock(pr, SQLI, "/wontfix risk_accepted");
    expect(job.attemptsStarted).toBeGreaterThanOrEqual(3);
    expect(answer).toContain("is now **Won't fix**");
    expect(sandboxFinding(h, pr, SQLI).resolutionStatus).toBe("WONT_FIX");
    expect(sandboxCalls(h, PATCH_RESOLUTION)).toBe(patches + 1);
    // the service records the reason as a note of its own (spec resolution rule 1), then diffward's signed note
    const notes = sandboxFinding(h, pr, SQLI).notes.map((n) => n.body);
    expect(notes).toEqual([
      expect.stringContaining("risk_accepted"),
      expect.stringContaining(`GitHub user @${WRITER} via diffward`),
    ]);
  });

  it("/severity retried after a busy pull request lock: one severity PATCH and one note", async () => {
    const pr = await pull();
    const patches = sandboxCalls(h, PATCH_SEVERITY);
    const { answer } = await withBusyLock(pr, RATE, "/severity low");
    expect(answer).toContain("set to **Low**");
    expect(sandboxCalls(h, PATCH_SEVERITY)).toBe(patches + 1);
    expect(sandboxFinding(h, pr, RATE).notes).toHaveLength(1);
  });

  it("/resolve whose note got a 503: the retry adds the note and does not send the resolution again", async () => {
    const pr = await pull();
    const patches = sandboxCalls(h, PATCH_RESOLUTION);
    await fetch(`${h.sandbox.url.replace(/\/api\/v1$/, "")}/_sandbox/faults`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ errors: { count: 1, status: 503, route: "POST .*/notes" } }),
    });
    const { answer } = await replyTo(h, pr, SECRET, "/resolve");
    expect(answer).toContain("is now **Resolved**");
    expect(sandboxCalls(h, PATCH_RESOLUTION)).toBe(patches + 1);
    expect(sandboxFinding(h, pr, SECRET).notes).toHaveLength(1);
  });
});
