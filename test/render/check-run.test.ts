import { describe, expect, it } from "vitest";
import { DomainInputError } from "../../src/domain/finding-types.js";
import {
  LAUNCH_ERROR_KINDS,
  renderCheckRunOutput,
  renderLaunchError,
  type ScanCancelCause,
  renderProgress,
  renderQueued,
} from "../../src/render/check-run.js";
import type { CheckRunModel, LaunchErrorDetails, LaunchErrorKind } from "../../src/render/check-run.js";
import { CHECK_RUN_SUMMARY_MAX_BYTES } from "../../src/render/limits.js";
import { finding } from "../support/finding.js";

const critical = finding({
  id: "fnd_crit0000aaaa1111",
  displayId: 1,
  severity: "CRITICAL",
  title: "Command injection in deploy | hook",
  location: "scripts/deploy.sh:10-14",
  description: "Shell built from <b>input</b>",
  recommendedFix: "Quote arguments",
});
const high = finding({
  id: "fnd_high0000bbbb2222",
  displayId: 2,
  severity: "HIGH",
  title: "Token logged",
  location: "src/log.ts:3",
  triageStatus: "NEW",
  confirmationEvidence: null,
});

function model(over: Partial<CheckRunModel> = {}): CheckRunModel {
  return {
    scan: {
      id: "scan_1",
      status: "COMPLETED",
      presetName: "diff",
      creditBudget: 400,
      commitHash: "a".repeat(40),
      baseCommit: "b".repeat(40),
    },
    findings: [high, critical],
    failOn: "high",
    disclosure: "full",
    labelPrefix: "SC",
    inlineIds: [critical.id, high.id],
    ...over,
  };
}

describe("renderCheckRunOutput", () => {
  it("summarizes two blocking findings", () => {
    const out = renderCheckRunOutput(model({ serviceUrl: "https://svc.example/scans/scan_1" }));
    expect(out.title).toBe("2 blocking findings (1 critical, 1 high)");
    expect(out.summary).toMatchInlineSnapshot(`
      "## ❌ 2 findings at or above \`high\` block this pull request

      2 findings: 2 open (2 blocking), 0 ruled out

      🔴 Critical **1** · 🟠 High **1** · 🟡 Medium **0** · 🔵 Low **0** · ⚪ Info **0**

      ### Policy

      | Part | Value | Source |
      | --- | --- | --- |
      | \`failOn\` | \`high\` | repository file (.github/diffward.yml) |
      | \`mode\` | \`enforce\` | repository file (.github/diffward.yml) |

      Blocking: **2** · Pre-existing: **0** · Monitored: **0** · Suppressed: **0** · Held: **0**

      ### Findings

      | Label | Severity | Title | Location | Triage | Evidence | Resolution |
      | --- | --- | --- | --- | --- | --- | --- |
      | \`SC-aaaa1111\` ⛔ | 🔴 Critical | Command injection in deploy \\| hook | \`scripts/deploy.sh:10-14\` | Confirmed | Proof of concept | Not started |
      | \`SC-bbbb2222\` ⛔ | 🟠 High | Token logged | \`src/log.ts:3\` | New | — | Not started |

      ⛔ blocks this pull request (\`failOn: high\`)

      Review comments on the diff: 2 of 2 open findings.

      ### Credits

      Budget: **400** credits reserved.

      ---
      Scan \`scan_1\` · preset \`diff\` · commit \`aaaaaaa\` against base \`bbbbbbb\` · [Open the scan in the scanning service](https://svc.example/scans/scan_1)"
    `);
  });

  it("puts ruled-out findings in a collapsed block and lists those outside the diff", () => {
    const fp = finding({ id: "fnd_fp000000cccc3333", title: "Not real", triageStatus: "FALSE_POSITIVE" });
    const medium = finding({
      id: "fnd_med00000dddd4444",
      severity: "MEDIUM",
      title: "Weak hash",
      location: "module Crypto",
    });
    const out = renderCheckRunOutput(model({ findings: [medium, fp], inlineIds: [] }));
    expect(out.title).toBe("No blocking findings (1 open below high)");
    expect(out.summary).toContain("## ✅ No open finding at or above `high`");
    expect(out.summary).toMatch(
      /<details><summary>1 finding ruled out<\/summary>\n\nRuled out by[^\n]*\n\n\| Label[\s\S]*Not real[\s\S]*<\/details>/,
    );
    expect(out.summary).toContain(
      "1 open finding without a review comment (outside the diff, below `comments.minSeverity` or over `comments.maxInline`): `SC-dddd4444` `module Crypto` _(unparsed location)_",
    );
    expect(out.text).toContain("Weak hash");
    expect(out.text).not.toContain("Not real");
  });

  // a decision carried by fingerprint rather than by id says so in the finding's row
  it("says in the finding's row when its decision was matched by fingerprint", () => {
    const carried = {
      ...high,
      resolutionStatus: "FALSE_POSITIVE",
      matchedTo: { findingId: "fnd_old00000cccc3333", by: "fingerprint" as const },
    };
    const moved = {
      ...critical,
      resolutionStatus: "WONT_FIX",
      matchedTo: { findingId: "fnd_old00000dddd4444", by: "recurring" as const },
    };
    for (const disclosure of ["full", "summary"] as const) {
      const { summary } = renderCheckRunOutput(model({ findings: [carried, moved], disclosure }));
      const row = summary.split("\n").find((l) => l.includes("SC-bbbb2222"))!;
      expect(row).toContain("False positive (matched by fingerprint to `SC-cccc3333`)");
      const other = summary.split("\n").find((l) => l.includes("SC-aaaa1111"))!;
      expect(other).toContain(
        "matched by fingerprint to `SC-dddd4444` (same file, category and title at another line",
      );
    }
    expect(renderCheckRunOutput(model()).summary).not.toContain("matched by fingerprint");
  });

  it("says no blocking findings when there are none", () => {
    const out = renderCheckRunOutput(model({ findings: [], inlineIds: [] }));
    expect(out.title).toBe("No blocking findings");
    expect(out.text).toBeUndefined();
    expect(renderCheckRunOutput(model({ failOn: "none" })).title).toBe(
      "No blocking findings (2 open; failOn: none)",
    );
  });

  it("keeps titles, locations and descriptions out with disclosure summary", () => {
    const out = renderCheckRunOutput(
      model({ disclosure: "summary", inlineIds: [], serviceUrl: "https://svc.example/s/1" }),
    );
    for (const secret of [
      "Command injection",
      "Token logged",
      "scripts/deploy.sh",
      "src/log.ts",
      "Shell built",
    ]) {
      expect(out.summary).not.toContain(secret);
    }
    expect(out.text).toBeUndefined();
    expect(out.summary).toContain("| `SC-aaaa1111` ⛔ | 🔴 Critical | Confirmed | Not started |");
    expect(out.summary).toContain("`SC-bbbb2222`");
    expect(out.summary).toContain("[Open the scan in the scanning service](https://svc.example/s/1)");
  });

  it("renders credits, guidance and warnings sections", () => {
    const out = renderCheckRunOutput(
      model({
        credits: { reserved: 400, spent: 120, settled: false, ranShort: true },
        guidance: {
          path: "SCANNER.md",
          present: true,
          sizeChars: 120_000,
          changedInPr: { additions: 3, deletions: 1 },
        },
        warnings: ["fail_on @ignored: using default <high>"],
      }),
    );
    expect(out.summary).toContain("Budget: **400** credits reserved.");
    expect(out.summary).toContain("Spent so far: **120** credits; the final amount settles");
    expect(out.summary).toContain("coverage is **partial**");
    expect(out.summary).toContain("Guidance file `SCANNER.md` applied (120000 characters).");
    expect(out.summary).toContain("longer than the service's 100,000-character guidance limit");
    expect(out.summary).toContain("This pull request edits `SCANNER.md` (+3 −1 lines)");
    expect(out.summary).toContain("- ⚠️ fail_on @\u200Bignored: using default &lt;high&gt;");
    const absent = renderCheckRunOutput(
      model({ guidance: { path: "SCANNER.md", present: false }, credits: { spent: 50, settled: true } }),
    );
    expect(absent.summary).toContain("No guidance file `SCANNER.md`");
    expect(absent.summary).toContain("Spent: **50** credits; the unused 350 went back to the balance.");
    const settled = renderCheckRunOutput(model({ credits: { reserved: 400, spent: 120, settled: true } }));
    expect(settled.summary).toContain("Spent: **120** credits; the unused 280 went back to the balance.");
    const short = renderCheckRunOutput(
      model({ credits: { reserved: 400, spent: 400, settled: true, ranShort: true } }),
    );
    expect(short.summary).toContain("Spent: **400** credits, the whole budget.");
    expect(short.summary).not.toContain("went back");
  });

  it("flags a scan that did not complete", () => {
    expect(renderCheckRunOutput(model({ scan: { id: "s", status: "CANCELLED" } })).summary).toContain(
      "The scan ended as `CANCELLED`",
    );
  });

  it("stays within 65,535 bytes with thousands of findings", () => {
    const many = Array.from({ length: 3000 }, (_, i) =>
      finding({
        id: `fnd_${String(i).padStart(16, "0")}`,
        displayId: i,
        title: `Issue ${"é".repeat(30)} ${i}`,
        description: "d".repeat(500),
      }),
    );
    const out = renderCheckRunOutput(model({ findings: many, serviceUrl: "https://svc.example/s/1" }));
    expect(Buffer.byteLength(out.summary)).toBeLessThanOrEqual(CHECK_RUN_SUMMARY_MAX_BYTES);
    expect(Buffer.byteLength(out.text!)).toBeLessThanOrEqual(CHECK_RUN_SUMMARY_MAX_BYTES);
    expect(out.summary).toContain(
      "cut to fit GitHub's 65,535-byte limit. [Open the scan in the scanning service]",
    );
    expect(out.title).toBe("3000 blocking findings (3000 high)");
  });

  it("refuses a malformed model with a typed error naming the field", () => {
    const bad = model({ findings: [{ ...high, severity: "URGENT" as never }] });
    expect(() => renderCheckRunOutput(bad)).toThrow(DomainInputError);
    expect(() => renderCheckRunOutput(bad)).toThrow(/findings\.0\.severity/);
  });
});

describe("states other than a report", () => {
  it("queued and progress", () => {
    expect(renderQueued({ scanId: "scan_1", creditBudget: 400 }).summary).toContain(
      "Scan `scan_1` · 400 credits reserved",
    );
    const p = renderProgress(42, 3, 7, "PROCESSING");
    expect(p.title).toBe("Scanning: 42%");
    expect(p.summary).toContain("▰▰▰▰▱▱▱▱▱▱ **42%** · 3 of 7 phases done");
    expect(renderProgress(150, 7, 7, "PROCESSING").title).toBe("Scanning: 100%");
    expect(() => renderProgress(-1, 0, 1, "PROCESSING")).toThrow(DomainInputError);
    expect(() => renderProgress(Number.NaN, 0, 1, "PROCESSING")).toThrow(/percent/);
  });

  it("renders a launch error", () => {
    expect(
      renderLaunchError("insufficient_credits", {
        availableCredits: 20,
        requiredCredits: 400,
        message: "balance too low",
      }),
    ).toMatchInlineSnapshot(`
        {
          "summary": "**What happened:** The scanning service refused the scan: the prepaid credits cannot cover its budget.

        **Why:** Credits are held by the organization and shared by all its projects; scans in flight hold part of the balance. (budget needed: **400** credits, available: **20** credits)

        **What next:** Buy credits or lower the credit budget in \`.github/diffward.yml\`, then comment \`/diffward rescan\` or push again.

        The service said:

        \`\`\`
        balance too low
        \`\`\`",
          "title": "Not enough credits to scan",
        }
      `);
  });

  const samples: { [K in LaunchErrorKind]: LaunchErrorDetails[K] } = {
    repository_initializing: { retryInSeconds: 60 },
    rate_limited: { retryAfterSeconds: 30 },
    insufficient_credits: { availableCredits: 1 },
    diff_empty: { baseCommit: "b".repeat(40), headSha: "c".repeat(40) },
    diff_base_required: { presetName: "diff" },
    diff_base_not_allowed: { presetName: "full" },
    diff_base_invalid: { baseCommit: "nope" },
    bad_request: { message: "creditBudget must be at least 50" },
    unauthorized: {},
    forbidden: { scope: "scans:launch" },
    not_found: { repositoryId: "repo_1" },
    internal: { attempt: 2, maxAttempts: 5, retryInSeconds: 8 },
    network: { message: "ECONNRESET" },
    service_unavailable: { maxWaitMinutes: 60 },
    service_outage: { waitedMinutes: 60 },
    launch_unconfirmed: {},
    superseded: { bySha: "d".repeat(40) },
    timed_out: { waitedSeconds: 3600, lastPercent: 80 },
    scan_failed: { scanId: "scan_9", message: "analysis crashed" },
    scan_cancelled: { scanId: "scan_9" },
    config_invalid: { path: ".github/diffward.yml", problems: ["fail_on: expected one of critical, high"] },
    not_onboarded: {},
    no_token: {},
  };
  const expectations: Record<LaunchErrorKind, string> = {
    repository_initializing: "analyzing this repository for the first time",
    rate_limited: "retries in 30 seconds",
    insufficient_credits: "available: **1** credits",
    diff_empty: "no change between `bbbbbbb` and `ccccccc`",
    diff_base_required: "needs a base commit",
    diff_base_not_allowed: "refuses a base commit",
    diff_base_invalid: "`nope` is malformed or unknown",
    bad_request: "```\ncreditBudget must be at least 50\n```",
    unauthorized: "missing, malformed, expired or revoked",
    forbidden: "needs the `scans:launch` scope",
    not_found: "(`repo_1`)",
    internal: "retries in 8 seconds (attempt 2 of 5)",
    network: "could not reach the scanning service",
    service_unavailable: "The scanning service is unavailable; diffward retries and resumes on its own.",
    service_outage: "stayed unavailable for 60 minutes",
    launch_unconfirmed: "looks the scan up in the service's scan list",
    superseded: "`ddddddd` was pushed",
    timed_out: "after 60 minutes, at 80%",
    scan_failed: "analysis crashed",
    scan_cancelled: "Scan `scan_9` was cancelled",
    config_invalid: "```\nfail_on: expected one of critical, high\n```",
    not_onboarded: "not connected to a project",
    no_token: "No scanning service token is configured",
  };

  it.each(LAUNCH_ERROR_KINDS)("%s says what, why and what next", (kind) => {
    const out = renderLaunchError(kind, samples[kind] as never);
    expect(out.title.length).toBeGreaterThan(5);
    expect(out.summary).toContain("**What happened:**");
    expect(out.summary).toContain("**Why:**");
    expect(out.summary).toContain("**What next:**");
    expect(out.summary).toContain(expectations[kind]);
  });

  it("scan_cancelled: a cancel diffward made says who or what made it, in diffward's words", () => {
    const why = (cause?: ScanCancelCause) =>
      /\*\*Why:\*\* (.*)/.exec(
        renderLaunchError("scan_cancelled", { scanId: "scan_9", ...(cause ? { cause } : {}) }).summary,
      )?.[1];
    expect(why()).toBe(
      "Someone cancelled it in the scanning service or with `/diffward cancel`; reserved credits were released.",
    );
    expect(why({ kind: "command", login: "octo-lead" })).toBe(
      "`@octo-lead` cancelled it with `/diffward cancel`; reserved credits were released.",
    );
    expect(why({ kind: "closed" })).toBe(
      "The pull request was closed, so diffward cancelled the scan; reserved credits were released.",
    );
    expect(why({ kind: "uninstalled" })).toBe(
      "diffward was uninstalled from this account, so it cancelled the scan; reserved credits were released.",
    );
  });

  it("quotes a hostile service message without letting it out of the code block", () => {
    const out = renderLaunchError("bad_request", { message: "```\n<img src=x> @admin\n```" });
    expect(out.summary).toContain("````\n```\n<img src=x> @admin\n```\n````");
  });

  it("refuses missing required details with a typed error", () => {
    const untyped = renderLaunchError as (kind: string, details?: object) => unknown;
    expect(() => untyped("superseded")).toThrow(/bySha: required/);
    expect(() => untyped("config_invalid", { path: "x" })).toThrow(DomainInputError);
  });

  it("refuses an unknown kind", () => {
    expect(() => (renderLaunchError as (kind: string) => unknown)("exploded")).toThrow(DomainInputError);
  });
});

// a very long title never crowds the findings table or a details heading
describe("very long finding titles", () => {
  it("stay within their line in the table, the details and the review comment", async () => {
    const { renderFindingComment } = await import("../../src/render/inline-comment.js");
    const { TITLE_LINE_MAX_CHARS } = await import("../../src/render/limits.js");
    const long = finding({ id: "fnd_long0000eeee5555", title: `Leak ${"x".repeat(200_000)}` });
    const out = renderCheckRunOutput(model({ findings: [long, high] }));
    const row = out.summary.split("\n").find((l) => l.includes("SC-eeee5555"))!;
    expect(row.length).toBeLessThan(400);
    expect(out.summary).toContain("SC-bbbb2222"); // the next finding is still in the table
    const heading = out.text!.split("\n").find((l) => l.startsWith("### ") && l.includes("SC-eeee5555"))!;
    expect(heading.length).toBeLessThan(TITLE_LINE_MAX_CHARS + 200);
    expect(heading).toContain("…");
    const titleLine = renderFindingComment(long, { labelPrefix: "SC" })
      .split("\n")
      .find((l) => l.startsWith("**Leak"))!;
    expect(titleLine.length).toBeLessThanOrEqual(TITLE_LINE_MAX_CHARS + 4);
  });
});
