/**
 * What the check run says about the policy (pure Markdown): the effective policy with where each part came
 * from, the findings per outcome, what a finding's row says of the rule that applied, and the evaluation
 * mode's verdict (README "Configuration": `policies`, `mode`).
 */
import type { PolicyPart, Standing } from "../domain/policy.js";
import type { ReportFinding } from "../domain/finding-types.js";
import type { Verdict } from "../domain/verdict.js";
import { inlineCode } from "./escape.js";
import { countsInWords } from "./format.js";
import { configSetting, plural } from "./glossary.js";
import { table } from "./markdown.js";

/**
 * The effective policy as a table of parts (`failOn`, each `policies[i]`, `mode`), each with its value and
 * the file it came from, then the findings per outcome: blocking, pre-existing, monitored, suppressed, held
 * (and comment-only when a `comment` rule kept any from blocking).
 */
export function policySection(parts: readonly PolicyPart[], verdict: Verdict): string {
  const rows = parts.map((p) => [inlineCode(p.part), inlineCode(p.value), p.source]);
  return `### Policy\n\n${table(["Part", "Value", "Source"], rows)}\n\n${outcomeLine(verdict)}`;
}

/** `Blocking: 1 · Pre-existing: 0 · Monitored: 2 · Suppressed: 0 · Held: 0` (plus comment-only when any). */
export function outcomeLine(verdict: Verdict): string {
  const blocking = verdict.evaluate ? "Would block" : "Blocking";
  const counts: [string, number][] = [
    [blocking, verdict.blocking],
    ["Pre-existing", verdict.preexistingAtThreshold],
    ["Monitored", verdict.monitored],
    ["Suppressed", verdict.suppressed],
    ["Held", verdict.held],
  ];
  if (verdict.commented > 0) counts.push(["Comment only", verdict.commented]);
  return counts.map(([name, n]) => `${name}: **${n}**`).join(" · ");
}

/** The rule cell of a finding's row: `` `policies[1] src/payments/**` · monitor ``, or `` `failOn` ``. */
export function ruleCell(s: Standing): string {
  return s.mode === "block" ? inlineCode(s.rule) : `${inlineCode(s.rule)} · ${s.mode}`;
}

/** The mark after a finding's label for an outcome other than blocking or pre-existing. */
export function outcomeMark(s: Standing): string {
  if (s.outcome === "monitored") return " _monitored_";
  if (s.outcome === "commented") return " _comment only_";
  return "";
}

/**
 * The mark after a finding's label for its `diffward-ignore` marker (src/domain/suppression.ts): suppressed,
 * held for an approver, or not honoured and why (`suppressions: deny`, or no valid reason).
 */
export function suppressionMark(f: Pick<ReportFinding, "suppression">): string {
  const s = f.suppression;
  if (!s) return "";
  const where = inlineCode(`${s.path}:${s.line}`);
  if (s.outcome === "applied") return ` _suppressed inline at ${where}_`;
  if (s.outcome === "held") return ` _suppression at ${where} held for approval_`;
  const why =
    s.outcome === "denied"
      ? `suppressions are not allowed here (${configSetting("suppressions", "deny")})`
      : (s.why ?? "no valid reason");
  return ` _\`diffward-ignore\` at ${where} not honoured: ${why}_`;
}

/**
 * The verdict heading of `mode: evaluate` where findings would block: what it would conclude and why it
 * concludes `neutral` instead.
 */
export function evaluationHeading(verdict: Verdict, subject: string): string {
  const n = plural(verdict.blocking, "finding");
  return (
    `## ⚪ ${n} would block this ${subject} (${countsInWords(verdict.blockingBySeverity)})\n\n` +
    `The policy is in evaluation (${configSetting("mode", "evaluate")}): the check would conclude \`failure\`; ` +
    "it concludes `neutral` instead, so nothing blocks while the policy is rolled out. Remove `mode: evaluate` to enforce it."
  );
}

/** The check run title of `mode: evaluate` where findings would block. */
export function evaluationTitle(verdict: Verdict): string {
  return `Evaluation: ${plural(verdict.blocking, "finding")} would block (${countsInWords(verdict.blockingBySeverity)})`;
}
