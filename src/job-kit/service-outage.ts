import { DelayedError, type Job } from "bullmq";
import { updateCheck, type GitHubWrite } from "../github/writes.js";
import { renderLaunchError } from "../render/check-run.js";
import { isRetryable, isServiceOutage } from "../scanner/errors.js";
import type { Runtime } from "../runtime/runtime.js";
import { type Admission } from "../stores/service-breaker.js";
import { applyWrites } from "../runtime/apply-writes.js";
import { refusedToken, type TokenFact } from "./token-fact.js";
import type { LaunchJobData, PollJobData } from "../job-catalogue/index.js";

/** The breaker of the runtime's Redis and state prefix. */
export function breakerOf(rt: Runtime) {
  return rt.stores.breaker;
}

/** Whether the account's service tenant has an open (or half-open) breaker: nothing should be sent to it. */
export async function serviceUnavailable(rt: Runtime, accountLogin: string): Promise<boolean> {
  const tenant = rt.scanner.tenantKey(accountLogin);
  return tenant !== undefined && (await breakerOf(rt).isOpen(tenant));
}

/**
 * Records a service outage error ({@link isServiceOutage}: 5xx, timeout, no answer) on the account's tenant
 * breaker, honouring the answer's `Retry-After` (spec §Errors).
 * @returns when the breaker lets a probe through next (ms since epoch); `undefined` when `error` is not an outage.
 */
export async function recordOutage(
  rt: Runtime,
  accountLogin: string,
  error: unknown,
  probe = false,
): Promise<number | undefined> {
  const tenant = rt.scanner.tenantKey(accountLogin);
  if (tenant === undefined || !isServiceOutage(error)) return undefined;
  const retryAfterSeconds = "retryAfterSeconds" in error ? error.retryAfterSeconds : undefined;
  const res = await breakerOf(rt).recordFailure(tenant, rt.now(), { retryAfterSeconds, probe });
  rt.metrics?.breakerOpen.set({ tenant }, 1);
  if (probe) rt.metrics?.breakerProbes.inc({ tenant, result: "failed" });
  if (res.opened)
    rt.log.warn({ tenant, err: error, untilMs: res.untilMs }, "scanning service unavailable: breaker open");
  return res.untilMs;
}

/**
 * Asks the account's tenant breaker whether a request may reach the service now ({@link Admission}).
 * @returns `go` (with `probe` when this caller holds the one half-open probe: it must report the outcome with
 *   {@link serviceAnswered} or {@link recordOutage}), or `wait` with when to look again (ms since epoch).
 */
export async function admitRequest(
  rt: Runtime,
  accountLogin: string,
  owner: string,
): Promise<{ kind: "go"; probe: boolean } | { kind: "wait"; untilMs: number }> {
  const tenant = rt.scanner.tenantKey(accountLogin);
  if (tenant === undefined) return { kind: "go", probe: false };
  const admission: Admission = await breakerOf(rt).admit(tenant, owner, rt.now());
  if (admission.kind === "wait") return admission;
  return { kind: "go", probe: admission.kind === "probe" };
}

/**
 * Asks the account's tenant breaker whether a launch may reach the service now ({@link admitRequest}). When
 * this job holds the half-open probe, it sends it (`GET /token`, {@link Runtime.scanner}'s `probe`): on an
 * answer the breaker closes and every parked launch is woken once ({@link serviceAnswered}); on an outage it
 * opens again. A closed breaker means the service answered a request since the job began waiting (only an
 * answered probe closes it), so the job's wait is over: its `outageSince` is cleared, and a later outage is
 * waited for from its own start (a flapping service never concludes a check for the time it was up).
 * @returns `go` (send as usual) or `wait` with when to look again (ms since epoch).
 * @throws a non-outage error of the probe (the launch job's usual handling takes it).
 */
export async function admitLaunch(
  rt: Runtime,
  job: Job<LaunchJobData>,
): Promise<{ kind: "go" } | { kind: "wait"; untilMs: number }> {
  const login = job.data.accountLogin;
  const gate = await admitRequest(rt, login, `${job.id ?? ""}@${rt.now()}`);
  if (gate.kind === "wait") return gate;
  if (gate.probe) {
    try {
      await rt.scanner.probe(login);
    } catch (error) {
      const untilMs = await recordOutage(rt, login, error, true);
      if (untilMs !== undefined) return { kind: "wait", untilMs };
      // Not an outage (a 4xx, a 429): the service answered, so it is up again.
      await serviceAnswered(rt, login, job.id);
      throw error;
    }
    await serviceAnswered(rt, login, job.id);
  }
  if (job.data.outageSince !== undefined) {
    const { outageSince: _over, ...rest } = job.data;
    await job.updateData(rest);
  }
  return { kind: "go" };
}

/**
 * After the half-open probe got an answer: closes the account's tenant breaker and wakes each launch parked on
 * it once (a parked job is delayed; `promote` moves it to waiting; one already woken or gone is skipped). `self`
 * (the probing job) is not woken: it runs.
 */
export async function serviceAnswered(
  rt: Runtime,
  accountLogin: string,
  self: string | undefined,
): Promise<void> {
  const tenant = rt.scanner.tenantKey(accountLogin);
  if (tenant === undefined) return;
  const { wasOpen, parked } = await breakerOf(rt).recordSuccess(tenant);
  rt.metrics?.breakerProbes.inc({ tenant, result: "ok" });
  rt.metrics?.breakerOpen.set({ tenant }, 0);
  if (wasOpen)
    rt.log.info({ tenant, parked: parked.length }, "scanning service answers again: breaker closed");
  for (const id of parked) {
    if (id === self) continue;
    const waiting = await rt.queues.launch.getJob(id);
    await waiting?.promote().catch(() => undefined);
  }
}

/**
 * Parks a launch while its tenant's breaker is open: the first time, the check run says the service is
 * unavailable ({@link planOutageWait}) and the job remembers when (`outageSince`); the job is then delayed
 * until the next probe is due (`moveToDelayed` spends no attempt) and woken at once when the breaker closes.
 * Past `settings.serviceOutageMaxWaitMs` since `outageSince`, the check run concludes by the repository's
 * `onServiceOutage` ({@link planOutageConcluded}) instead.
 * A launch whose last attempt's outcome is unknown (`unknownOutcome`: its scan may exist and spend) is never
 * concluded "not scanned": it waits for the service however long it stays unavailable, its check run saying
 * why ({@link planUnknownOutcomeWait}; nothing is written for a launch no longer `wanted`, whose check run its
 * stop concluded).
 * @returns `concluded` when the wait limit was passed (the caller releases what the launch held).
 * @throws DelayedError when parked (BullMQ's signal for a job moved to delayed).
 */
export async function parkLaunch(
  rt: Runtime,
  job: Job<LaunchJobData>,
  token: string | undefined,
  untilMs: number,
  log: Runtime["log"],
  launch: { wanted: boolean; unknownOutcome: boolean } = { wanted: true, unknownOutcome: false },
): Promise<"concluded"> {
  const d = job.data;
  const now = rt.now();
  const since = d.outageSince ?? now;
  const maxWaitMs = rt.settings.serviceOutageMaxWaitMs;
  const limited = !launch.unknownOutcome;
  if (limited && now - since >= maxWaitMs) {
    await applyWrites(rt, d.installationId, planOutageConcluded(d, now - since));
    log.warn(
      { waitedMs: now - since, conclusion: d.config.onServiceOutage },
      "scanning service unavailable too long: check run concluded",
    );
    return "concluded";
  }
  if (d.outageSince === undefined) {
    const writes = launch.unknownOutcome ? planUnknownOutcomeWait(d) : planOutageWait(d, maxWaitMs);
    if (launch.wanted) await applyWrites(rt, d.installationId, writes);
    await job.updateData({ ...job.data, outageSince: since });
    if (launch.unknownOutcome)
      log.warn(
        { wanted: launch.wanted },
        "scanning service unavailable after a launch of unknown outcome: waits for it to read its scan list",
      );
    else log.warn("scanning service unavailable: the launch waits for it");
  }
  const tenant = rt.scanner.tenantKey(d.accountLogin);
  const parked =
    tenant !== undefined && job.id !== undefined && (await breakerOf(rt).park(tenant, job.id, now));
  // Never past the wait limit, so the check run concludes on time; at once when the breaker closed meanwhile.
  const wakeAt = parked
    ? Math.max(now + 1, limited ? Math.min(untilMs, since + maxWaitMs) : untilMs)
    : now + 10;
  await job.moveToDelayed(wakeAt, token);
  if (parked && tenant !== undefined && !(await breakerOf(rt).isOpen(tenant)))
    await job.promote().catch(() => undefined);
  throw new DelayedError();
}

/** The check-run write of a launch that begins waiting for the scanning service: in progress, saying so. Pure. */
export function planOutageWait(
  d: Pick<LaunchJobData, "owner" | "repo" | "checkRunId">,
  maxWaitMs: number,
): GitHubWrite[] {
  return [
    updateCheck(
      d,
      d.checkRunId,
      {
        status: "in_progress",
        output: renderLaunchError("service_unavailable", { maxWaitMinutes: Math.round(maxWaitMs / 60_000) }),
      },
      "update",
    ),
  ];
}

/**
 * The check-run write of a launch whose answer was lost and which waits for the scanning service to learn
 * whether its scan exists: in progress, saying so (`launch_unconfirmed`). Pure.
 */
export function planUnknownOutcomeWait(
  d: Pick<LaunchJobData, "owner" | "repo" | "checkRunId">,
): GitHubWrite[] {
  return [
    updateCheck(
      d,
      d.checkRunId,
      { status: "in_progress", output: renderLaunchError("launch_unconfirmed") },
      "update",
    ),
  ];
}

/**
 * The check-run write of a launch that waited `waitedMs` for the scanning service, past the limit: concluded
 * by `onServiceOutage` (`failure`, which GitHub shows with its Re-run button, or `neutral`). Pure.
 */
export function planOutageConcluded(
  d: Pick<LaunchJobData, "owner" | "repo" | "checkRunId" | "config">,
  waitedMs: number,
): GitHubWrite[] {
  return [
    updateCheck(d, d.checkRunId, {
      conclusion: d.config.onServiceOutage,
      output: renderLaunchError("service_outage", {
        waitedMinutes: Math.max(1, Math.round(waitedMs / 60_000)),
      }),
    }),
  ];
}

/**
 * For a job that follows a launched scan (poll, report): waits for the service until the tenant breaker's next
 * probe is due (`untilMs`, ms since epoch; `moveToDelayed`, no attempt spent, `outageSince` kept in the job's
 * data), so a check run is not concluded `failure` while the service is down; never past
 * `settings.serviceOutageMaxWaitMs` since the job first waited: then it returns and the job goes on as usual.
 * @throws DelayedError when the job waits.
 */
export async function waitForBreaker(
  rt: Runtime,
  job: Job<PollJobData>,
  token: string | undefined,
  untilMs: number,
  log: Runtime["log"],
): Promise<void> {
  const now = rt.now();
  const since = job.data.outageSince ?? now;
  if (now - since >= rt.settings.serviceOutageMaxWaitMs) return;
  if (job.data.outageSince === undefined) {
    await job.updateData({ ...job.data, outageSince: since });
    log.warn("scanning service unavailable: the job waits for it");
  }
  const until = Math.min(untilMs, since + rt.settings.serviceOutageMaxWaitMs);
  await job.moveToDelayed(Math.max(now + 1, until), token);
  throw new DelayedError();
}

/**
 * {@link waitForBreaker} after a request of the job failed: when `error` is a service outage
 * ({@link isServiceOutage}) it is recorded on the tenant breaker (`probe`: the request was the half-open probe)
 * and the job waits; any other error returns at once.
 * @throws DelayedError when the job waits.
 */
export async function waitOutOutage(
  rt: Runtime,
  job: Job<PollJobData>,
  token: string | undefined,
  error: unknown,
  probe: boolean,
  log: Runtime["log"],
): Promise<void> {
  const d = job.data;
  if (d.outageSince !== undefined && rt.now() - d.outageSince >= rt.settings.serviceOutageMaxWaitMs) return;
  const untilMs = await recordOutage(rt, d.accountLogin, error, probe);
  if (untilMs !== undefined) await waitForBreaker(rt, job, token, untilMs, log);
}

/**
 * The account's scanner token as the service answers it (`GET /token`, spec §Authentication): `found`, `absent`
 * (no token configured) or `refused` (4xx: wrong, expired or revoked, logged with the service's error). With
 * `outages` (pull requests, merge groups), an open breaker for the tenant, or a 5xx, timeout or no answer met
 * here (recorded on the breaker), is `unavailable` since now: a launch planned anyway waits for the service.
 * @throws the request's error when retrying may help and it is not taken as an outage (a 429; any 5xx
 * without `outages`): the job retries and never concludes "no token".
 */
export async function readAccountToken(
  rt: Runtime,
  accountLogin: string,
  log: Runtime["log"],
  { outages }: { outages: boolean },
): Promise<TokenFact> {
  const unavailable = (): TokenFact => ({
    kind: "unavailable",
    since: rt.now(),
    maxWaitMs: rt.settings.serviceOutageMaxWaitMs,
  });
  if (outages && (await serviceUnavailable(rt, accountLogin))) return unavailable();
  try {
    return (await rt.scanner.forAccount(accountLogin)) ? { kind: "found" } : { kind: "absent" };
  } catch (error) {
    if (outages && (await recordOutage(rt, accountLogin, error)) !== undefined) {
      log.warn({ err: error }, "scanning service unavailable: the launch will wait for it");
      return unavailable();
    }
    if (isRetryable(error)) throw error;
    log.warn({ err: error }, "scanner token refused by the service");
    return refusedToken(error);
  }
}
