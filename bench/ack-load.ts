/**
 * The load generator of the week's acknowledgement figure (bench/week.ts), run in a child process of its own
 * (`bench/child.ts` `mode: "ack-load"`) so that its clock is not held up by the sandbox and the GitHub
 * stand-in the bench's parent process serves.
 */
import { postDelivery, signDelivery, type SignedDelivery } from "../dev/github-standin/index.js";
import { webhookExample } from "../dev/harness/examples.js";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { sleep } from "./lib.js";

/** A full garbage collection of this process now (V8's `gc`, exposed at run time), so none falls in the window. */
function collectGarbage(): void {
  setFlagsFromString("--expose-gc");
  (runInNewContext("gc") as () => void)();
}

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
 * round trip in ms, in sending order, and how many were not 2xx or failed.
 *
 * What is timed is the answer only: every delivery is built and signed before the first is sent, and one
 * `GET /healthz` of the same server first loads this process's HTTP client (Node loads `fetch`'s undici at
 * its first call, tens of ms) and opens a connection; then a full garbage collection clears what building
 * them left. None of it touches the webhook path; without them the first deliveries of each window carried
 * the load generator's own start (measured 60–150 ms).
 */
export async function ackLoad(o: AckLoadOptions): Promise<{ ms: number[]; failed: number }> {
  const deliveries: SignedDelivery[] = [];
  for (let i = 0; i < o.rate * o.seconds; i++) {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a raw webhook payload, edited in place
    const p: any = webhookExample("pull_request", "opened");
    p.number = o.from + i;
    p.pull_request.number = o.from + i;
    p.pull_request.head.sha = (o.from + i).toString(16).padStart(40, "a");
    p.repository.name = "not-onboarded";
    p.repository.full_name = `${p.repository.owner.login}/not-onboarded`;
    p.installation = { ...(p.installation ?? {}), id: o.installationId };
    deliveries.push(await signDelivery({ url: o.url, secret: o.secret, name: "pull_request", payload: p }));
  }
  await fetch(new URL("/healthz", o.url)).then((r) => r.text());
  collectGarbage();
  const ms: number[] = Array.from({ length: deliveries.length }, () => NaN);
  let failed = 0;
  const pending: Promise<void>[] = [];
  const start = performance.now();
  for (const [i, d] of deliveries.entries()) {
    const wait = start + (i * 1000) / o.rate - performance.now();
    if (wait > 0) await sleep(wait);
    pending.push(
      postDelivery(o.url, d).then(
        (r) => {
          if (r.status < 200 || r.status >= 300) failed += 1;
          ms[i] = r.durationMs;
        },
        () => void (failed += 1),
      ),
    );
  }
  await Promise.all(pending);
  return { ms: ms.filter((m) => !Number.isNaN(m)), failed };
}
