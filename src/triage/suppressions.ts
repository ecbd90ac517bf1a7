/**
 * The report hook of inline suppressions (README "Configuration", `suppressions`): for each open finding of
 * the scan with a `diffward-ignore <reason>: <note>` marker on its line or the line above it, in the file at
 * the pull request's head commit (src/domain/suppression.ts), acts as the pull request's author's
 * `/wontfix <reason> <note>`:
 * - `allow`: `PATCH …/resolution` (spec §Findings) to `WONT_FIX` with a note naming the reason, the file, the
 *   line and the commit, and the decision remembered for later scans of the pull request;
 * - `approval`: an approval request held for a second person, as `triage.approval` holds a writer's
 *   `/wontfix` (an approver answers `/approve`); nothing is written to the service;
 * - `deny`: nothing, and the finding says suppressions are not allowed here.
 * A marker without a valid reason is not honoured and the finding says why. Each file with findings is read
 * at most once per head commit (GitHub REST "Get repository content", raw media type; the result kept in
 * Redis, src/stores/suppressions.ts), and each finding is acted on once per commit, across retries and
 * restarts. Every honoured suppression is an audit entry (source `suppression`). Never launches a scan.
 */
import type { Logger } from "pino";
import type { SuppressionMode } from "../config/repo-config.js";
import type { Decision } from "../domain/decision.js";
import type { ReportFinding } from "../domain/finding-types.js";
import { identityOf } from "../domain/identity.js";
import { parseLocation } from "../domain/location.js";
import { isRuledOut } from "../domain/severity-threshold.js";
import { markerLines, suppressionAt, type FileMarkers, type Suppression } from "../domain/suppression.js";
import type { InstallationOctokit } from "../github/octokit-types.js";
import { getFileText, getPull } from "../github/pulls.js";
import { attributed } from "../render/command-answers.js";
import { pullKey } from "../runtime/names.js";
import type { Runtime } from "../runtime/runtime.js";
import { findingLabel } from "../scanner/labels.js";
import type { ScannerTenant } from "../tenants/index.js";
import type { CommitRef } from "../stores/suppressions.js";
import { storeApprovalRequest, type ApprovalRequest } from "./approvals.js";
import { recordDecisionWithExpiry } from "./expiry.js";

/** The pull request a report is for, as the hook reads it. */
export interface SuppressionPull extends CommitRef {
  installationId: number;
  accountLogin: string;
  pullNumber: number;
  projectId: string;
  /** `suppressions` of the effective configuration (after the organization floor) */
  mode: SuppressionMode;
  /** `triage.approval.approvers`, else `maintain` (an `approval` suppression's approvers) */
  approvers: ApprovalRequest["approvers"];
}

/** What the hook needs: the runtime, the clients and the log. */
export interface SuppressionCtx {
  rt: Runtime;
  octokit: InstallationOctokit;
  tenant: ScannerTenant;
  log: Logger;
}

/** The finding's marker, when it has a line and its file holds one there or on the line above. */
type Found = { finding: ReportFinding; path: string; marker: Suppression };

/**
 * Reads the markers of the open findings' files and acts on them (see the module's comment). Returns the
 * findings with `suppression` set on each that has a marker, and `resolutionStatus: WONT_FIX` on those
 * suppressed now, so the report counts them as they now stand.
 * @throws Octokit's RequestError or the service's errors when retryable: the report job retries.
 */
export async function applySuppressions(
  ctx: SuppressionCtx,
  pull: SuppressionPull,
  findings: readonly ReportFinding[],
): Promise<ReportFinding[]> {
  const found = await findMarkers(ctx, pull, findings);
  if (found.length === 0) return [...findings];
  const author = found.some((f) => f.marker.kind === "marker" && pull.mode !== "deny")
    ? (await getPull(ctx.octokit, { owner: pull.owner, repo: pull.repo, pullNumber: pull.pullNumber }))
        .authorLogin
    : "";
  const outcomes = new Map<string, ReportFinding>();
  for (const f of found) outcomes.set(f.finding.id, await actOn(ctx, pull, author, f));
  return findings.map((f) => outcomes.get(f.id) ?? f);
}

/** The open findings with a marker: each file with such findings read once per head commit. */
async function findMarkers(
  ctx: SuppressionCtx,
  pull: SuppressionPull,
  findings: readonly ReportFinding[],
): Promise<Found[]> {
  const at = findings.flatMap((finding) => {
    const loc = isRuledOut(finding) ? undefined : parseLocation(finding.location);
    return loc?.startLine ? [{ finding, path: loc.path, line: loc.startLine }] : [];
  });
  const files = new Map<string, FileMarkers>();
  for (const path of new Set(at.map((a) => a.path)))
    files.set(
      path,
      await ctx.rt.stores.suppressions.markers(pull, path, async () => {
        const text = await getFileText(ctx.octokit, pull, path, pull.headSha);
        return text === undefined ? { missing: true, lines: {} } : markerLines(text);
      }),
    );
  return at.flatMap(({ finding, path, line }) => {
    const marker = suppressionAt(files.get(path)!, line);
    return marker ? [{ finding, path, marker }] : [];
  });
}

/** One finding's marker, acted on by the mode (once per commit); the finding as it now stands. */
async function actOn(
  ctx: SuppressionCtx,
  pull: SuppressionPull,
  author: string,
  { finding, path, marker }: Found,
): Promise<ReportFinding> {
  const at = { line: marker.line, path };
  if (marker.kind === "invalid")
    return { ...finding, suppression: { outcome: "invalid", ...at, why: marker.why } };
  if (pull.mode === "deny") return { ...finding, suppression: { outcome: "denied", ...at } };
  const done = await ctx.rt.stores.suppressions.acted(pull, finding.id);
  if (pull.mode === "approval") {
    if (!done) await hold(ctx, { pull, author, finding, m: marker, path });
    return { ...finding, suppression: { outcome: "held", ...at } };
  }
  if (!done) await suppress(ctx, { pull, author, finding, m: marker, path });
  return { ...finding, resolutionStatus: "WONT_FIX", suppression: { outcome: "applied", ...at } };
}

type Marker = Extract<Suppression, { kind: "marker" }>;

/** One honoured marker to act on: the pull request, its author, the finding, the marker and its file. */
interface Act {
  pull: SuppressionPull;
  author: string;
  finding: ReportFinding;
  m: Marker;
  path: string;
}

/** The note of a suppression: its reason, the author's note, where the marker is, and who it stands for. */
export function suppressionNote(pull: SuppressionPull, author: string, m: Marker, path: string): string {
  const where = `Suppressed inline by \`diffward-ignore\` at ${path}:${m.line} (commit ${pull.headSha.slice(0, 12)}).`;
  const text = `Reason: \`${m.reason}\`.${m.note ? ` ${m.note}` : ""}\n\n${where}`;
  return attributed(text, author, { owner: pull.owner, repo: pull.repo, pullNumber: pull.pullNumber });
}

/** What a suppression asks for: the finding's identity, won't fix, the note (signed, and without the signature). */
function wontFix(ctx: SuppressionCtx, { pull, author, finding, m, path }: Act) {
  const signed = suppressionNote(pull, author, m, path);
  return {
    signed,
    findingId: finding.id,
    ...identityOf(finding),
    severity: finding.severity,
    resolutionStatus: "WONT_FIX" as const,
    note: signed.slice(0, signed.lastIndexOf("\n\n")),
    requestedAt: new Date(ctx.rt.now()).toISOString(),
  };
}

/** `allow`: the won't-fix write, the decision remembered, the audit entry; recorded as done. */
async function suppress(ctx: SuppressionCtx, act: Act): Promise<void> {
  const { pull, author, finding, m, path } = act;
  const { signed, ...asked } = wontFix(ctx, act);
  await ctx.tenant.client.setResolution(pull.projectId, finding.id, {
    resolutionStatus: "WONT_FIX",
    note: { content: signed },
  });
  const { requestedAt: at, ...wanted } = asked;
  const decision: Decision = { ...wanted, reason: m.reason, by: author, at };
  await recordDecisionWithExpiry(ctx.rt, pull, decision, "suppression", ctx.log);
  await ctx.rt.stores.suppressions.recordActed(pull, finding.id, "applied");
  await audit(ctx, pull, author, finding, { action: "resolve", outcome: "applied", reason: asked.note });
  ctx.log.info({ finding: finding.id, path, line: m.line }, "finding suppressed inline");
}

/** `approval`: an approval request from the author, held for an approver; recorded as done. */
async function hold(ctx: SuppressionCtx, act: Act): Promise<void> {
  const { pull, author, finding, m, path } = act;
  const { signed: _signed, ...asked } = wontFix(ctx, act);
  const request: ApprovalRequest = {
    ...asked,
    reasonCode: m.reason,
    requestedBy: author,
    approvers: pull.approvers,
  };
  await storeApprovalRequest(ctx.rt, pullKey(pull.owner, pull.repo, pull.pullNumber), request);
  await ctx.rt.stores.suppressions.recordActed(pull, finding.id, "held");
  await audit(ctx, pull, author, finding, {
    action: "approval-request",
    outcome: "held",
    reason: asked.note,
  });
  ctx.log.info({ finding: finding.id, path, line: m.line }, "inline suppression held for approval");
}

async function audit(
  ctx: SuppressionCtx,
  pull: SuppressionPull,
  author: string,
  finding: ReportFinding,
  e: { action: "resolve" | "approval-request"; outcome: "applied" | "held"; reason: string },
): Promise<void> {
  await ctx.rt.stores.audit.append({
    installationId: pull.installationId,
    repository: `${pull.owner}/${pull.repo}`,
    pullNumber: pull.pullNumber,
    findingId: finding.id,
    findingLabel: findingLabel(finding.id, ctx.rt.settings.labelPrefix),
    actor: author,
    from: finding.resolutionStatus,
    to: "WONT_FIX",
    source: "suppression",
    detail: `diffward-ignore at commit ${pull.headSha}`,
    ...e,
  });
}
