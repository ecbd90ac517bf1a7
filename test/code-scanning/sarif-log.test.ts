import { gunzipSync } from "node:zlib";
import fc from "fast-check";
import type { Log } from "sarif";
import { describe, expect, it } from "vitest";
// Validates against the official OASIS SARIF 2.1.0 schema (fixtures/sarif/), never a hand-written one.
import { sarifSchemaErrors } from "../../dev/github-standin/index.js";
import {
  alertMessage,
  buildSarif,
  encodeSarif,
  findingIdFromMessage,
  FINGERPRINT_KEY,
  ruleIdOf,
  SARIF_LIMITS,
  SarifTooLargeError,
} from "../../src/code-scanning/sarif-log.js";
import { planCodeScanningUpload } from "../../src/code-scanning/sarif-upload.js";
import { fingerprint } from "../../src/domain/identity.js";
import type { ReportFinding } from "../../src/domain/finding-types.js";
import { nthFinding } from "../support/finding.js";
import { propertyOptions } from "../support/property.js";

const HEAD = "a".repeat(40);
let n = 0;
/** A new distinct finding each call. */
const finding = (over: Partial<ReportFinding> = {}) => nthFinding(++n, over);
const base = { labelPrefix: "SC", toolVersion: "0.1.0", headSha: HEAD, scanId: "scan_1" };

describe("buildSarif", () => {
  it("validates against the official SARIF 2.1.0 schema, with one result per open finding", () => {
    const findings = [
      finding({ severity: "CRITICAL", category: "injection", location: "src/db.js:12-14" }),
      finding({ severity: "MEDIUM", category: "injection", location: "src/db.js:40" }),
      finding({ severity: "LOW", category: "secrets", location: "src/config.js" }),
      finding({ resolutionStatus: "FALSE_POSITIVE" }), // closed: no result
      finding({ triageStatus: "DUPLICATE" }), // ruled out by the service: no result
      finding({ resolutionStatus: "IN_PROGRESS", severity: "INFO", category: "style" }),
    ];
    const { log, included, unplaceable } = buildSarif({ ...base, findings });
    expect(sarifSchemaErrors(log)).toEqual([]);
    expect(log.version).toBe("2.1.0");
    const run = log.runs[0]!;
    expect(run.tool.driver.name).toBe("diffward");
    expect(included).toBe(4);
    expect(unplaceable).toEqual([]);
    expect(run.results).toHaveLength(4);
    // most severe first; ruleId from the category; level from severity
    expect(run.results!.map((r) => [r.ruleId, r.level])).toEqual([
      ["injection", "error"],
      ["injection", "warning"],
      ["secrets", "note"],
      ["style", "note"],
    ]);
    // one rule per category, carrying the security tag and the security-severity of its worst result
    expect(
      run.tool.driver.rules!.map((r) => [r.id, r.properties?.["security-severity"], r.properties?.tags]),
    ).toEqual([
      ["injection", "9.5", ["security"]],
      ["secrets", "2.0", ["security"]],
      ["style", "0.0", ["security"]],
    ]);
    for (const r of run.results!) expect(run.tool.driver.rules![r.ruleIndex!]!.id).toBe(r.ruleId);
  });

  it("places regions only when the location has lines, and fingerprints with diffward's identity", () => {
    const withLines = finding({ location: "src/db.js:12-14" });
    const fileOnly = finding({ location: "src/config.js" });
    const { log } = buildSarif({ ...base, findings: [withLines, fileOnly] });
    const byId = new Map(log.runs[0]!.results!.map((r) => [r.properties!["findingId"], r]));
    const a = byId.get(withLines.id)!.locations![0]!.physicalLocation!;
    expect(a.artifactLocation!.uri).toBe("src/db.js");
    expect(a.region).toEqual({ startLine: 12, endLine: 14 });
    const b = byId.get(fileOnly.id)!.locations![0]!.physicalLocation!;
    expect(b.artifactLocation!.uri).toBe("src/config.js");
    expect(b.region).toBeUndefined();
    expect(byId.get(withLines.id)!.partialFingerprints).toEqual({
      [FINGERPRINT_KEY]: fingerprint(withLines),
    });
  });

  it("a finding whose location names no file is left out and reported, never a broken result", () => {
    const bad = finding({ location: "module Foo" });
    const { log, unplaceable } = buildSarif({ ...base, findings: [bad, finding()] });
    expect(unplaceable).toEqual([bad.id]);
    expect(log.runs[0]!.results).toHaveLength(1);
    expect(sarifSchemaErrors(log)).toEqual([]);
  });

  it("keeps at most maxResults results, dropping the least severe (GitHub keeps 5,000 per run)", () => {
    expect(SARIF_LIMITS.resultsPerRun).toBe(5_000);
    const findings = [
      finding({ severity: "LOW" }),
      finding({ severity: "CRITICAL" }),
      finding({ severity: "MEDIUM" }),
    ];
    const built = buildSarif({ ...base, findings, maxResults: 2 });
    expect(built.included).toBe(2);
    expect(built.overLimit).toBe(1);
    expect(built.log.runs[0]!.results!.map((r) => r.properties!["severity"])).toEqual(["CRITICAL", "MEDIUM"]);
  });

  it("the message holds the label and the escaped title, and names the finding back", () => {
    const f = finding({ title: "Use of @admin in <script> [x](1) for #12" });
    const text = alertMessage(f, "SC");
    expect(text.startsWith(`SC-${f.id.slice(-8)}: `)).toBe(true);
    expect(text).not.toMatch(/@[A-Za-z]/); // no mention
    expect(text).not.toMatch(/<[a-z]/i); // no HTML
    expect(text).not.toMatch(/#\d/); // no reference
    expect(text).toContain("\\[x\\](1)"); // no SARIF embedded link
    expect(findingIdFromMessage(text)).toEqual({ id: f.id });
    expect(findingIdFromMessage(`SC-${f.id.slice(-8)}: something`)).toEqual({
      label: `SC-${f.id.slice(-8)}`,
    });
    expect(findingIdFromMessage("A CodeQL alert")).toBeUndefined();
  });

  it("any title round-trips: the finding id is always read back from the message (property)", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), fc.stringMatching(/^[A-Za-z0-9_-]{9,40}$/), (title, id) => {
        const text = alertMessage({ id, title }, "SC");
        expect(findingIdFromMessage(text)).toEqual({ id });
      }),
      propertyOptions(),
    );
  });

  it("rule ids follow the category only (stable across pushes); empty becomes uncategorized", () => {
    expect(ruleIdOf("  sql   injection ")).toBe("sql injection");
    expect(ruleIdOf("")).toBe("uncategorized");
    expect(ruleIdOf("x".repeat(400))).toHaveLength(255);
  });
});

describe("encodeSarif", () => {
  it("is gzip + Base64 of the log", () => {
    const findings = [finding(), finding({ severity: "LOW" })];
    const enc = encodeSarif({ ...base, findings });
    const log = JSON.parse(gunzipSync(Buffer.from(enc.sarif, "base64")).toString("utf8")) as Log;
    expect(log).toEqual(enc.log);
    expect(sarifSchemaErrors(log)).toEqual([]);
    expect(enc.gzipBytes).toBe(Buffer.from(enc.sarif, "base64").length);
  });

  it("drops the least severe results until the compressed log fits the size limit", () => {
    // titles of random text compress badly; a tiny limit forces halving
    const findings = Array.from({ length: 64 }, (_, i) =>
      finding({
        severity: i < 4 ? "CRITICAL" : "LOW",
        title: `t${i} ${Math.random().toString(36).repeat(20)}`,
      }),
    );
    const enc = encodeSarif({ ...base, findings }, 4_000);
    expect(enc.gzipBytes).toBeLessThanOrEqual(4_000);
    expect(enc.included).toBeLessThan(64);
    expect(enc.overLimit).toBe(64 - enc.included);
    expect(enc.log.runs[0]!.results!.slice(0, 4).every((r) => r.properties!["severity"] === "CRITICAL")).toBe(
      true,
    );
    expect(() => encodeSarif({ ...base, findings }, 10)).toThrow(SarifTooLargeError);
  });
});

describe("planCodeScanningUpload", () => {
  const input = {
    enabled: true,
    disclosure: "full" as const,
    pullNumber: 7,
    headSha: HEAD,
    scanId: "scan_1",
    findings: [finding()],
    labelPrefix: "SC",
    repoHtmlUrl: "https://github.com/o/r",
  };
  it("uploads to refs/pull/<n>/head at the scanned head when on with full disclosure", () => {
    const plan = planCodeScanningUpload(input);
    expect(plan.kind).toBe("upload");
    if (plan.kind !== "upload") return;
    expect(plan.ref).toBe("refs/pull/7/head");
    expect(plan.commitSha).toBe(HEAD);
    expect(plan.resultsUrl).toBe(
      "https://github.com/o/r/security/code-scanning?query=pr%3A7%20tool%3Adiffward%20is%3Aopen",
    );
  });
  it("a merge group uploads to its head_ref at its head, and the results link filters by that branch", () => {
    const headRef = "refs/heads/gh-readonly-queue/main/pr-7-" + "c".repeat(40);
    const plan = planCodeScanningUpload({ ...input, mergeGroupHeadRef: headRef });
    expect(plan).toMatchObject({ kind: "upload", ref: headRef, commitSha: HEAD, of: "merge group" });
    if (plan.kind !== "upload") return;
    expect(plan.resultsUrl).toBe(
      `https://github.com/o/r/security/code-scanning?query=${encodeURIComponent(`branch:gh-readonly-queue/main/pr-7-${"c".repeat(40)} tool:diffward is:open`)}`,
    );
    expect(planCodeScanningUpload({ ...input, mergeGroupHeadRef: headRef, disclosure: "summary" }).kind).toBe(
      "withheld",
    );
  });
  it("a default-branch baseline uploads to refs/heads/<branch> at the commit, with the same fingerprints as a pull request's", () => {
    const plan = planCodeScanningUpload({ ...input, pullNumber: 0, baselineBranch: "main" });
    expect(plan).toMatchObject({
      kind: "upload",
      ref: "refs/heads/main",
      commitSha: HEAD,
      of: "default branch",
    });
    if (plan.kind !== "upload") return;
    expect(plan.resultsUrl).toBe(
      `https://github.com/o/r/security/code-scanning?query=${encodeURIComponent("branch:main tool:diffward is:open")}`,
    );
    const pull = planCodeScanningUpload(input);
    if (pull.kind !== "upload") throw new Error("expected an upload");
    const results = (p: typeof plan) => p.encoded.sarif;
    expect(results(plan)).toBe(results(pull));
  });
  it("withholds everything under summary disclosure and says why; off means nothing at all", () => {
    const withheld = planCodeScanningUpload({ ...input, disclosure: "summary" });
    expect(withheld.kind).toBe("withheld");
    if (withheld.kind === "withheld") expect(withheld.info).toMatchObject({ status: "withheld" });
    expect(JSON.stringify(withheld)).toContain("`disclosure` is `summary`");
    expect(planCodeScanningUpload({ ...input, enabled: false })).toEqual({ kind: "off" });
  });
});
