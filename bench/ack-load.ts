/**
 * The load generator of the week's acknowledgement figure (bench/week.ts), run in a child process of its own
 * (`bench/child.ts` `mode: "ack-load"`) so that its clock is not held up by the sandbox and the GitHub
 * stand-in the bench's parent process serves.
 */
import { sendWebhook } from "../dev/github-standin/index.js";
import { webhookExample } from "../dev/harness/examples.js";
import { sleep } from "./lib.js";

/** Options of {@link ackLoad}. */
export interface AckLoadOptions {
  /** diffward's webhook endpoint */
  url: string;
  secret: string;
  /** deliveries per second */
  rate: number;
  seconds: number;
  /** the installation of the repository `not-onboarded` (seeded without `.github/diffward.yml`) */
  installationId: number;
  /** the first pull request number (each delivery its own) */
  from: number;
}

/**
 * Sends signed `pull_request.opened` deliveries of the repository `not-onboarded` (no `.github/diffward.yml`:
 * the job stops after reading the config) at `rate` per second for `seconds`, paced and not awaited in turn
 * (GitHub "Validating webhook deliveries": HMAC-SHA256 in `X-Hub-Signature-256`). Returns each answer's
 * time in ms and how many were not 2xx or failed.
 */
export async function ackLoad(o: AckLoadOptions): Promise<{ ms: number[]; failed: number }> {
  const ms: number[] = [];
  let failed = 0;
  const pending: Promise<void>[] = [];
  const start = performance.now();
  for (let i = 0; i < o.rate * o.seconds; i++) {
    const wait = start + (i * 1000) / o.rate - performance.now();
    if (wait > 0) await sleep(wait);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a raw webhook payload, edited in place
    const p: any = webhookExample("pull_request", "opened");
    p.number = o.from + i;
    p.pull_request.number = o.from + i;
    p.pull_request.head.sha = (o.from + i).toString(16).padStart(40, "a");
    p.repository.name = "not-onboarded";
    p.repository.full_name = `${p.repository.owner.login}/not-onboarded`;
    p.installation = { ...(p.installation ?? {}), id: o.installationId };
    pending.push(
      sendWebhook({ url: o.url, secret: o.secret, name: "pull_request", payload: p }).then(
        (r) => {
          if (r.status < 200 || r.status >= 300) failed += 1;
          ms.push(r.durationMs);
        },
        () => void (failed += 1),
      ),
    );
  }
  await Promise.all(pending);
  return { ms, failed };
}
