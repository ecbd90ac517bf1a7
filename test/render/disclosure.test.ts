/**
 * the same report rendered with `disclosure: full` and `disclosure: summary`,
 * with `SCANNER_PUBLIC_URL` set, through the builders the report job uses (plan, check run output,
 * annotations, review body, finding comments).
 */
import { describe, expect, it } from "vitest";
import type { Disclosure, ReportFinding } from "../../src/domain/finding-types.js";
import { planReport } from "../../src/report/decide/plan.js";
import { renderCheckRunOutput } from "../../src/render/check-run.js";
import { toAnnotations } from "../../src/render/annotations.js";
import { renderReviewBody } from "../../src/render/review-body.js";
import { renderFindingComment } from "../../src/render/inline-comment.js";
import { finding } from "../support/finding.js";

const PUBLIC_URL = "https://scanner.example.com";
const PROJECT = "prj_42";
const pageOf = (id: string) => `${PUBLIC_URL}/projects/${PROJECT}/findings/${id}`;

/** In the diff (line 11 is added), blocking. */
const inDiff = finding({
  id: "fnd_crit0000aaaa1111",
  severity: "CRITICAL",
  title: "Command injection in deploy hook",
  location: "scripts/deploy.sh:11",
  description: 'Runs `sh -c "deploy $BRANCH"` with the branch name.',
  recommendedFix: "Pass the branch as an argument.",
});
/** Blocking, but on a line the pull request does not change. */
const outside = finding({
  id: "fnd_high0000bbbb2222",
  severity: "HIGH",
  title: "Token written to the log",
  location: "src/log.ts:300",
  triageStatus: "NEW",
  confirmationEvidence: null,
});
/** Open, below `failOn`, with a location that does not parse. */
const unparsed = finding({
  id: "fnd_med00000dddd4444",
  severity: "MEDIUM",
  title: "Weak hash for session ids",
  location: "module Crypto",
});
/** Ruled out by the service. */
const ruledOut = finding({
  id: "fnd_fp000000cccc3333",
  severity: "HIGH",
  title: "Path traversal in upload",
  location: "src/upload.ts:7",
  triageStatus: "FALSE_POSITIVE",
});
const findings: ReportFinding[] = [outside, ruledOut, unparsed, inDiff];
const files = [
  {
    filename: "scripts/deploy.sh",
    patch: '@@ -10,2 +10,3 @@\n echo start\n+sh -c "deploy $BRANCH"\n echo done',
  },
  { filename: "src/log.ts", patch: "@@ -1,1 +1,2 @@\n a\n+b" },
];

/** Everything diffward posts for this report under one disclosure. */
function report(disclosure: Disclosure) {
  const plan = planReport({
    findings,
    files,
    posted: [],
    config: { failOn: "high", disclosure, maxInline: 10, minSeverity: "low" },
  });
  const output = renderCheckRunOutput({
    scan: {
      id: "scan_7",
      status: "COMPLETED",
      presetName: "diff-standard",
      commitHash: "a".repeat(40),
      baseCommit: "b".repeat(40),
    },
    findings,
    failOn: "high",
    disclosure,
    labelPrefix: "SC",
    publicUrl: PUBLIC_URL,
    projectId: PROJECT,
    inlineIds: [...plan.post, ...plan.update].map((p) => p.finding.id),
  });
  const annotations = toAnnotations(findings, disclosure, { failOn: "high", labelPrefix: "SC" });
  const review = plan.post.length > 0 ? renderReviewBody(plan.verdict, plan.post.length) : undefined;
  const comments = plan.post.map((p) =>
    renderFindingComment(p.finding, { labelPrefix: "SC", publicUrl: PUBLIC_URL }),
  );
  const everything = [
    output.title,
    output.summary,
    output.text ?? "",
    JSON.stringify(annotations),
    review ?? "",
    ...comments,
  ].join("\n");
  return { plan, output, annotations, review, comments, everything };
}

describe("one report, both disclosure modes (SCANNER_PUBLIC_URL set)", () => {
  const full = report("full");
  const summary = report("summary");

  it("counts the same findings the same way in both modes", () => {
    const tally = "4 findings: 3 open (2 blocking), 1 ruled out";
    expect(full.output.summary).toContain(tally);
    expect(summary.output.summary).toContain(tally);
    expect(full.output.title).toBe("2 blocking findings (1 critical, 1 high)");
    expect(summary.output.title).toBe(full.output.title);
    expect(full.review).toContain(`diffward found ${tally}. 1 finding is commented on changed lines below`);
  });

  it("full: titles, locations, details, review comments and annotations; each label links to the service", () => {
    expect(full.plan.post.map((p) => p.finding.id)).toEqual([inDiff.id]);
    for (const f of findings)
      expect(full.output.summary).toContain(`[\`SC-${f.id.slice(-8)}\`](${pageOf(f.id)})`);
    expect(full.output.summary).toContain("Command injection in deploy hook | `scripts/deploy.sh:11`");
    expect(full.output.summary).toContain("Review comments on the diff: 1 of 3 open findings.");
    expect(full.output.summary).toContain(
      "2 open findings without a review comment (outside the diff, below `comments.minSeverity` or over `comments.maxInline`): `SC-bbbb2222` `src/log.ts:300`, `SC-dddd4444` `module Crypto` _(unparsed location)_",
    );
    expect(full.output.text).toContain(
      `### 🔴 Critical · [\`SC-aaaa1111\`](${pageOf(inDiff.id)}) · Command injection`,
    );
    expect(full.output.text).toContain('`sh -c "deploy $BRANCH"`');
    expect(full.output.summary).not.toContain("Details withheld");
    expect(full.annotations.map((a) => [a.path, a.annotation_level])).toEqual([
      ["scripts/deploy.sh", "failure"],
      ["src/log.ts", "failure"],
    ]);
    expect(full.comments).toHaveLength(1);
  });

  it("summary: says what is withheld and why, keeps label, severity, triage and resolution", () => {
    const s = summary.output.summary;
    expect(s).toContain(
      "🔒 Details withheld: this repository uses `disclosure: summary` (the default for public repositories), " +
        "so finding titles, locations, descriptions and fixes are not posted on GitHub, where anyone who can read " +
        "the pull request would see them; for the same reason no review comments or annotations mark the lines " +
        "and nothing goes to GitHub code scanning. Each label below links to the finding in the scanning service.",
    );
    // the note comes before the table it explains
    expect(s.indexOf("🔒 Details withheld")).toBeLessThan(s.indexOf("### Findings"));
    expect(s).toContain("| Label | Severity | Triage | Resolution |");
    expect(s).toContain(
      `| [\`SC-aaaa1111\`](${pageOf(inDiff.id)}) ⛔ | 🔴 Critical | Confirmed | Not started |`,
    );
    expect(s).toContain(`| [\`SC-bbbb2222\`](${pageOf(outside.id)}) ⛔ | 🟠 High | New | Not started |`);
    expect(s).toContain(
      `| [\`SC-dddd4444\`](${pageOf(unparsed.id)}) | 🟡 Medium | Confirmed | Not started |`,
    );
    // the ruled out finding, collapsed, with its triage state
    expect(s).toMatch(
      /<details><summary>1 finding ruled out<\/summary>[\s\S]*\| \[`SC-cccc3333`\]\([^)]+\) \| 🟠 High \| False positive \| Not started \|/,
    );
    expect(s).toContain(
      `[Open the scan in the scanning service](${PUBLIC_URL}/projects/${PROJECT}/scans/scan_7)`,
    );
  });

  it("summary: no count about review comments or the diff, since none are posted by rule", () => {
    expect(summary.output.summary).not.toMatch(/review comment on the diff|Review comments on the diff/i);
    expect(summary.output.summary).not.toContain("outside the diff");
    expect(summary.output.summary).not.toMatch(/without a review comment/);
    expect(summary.plan.post).toEqual([]);
    expect(summary.review).toBeUndefined();
  });

  it("summary: no title, location, description or fix anywhere diffward posts", () => {
    expect(summary.output.text).toBeUndefined();
    expect(summary.annotations).toEqual([]);
    for (const f of findings) {
      for (const secret of [f.title, f.location, f.location.split(":")[0]!]) {
        expect(summary.everything).not.toContain(secret);
      }
    }
    for (const secret of ["deploy $BRANCH", "Pass the branch"])
      expect(summary.everything).not.toContain(secret);
  });
});
