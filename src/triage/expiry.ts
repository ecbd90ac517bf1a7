/**
 * Acceptances that expire (rules: `src/domain/acceptance.ts`), their store and schedule:
 * - the expiry is recorded with the finding's decision (`decisions:<owner/repo#n>`, `expiresAt` and
 *   `expiryId`), so it follows the finding across pushes like the decision itself;
 * - one BullMQ delayed job per expiry (`acceptance-expiry`, job id {@link expiryIdOf}: no `:`), due at the
 *   moment, on the events queue (BullMQ "Delayed jobs": a job whose moment passed while no worker ran is run
 *   as soon as one starts);
 * - the installation's expiries in a sorted set (`expiries:<installationId>`, score: the moment in ms), so
 *   {@link listAcceptanceExpiries} answers "acceptances ending in the next 30 days" without reading every
 *   pull request, and reconciliation finds the jobs to rebuild.
 * A later decision of the same finding identity (another command, an approval, a dismissal or reopening in
 * GitHub code scanning) cancels the expiry ({@link recordDecisionWithExpiry}).
 */
import { createHash } from "node:crypto";
import type { Logger } from "pino";
import { type AuditEntryInput } from "../stores/audit-log.js";
import type { AcceptanceExpiryJobData } from "../job-catalogue/index.js";
import { ExpiryPull, addJob } from "../job-catalogue/index.js";
import { pullKey } from "../runtime/names.js";
import type { Runtime } from "../runtime/runtime.js";
import { findingLabel } from "../scanner/labels.js";
import { isAcceptance, isExpiredNote, parseAcceptanceLine } from "../domain/acceptance.js";
import { identityOf } from "../domain/identity.js";
import type { ScannerTenant } from "../tenants/index.js";
import {
  addingDecisions,
  readDecisions,
  readPullDecisions,
  waitingForPullLock,
  writePullDecisions,
} from "./decisions.js";
import type { Decision } from "../domain/decision.js";

/** How long the installation's expiries index outlives its last expiry, in seconds (7 days). */
const INDEX_GRACE_SECONDS = 7 * 24 * 3600;

/**
 * The id of one acceptance's expiry, also its job id: `expiry-` and 24 hex characters of SHA-256 over the pull
 * request, the finding, the decision's time and the moment (a BullMQ job id has no `:` and is not only
 * digits). The same acceptance always gets the same id, so a rebuild never adds a second job.
 */
export function expiryIdOf(pull: Pick<ExpiryPull, "owner" | "repo" | "pullNumber">, d: Decision): string {
  const h = createHash("sha256");
  h.update(JSON.stringify([pullKey(pull.owner, pull.repo, pull.pullNumber), d.findingId, d.at, d.expiresAt]));
  return `expiry-${h.digest("hex").slice(0, 24)}`;
}

/**
 * Adds the expiry's delayed job (due at `expiresAt`, at once when it has passed) and its index entry. The
 * job id dedupes: scheduling an expiry twice adds one job.
 */
export async function scheduleExpiry(
  rt: Pick<Runtime, "queues" | "redis" | "stores" | "now">,
  pull: ExpiryPull,
  expiry: { expiryId: string; expiresAt: string },
): Promise<void> {
  const at = Date.parse(expiry.expiresAt);
  const data: AcceptanceExpiryJobData = { ...ExpiryPull.parse(pull), expiryId: expiry.expiryId };
  await addJob(rt, "acceptanceExpiry", data, {
    jobId: expiry.expiryId,
    delay: Math.max(0, at - rt.now()),
  });
  const ttl = Math.ceil(Math.max(0, at - rt.now()) / 1000) + INDEX_GRACE_SECONDS;
  await rt.stores.expiries.add(pull, expiry.expiryId, at, ttl);
}

/**
 * Ends an expiry: its delayed job is removed (one already running finds its decision changed and does
 * nothing) and its index entry dropped.
 */
export async function cancelExpiry(
  rt: Pick<Runtime, "queues" | "stores">,
  pull: ExpiryPull,
  expiryId: string,
): Promise<void> {
  const job = await rt.queues.events.getJob(expiryId);
  if (job && ["delayed", "waiting", "prioritized"].includes(await job.getState()))
    await job.remove().catch(() => undefined); // taken by a worker meanwhile: it finds the decision changed
  await dropExpiryEntry(rt, pull, expiryId);
}

/** Drops an expiry's entry from the installation's index (its job ended or was cancelled). */
export async function dropExpiryEntry(
  rt: Pick<Runtime, "stores">,
  pull: ExpiryPull,
  expiryId: string,
): Promise<void> {
  await rt.stores.expiries.remove(pull, expiryId);
}

/** The audit entry's fields every expiry event shares. */
export function expiryAudit(
  rt: Pick<Runtime, "settings">,
  pull: ExpiryPull,
  d: Pick<Decision, "findingId">,
): Pick<AuditEntryInput, "installationId" | "repository" | "pullNumber" | "findingId" | "findingLabel"> {
  return {
    installationId: pull.installationId,
    repository: `${pull.owner}/${pull.repo}`,
    pullNumber: pull.pullNumber,
    findingId: d.findingId,
    findingLabel: findingLabel(d.findingId, rt.settings.labelPrefix),
  };
}

/**
 * Records a decision and keeps its expiry in step ({@link writeDecisionWithExpiry}), under the pull
 * request's lock (`waitingForPullLock`).
 * @throws LockBusyError (the pull request's lock stayed busy), Redis errors: the caller's job retries.
 */
export async function recordDecisionWithExpiry(
  rt: Runtime,
  pull: ExpiryPull,
  decision: Decision,
  source: AuditEntryInput["source"],
  log: Logger,
): Promise<void> {
  await waitingForPullLock(rt, pullKey(pull.owner, pull.repo, pull.pullNumber), () =>
    writeDecisionWithExpiry(rt, pull, decision, source, log),
  );
}

/**
 * Records a decision (replacing the one of the same identity, `addingDecisions`) and keeps its expiry in
 * step: a decision with `expiresAt` gets its `expiryId` and a scheduled job; the earlier decision's expiry,
 * when it had another one, is cancelled and the cancellation audited (`expiry-cancelled`, `source` says
 * what changed the decision). For a caller that holds the pull request's lock (`withPullLock` is not
 * re-entrant), so an expiry job, which acts under that lock, sees the decision before or after, never half.
 * @throws Redis errors: the caller's job retries.
 */
export async function writeDecisionWithExpiry(
  rt: Runtime,
  pull: ExpiryPull,
  decision: Decision,
  source: AuditEntryInput["source"],
  log: Logger,
): Promise<void> {
  const key = pullKey(pull.owner, pull.repo, pull.pullNumber);
  const earlier = (await readDecisions(rt, key, log)).find(
    (d) => d.findingId === decision.findingId || d.fingerprint === decision.fingerprint,
  );
  const { expiryId: _stale, ...plain } = decision;
  const next: Decision = plain.expiresAt ? { ...plain, expiryId: expiryIdOf(pull, plain) } : plain;
  await writePullDecisions(rt, key, addingDecisions([next]));
  if (earlier?.expiryId && earlier.expiryId !== next.expiryId) {
    await cancelExpiry(rt, pull, earlier.expiryId);
    log.info({ finding: earlier.findingId, expiresAt: earlier.expiresAt }, "acceptance expiry cancelled");
    await rt.stores.audit.append({
      ...expiryAudit(rt, pull, earlier),
      actor: decision.by,
      action: "expiry-cancelled",
      from: earlier.resolutionStatus,
      to: decision.resolutionStatus,
      ...(earlier.expiresAt ? { expiresAt: earlier.expiresAt } : {}),
      source,
      outcome: "applied",
    });
  }
  if (next.expiryId && next.expiresAt)
    await scheduleExpiry(rt, pull, { expiryId: next.expiryId, expiresAt: next.expiresAt });
}

/** One acceptance that expires, as {@link listAcceptanceExpiries} lists it. */
export interface AcceptanceExpiry {
  owner: string;
  repo: string;
  pullNumber: number;
  findingId: string;
  /** `WONT_FIX` or `MITIGATED` */
  resolutionStatus: string;
  reason?: string;
  /** GitHub login of who accepted (the requester, for an approved acceptance) */
  by: string;
  approvedBy?: string;
  /** ISO 8601 date-time */
  expiresAt: string;
  expiryId: string;
}

/**
 * The installation's acceptances ending within `withinMs` of now (ms; those already due but not yet applied
 * too), soonest first, read from its expiries index and each pull request's decisions (an entry whose
 * decision changed meanwhile is left out). For the organization page's "acceptances expiring in the next
 * 30 days": `listAcceptanceExpiries(rt, installationId, { withinMs: 30 * 86_400_000 })`.
 */
export async function listAcceptanceExpiries(
  rt: Runtime,
  installationId: number,
  options: { withinMs: number },
): Promise<AcceptanceExpiry[]> {
  const entries = await rt.stores.expiries.entries(installationId, rt.now() + options.withinMs);
  const byPull = new Map<string, Decision[]>();
  const out: AcceptanceExpiry[] = [];
  for (const e of entries) {
    const key = pullKey(e.owner, e.repo, e.pullNumber);
    if (!byPull.has(key)) byPull.set(key, (await readPullDecisions(rt, key)).decisions);
    const d = byPull.get(key)!.find((x) => x.expiryId === e.expiryId);
    if (!d?.expiresAt) continue;
    out.push({
      owner: e.owner,
      repo: e.repo,
      pullNumber: e.pullNumber,
      findingId: d.findingId,
      resolutionStatus: d.resolutionStatus,
      ...(d.reason ? { reason: d.reason } : {}),
      by: d.by,
      ...(d.approvedBy ? { approvedBy: d.approvedBy } : {}),
      expiresAt: d.expiresAt,
      expiryId: e.expiryId,
    });
  }
  return out;
}

/**
 * Rebuilds the expiries of a pull request's acceptances from what the service holds, after diffward's Redis
 * state was lost (reconciliation's sweep): for each finding of the pull request's last reported scan
 * (`scanId`, from its completed check run's `external_id`) in an acceptance state (`WONT_FIX`, `MITIGATED`),
 * the newest of diffward's acceptance lines and expiry notes among its notes ({@link latestAcceptance}); an
 * acceptance line there becomes the decision and its expiry job again (a moment already past: at once). An
 * expiry diffward still knows (same finding and moment) is left alone. Limit: a later acceptance of the same
 * finding without an expiry leaves no note line, so after a flush the earlier expiry is rebuilt (the
 * finding reopens: the safe side).
 * @returns how many expiries were rebuilt.
 * @throws the service's errors (the sweep counts the repository as not read).
 */
export async function rebuildExpiries(
  rt: Runtime,
  pull: ExpiryPull,
  tenant: ScannerTenant,
  scanId: string,
  log: Logger,
): Promise<number> {
  const known = await readDecisions(rt, pullKey(pull.owner, pull.repo, pull.pullNumber), log);
  let rebuilt = 0;
  for await (const f of tenant.client.iterateFindings(tenant.projectId, { scanId, limit: 100 })) {
    if (!isAcceptance(f.resolutionStatus)) continue;
    const detail = await tenant.client.getFinding(tenant.projectId, f.id);
    const latest = latestAcceptance(detail.notes);
    if (!latest || known.some((d) => d.findingId === f.id && d.expiresAt === latest.expiresAt)) continue;
    await recordDecisionWithExpiry(
      rt,
      pull,
      {
        findingId: detail.id,
        ...identityOf(detail),
        severity: detail.severity,
        resolutionStatus: detail.resolutionStatus,
        by: latest.by,
        at: latest.at,
        expiresAt: latest.expiresAt,
      },
      "expiry",
      log,
    );
    rebuilt += 1;
  }
  if (rebuilt > 0) log.info({ rebuilt, scanId }, "acceptance expiries rebuilt from the service");
  return rebuilt;
}

/**
 * The acceptance a finding's notes still carry (pure): the newest note that is either one of diffward's
 * acceptance lines or one of its expiry notes; `undefined` when it is an expiry note (that acceptance ended)
 * or there is none.
 */
export function latestAcceptance(
  notes: readonly { body: string; createdAt: string }[],
): { expiresAt: string; by: string; at: string } | undefined {
  const newest = [...notes]
    .sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt))
    .find((n) => parseAcceptanceLine(n.body) || isExpiredNote(n.body));
  const line = newest && parseAcceptanceLine(newest.body);
  return line && newest ? { ...line, at: newest.createdAt } : undefined;
}

/**
 * Makes sure every expiry diffward still records has its job (reconciliation, at every start): for each
 * entry of each installation's expiries index whose decision still carries it, a job that failed for good
 * (the service unreachable through all its attempts) is retried and a missing one added again (due at its
 * moment, at once when it passed); an entry whose decision changed is dropped. Redis only.
 * @returns how many jobs were retried or added.
 */
export async function resumeExpiries(rt: Runtime, log: Logger): Promise<number> {
  let resumed = 0;
  for (const installationId of await rt.stores.expiries.installations()) {
    for (const e of await rt.stores.expiries.entries(installationId)) {
      const decisions = await readDecisions(rt, pullKey(e.owner, e.repo, e.pullNumber), log);
      const d = decisions.find((x) => x.expiryId === e.expiryId);
      if (!d?.expiresAt) {
        await dropExpiryEntry(rt, e, e.expiryId);
        continue;
      }
      const job = await rt.queues.events.getJob(e.expiryId);
      const state = job ? await job.getState() : undefined;
      if (job && state === "failed") await job.retry("failed");
      else if (!job) await scheduleExpiry(rt, e, { expiryId: e.expiryId, expiresAt: d.expiresAt });
      if (!job || state === "failed") resumed += 1;
    }
  }
  if (resumed > 0) log.info({ resumed }, "acceptance expiry jobs resumed");
  return resumed;
}
