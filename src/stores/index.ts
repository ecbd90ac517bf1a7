/**
 * diffward's Redis records, one module each, reached one way: `rt.stores`, built once per process by
 * {@link createStores} (src/boot.ts). Every key sits under the state prefix (`{dw}` by default; its hash tag
 * keeps each store's multi-key steps in one Redis Cluster slot); docs/architecture.md "Redis keys" names each
 * key's owner and end.
 */
import type { Logger } from "pino";
import type { Settings } from "../config/settings.js";
import { DEFAULT_STATE_PREFIX, type RedisConnection } from "../runtime/connection.js";
import { AuditLog } from "./audit-log.js";
import { BaselineStore } from "./baseline-state.js";
import { CapLedger } from "./cap-ledger.js";
import { CommandClaims } from "./command-claims.js";
import { DeliveryLedger } from "./delivery-ledger.js";
import { ExpiryIndex } from "./expiry-index.js";
import { OrgRecords } from "./org-records.js";
import { ApprovalStore } from "./pull-approvals.js";
import { DecisionStore } from "./pull-decisions.js";
import { PullStateStore } from "./pull-state.js";
import { ScanStateStore } from "./scan-state.js";
import { ReportStore } from "./stored-report.js";
import { ServiceBreaker } from "./service-breaker.js";
import { SuppressionStore } from "./suppressions.js";

/** The process's stores, all on one Redis connection and state prefix. */
export interface Stores {
  /** the state prefix every key of every store starts with */
  readonly prefix: string;
  /** pull requests and merge groups, their locks, check-run owners, claims, the state marker (`pull-state.ts`) */
  readonly pulls: PullStateStore;
  /** launches, scan links and ends, scans in flight, completion marks, code scanning uploads (`scan-state.ts`) */
  readonly scans: ScanStateStore;
  /** the pull requests' last reports (`stored-report.ts`) */
  readonly reports: ReportStore;
  /** the pull requests' decisions: resolutions and severity overrides (`pull-decisions.ts`) */
  readonly decisions: DecisionStore;
  /** the pull requests' dismissals awaiting a second person (`pull-approvals.ts`) */
  readonly approvals: ApprovalStore;
  /** the acceptances that expire, per installation, and their jobs' sent steps (`expiry-index.ts`) */
  readonly expiries: ExpiryIndex;
  /** the command comments' claims and the service writes they already sent (`command-claims.ts`) */
  readonly commands: CommandClaims;
  /** inline suppressions: each head commit's marker lines per file and the findings they acted on (`suppressions.ts`) */
  readonly suppressions: SuppressionStore;
  /** default-branch baselines: the one followed and the last completed (`baseline-state.ts`) */
  readonly baselines: BaselineStore;
  /** `creditCap.monthly`: reservations and spend per repository and month (`cap-ledger.ts`) */
  readonly capLedger: CapLedger;
  /** the circuit breaker of each service tenant (`service-breaker.ts`) */
  readonly breaker: ServiceBreaker;
  /** the organization's page's records: spend, report log, config problems, held approvals (`org-records.ts`) */
  readonly orgRecords: OrgRecords;
  /** the audit trail of triage decisions (`audit-log.ts`) */
  readonly audit: AuditLog;
  /** the App's webhook deliveries: recovery progress, redeliveries, accepted deliveries (`delivery-ledger.ts`) */
  readonly deliveries: DeliveryLedger;
}

/** What the stores take from the runtime beside Redis. */
export interface StoreOptions {
  /**
   * the runtime settings (durations in ms): the audit retention is read at each append, the redelivery
   * window when the stores are built
   */
  settings: Pick<Settings, "auditRetentionMs" | "redeliveryWindowMs">;
  /** ms since the epoch (the runtime's clock) */
  now(): number;
  log: Logger;
  /** how long a pull request's lock outlives a dead holder, in ms (default 60 s; tests shorten it) */
  lockTtlMs?: number;
}

/** How long the webhook delivery records outlive GitHub's redelivery window, in ms (an hour). */
const DELIVERY_RECORD_MARGIN_MS = 3_600_000;

/** Builds every store on `redis` under `prefix` (`{dw}` by default). */
export function createStores(
  redis: RedisConnection,
  prefix: string = DEFAULT_STATE_PREFIX,
  opts: StoreOptions,
): Stores {
  const { settings } = opts;
  return {
    prefix,
    pulls: new PullStateStore(redis, prefix, opts.lockTtlMs),
    scans: new ScanStateStore(redis, prefix),
    reports: new ReportStore(redis, prefix),
    decisions: new DecisionStore(redis, prefix),
    approvals: new ApprovalStore(redis, prefix),
    expiries: new ExpiryIndex(redis, prefix),
    commands: new CommandClaims(redis, prefix),
    suppressions: new SuppressionStore(redis, prefix),
    baselines: new BaselineStore(redis, prefix),
    capLedger: new CapLedger(redis, prefix),
    breaker: new ServiceBreaker(redis, prefix),
    orgRecords: new OrgRecords(redis, prefix),
    audit: new AuditLog(redis, prefix, {
      retentionMs: () => settings.auditRetentionMs,
      now: () => opts.now(),
      log: opts.log,
    }),
    // a record only matters while GitHub can still redeliver its event
    deliveries: new DeliveryLedger(redis, prefix, settings.redeliveryWindowMs + DELIVERY_RECORD_MARGIN_MS),
  };
}
