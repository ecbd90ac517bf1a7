import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHarness, type HeadlessHarness } from "../../dev/harness/harness.js";
import { webhookExample } from "../../dev/harness/examples.js";
import { sendWebhook } from "../../dev/github-standin/index.js";
import {
  REDIS_URL,
  childUrl,
  startChild,
  stopChild,
  waitForChildren,
  type BenchChild,
} from "../../bench/processes.js";

/** Counts every job in diffward's queues, in any state. */
async function jobCount(h: HeadlessHarness): Promise<number> {
  let n = 0;
  for (const q of Object.values(h.booted.rt.queues)) {
    const c = await q.getJobCounts("waiting", "active", "delayed", "completed", "failed", "prioritized");
    n += Object.values(c).reduce((a, b) => a + b, 0);
  }
  return n;
}

describe("the bench's web child (bench/child.ts mode web) behind a harness without a web server", () => {
  let h: HeadlessHarness;
  let web: BenchChild;
  beforeAll(async () => {
    h = await startHarness({ web: false, workers: false });
    web = startChild({
      mode: "web",
      redisUrl: REDIS_URL,
      prefix: h.prefix,
      sandboxUrl: h.sandbox.url,
      githubUrl: h.github.url,
      firstPollDelayMs: 1000,
      webhookSecret: h.webhookSecret,
    });
    await waitForChildren([web]);
  }, 90_000);
  afterAll(async () => {
    if (web) await stopChild(web.child);
    await h?.close();
  });

  it("starts no web server in the harness's process", () => {
    expect("web" in h).toBe(false);
    expect("send" in h).toBe(false);
  });

  it("prints its URL, verifies with the harness's secret and enqueues on the harness's Redis prefix", async () => {
    const url = `${childUrl(web)}/api/github/webhooks`;
    const payload = webhookExample("pull_request", "opened");
    const wrong = await sendWebhook({ url, secret: "not-the-secret", name: "pull_request", payload });
    expect(wrong.status).toBe(400);
    expect(await jobCount(h)).toBe(0);
    const ok = await sendWebhook({ url, secret: h.webhookSecret, name: "pull_request", payload });
    expect(ok.status).toBe(200);
    // the job is in the queue the harness's process sees (same Redis, same prefix)
    await h.waitFor(async () => (await jobCount(h)) === 1, 10_000, "the delivery's job");
    expect(web.samples[0]!.rssBytes).toBeGreaterThan(0);
  });
});
