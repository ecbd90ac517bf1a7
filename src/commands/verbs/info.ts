/**
 * The verbs that only read and answer: `help` (open to all), `status` (open to all), `credits`,
 * `guidance` and `areas` (behind the command floor: they read the account).
 */
import { z } from "zod";
import { repositoryMonthSpend } from "../../policy/credits.js";
import { inlineCode } from "../../render/escape.js";
import { conclusionName, findingTally } from "../../render/glossary.js";
import { renderAreasAnswer, renderCreditsAnswer } from "../../render/spend-answers.js";
import { storedVerdict } from "../../report/decide/current-verdict.js";
import type { Balance, Summary } from "../../scanner/schemas.js";
import { guidanceRevision, type GuidanceRevision } from "../../scanner/envelopes.js";
import type { GuidanceInfo } from "../../render/check-run.js";
import { HelpCommand, argumentless, commandName, helpCommand } from "../verb-parts.js";
import { answerOnly, configOf, defineVerb, readScanAndReport, tenantOf, VERB_NEEDS } from "../verb-module.js";
import type { AnswerPlan, ScanAndReport, VerbInput } from "../verb-module.js";

/** Report the pull request's scan state (anyone may ask). */
export const StatusCommand = z.object(commandName("status", "status", false));
export type StatusCommand = z.infer<typeof StatusCommand>;
/** `GET …/billing/balance` (and usage) for the project. */
export const CreditsCommand = z.object(commandName("credits", "credits"));
export type CreditsCommand = z.infer<typeof CreditsCommand>;
/** Show the guidance layers that apply to the pull request. */
export const GuidanceCommand = z.object(commandName("guidance", "guidance"));
export type GuidanceCommand = z.infer<typeof GuidanceCommand>;
/** `GET …/audit-areas` for the repository. */
export const AreasCommand = z.object(commandName("areas", "areas"));
export type AreasCommand = z.infer<typeof AreasCommand>;

/** `/help`, `/diffward help`: the command list of the form, generated from the verb table. */
export const helpVerb = defineVerb(HelpCommand, VERB_NEEDS.open, {
  parse: () => helpCommand(),
  plan: (input) => ({ answer: input.help(input.cmd.unknown) }),
  apply: answerOnly,
});

/** The `status` answer from diffward's state (pure). */
export function planStatus(_input: VerbInput<StatusCommand>, facts: ScanAndReport): AnswerPlan {
  const { scan, report } = facts;
  if (!scan && !report) return { answer: "diffward has not scanned this pull request yet." };
  const lines = ["**diffward status**", ""];
  if (scan) lines.push(`- head: ${inlineCode(scan.headSha.slice(0, 7))}`);
  if (scan?.scanId && scan.scanId !== report?.scanId)
    lines.push(`- scan ${inlineCode(scan.scanId)} is in progress`);
  if (report) {
    const v = storedVerdict(report);
    lines.push(
      `- last report: scan ${inlineCode(report.scanId)} of ${inlineCode(report.headSha.slice(0, 7))}, ` +
        `${findingTally(v)}: **${conclusionName(v.conclusion)}**`,
    );
  }
  return { answer: lines.join("\n") };
}

/** `/diffward status` (like help, read-only and open to anyone: trailing words are ignored). */
export const statusVerb = defineVerb(StatusCommand, VERB_NEEDS.open, {
  parse: (): StatusCommand => ({ kind: "status", verb: "status", requiresPermission: false }),
  read: readScanAndReport,
  plan: planStatus,
  apply: answerOnly,
});

/** What `/diffward credits` shows: the balance, the usage summary and this repository's month spend. */
export interface CreditFacts {
  balance: Balance;
  summary?: Summary;
  /** this repository's net spend this calendar month, in credits */
  monthSpend?: number;
}

/** `/diffward credits`. */
export const creditsVerb = defineVerb(CreditsCommand, VERB_NEEDS.account, {
  parse: argumentless("credits", "credits"),
  async read(_io, input) {
    const tenant = tenantOf(input);
    const [balance, summary, monthSpend] = await Promise.all([
      tenant.client.getBalance(tenant.projectId),
      tenant.client.getSummary(tenant.projectId, { months: 6 }).catch(() => undefined),
      input.config
        ? repositoryMonthSpend(tenant, input.config.repositoryId, input.now).catch(() => undefined)
        : undefined,
    ]);
    return {
      balance,
      ...(summary ? { summary } : {}),
      ...(monthSpend !== undefined ? { monthSpend } : {}),
    };
  },
  plan: (input, facts) => ({
    answer: renderCreditsAnswer({
      balance: facts.balance,
      ...(facts.summary ? { summary: facts.summary } : {}),
      ...(facts.monthSpend !== undefined ? { repositoryMonthSpend: facts.monthSpend } : {}),
      ...(input.config ? { config: input.config } : {}),
      now: input.now,
    }),
  }),
  apply: answerOnly,
});

/** What `/diffward guidance` reads: the stored layer and, from the last report, the committed file. */
export interface GuidanceFacts {
  repositoryId: string;
  /** the stored guidance's length in characters (0: none stored) */
  storedChars: number;
  /** its latest revision, when the service's read names it */
  revision: GuidanceRevision;
  /** the committed guidance file at the last reported commit (`undefined`: no report yet) */
  file?: GuidanceInfo;
  /** the last reported commit */
  headSha?: string;
}

/**
 * The `guidance` answer (pure): the layers of spec §Guidance, bottom up, and which apply to this
 * pull request's scans: the committed guidance file (always applies when present; read from the last
 * report's commit), the repository's stored guidance (its size and latest revision), and per-scan
 * guidance (diffward never sends one, so the stored layer is never replaced).
 */
export function planGuidance(input: VerbInput<GuidanceCommand>, facts: GuidanceFacts): AnswerPlan {
  const file = inlineCode(input.settings.guidanceFile);
  const fileLine = !facts.file
    ? `1. **Committed file** ${file}: applies whenever it exists at the scanned commit (no scan of this pull request has been reported yet, so diffward cannot tell).`
    : facts.file.present
      ? `1. **Committed file** ${file}: **applies**: present at ${inlineCode((facts.headSha ?? "").slice(0, 7))}` +
        `${facts.file.sizeChars !== undefined ? `, ${facts.file.sizeChars.toLocaleString("en-US")} characters` : ""}` +
        `${facts.file.changedInPr ? " (this pull request edits it, so its scans read the pull request's version)" : ""}.`
      : `1. **Committed file** ${file}: not present at ${inlineCode((facts.headSha ?? "").slice(0, 7))}, so it does not apply.`;
  const rev = facts.revision;
  const revText = rev.revisionId
    ? `, latest revision ${inlineCode(rev.revisionId)}${rev.updatedAt ? ` (${rev.updatedAt.slice(0, 10)})` : ""}`
    : rev.updatedAt
      ? `, last changed ${rev.updatedAt.slice(0, 10)}`
      : "";
  const storedLine =
    facts.storedChars > 0
      ? `2. **Stored guidance** of repository ${inlineCode(facts.repositoryId)}: **applies**: ${facts.storedChars.toLocaleString("en-US")} characters${revText}; it adds to the committed file, replacing nothing.`
      : `2. **Stored guidance** of repository ${inlineCode(facts.repositoryId)}: none stored${revText}, so this layer adds nothing.`;
  return {
    answer: [
      "**Guidance** that steers this pull request's scans (layers from the bottom up):",
      "",
      fileLine,
      storedLine,
      "3. **Per-scan guidance**: none: diffward never sends one, so the stored layer is never replaced for a scan.",
      "",
      "diffward never writes guidance; change the stored layer in the scanning service, the file in the repository.",
    ].join("\n"),
  };
}

/** `/diffward guidance`. */
export const guidanceVerb = defineVerb(GuidanceCommand, VERB_NEEDS.repository, {
  parse: argumentless("guidance", "guidance"),
  async read(io, input) {
    const tenant = tenantOf(input);
    const repositoryId = configOf(input).repositoryId;
    const [g, report] = await Promise.all([
      tenant.client.getGuidance(tenant.projectId, repositoryId),
      io.readReport(),
    ]);
    return {
      repositoryId,
      storedChars: g.content?.length ?? 0,
      revision: guidanceRevision(g.raw),
      ...(report?.extras?.guidance ? { file: report.extras.guidance, headSha: report.headSha } : {}),
    };
  },
  plan: planGuidance,
  apply: answerOnly,
});

/** `/diffward areas`. */
export const areasVerb = defineVerb(AreasCommand, VERB_NEEDS.repository, {
  parse: argumentless("areas", "areas"),
  async read(_io, input) {
    const tenant = tenantOf(input);
    return tenant.client.listAuditAreas(tenant.projectId, configOf(input).repositoryId);
  },
  plan: (input, list) => ({ answer: renderAreasAnswer(list, configOf(input).auditAreas ?? []) }),
  apply: answerOnly,
});
