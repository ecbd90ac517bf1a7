/**
 * `policies` and `mode`: per-path rules that say how a finding under a path counts (its mode and, optionally,
 * its own `failOn`), and whether the check only evaluates the policy. One pure rule applies them
 * (src/domain/policy.ts); they never decide what is scanned, so they never cause a scan or a rescan.
 */
import picomatch from "picomatch";
import { z } from "zod";
import { FailOnSetting } from "./fail-on.js";
import { section } from "./fields.js";

/**
 * What a path rule does with the findings it matches: `block` (inline comments as configured, counts toward
 * `failOn`), `comment` (inline comments, never fails the check), `monitor` (in the check run's summary and a
 * notice annotation only, no inline comment, never fails), `off` (not shown, not counted).
 */
export const PolicyMode = z.enum(["block", "comment", "monitor", "off"]);
export type PolicyMode = z.infer<typeof PolicyMode>;

/** Pairs that must balance in a glob (outside a `\` escape): brackets, braces, parentheses. */
const PAIRS: Record<string, string> = { "[": "]", "{": "}", "(": ")" };
const CLOSERS = new Set(Object.values(PAIRS));

/**
 * Why `glob` is not a usable picomatch pattern, or `undefined` when it is. picomatch compiles almost any
 * text (an unclosed `{a,b` becomes a pattern that matches nothing, `src/[a-` a literal), so this is
 * stricter than picomatch: a `[`, `{` or `(` must be closed in order (a `\`-escaped one is a literal),
 * the pattern must compile (`picomatch.makeRe` does not throw) and must be able to match a path (its
 * regular expression is not picomatch's match-nothing `$^`), and it is relative (no leading `/`), as
 * file paths of findings are.
 */
export function globProblem(glob: string): string | undefined {
  if (glob.startsWith("/")) return "must be relative to the repository root (no leading `/`)";
  const open: string[] = [];
  for (let i = 0; i < glob.length; i += 1) {
    const c = glob[i]!;
    if (c === "\\") i += 1;
    else if (PAIRS[c]) open.push(PAIRS[c]);
    else if (CLOSERS.has(c) && open.pop() !== c) return `has an unmatched \`${c}\``;
  }
  if (open.length > 0) return `has an unclosed \`${invert(open.at(-1)!)}\``;
  try {
    if (picomatch.makeRe(glob, { dot: true }).source === "$^") return "can never match a path";
  } catch (e) {
    return `does not compile: ${(e as Error).message}`;
  }
  return undefined;
}

function invert(closer: string): string {
  return Object.keys(PAIRS).find((k) => PAIRS[k] === closer)!;
}

/** A picomatch glob of repository paths, checked by {@link globProblem}. */
export const PathGlob = z
  .string()
  .min(1)
  .max(500)
  .superRefine((glob, ctx) => {
    const problem = globProblem(glob);
    if (problem) ctx.addIssue({ code: "custom", message: `not a valid glob: it ${problem}` });
  });

/** One entry of `policies`: the paths it covers and how their findings count. */
export const PathPolicy = section("A rule for the findings whose file matches one of `paths`.", {
  paths: z
    .array(PathGlob)
    .min(1)
    .max(100)
    .describe(
      "Glob patterns (picomatch syntax, dotfiles included), e.g. `src/payments/**`, matched against the finding's file path.",
    ),
  mode: PolicyMode.default("block").describe(
    "`block`: inline comments as configured, counts toward `failOn`; `comment`: inline comments, never fails the check; `monitor`: in the check run's summary and a notice annotation only, no inline comment, never fails; `off`: not shown, not counted.",
  ),
  failOn: FailOnSetting.optional().describe(
    "This rule's own threshold (a severity, or `{severity, only: new}`) in place of the top-level `failOn` for the findings it matches; only read with `mode: block`.",
  ),
});
export type PathPolicy = z.infer<typeof PathPolicy>;

/** `policies`: path rules in order; the first whose `paths` match a finding's file applies to it. */
export const Policies = z
  .array(PathPolicy)
  .max(100)
  .default([])
  .describe(
    "Per-path rules, in order: the first rule whose `paths` match a finding's file decides how it counts (its `mode` and `failOn`); a finding no rule matches follows the top-level `failOn` (mode `block`). Policies never cause a scan or a rescan.",
  );

/** `mode`: `enforce` concludes as the policy says; `evaluate` never fails the check (neutral, saying why). */
export const EvaluationMode = z
  .enum(["enforce", "evaluate"])
  .default("enforce")
  .describe(
    "`enforce`: the check concludes as the policy says; `evaluate` (to roll a policy out): the check shows what it would conclude and never fails: where it would fail it concludes `neutral` and says why.",
  );

/**
 * `suppressions`: what a `diffward-ignore <reason>: <note>` marker in the pull request's head commit does
 * (src/report/suppressions/): `allow` applies it as the pull request author's `/wontfix <reason> <note>`;
 * `approval` holds it for an approver as a writer's `/wontfix` is held under `triage.approval`; `deny` ignores
 * it and says so. Stricter is later: `allow` < `approval` < `deny` (the organization floor's ladder).
 */
export const SUPPRESSION_MODES = ["allow", "approval", "deny"] as const;
export const SuppressionMode = z.enum(SUPPRESSION_MODES);
export type SuppressionMode = z.infer<typeof SuppressionMode>;

/** `suppressions` of the repository file, with its default. */
export const Suppressions = SuppressionMode.default("allow").describe(
  "Inline suppressions: a line holding `diffward-ignore <reason>: <note>` (`<reason>` a `/wontfix` reason such as `risk_accepted`) on a finding's line or the line above it, in the pull request's head commit, acts as `/wontfix <reason> <note>` from the pull request's author. `allow`: applied (won't fix, with a note naming the file, line and commit); `approval`: held until an approver answers, as `triage.approval` holds a dismissal; `deny`: not applied, and the check run says suppressions are not allowed here. Suppressions never cause a scan or a rescan.",
);
