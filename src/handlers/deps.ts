import type { EmitterWebhookEvent, EmitterWebhookEventName } from "@octokit/webhooks";
import type { Logger } from "pino";
import { addJob, type JobData, type JobKind, type RepoContext } from "../job-catalogue/index.js";
import { type DeliveryLedger } from "../stores/delivery-ledger.js";
import type { PullStateStore } from "../stores/pull-state.js";
import type { Runtime } from "../runtime/runtime.js";

/** What handlers need: only the queues (and a logger). */
export interface HandlerDeps {
  queues: Runtime["queues"];
  /** Redis for the per-installation fairness counters (`src/runtime/fairness.ts`); without it jobs are plain FIFO */
  redis?: Runtime["redis"];
  /**
   * the deliveries accepted (`src/stores/delivery-ledger.ts`): a delivery of an event already accepted is
   * not handled again; without it only the job ids (kept while the job record is) dedupe redeliveries
   */
  deliveries?: Pick<DeliveryLedger, "accept" | "isAccepted">;
  /** notes a close as it arrives (`src/stores/pull-state.ts` `noteClose`), so a launch not yet sent stops */
  closes?: Pick<PullStateStore, "noteClose">;
  log?: Logger;
}

/** The handlers' dependencies in a process booted with `rt`. */
export function handlerDeps(
  rt: Pick<Runtime, "queues" | "redis" | "stores" | "settings">,
  log?: Logger,
): HandlerDeps {
  return {
    queues: rt.queues,
    redis: rt.redis,
    deliveries: rt.stores.deliveries,
    closes: rt.stores.pulls,
    ...(log ? { log } : {}),
  };
}

/**
 * A webhook handler: the delivery (its delivery id `id`, event name and payload, typed per event by
 * `@octokit/webhooks`: `EmitterWebhookEvent<"a" | "b">` is the union of both events, narrowed by `action`) and
 * the id of the installation that received it (the route in `src/handlers/index.ts` drops deliveries without
 * one before calling the handler).
 */
export type EventHandler<E extends EmitterWebhookEventName> = (
  deps: HandlerDeps,
  context: EmitterWebhookEvent<E>,
  installationId: number,
) => Promise<void>;

/**
 * Adds one job of `kind` with `data` (checked by its schema: `src/job-catalogue/`), fair per installation
 * (`src/runtime/fairness.ts`), with the job id `id` (built from the delivery id, so a redelivered webhook
 * collapses into the same job).
 * @throws InvalidJobDataError when the data does not match the kind's schema (nothing is enqueued)
 */
export async function enqueueEvent<K extends JobKind>(
  deps: HandlerDeps,
  kind: K,
  data: JobData<K>,
  id: string,
): Promise<void> {
  await addJob(deps, kind, data, { jobId: id, fair: true });
}

/** The parts of a webhook payload that name the repository (every repository event has them). */
interface RepositoryPayload {
  repository: {
    name: string;
    private: boolean;
    default_branch: string;
    html_url: string;
    owner: { login: string };
  };
}

/**
 * The {@link RepoContext} of a repository event: the installation, the account whose scanner token
 * applies (the repository owner's login), and the repository's name, visibility, default branch and URL.
 */
export function repoContext(payload: RepositoryPayload, installationId: number): RepoContext {
  const r = payload.repository;
  return {
    installationId,
    accountLogin: r.owner.login,
    owner: r.owner.login,
    repo: r.name,
    repoPrivate: r.private,
    defaultBranch: r.default_branch,
    repoHtmlUrl: r.html_url,
  };
}
