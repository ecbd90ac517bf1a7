/**
 * Report → GitHub code scanning (README "GitHub code scanning"): whether a completed report is uploaded
 * (a pure plan), and the upload itself (one `POST …/code-scanning/sarifs` per report).
 */
import type { Logger } from "pino";
import type { Disclosure, ReportFinding } from "../domain/finding-types.js";
import type { GitHubWrite } from "../github/writes.js";
import type { PullRef, RepoRef } from "../github/octokit-types.js";
import { applyWrites } from "../runtime/apply-writes.js";
import type { Runtime } from "../runtime/runtime.js";
import { VERSION } from "../runtime/version.js";
import type { CodeScanningInfo } from "../render/code-scanning-section.js";
import { encodeSarif, SarifTooLargeError, TOOL_NAME, type EncodedSarif } from "./sarif-log.js";

/** diffward's version (package.json), written as the SARIF run's `tool.driver.version`. */
export const TOOL_VERSION = VERSION;

/** What {@link planCodeScanningUpload} needs. */
export interface UploadPlanInput {
  /** `codeScanning.upload` of the repository's config */
  enabled: boolean;
  /** the effective disclosure (`effectiveDisclosure`) */
  disclosure: Disclosure;
  /** the pull request (for a merge group, the one its ref names; 0 when none) */
  pullNumber: number;
  /**
   * a merge group's `merge_group.head_ref` (`refs/heads/gh-readonly-queue/<base>/pr-<n>-<sha>`): the
   * upload's `ref` instead of `refs/pull/<number>/head`, and the results link filters by its branch
   */
  mergeGroupHeadRef?: string;
  /**
   * a default-branch baseline's branch: the upload's `ref` is `refs/heads/<branch>`, the analysis GitHub
   * compares pull requests into the branch with, and the results link filters by the branch
   */
  baselineBranch?: string;
  /** the scanned head commit (a merge group's `head_sha`) */
  headSha: string;
  scanId: string;
  findings: readonly ReportFinding[];
  labelPrefix: string;
  /** `repository.html_url`, for the results link and the SARIF provenance */
  repoHtmlUrl?: string;
}

/** The decision: nothing (off), withheld (and why), or an encoded upload. */
export type UploadPlan =
  | { kind: "off" }
  | { kind: "withheld"; info: CodeScanningInfo }
  | {
      kind: "upload";
      commitSha: string;
      ref: string;
      encoded: EncodedSarif;
      resultsUrl?: string;
      /** what was scanned, as the check run names it */
      of: "pull request" | "merge group" | "default branch";
    }
  | { kind: "too-large"; info: CodeScanningInfo };

/**
 * The link to a pull request's code scanning results of tool diffward (the Security tab filtered with
 * `pr:<n> tool:diffward`, GitHub "Triaging code scanning alerts in pull requests").
 */
export function codeScanningResultsUrl(repoHtmlUrl: string, pullNumber: number): string {
  return `${repoHtmlUrl}/security/code-scanning?query=${encodeURIComponent(`pr:${pullNumber} tool:${TOOL_NAME} is:open`)}`;
}

/**
 * The link to a branch's code scanning results of tool diffward (a merge group's temporary branch), with
 * the `branch:` filter of GitHub "Assessing code scanning alerts for your repository" → "Filtering alerts".
 * @param branchRef - `refs/heads/<branch>` or the bare branch name.
 */
export function codeScanningBranchResultsUrl(repoHtmlUrl: string, branchRef: string): string {
  const branch = branchRef.replace(/^refs\/heads\//, "");
  return `${repoHtmlUrl}/security/code-scanning?query=${encodeURIComponent(`branch:${branch} tool:${TOOL_NAME} is:open`)}`;
}

/**
 * Plans a report's upload (pure): off unless `codeScanning.upload`; withheld under an effective
 * `disclosure: summary` (code scanning alerts are readable by everyone with read access, and public
 * repositories default to `summary`), with the reason for the check run; else the SARIF log of the
 * report's open findings ({@link encodeSarif}: within GitHub's limits) for `commit_sha` = the scanned
 * head and `ref` = `refs/pull/<number>/head`, a merge group's `head_ref`, or `refs/heads/<branch>` for a
 * default-branch baseline (REST "Upload an analysis as
 * SARIF data": `ref` is `refs/heads/<branch>` or `refs/pull/<number>/head`).
 */
export function planCodeScanningUpload(input: UploadPlanInput): UploadPlan {
  if (!input.enabled) return { kind: "off" };
  if (input.disclosure === "summary") {
    return {
      kind: "withheld",
      info: {
        status: "withheld",
        reason:
          "`codeScanning.upload` is on, but the effective `disclosure` is `summary`: code scanning alerts are visible to everyone with read access to this repository, so nothing was uploaded. Set `disclosure: full` to upload.",
      },
    };
  }
  try {
    const encoded = encodeSarif({
      findings: input.findings,
      labelPrefix: input.labelPrefix,
      toolVersion: TOOL_VERSION,
      headSha: input.headSha,
      scanId: input.scanId,
      ...(input.repoHtmlUrl ? { repositoryUri: input.repoHtmlUrl } : {}),
    });
    const branchRef =
      input.mergeGroupHeadRef ??
      (input.baselineBranch !== undefined ? `refs/heads/${input.baselineBranch}` : undefined);
    return {
      kind: "upload",
      commitSha: input.headSha,
      ref: branchRef ?? `refs/pull/${input.pullNumber}/head`,
      of: input.mergeGroupHeadRef ? "merge group" : branchRef ? "default branch" : "pull request",
      encoded,
      ...(input.repoHtmlUrl
        ? {
            resultsUrl: branchRef
              ? codeScanningBranchResultsUrl(input.repoHtmlUrl, branchRef)
              : codeScanningResultsUrl(input.repoHtmlUrl, input.pullNumber),
          }
        : {}),
    };
  } catch (error) {
    if (!(error instanceof SarifTooLargeError)) throw error;
    return {
      kind: "too-large",
      info: { status: "failed", reason: `Nothing was uploaded to GitHub code scanning: ${error.message}.` },
    };
  }
}

/**
 * The planned GitHub write of an upload (pure): `POST …/code-scanning/sarifs` with `commit_sha`, `ref`, the
 * encoded log and `tool_name` diffward; best effort, so a refusal never fails the report.
 */
export function uploadWrite(
  repo: RepoRef,
  plan: Extract<UploadPlan, { kind: "upload" }>,
  startedAt: string,
): GitHubWrite {
  return {
    kind: "upload-sarif",
    repo: { owner: repo.owner, repo: repo.repo },
    upload: {
      commitSha: plan.commitSha,
      ref: plan.ref,
      sarif: plan.encoded.sarif,
      toolName: TOOL_NAME,
      startedAt,
    },
    purpose: "code-scanning",
    bestEffort: true,
  };
}

/**
 * Applies an {@link UploadPlan} through the jobs' one apply step (`applyWrites`): at most ONE upload per
 * scan (the outcome is kept in Redis for 7 days, so a retried report reuses it instead of uploading
 * again). A refusal or failure of GitHub (403 without `security_events` or code scanning, 413, 422,
 * network) never fails the report: it is logged and returned as a `failed` info for the check run.
 * @returns what the check run says about code scanning, or `undefined` when the feature is off.
 */
export async function applyCodeScanningUpload(
  rt: Runtime,
  installationId: number,
  pull: PullRef,
  scanId: string,
  plan: UploadPlan,
  log: Logger,
): Promise<CodeScanningInfo | undefined> {
  if (plan.kind === "off") return undefined;
  if (plan.kind !== "upload") return plan.info;
  const key = `${pull.owner}/${pull.repo}@${scanId}`;
  const done = await rt.stores.scans.codeScanningUpload(key);
  if (done) return done;
  const startedAt = new Date(rt.now()).toISOString().replace(/\.\d{3}Z$/, "Z");
  const [result] = await applyWrites(rt, installationId, [uploadWrite(pull, plan, startedAt)]);
  let info: CodeScanningInfo;
  if (result?.kind === "upload-sarif") {
    info = {
      status: "uploaded",
      results: plan.encoded.included,
      leftOut: plan.encoded.overLimit,
      unplaceable: plan.encoded.unplaceable.length,
      ...(plan.resultsUrl ? { url: plan.resultsUrl } : {}),
      ...(plan.of !== "pull request" ? { of: plan.of } : {}),
    };
    log.info(
      {
        sarifId: result.sarifId,
        results: plan.encoded.included,
        gzipBytes: plan.encoded.gzipBytes,
        ref: plan.ref,
      },
      "SARIF uploaded to code scanning",
    );
  } else {
    const message = result?.kind === "failed" ? result.message : "no answer";
    log.warn({ reason: message }, "SARIF upload failed");
    info = {
      status: "failed",
      reason:
        `GitHub refused the upload to code scanning (${message.split("\n")[0]!.slice(0, 200)}). ` +
        "Check that the app has the `security_events` permission and that code scanning is available on this repository.",
    };
  }
  await rt.stores.scans.recordCodeScanningUpload(key, info);
  return info;
}
