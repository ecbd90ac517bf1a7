/**
 * Oversized answers of the scanning service end in a readable check run, not a crash:
 * real app, Redis, the sandbox over HTTP and the GitHub stand-in. The sandbox's scenario is set per pull
 * request to model what the service reports.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../../dev/harness/harness.js";
import { loadScenario } from "../../dev/sandbox/findings-source.js";
import type { ScenarioInput } from "../../dev/sandbox/schemas.js";
import { FINDING_TEXT_MAX_CHARS } from "../../src/scanner/index.js";
import { checkOf, openReportedPull } from "../support/reported-pull.js";
import { UnthrottledOctokit } from "../support/octokit.js";

const KB = 1024;
const finding = (n: number, size: number) => ({
  title: `Hard-coded key ${n} ${"T".repeat(size)}`,
  location: `src/server.js:${n + 1}`,
  severity: "HIGH" as const,
  category: "secrets",
  description: `A key. ${"D".repeat(size)}`,
  recommendedFix: `Move it. ${"F".repeat(size)}`,
});
const scenario = (findings: ScenarioInput["findings"]): ScenarioInput => ({
  name: "limits",
  spendCredits: 10,
  findings,
});

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    sandbox: { scenario: scenario([finding(1, 10)]), scanDurationMs: 500, retryAfterSeconds: 1 },
    boot: {
      Octokit: UnthrottledOctokit,
    },
  });
});
afterAll(async () => {
  await h?.close();
});

describe("oversized service answers", () => {
  it("a findings page over the response cap concludes the check with a readable reason; the app keeps serving", async () => {
    // 100 findings with 180 KB titles: one page of the list is about 18 MB, over the 16 MiB cap
    h.sandbox.state.scenario = loadScenario(
      scenario(Array.from({ length: 100 }, (_, i) => ({ ...finding(i, 180 * KB), description: "d" }))),
    );
    const pr = await openReportedPull(h, 501);
    const check = checkOf(h, pr);
    expect(check.conclusion).toBe("failure");
    expect(check.output.title).toBe("Scan result could not be read");
    expect(check.output.summary).toContain("larger than diffward accepts");
    expect(check.output.summary).toContain("over 16777216 bytes");
    expect((await fetch(`${h.web.url}/healthz`)).status).toBe(200);
  });

  it("findings with 180 KB fields are reported with their text cut, and the cut is said", async () => {
    h.sandbox.state.scenario = loadScenario(scenario([finding(1, 180 * KB), finding(2, 180 * KB)]));
    const pr = await openReportedPull(h, 502);
    const check = checkOf(h, pr);
    expect(check.conclusion).toBe("failure"); // two open HIGH findings block
    expect(check.output.summary).toContain("Hard-coded key 1");
    expect(check.output.summary!.length).toBeLessThan(65_536);
    const comments = h.github.state
      .reviewComments(pr.owner, pr.repo, pr.pullNumber)
      .filter((c) => c.inReplyToId === null);
    expect(comments.length).toBeGreaterThan(0);
    for (const c of comments) {
      expect(c.body).toContain("truncated by diffward");
      expect(c.body.length).toBeLessThanOrEqual(
        FINDING_TEXT_MAX_CHARS.title +
          FINDING_TEXT_MAX_CHARS.description +
          FINDING_TEXT_MAX_CHARS.recommendedFix +
          4_000,
      );
    }
  });
});
