/**
 * `/severity <level>|reset [text]`: overrides a finding's severity in the service (spec §Findings, `PATCH
 * …/findings/{findingId}/severity`; `null` clears the override), leaves one signed note, refreshes the
 * finding's comment and recomputes the check run. With `triage.approval`, only a user at or above
 * `approvers` may take a finding below `minSeverity` (else a lowered severity would skip the second person).
 */
import { z } from "zod";
import { attributed } from "../../render/command-answers.js";
import { inlineCode } from "../../render/escape.js";
import { severityName } from "../../render/glossary.js";
import { SEVERITIES, type Severity } from "../../scanner/catalog.js";
import { findingLabel } from "../../scanner/labels.js";
import { capped, commandError, echo, finding, commandName, noteText, type VerbArgs } from "../verb-parts.js";
import type { ErrorCommand } from "../verb-parts.js";
import { answerOnly, auditAs, defineVerb, targetOf, VERB_NEEDS, writeFindingOnce } from "../verb-module.js";
import type { SeverityOverrideEntry, VerbInput } from "../verb-module.js";
import { identityOf } from "../../domain/identity.js";
import { checkSentence } from "./resolution.js";
import { atLeast } from "../../domain/verdict.js";
import { permissionAtLeast } from "../../config/repo-config.js";

/** The words `/severity` takes; `reset` clears the override (sends severity `null`). */
export const SEVERITY_WORDS = ["critical", "high", "medium", "low", "info", "reset"] as const;

const SeverityValue = z.enum(SEVERITIES);

/** `PATCH …/severity` with `severity` (`null` clears the override); `extraNote` → `POST …/notes`. */
export const SeverityCommand = z.object({
  ...commandName("severity", "severity"),
  ...finding,
  severity: SeverityValue.nullable(),
  extraNote: noteText.optional(),
});
export type SeverityCommand = z.infer<typeof SeverityCommand>;

function parseSeverity(a: VerbArgs): SeverityCommand | ErrorCommand {
  const text = [a.args.trim(), a.rest.trim()].filter(Boolean).join("\n");
  const valid = [...SEVERITY_WORDS];
  const word = /^\S+/.exec(text)?.[0];
  if (!word) {
    return {
      ...commandError("severity", "missing_argument", `\`/severity\` needs a level: ${a.syntax}.`),
      validValues: valid,
    };
  }
  const level = word.toLowerCase().replace(/^`+|`+$/g, "");
  if (!(valid as string[]).includes(level)) {
    return {
      ...commandError(
        "severity",
        "invalid_severity",
        `\`${echo(word)}\` is not a severity level. Use one of ${valid.map((v) => `\`${v}\``).join(", ")}: ${a.syntax}.`,
      ),
      validValues: valid,
    };
  }
  const severity = level === "reset" ? null : SeverityValue.parse(level.toUpperCase());
  const extra = text.slice(word.length).trim();
  const cmd: SeverityCommand = {
    kind: "severity",
    verb: "severity",
    requiresPermission: true,
    ...(a.ref ? { ref: a.ref } : {}),
    severity,
  };
  if (!extra) return cmd;
  return capped("severity", extra) ?? { ...cmd, extraNote: extra };
}

/** What a severity command changes and answers. */
export interface SeverityPlan {
  findingId: string;
  /** the new severity; `null` clears the override */
  severity: Severity | null;
  /** the signed note that records the change (or carries the user's text) */
  note: string;
  /** what is remembered so later scans of the pull request get the same override */
  remember: SeverityOverrideEntry;
  summary: string;
}

/** Plans a severity change (pure). */
export function planSeverity(input: VerbInput<SeverityCommand>): SeverityPlan {
  const { cmd } = input;
  const id = targetOf(input).detail.id;
  const label = findingLabel(id, input.labelPrefix);
  const what = cmd.severity
    ? `Severity of ${inlineCode(label)} set to **${severityName(cmd.severity)}**`
    : `Severity override of ${inlineCode(label)} cleared`;
  const detail = targetOf(input).detail;
  return {
    findingId: id,
    severity: cmd.severity,
    remember: {
      findingId: id,
      ...identityOf(detail),
      current: detail.severity,
      severity: cmd.severity,
      by: input.sender,
      at: new Date(input.now).toISOString(),
    },
    note: attributed(cmd.extraNote ?? `${what.replace(/\*\*/g, "")}.`, input.sender, input.pull),
    summary: `${what}.`,
  };
}

/** What `/severity` reads: the commenter's role, only when `triage.approval` could refuse the change. */
export interface SeverityFacts {
  role?: string;
}

/** A severity command's plan: `set` it, or refuse it (`answer`) and change nothing. */
export type SeverityVerbPlan = { kind: "set"; set: SeverityPlan } | { kind: "answer"; answer: string };

/**
 * True when the command could take a finding at or above `triage.approval.minSeverity` below it (a
 * level under `minSeverity`, or `reset`, whose result the service decides). Pure.
 */
function lowersBelowApproval(input: VerbInput<SeverityCommand>): boolean {
  const approval = input.config?.triage.approval;
  if (!approval) return false;
  const current = targetOf(input).detail.severity;
  if (!atLeast(current, approval.minSeverity)) return false;
  return input.cmd.severity === null || !atLeast(input.cmd.severity, approval.minSeverity);
}

/**
 * Plans `/severity` (pure). With `triage.approval` set, a user below `approvers` may not take a finding at
 * or above `minSeverity` below it (nor `reset` it): that would let their own dismissal skip the second
 * person. Anything else is {@link planSeverity}.
 */
export function planSeverityCommand(
  input: VerbInput<SeverityCommand>,
  facts: SeverityFacts | undefined,
): SeverityVerbPlan {
  const approval = input.config?.triage.approval;
  if (
    approval &&
    facts?.role !== undefined &&
    lowersBelowApproval(input) &&
    !permissionAtLeast(facts.role, approval.approvers)
  ) {
    const detail = targetOf(input).detail;
    const label = inlineCode(findingLabel(detail.id, input.labelPrefix));
    const to = input.cmd.severity
      ? `to **${severityName(input.cmd.severity)}**`
      : "back to the service's own severity";
    return {
      kind: "answer",
      answer:
        `Changing ${label} from **${severityName(detail.severity)}** ${to} could take it below ` +
        `\`triage.approval.minSeverity\` (${inlineCode(approval.minSeverity)}), where dismissals need no second person, so it ` +
        `needs the ${inlineCode(approval.approvers)} role or above (you have ${inlineCode(facts.role)}). Nothing was changed. ` +
        "Ask a user with that role, or dismiss the finding and have the dismissal approved.",
    };
  }
  return { kind: "set", set: planSeverity(input) };
}

/** `/severity`. */
export const severityVerb = defineVerb(SeverityCommand, VERB_NEEDS.finding, {
  parse: parseSeverity,
  describe: () => "change the severity",
  read: async (io, input) => (lowersBelowApproval(input) ? { role: await io.senderPermission() } : {}),
  plan: planSeverityCommand,
  async apply(io, verbPlan, input) {
    if (verbPlan.kind === "answer") return answerOnly(io, verbPlan);
    const plan = verbPlan.set;
    await writeFindingOnce(io, input, plan.findingId, { step: "severity", severity: plan.severity });
    // Severity overrides survive pushes like resolutions.
    await io.recordSeverityOverride(plan.remember);
    await writeFindingOnce(io, input, plan.findingId, { step: "note", note: plan.note });
    const fresh = await io.refreshFindingComment(targetOf(input));
    const verdict = await io.recomputeCheck();
    io.log.info({ finding: plan.findingId, kind: "severity", severity: fresh?.severity }, "finding triaged");
    await io.answer(`${plan.summary}${checkSentence(verdict)}`);
    return "changed";
  },
  // `to: "reset"`: the override is cleared and the service's own severity counts again
  audit: auditAs("severity", (input) => ({
    from: targetOf(input).detail.severity,
    to: input.cmd.severity ?? "reset",
    ...(input.cmd.extraNote ? { reason: input.cmd.extraNote } : {}),
  })),
});
