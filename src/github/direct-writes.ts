/**
 * The GitHub writes that do not go through the write path, each listed in {@link DIRECT_WRITES} with the
 * reason and made by the function of the same name here. Every other write diffward makes is planned
 * (`GitHubWrite`, src/github/writes.ts) and applied by `applyWrites` (src/runtime/apply-writes.ts: the
 * installation's write lane, retries of a 5xx); test/architecture/write-path.test.ts fails on an Octokit
 * write anywhere else.
 */
import type { ProbotOctokit } from "probot";

/** A write made outside the write path: its endpoint (GitHub REST) and why it cannot go through the path. */
export interface DirectWrite {
  endpoint: string;
  reason: string;
}

/** The documented exceptions, by the name of the function that makes each. */
export const DIRECT_WRITES = {
  redeliver: {
    endpoint: "POST /app/hook/deliveries/{delivery_id}/attempts",
    reason:
      "A write as the App itself (its JWT), not as an installation: the write path sends an installation's " +
      "writes with that installation's Octokit in its write lane (GitHub's secondary limits count per " +
      "installation), and a webhook delivery belongs to no installation's lane. The recovery job " +
      "(src/recovery/recover-deliveries.ts) paces its redeliveries itself (`Settings.redeliveryPaceMs`), claims each " +
      "in the delivery ledger just before asking and puts the claim back on a refusal, and leaves a 5xx to its " +
      "next run: the write path's own retries would ask again under a claim the job may already have put back.",
  },
} as const satisfies Record<string, DirectWrite>;

/**
 * Asks GitHub to deliver a delivery again (REST "Redeliver a delivery for an app webhook", `POST
 * /app/hook/deliveries/{delivery_id}/attempts`, App JWT; 202): a new delivery of the same event with the
 * same GUID and `redelivery: true`. Outside the write path: {@link DIRECT_WRITES}.
 * @throws Octokit's RequestError on a GitHub error.
 */
export async function redeliver(app: ProbotOctokit, deliveryId: number): Promise<void> {
  await app.request("POST /app/hook/deliveries/{delivery_id}/attempts", { delivery_id: deliveryId });
}
