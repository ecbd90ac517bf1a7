import { describe, expect, it } from "vitest";
import {
  baselinePresetProblem,
  decideBaseline,
  followsCommit,
  isStalePush,
  knownDiffPresets,
  type BaselineFacts,
} from "../../src/baseline/decide-baseline.js";
import type { ScanPreset } from "../../src/scanner/schemas.js";
import { pullRequestEvent, repoConfig } from "../support/jobs.js";
import { RepoContext } from "../../src/job-catalogue/repo-context.js";

const PRESETS: ScanPreset[] = [
  { ref: "full-standard", name: "Full scan", minCredits: 50, modelTier: "standard" },
  { ref: "diff-standard", name: "Diff scan", minCredits: 10, modelTier: "standard" },
];

const HEAD = "a".repeat(40);

function facts(extra: Partial<BaselineFacts> = {}, baseline: Record<string, unknown> = {}): BaselineFacts {
  return {
    event: {
      ...RepoContext.parse(pullRequestEvent),
      deliveryId: "d-push-1",
      trigger: "push",
      headSha: HEAD,
      commitMessage: "Merge pull request #3",
    },
    config: repoConfig({
      debounceSeconds: 5,
      baseline: { on: "push", preset: "full-standard", ...baseline },
    }),
    diffPresets: knownDiffPresets(repoConfig({}), "diff-standard"),
    token: { kind: "found" },
    presets: PRESETS,
    nonce: "d-push-1",
    ...extra,
  };
}

describe("decideBaseline", () => {
  it("a push: a queued check and one launch of the commit with the baseline preset, no base, the branch, after the debounce", () => {
    const plan = decideBaseline(facts({}, { creditBudget: 120 }));
    expect(plan.outcome).toBe("launch-enqueued");
    expect(plan.check).toMatchObject({ status: "queued", output: { title: "Baseline of main queued" } });
    expect(plan.launch?.delayMs).toBe(5_000);
    expect(plan.launch?.data).toMatchObject({
      target: { kind: "baseline", branch: "main" },
      headSha: HEAD,
      headRef: "main",
      mergeBase: null,
      presetRef: "full-standard",
      creditBudget: 120,
      pullNumber: 0,
      commitMessage: "Merge pull request #3",
      config: { disclosure: "full" },
    });
    expect(plan.launch?.jobId).toBe(`launch-${plan.launch?.data.launchKey}`);
  });

  it("a schedule launches at once; each start has its own launch key, a retry of one the same", () => {
    const scheduled = decideBaseline(facts({ event: { ...facts().event, trigger: "schedule" } }));
    expect(scheduled.launch?.delayMs).toBe(0);
    expect(scheduled.check.output?.summary).toContain("scheduled baseline");
    const a = decideBaseline(facts()).launch!.data.launchKey;
    expect(decideBaseline(facts()).launch!.data.launchKey).toBe(a);
    expect(decideBaseline(facts({ nonce: "d-push-2" })).launch!.data.launchKey).not.toBe(a);
  });

  it("a diff preset or an unknown one is a configuration error: failure, no launch", () => {
    const diff = decideBaseline(facts({}, { preset: "diff-standard" }));
    expect(diff.outcome).toBe("config-error");
    expect(diff.launch).toBeUndefined();
    expect(diff.check).toMatchObject({
      conclusion: "failure",
      output: { title: "Invalid baseline configuration" },
    });
    expect(diff.check.output?.summary).toContain('baseline.preset: "diff-standard" is a diff preset');
    const unknown = decideBaseline(facts({}, { preset: "full-huge" }));
    expect(unknown.outcome).toBe("config-error");
    expect(unknown.check.output?.summary).toContain("full-standard, diff-standard");
  });

  it("no token: neutral; a refused token: failure; neither launches", () => {
    expect(decideBaseline(facts({ token: { kind: "absent" } }))).toMatchObject({
      outcome: "no-token",
      check: { conclusion: "neutral" },
    });
    expect(decideBaseline(facts({ token: { kind: "refused", message: "revoked" } }))).toMatchObject({
      outcome: "no-token",
      check: { conclusion: "failure" },
    });
  });
});

describe("baselinePresetProblem", () => {
  const PRESETS_3 = [...PRESETS, { ref: "diff-deep", name: "Deep diff", minCredits: 20, modelTier: "deep" }];

  it("refuses the known diff presets and presets the service does not list", () => {
    const known = knownDiffPresets({}, "diff-standard");
    expect(baselinePresetProblem("full-standard", PRESETS, known)).toBeUndefined();
    expect(baselinePresetProblem("diff-standard", PRESETS, known)).toMatch(
      /is a diff preset \(it is the app's pull request preset, SCANNER_DIFF_PRESET\)/,
    );
    expect(baselinePresetProblem("nope", PRESETS, known)).toMatch(/is not one of the service's presets/);
  });

  it("knows both the repository's preset and the app's SCANNER_DIFF_PRESET: a repository on another diff preset still has the app's refused", () => {
    const known = knownDiffPresets({ preset: "diff-deep" }, "diff-standard");
    expect(known.map((p) => p.ref)).toEqual(["diff-deep", "diff-standard"]);
    expect(baselinePresetProblem("diff-deep", PRESETS_3, known)).toMatch(
      /"diff-deep" is a diff preset \(it is this repository's pull request preset, `preset`\)/,
    );
    expect(baselinePresetProblem("diff-standard", PRESETS_3, known)).toMatch(/SCANNER_DIFF_PRESET/);
    expect(baselinePresetProblem("full-standard", PRESETS_3, known)).toBeUndefined();
    // the same ref named twice is one entry
    expect(knownDiffPresets({ preset: "diff-standard" }, "diff-standard")).toHaveLength(1);
  });
});

describe("which pushes start a baseline", () => {
  const prev = {
    installationId: 7,
    owner: "acme",
    repo: "web",
    branch: "main",
    headSha: HEAD,
    checkRunId: 5,
  };
  it("a push whose commit is no longer the branch's head is stale, whatever its time; the same commit is a duplicate", () => {
    const d = { ...facts().event, headSha: "b".repeat(40) };
    expect(isStalePush(d, HEAD)).toBe(true);
    expect(isStalePush(d, undefined)).toBe(true);
    expect(isStalePush(d, "b".repeat(40))).toBe(false);
    // a schedule reads the head itself; a start handed a check run by reconciliation must end it
    expect(isStalePush({ ...d, trigger: "schedule" }, HEAD)).toBe(false);
    expect(isStalePush({ ...d, resumeCheckRunId: 9 }, HEAD)).toBe(false);
    expect(followsCommit(prev, HEAD)).toBe(true);
    expect(followsCommit(prev, "b".repeat(40))).toBe(false);
    expect(followsCommit({ ...prev, checkRunId: undefined }, HEAD)).toBe(false);
  });
});
