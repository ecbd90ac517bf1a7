import { describe, expect, it } from "vitest";
import { classifyLaunchError, initializingDelay } from "../../src/scan/launch-errors.js";
import { renderServiceError } from "../../src/scan/launch.js";
import { ScannerApiError, ScannerNetworkError, ScannerTimeoutError } from "../../src/scanner/errors.js";

const LAUNCH = "POST /projects/{projectId}/scans";
const api = (
  status: number,
  code: ConstructorParameters<typeof ScannerApiError>[0]["code"],
  retryAfterSeconds?: number,
) =>
  new ScannerApiError({
    status,
    code,
    message: `service says ${code}`,
    endpoint: LAUNCH,
    ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
  });

describe("classifyLaunchError: every code of the spec's error table", () => {
  it.each([
    [409, "repository_initializing", "wait"],
    [429, "rate_limited", "wait"],
    [402, "insufficient_credits", "conclude"],
    [422, "diff_empty", "conclude"],
    [400, "diff_base_required", "conclude"],
    [400, "diff_base_not_allowed", "conclude"],
    [400, "diff_base_invalid", "conclude"],
    [400, "bad_request", "conclude"],
    [409, "conflict", "conclude"],
    [401, "unauthorized", "conclude"],
    [403, "forbidden", "conclude"],
    [404, "not_found", "conclude"],
    [500, "internal", "ambiguous"],
  ] as const)("%i %s → %s", (status, code, kind) => {
    expect(classifyLaunchError(api(status, code, 7), 15_000).kind).toBe(kind);
  });

  it("402 is never retried: action_required; diff_empty is neutral; the rest of 4xx fail", () => {
    expect(classifyLaunchError(api(402, "insufficient_credits"), 1)).toMatchObject({
      conclusion: "action_required",
    });
    expect(classifyLaunchError(api(422, "diff_empty"), 1)).toMatchObject({ conclusion: "neutral" });
    expect(classifyLaunchError(api(403, "forbidden"), 1)).toMatchObject({ conclusion: "failure" });
  });

  it("rate_limited waits its Retry-After (seconds → ms); initializing waits the given backoff", () => {
    expect(classifyLaunchError(api(429, "rate_limited", 7), 1)).toMatchObject({
      kind: "wait",
      delayMs: 7_000,
    });
    expect(classifyLaunchError(api(409, "repository_initializing"), 4_321)).toMatchObject({
      kind: "wait",
      delayMs: 4_321,
    });
  });

  it("network errors, timeouts and any 5xx leave the outcome unknown (look the scan up before resending)", () => {
    expect(
      classifyLaunchError(new ScannerNetworkError(LAUNCH, "ECONNRESET", new Error("reset")), 1).kind,
    ).toBe("ambiguous");
    expect(classifyLaunchError(new ScannerTimeoutError(LAUNCH, 30_000), 1).kind).toBe("ambiguous");
    expect(classifyLaunchError(api(503, "unknown"), 1).kind).toBe("ambiguous");
  });

  it("a bug is not swallowed", () => {
    expect(() => classifyLaunchError(new TypeError("oops"), 1)).toThrow(TypeError);
  });

  it("the initializing backoff doubles from its base, with jitter, capped at 5 minutes", () => {
    expect(initializingDelay(0, 15_000, () => 0.5)).toBe(15_000);
    expect(initializingDelay(2, 15_000, () => 0.5)).toBe(60_000);
    expect(initializingDelay(20, 15_000, () => 0.5)).toBe(300_000);
    expect(initializingDelay(0, 15_000, () => 0)).toBe(12_000);
    expect(initializingDelay(0, 15_000, () => 1)).toBe(18_000);
  });
});

describe("renderServiceError: each refusal says what to fix", () => {
  const d = {
    repositoryId: "repo_9",
    presetRef: "diff-standard",
    creditBudget: 40,
    mergeBase: "a".repeat(40),
    headSha: "b".repeat(40),
  };
  it("forbidden names the scope, not_found the repository, 402 the balance", () => {
    expect(renderServiceError("forbidden", "no scope", d).summary).toContain("scans:launch");
    expect(renderServiceError("not_found", "unknown repository", d).summary).toContain("repo_9");
    const credits = renderServiceError("insufficient_credits", "cannot cover", d, {
      balanceCredits: 12,
      availableCredits: 5,
    }).summary;
    expect(credits).toContain("5");
    expect(credits).toContain("40");
  });
  it("diff_base_* and bad_request quote the service's message", () => {
    for (const code of ["diff_base_required", "diff_base_invalid", "bad_request"]) {
      expect(renderServiceError(code, `the ${code} message`, d).summary).toContain(`the ${code} message`);
    }
  });
});
