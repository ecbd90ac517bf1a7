import { commentableLines, pickCommentLine } from "../../domain/diff.js";
import { matchFindings, type MatchedBy } from "../../domain/identity.js";
import { parseLocation } from "../../domain/location.js";
import type { Disclosure, FailOn, ReportFinding } from "../../domain/finding-types.js";
import type { FailOnSetting } from "../../config/repo-config.js";
import {
  applyPolicy,
  atLeast,
  decideConclusion,
  isRuledOut,
  sortFindings,
  type BlockingRule,
  type Verdict,
} from "../../domain/verdict.js";
import type { PostedFindingComment } from "./posted.js";

/** What the plan reads of a diffward finding comment already on the pull request: its identity. */
export type PostedFindingIdentity = Omit<PostedFindingComment, "body">;

/** A file of the pull request; no `patch` means GitHub showed no diff for it (binary, too large). */
export interface PlanFile {
  filename: string;
  patch?: string;
}

/** What shapes the report (from `.github/diffward.yml`). */
export interface PlanConfig {
  /** `failOn` as configured, or the policy's rule with the base branch's baseline (`policyRule`) */
  failOn: FailOnSetting | BlockingRule;
  disclosure: Disclosure;
  maxInline: number;
  /** lowest severity that gets an inline comment, lower-case as in the config */
  minSeverity: Exclude<FailOn, "none">;
}

/** One inline comment to post or update. */
export interface InlinePlacement {
  finding: ReportFinding;
  path: string;
  line: number;
  /** set when a comment for the same finding identity exists: update it instead of posting */
  existingCommentId?: number;
  matchedBy?: MatchedBy;
}

/** The decisions of a report, computed without I/O. */
export interface ReportPlan {
  verdict: Verdict;
  /** new inline comments, most severe first, capped by `maxInline` */
  post: InlinePlacement[];
  /** existing comments whose finding reappears (same id or fingerprint): their bodies are refreshed */
  update: InlinePlacement[];
  /** findings that take no inline comment (outside the diff, over the cap, summary disclosure, ruled out) */
  notInline: ReportFinding[];
}

/**
 * Plans a finished scan's report:
 * - the verdict: {@link decideConclusion} with `failOn` (the rule, with the baseline's pre-existing findings);
 * - inline comments only with `disclosure: full`, only for open findings at or above `minSeverity` whose
 *   location's line is on the RIGHT side of its file's patch (so GitHub never answers 422), most severe
 *   first, at most `maxInline`;
 * - identity across pushes: a finding whose identity (id, fingerprint, or shape for a finding the service
 *   triaged `RECURRING`/`DUPLICATE`: src/domain/identity.ts) matches a comment diffward already posted on
 *   this pull request updates that comment instead of posting again;
 * - the policy (src/domain/policy.ts `applyPolicy`): a finding under a path rule in mode `monitor` takes no
 *   inline comment (nor refreshes one), under `off` it is left out of the plan entirely;
 * - everything else is listed in the summary (and annotated when it has a line), never lost.
 */
export function planReport(input: {
  findings: readonly ReportFinding[];
  files: readonly PlanFile[];
  posted: readonly PostedFindingIdentity[];
  config: PlanConfig;
}): ReportPlan {
  const { config } = input;
  const findings = sortFindings(input.findings);
  const verdict = decideConclusion(findings, config.failOn);
  const lines = new Map<string, Set<number>>();
  for (const f of input.files) if (f.patch !== undefined) lines.set(f.filename, commentableLines(f.patch));

  const matches = new Map(
    matchFindings(
      input.posted.map((p) => ({
        id: p.findingId,
        fingerprint: p.fingerprint,
        shape: p.shape,
        legacy: p.version === 1 ? ("comment" as const) : undefined,
        p,
      })),
      findings,
    ).map((m) => [m.current, m] as const),
  );
  const used = new Set<number>();

  const post: InlinePlacement[] = [];
  const update: InlinePlacement[] = [];
  const notInline: ReportFinding[] = [];
  for (const f of findings) {
    const outcome = applyPolicy(f, config.failOn).outcome;
    // `off`: not shown at all; `monitor`: in the check run only, never a review comment
    if (outcome === "off") continue;
    if (outcome === "monitored") {
      notInline.push(f);
      continue;
    }
    const loc = parseLocation(f.location);
    const fileLines = loc ? lines.get(loc.path) : undefined;
    const line = fileLines ? pickCommentLine(loc, fileLines) : undefined;
    const m = matches.get(f);
    const match: PostedFindingIdentity | undefined = m?.previous.p;
    const matchedBy: MatchedBy | undefined = m?.by;
    if (match && !used.has(match.commentId) && config.disclosure === "full") {
      used.add(match.commentId);
      update.push({
        finding: f,
        path: loc?.path ?? "",
        line: line ?? 0,
        existingCommentId: match.commentId,
        ...(matchedBy ? { matchedBy } : {}),
      });
      continue;
    }
    const wanted =
      config.disclosure === "full" &&
      !isRuledOut(f) &&
      atLeast(f.severity, config.minSeverity) &&
      loc !== undefined &&
      line !== undefined &&
      post.length < config.maxInline;
    if (wanted) {
      // Single-line comments: a multi-line range must sit in one hunk, which GitHub checks with a 422.
      post.push({ finding: f, path: loc.path, line });
    } else {
      notInline.push(f);
    }
  }
  return { verdict, post, update, notInline };
}
