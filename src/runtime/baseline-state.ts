/**
 * What diffward remembers of a repository's default-branch baseline (Redis, JSON, beside the pull request
 * and merge group states of `./state.ts`): the commit followed now, its check run, launch and scan, and the
 * last completed baseline, which pull request reports compare with.
 */
import type { StateStore } from "./state.js";

/** The baseline diffward follows now for a repository (`<prefix>:bl:<owner/repo^baseline>`). */
export interface BaselineState {
  installationId: number;
  owner: string;
  repo: string;
  /** the default branch the commit is on */
  branch: string;
  /** the commit scanned */
  headSha: string;
  checkRunId?: number;
  launchKey?: string;
  launchJobId?: string;
  scanId?: string;
  projectId?: string;
  /** the check run was concluded without a scan (refused before launching): nothing runs */
  concluded?: boolean;
  /** the scan was reported (the check run completed) */
  reported?: boolean;
}

/** A completed baseline (`<prefix>:baseline-report:<owner/repo>`): what pull requests on the branch compare with. */
export interface BaselineReport {
  branch: string;
  headSha: string;
  scanId: string;
  /** ms since epoch */
  reportedAt: number;
  /** fingerprints (src/domain/identity.ts) of the findings open at that commit */
  openFingerprints: string[];
}

const STATE_KIND = "bl";
const REPORT_KIND = "baseline-report";
/** Kept 90 days, like a pull request's state: a weekly schedule always renews it. */
const TTL_SECONDS = 90 * 24 * 3600;

export function getBaseline(state: StateStore, key: string): Promise<BaselineState | undefined> {
  return state.getJson<BaselineState>(STATE_KIND, key);
}

export function setBaseline(state: StateStore, key: string, value: BaselineState): Promise<void> {
  return state.putJson(STATE_KIND, key, value, TTL_SECONDS);
}

/** The last completed baseline of `owner/repo`, if any. */
export function getBaselineReport(
  state: StateStore,
  owner: string,
  repo: string,
): Promise<BaselineReport | undefined> {
  return state.getJson<BaselineReport>(REPORT_KIND, `${owner}/${repo}`);
}

export function setBaselineReport(
  state: StateStore,
  owner: string,
  repo: string,
  value: BaselineReport,
): Promise<void> {
  return state.putJson(REPORT_KIND, `${owner}/${repo}`, value, TTL_SECONDS);
}
