/**
 * Octokit classes for the app under test (`startHarness({ boot: { Octokit } })`): the delays that GitHub
 * asks of an integrator are turned down where a test is not about them. The stand-in has no secondary rate
 * limit, and a test that makes GitHub answer 5xx on purpose need not wait Octokit's retry backoff.
 */
import { ProbotOctokit } from "probot";
import { DiffwardOctokit } from "../../src/runtime/octokit.js";

/**
 * Probot's Octokit without the throttling plugin's pacing (one write per second, comments 3 s apart:
 * GitHub's secondary-limit advice, "Best practices for using the REST API").
 */
export const UnthrottledOctokit = ProbotOctokit.defaults((o: Record<string, unknown>) => ({
  ...o,
  throttle: { ...(o.throttle as object), enabled: false },
})) as typeof ProbotOctokit;

/**
 * diffward's own Octokit ({@link DiffwardOctokit}: throttling on, secondary limits retried) whose retry
 * plugin (`@octokit/plugin-retry`: 3 retries of a 5xx, waiting (n + 1)² × `retryAfterBaseValue` ms, 1 s by
 * default) waits `baseMs` a unit instead: the same retries, sooner.
 */
export function quickRetryOctokit(baseMs = 50): typeof ProbotOctokit {
  return DiffwardOctokit.defaults((o: Record<string, unknown>) => ({
    ...o,
    retry: { ...(o.retry as object), retryAfterBaseValue: baseMs },
  })) as typeof ProbotOctokit;
}
