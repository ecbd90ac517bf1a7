/**
 * Decisions per pull request, and "decisions survive pushes" (issue 4, point 6): when a later scan of the
 * same pull request reports a finding with the same identity (equal id or fingerprint,
 * src/domain/identity.ts), the last decision on it is applied to the new finding with the service's
 * resolution API (spec "PATCH …/findings/{findingId}/resolution"), unless its severity rose.
 */
import type { Logger } from "pino";
import { fingerprint, matchFindings } from "../domain/identity.js";
import type { ReportFinding } from "../domain/types.js";
import { OPEN_RESOLUTIONS, severityRank } from "../domain/verdict.js";
import { ScannerApiError } from "../scanner/errors.js";
import { findingLabel } from "../scanner/labels.js";
import type { ScannerTenant } from "../tenants/index.js";
import { pullKey } from "../queue/names.js";
import type { Runtime } from "../queue/runtime.js";
import { LockBusyError } from "../queue/state.js";
import { Decision, PullDecisions } from "./types.js";

/** Redis kind of the decisions document (`<prefix>:decisions:<owner/repo#n>`). */
export const DECISIONS_KIND = "decisions";

/**
 * Reads a pull request's decisions. A document that does not fit the schema (an older format, a manual
 * edit) is treated as empty and logged, never a crash.
 */
export async function readDecisions(rt: Runtime, key: string, log?: Logger): Promise<Decision[]> {
  const raw = await rt.state.getJson<unknown>(DECISIONS_KIND, key);
  if (raw === undefined) return [];
  const parsed = PullDecisions.safeParse(raw);
  if (!parsed.success) {
    (log ?? rt.log).warn({ pull: key }, "stored decisions do not fit the schema: ignored");
    return [];
  }
  return parsed.data.decisions;
}

/**
 * Replaces the decision of the same identity (equal finding id or fingerprint) with `decision`.
 * Pure; the newest decision is last.
 */
export function withDecision(decisions: readonly Decision[], decision: Decision): Decision[] {
  return [
    ...decisions.filter((d) => d.findingId !== decision.findingId && d.fingerprint !== decision.fingerprint),
    decision,
  ];
}

/**
 * Stores decisions under the pull request's lock (`withPullLock`), so two commands on one pull request
 * never lose each other's decision. Waits for the lock up to ~2 s (20 tries, 100 ms apart), then throws
 * {@link LockBusyError} and the job retries.
 */
export async function recordDecisions(rt: Runtime, key: string, add: readonly Decision[]): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await rt.state.withPullLock(
        key,
        async () => {
          let all = await readDecisions(rt, key);
          for (const d of add) all = withDecision(all, Decision.parse(d));
          await rt.state.putJson(DECISIONS_KIND, key, { decisions: all } satisfies PullDecisions);
        },
        10_000,
      );
      return;
    } catch (error) {
      if (!(error instanceof LockBusyError) || attempt >= 19) throw error;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/** One decision to carry to a finding of a newer scan. */
export interface CarryOver {
  decision: Decision;
  finding: ReportFinding;
  by: "id" | "fingerprint";
}

/** The plan of {@link planCarryOver}. */
export interface CarryOverPlan {
  apply: CarryOver[];
  /** matched, but not applied: the severity rose since the decision */
  severityRose: CarryOver[];
}

/**
 * Which decisions apply to which findings of a new scan (pure). A decision is carried when:
 * - its identity matches (equal id first, then equal fingerprint; one-to-one, {@link matchFindings});
 * - it is a closing decision (`RESOLVED`, `MITIGATED`, `WONT_FIX`, `FALSE_POSITIVE`, `DUPLICATE`): the open
 *   states `NOT_STARTED`/`IN_PROGRESS` change nothing on the check and are not carried;
 * - the new finding is still `NOT_STARTED` (a decision already taken in the service wins);
 * - the new finding's severity is not above the severity the decision was taken at (else `severityRose`).
 */
export function planCarryOver(
  decisions: readonly Decision[],
  findings: readonly ReportFinding[],
): CarryOverPlan {
  const previous = decisions.map((d) => ({ id: d.findingId, fingerprint: d.fingerprint, d }));
  const current = findings.map((f) => ({ id: f.id, fingerprint: fingerprint(f), f }));
  const plan: CarryOverPlan = { apply: [], severityRose: [] };
  for (const m of matchFindings(previous, current)) {
    const decision = m.previous.d;
    const finding = m.current.f;
    if (OPEN_RESOLUTIONS.includes(decision.resolutionStatus)) continue;
    if (finding.resolutionStatus !== "NOT_STARTED") continue;
    const item = { decision, finding, by: m.by };
    if (severityRank(finding.severity) > severityRank(decision.severity)) plan.severityRose.push(item);
    else plan.apply.push(item);
  }
  return plan;
}

/**
 * The note that records a carried decision: names the original decision, who made it, when, and on
 * which finding. Markdown; `by` and the note are user text and stay inside code spans or quotes.
 */
export function carryOverNote(c: CarryOver, labelPrefix: string): string {
  const d = c.decision;
  const reason = d.reason ? ` (reason \`${d.reason}\`)` : "";
  const lines = [
    `diffward applied an earlier decision of this pull request: **${d.resolutionStatus}**${reason}, ` +
      `set by GitHub user @${d.by} on ${d.at.slice(0, 10)} on finding ` +
      `${findingLabel(d.findingId, labelPrefix)} (\`${d.findingId}\`), which this finding matches by ${c.by}.`,
  ];
  if (d.note?.trim()) lines.push("", `Original note: ${d.note.trim().slice(0, 2_000)}`);
  return lines.join("\n");
}

/**
 * The report hook of "decisions survive pushes": applies the pull request's last decisions to the matching
 * findings of a new scan through the service (`PATCH …/resolution` with a {@link carryOverNote}), records
 * the carried decisions, and returns the findings with their updated `resolutionStatus` so the report
 * renders the current state. Idempotent: an applied finding is no longer `NOT_STARTED`, so a retried
 * report does not apply it twice. A definite refusal (4xx) skips that finding and is logged; a retryable
 * failure (429, 5xx, network) is thrown so the report job retries. Spends no credits.
 */
export async function applyPullDecisions(
  rt: Runtime,
  tenant: ScannerTenant,
  pull: { owner: string; repo: string; pullNumber: number; projectId: string },
  findings: ReportFinding[],
  log: Logger,
): Promise<ReportFinding[]> {
  const key = pullKey(pull.owner, pull.repo, pull.pullNumber);
  const decisions = await readDecisions(rt, key, log);
  if (decisions.length === 0) return findings;
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
      const res = await tenant.client.setResolution(pull.projectId, c.finding.id, {
        resolutionStatus: c.decision.resolutionStatus,
        note: { content: carryOverNote(c, rt.settings.labelPrefix) },
      });
      updated.set(c.finding.id, res.resolutionStatus);
      carried.push({
        ...c.decision,
        findingId: c.finding.id,
        fingerprint: fingerprint(c.finding),
        severity: c.finding.severity,
        carriedFrom: c.decision.findingId,
      });
    } catch (error) {
      if (error instanceof ScannerApiError && !error.retryable) {
        log.warn(
          { finding: c.finding.id, status: error.status, code: error.code },
          "decision not carried over",
        );
        continue;
      }
      throw error;
    }
  }
  if (carried.length > 0) await recordDecisions(rt, key, carried);
  log.info({ carried: carried.length, severityRose: plan.severityRose.length }, "decisions carried over");
  return findings.map((f) => (updated.has(f.id) ? { ...f, resolutionStatus: updated.get(f.id)! } : f));
}
