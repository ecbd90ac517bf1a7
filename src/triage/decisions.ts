/**
 * Decisions per pull request, and "decisions survive pushes": when a later scan of the same pull request
 * reports a finding with the same identity (equal id, equal fingerprint, or the same shape for a finding the
 * service triaged `RECURRING`/`DUPLICATE`: src/domain/identity.ts), the last severity override on it is
 * applied to the new finding (spec §Findings, `PATCH …/severity`), then the last resolution
 * (`PATCH …/resolution`), each unless the finding's severity rose since the team looked at it.
 */
import type { Logger } from "pino";
import { acceptanceLine } from "../domain/acceptance.js";
import { identityOf, matchFindings, storedIdentity, type MatchedBy } from "../domain/identity.js";
import type { ReportFinding } from "../domain/finding-types.js";
import { OPEN_RESOLUTIONS, severityRank } from "../domain/verdict.js";
import { matchedByText } from "../render/format.js";
import { ScannerApiError } from "../scanner/errors.js";
import { findingLabel } from "../scanner/labels.js";
import { severityName, statusName } from "../render/glossary.js";
import type { ScannerTenant } from "../tenants/index.js";
import { pullKey } from "../runtime/names.js";
import type { Runtime } from "../runtime/runtime.js";
import { LockBusyError } from "../stores/pull-state.js";
import type { SeverityDecision } from "../domain/decision.js";
import { Decision, PullDecisions } from "../domain/decision.js";
import { StoredRecordError } from "../stores/stored-record.js";

/**
 * Reads a pull request's decisions document (resolutions and severity overrides). A document that does
 * not fit the schema (an older format, a manual edit) is treated as empty and logged, never a crash.
 */
export async function readPullDecisions(rt: Runtime, key: string, log?: Logger): Promise<PullDecisions> {
  try {
    return (await rt.stores.decisions.get(key)) ?? { decisions: [], severities: [] };
  } catch (error) {
    if (!(error instanceof StoredRecordError)) throw error;
    (log ?? rt.log).warn({ pull: key, err: error }, "stored decisions do not fit the schema: ignored");
    return { decisions: [], severities: [] };
  }
}

/** Reads a pull request's resolution decisions (see {@link readPullDecisions}). */
export async function readDecisions(rt: Runtime, key: string, log?: Logger): Promise<Decision[]> {
  return (await readPullDecisions(rt, key, log)).decisions;
}

/**
 * Replaces the entry of the same identity (equal finding id or fingerprint) with `decision`.
 * Pure; the newest entry is last. Works for resolutions and severity overrides alike.
 */
export function withDecision<T extends { findingId: string; fingerprint: string }>(
  decisions: readonly T[],
  decision: T,
): T[] {
  return [...withoutIdentity(decisions, decision), decision];
}

/** Drops the entry of the same identity (equal finding id or fingerprint). Pure. */
export function withoutIdentity<T extends { findingId: string; fingerprint: string }>(
  decisions: readonly T[],
  identity: { findingId: string; fingerprint: string },
): T[] {
  return decisions.filter(
    (d) => d.findingId !== identity.findingId && d.fingerprint !== identity.fingerprint,
  );
}

/**
 * Runs `fn` under the pull request's lock (`withPullLock`, 10 s for a dead holder), waiting for the lock
 * up to ~2 s (20 tries, 100 ms apart) while another holder has it: a command's or a job's short change
 * waits its turn. `fn` must not take the lock itself (it is not re-entrant).
 * @throws LockBusyError when the lock stayed busy (the job runs again shortly; `fn` did not run), and
 *   whatever `fn` throws.
 */
export async function waitingForPullLock<T>(rt: Runtime, key: string, fn: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await rt.stores.pulls.withPullLock(key, fn, 10_000);
    } catch (error) {
      if (!(error instanceof LockBusyError) || attempt >= 19) throw error;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/**
 * Changes the decisions document under the pull request's lock ({@link waitingForPullLock}), so two
 * commands on one pull request never lose each other's decision.
 * @throws LockBusyError when the lock stayed busy for ~2 s (the job retries).
 */
export async function updatePullDecisions(
  rt: Runtime,
  key: string,
  change: (doc: PullDecisions) => PullDecisions,
): Promise<void> {
  await waitingForPullLock(rt, key, () => writePullDecisions(rt, key, change));
}

/**
 * Changes the decisions document as {@link updatePullDecisions} does, for a caller that already holds the
 * pull request's lock (`withPullLock` is not re-entrant: taking it again would wait for the caller itself).
 */
export async function writePullDecisions(
  rt: Runtime,
  key: string,
  change: (doc: PullDecisions) => PullDecisions,
): Promise<void> {
  const next = PullDecisions.parse(change(await readPullDecisions(rt, key)));
  await rt.stores.decisions.put(key, next, decisionsTtlSeconds(next, rt.now()));
}

/** The decisions' default life, in seconds (90 days after the last change). */
const DECISIONS_TTL_SECONDS = 90 * 24 * 3600;

/**
 * How long a decisions document is kept, in seconds: 90 days after its last change, or 7 days past its
 * latest acceptance expiry when that is later (`triage.maxAcceptanceDays` may reach years), so an expiry
 * never outlives the decision it ends. Pure.
 */
export function decisionsTtlSeconds(doc: PullDecisions, now: number): number {
  const latest = Math.max(0, ...doc.decisions.map((d) => (d.expiresAt ? Date.parse(d.expiresAt) : 0)));
  return Math.max(DECISIONS_TTL_SECONDS, Math.ceil((latest - now) / 1000) + 7 * 24 * 3600);
}

/** The change that stores resolution decisions, one per identity ({@link withDecision}). Pure. */
export function addingDecisions(add: readonly Decision[]): (doc: PullDecisions) => PullDecisions {
  return (doc) => {
    let decisions = doc.decisions;
    for (const d of add) decisions = withDecision(decisions, Decision.parse(d));
    return { ...doc, decisions };
  };
}

/** Stores resolution decisions (one per identity, see {@link updatePullDecisions}). */
export async function recordDecisions(rt: Runtime, key: string, add: readonly Decision[]): Promise<void> {
  await updatePullDecisions(rt, key, addingDecisions(add));
}

/**
 * Stores a severity override set from the pull request, or forgets it when `severity` is `null` (the
 * override was cleared: later scans keep the service's own severity). `current` is the finding's effective
 * severity before this command; the first override of an identity keeps its `from`.
 */
export async function recordSeverityOverride(
  rt: Runtime,
  key: string,
  input: {
    findingId: string;
    fingerprint: string;
    shape?: string;
    current: SeverityDecision["from"];
    severity: SeverityDecision["severity"] | null;
    by: string;
    at: string;
  },
): Promise<void> {
  await updatePullDecisions(rt, key, (doc) => {
    if (input.severity === null) return { ...doc, severities: withoutIdentity(doc.severities, input) };
    const earlier = doc.severities.find(
      (s) => s.findingId === input.findingId || s.fingerprint === input.fingerprint,
    );
    const entry: SeverityDecision = {
      findingId: input.findingId,
      fingerprint: input.fingerprint,
      ...(input.shape ? { shape: input.shape } : {}),
      from: earlier?.from ?? input.current,
      severity: input.severity,
      by: input.by,
      at: input.at,
    };
    return { ...doc, severities: withDecision(doc.severities, entry) };
  });
}

/** A finding of a new scan as the identity rule reads it: computed identity, triage and the fields (step 4). */
function identifiable(f: ReportFinding) {
  return {
    id: f.id,
    ...identityOf(f),
    triageStatus: f.triageStatus,
    location: f.location,
    title: f.title,
    category: f.category,
  };
}

/** One decision to carry to a finding of a newer scan. */
export interface CarryOver {
  decision: Decision;
  finding: ReportFinding;
  by: MatchedBy;
}

/** A carry-over plan ({@link planCarryOver}, {@link planSeverityCarryOver}): the matches to apply, and those held. */
export interface CarryPlan<Item> {
  apply: Item[];
  /** matched, but not applied: the finding's severity rose since the team looked at it */
  severityRose: Item[];
}

/**
 * Which decisions apply to which findings of a new scan (pure). A decision is carried when:
 * - its identity matches (equal id first, then equal fingerprint, then for a finding the service triaged
 *   `RECURRING`/`DUPLICATE` an unambiguous equal shape; one-to-one, {@link matchFindings});
 * - it is a closing decision (`RESOLVED`, `MITIGATED`, `WONT_FIX`, `FALSE_POSITIVE`, `DUPLICATE`): the open
 *   states `NOT_STARTED`/`IN_PROGRESS` change nothing on the check and are not carried;
 * - the new finding is still `NOT_STARTED` (a decision already taken in the service wins);
 * - the new finding's severity is not above the severity the decision was taken at (else `severityRose`).
 */
export const planCarryOver = carryPlanner(
  (decision: Decision, finding: ReportFinding) => {
    if (OPEN_RESOLUTIONS.includes(decision.resolutionStatus)) return undefined;
    if (finding.resolutionStatus !== "NOT_STARTED") return undefined;
    return severityRank(finding.severity) > severityRank(decision.severity) ? "severityRose" : "apply";
  },
  (decision, finding, by): CarryOver => ({ decision, finding, by }),
);

/** One severity override to carry to a finding of a newer scan. */
export interface SeverityCarryOver {
  override: SeverityDecision;
  finding: ReportFinding;
  by: MatchedBy;
}

/**
 * Which severity overrides apply to which findings of a new scan (pure). An override is carried when its
 * identity matches (equal id, fingerprint or recognised shape; one-to-one, {@link matchFindings}) and the finding's severity is not
 * already the override, and either it raises the severity (never unsafe) or the finding's severity is not
 * above the severity the override was made against (`from`); a lowering override of a finding whose
 * severity rose since is not carried (`severityRose`), like resolutions.
 */
export const planSeverityCarryOver = carryPlanner(
  (override: SeverityDecision, finding: ReportFinding) => {
    if (finding.severity === override.severity) return undefined;
    const raises = severityRank(override.severity) > severityRank(finding.severity);
    return raises || severityRank(finding.severity) <= severityRank(override.from) ? "apply" : "severityRose";
  },
  (override, finding, by): SeverityCarryOver => ({ override, finding, by }),
);

/**
 * A carry-over planner for one kind of stored entry (decisions, severity overrides): it matches the entries
 * to a new scan's findings one-to-one by identity ({@link matchFindings}) and sorts each match with `sort`:
 * carried (`apply`), held because the finding's severity rose since (`severityRose`), or left
 * (`undefined`); `item` makes each match's plan entry. Pure.
 */
function carryPlanner<E extends Parameters<typeof storedIdentity>[0], Item>(
  sort: (entry: E, finding: ReportFinding) => "apply" | "severityRose" | undefined,
  item: (entry: E, finding: ReportFinding, by: MatchedBy) => Item,
): (entries: readonly E[], findings: readonly ReportFinding[]) => CarryPlan<Item> {
  return (entries, findings) => {
    const previous = entries.map((e) => ({ ...storedIdentity(e), e }));
    const current = findings.map((f) => ({ ...identifiable(f), f }));
    const plan: CarryPlan<Item> = { apply: [], severityRose: [] };
    for (const m of matchFindings(previous, current)) {
      const to = sort(m.previous.e, m.current.f);
      if (to) plan[to].push(item(m.previous.e, m.current.f, m.by));
    }
    return plan;
  };
}

/** How a carried entry found its finding, for the notes: the id, or {@link matchedByText}. */
function matchPhrase(by: MatchedBy, earlierId: string, labelPrefix: string): string {
  return by === "id"
    ? "this finding has the same id"
    : `this finding was ${matchedByText({ findingId: earlierId, by }, labelPrefix)}`;
}

/**
 * The earlier finding each finding's carried decision came from, when it was matched by fingerprint or
 * shape rather than by id (resolutions first, then severity overrides). Read from the stored entries
 * (`carriedFrom`, `carriedBy`), so a retried or recomputed report says it again. Pure.
 */
export function matchedToOf(doc: PullDecisions): Map<string, NonNullable<ReportFinding["matchedTo"]>> {
  const out = new Map<string, NonNullable<ReportFinding["matchedTo"]>>();
  for (const e of [...doc.decisions, ...doc.severities]) {
    if (out.has(e.findingId) || !e.carriedFrom || e.carriedBy === undefined || e.carriedBy === "id") continue;
    out.set(e.findingId, { findingId: e.carriedFrom, by: e.carriedBy });
  }
  return out;
}

/**
 * The acceptances that expire, by finding id: the moment and who accepted (the check run's row says
 * "accepted until 2027-03-31 by `@alice`"). Pure.
 */
export function acceptancesOf(doc: PullDecisions): Map<string, NonNullable<ReportFinding["acceptedUntil"]>> {
  return new Map(
    doc.decisions.flatMap((d) => (d.expiresAt ? [[d.findingId, { expiresAt: d.expiresAt, by: d.by }]] : [])),
  );
}

/**
 * The findings with what the pull request's decisions add to them: how a carried decision found them
 * ({@link matchedToOf}) and an acceptance's expiry ({@link acceptancesOf}). Pure.
 */
export function withDecisionFacts(doc: PullDecisions, findings: readonly ReportFinding[]): ReportFinding[] {
  const matchedTo = matchedToOf(doc);
  const accepted = acceptancesOf(doc);
  return findings.map((f) => {
    const m = matchedTo.get(f.id);
    const a = accepted.get(f.id);
    return { ...f, ...(m ? { matchedTo: m } : {}), ...(a ? { acceptedUntil: a } : {}) };
  });
}

/** The note that records a carried severity override (Markdown; logins stay out of mentions' reach). */
export function severityCarryNote(c: SeverityCarryOver, labelPrefix: string): string {
  const o = c.override;
  return (
    `diffward applied an earlier severity override of this pull request: **${severityName(o.severity)}** ` +
    `(the finding was reported as ${severityName(c.finding.severity)}), set by GitHub user @${o.by} on ${o.at.slice(0, 10)} ` +
    `on finding ${findingLabel(o.findingId, labelPrefix)} (\`${o.findingId}\`); ${matchPhrase(c.by, o.findingId, labelPrefix)}.`
  );
}

/**
 * The note that records a carried decision: names the original decision, who made it, when, and on
 * which finding. Markdown; `by` and the note are user text and stay inside code spans or quotes.
 */
export function carryOverNote(c: CarryOver, labelPrefix: string): string {
  const d = c.decision;
  const reason = d.reason ? ` (reason \`${d.reason}\`)` : "";
  const lines = [
    `diffward applied an earlier decision of this pull request: **${statusName(d.resolutionStatus)}**${reason}, ` +
      `set by GitHub user @${d.by} on ${d.at.slice(0, 10)} on finding ` +
      `${findingLabel(d.findingId, labelPrefix)} (\`${d.findingId}\`); ${matchPhrase(c.by, d.findingId, labelPrefix)}.`,
  ];
  if (d.note?.trim()) lines.push("", `Original note: ${d.note.trim().slice(0, 2_000)}`);
  // the carried acceptance keeps its expiry, readable from the service after a Redis flush
  if (d.expiresAt) lines.push("", acceptanceLine(d.expiresAt, d.by));
  return lines.join("\n");
}

/** What carrying decisions to a new scan's findings needs. */
interface CarryContext {
  tenant: ScannerTenant;
  projectId: string;
  /** two-letter label prefix, for the notes */
  prefix: string;
  log: Logger;
}

/** A definite refusal (4xx) of the service skips that finding, logged; anything else is thrown. */
function refusedBy(error: unknown, log: Logger, finding: string, what: string): boolean {
  if (!(error instanceof ScannerApiError) || error.retryable) return false;
  log.warn({ finding, status: error.status, code: error.code }, what);
  return true;
}

/**
 * Step 1 of {@link applyPullDecisions}: the pull request's severity overrides, set on the matching findings
 * (`PATCH …/severity`, then a note naming the override); none where the severity rose.
 * @returns the severities set by finding id, the overrides carried, and how many were not (severity rose).
 */
async function carrySeverities(
  ctx: CarryContext,
  overrides: PullDecisions["severities"],
  findings: readonly ReportFinding[],
): Promise<{
  severities: Map<string, ReportFinding["severity"]>;
  carried: SeverityDecision[];
  severityRose: number;
}> {
  const { tenant, projectId, log } = ctx;
  const plan = planSeverityCarryOver(overrides, [...findings]);
  for (const s of plan.severityRose) {
    log.info(
      { finding: s.finding.id, from: s.override.from, to: s.finding.severity },
      "severity override not carried over: severity rose",
    );
  }
  const severities = new Map<string, ReportFinding["severity"]>();
  const carried: SeverityDecision[] = [];
  for (const c of plan.apply) {
    try {
      await tenant.client.setSeverity(projectId, c.finding.id, c.override.severity);
    } catch (error) {
      if (refusedBy(error, log, c.finding.id, "severity override not carried over")) continue;
      throw error;
    }
    severities.set(c.finding.id, c.override.severity);
    carried.push({
      ...c.override,
      findingId: c.finding.id,
      ...identityOf(c.finding),
      carriedFrom: c.override.findingId,
      carriedBy: c.by,
    });
    await tenant.client
      .addNote(projectId, c.finding.id, severityCarryNote(c, ctx.prefix))
      .catch((error: Error) => log.warn({ finding: c.finding.id, err: error }, "override note not added"));
  }
  return { severities, carried, severityRose: plan.severityRose.length };
}

/**
 * Step 2 of {@link applyPullDecisions}: the pull request's resolutions, set on the matching findings
 * (`PATCH …/resolution` with a carry-over note); none where the severity rose.
 * @returns the resolution status set by finding id, the decisions carried, and how many were not.
 */
async function carryResolutions(
  ctx: CarryContext,
  decisions: PullDecisions["decisions"],
  findings: ReportFinding[],
): Promise<{ updated: Map<string, string>; carried: Decision[]; severityRose: number }> {
  const { tenant, projectId, log } = ctx;
  const plan = planCarryOver(decisions, findings);
  for (const s of plan.severityRose) {
    log.info(
      { finding: s.finding.id, from: s.decision.severity, to: s.finding.severity },
      "decision not carried over: severity rose",
    );
  }
  const updated = new Map<string, string>();
  const carried: Decision[] = [];
  for (const c of plan.apply) {
    try {
      const res = await tenant.client.setResolution(projectId, c.finding.id, {
        resolutionStatus: c.decision.resolutionStatus,
        note: { content: carryOverNote(c, ctx.prefix) },
      });
      updated.set(c.finding.id, res.resolutionStatus);
      carried.push({
        ...c.decision,
        findingId: c.finding.id,
        ...identityOf(c.finding),
        severity: c.finding.severity,
        carriedFrom: c.decision.findingId,
        carriedBy: c.by,
      });
    } catch (error) {
      if (refusedBy(error, log, c.finding.id, "decision not carried over")) continue;
      throw error;
    }
  }
  return { updated, carried, severityRose: plan.severityRose.length };
}

/**
 * The report hook of "decisions survive pushes": applies the pull request's last severity overrides
 * (`PATCH …/severity`, then a note naming the override, {@link severityCarryNote}), then its last
 * resolutions (`PATCH …/resolution` with a {@link carryOverNote}) to the matching findings of a new scan,
 * records what was carried, and returns the findings with their updated `severity` and
 * `resolutionStatus` so the report renders the current state. Overrides go first, so a resolution taken
 * at an overridden severity is compared with the overridden severity of the new finding. Idempotent: an
 * applied override makes the severity equal to it and an applied resolution leaves `NOT_STARTED`, so a
 * retried report does not apply anything twice. A definite refusal (4xx) skips that finding and is
 * logged; a retryable failure (429, 5xx, network) is thrown so the report job retries. Spends no credits.
 */
export async function applyPullDecisions(
  rt: Runtime,
  tenant: ScannerTenant,
  pull: { owner: string; repo: string; pullNumber: number; projectId: string },
  input: ReportFinding[],
  log: Logger,
): Promise<ReportFinding[]> {
  const key = pullKey(pull.owner, pull.repo, pull.pullNumber);
  const doc = await readPullDecisions(rt, key, log);
  if (doc.decisions.length === 0 && doc.severities.length === 0) return input;
  const ctx = { tenant, projectId: pull.projectId, prefix: rt.settings.labelPrefix, log };
  const sev = await carrySeverities(ctx, doc.severities, input);
  const findings = input.map((f) =>
    sev.severities.has(f.id) ? { ...f, severity: sev.severities.get(f.id)! } : f,
  );
  const res = await carryResolutions(ctx, doc.decisions, findings);
  const { carried, updated } = res;
  const carriedSeverities = sev.carried;
  const merge = (d: PullDecisions): PullDecisions => {
    let decisions = d.decisions;
    for (const x of carried) decisions = withDecision(decisions, x);
    let sev = d.severities;
    for (const x of carriedSeverities) sev = withDecision(sev, x);
    return { decisions, severities: sev };
  };
  if (carried.length > 0 || carriedSeverities.length > 0) await updatePullDecisions(rt, key, merge);
  log.info(
    {
      carried: carried.length,
      severityRose: res.severityRose,
      overridesCarried: carriedSeverities.length,
      overridesNotCarried: sev.severityRose,
    },
    "decisions carried over",
  );
  return withDecisionFacts(
    merge(doc),
    findings.map((f) => (updated.has(f.id) ? { ...f, resolutionStatus: updated.get(f.id)! } : f)),
  );
}
