/**
 * What diffward keeps of a pull request's last report (Redis `<prefix>:report:<owner/repo#n>`, JSON, 90 days):
 * written by the report job, read by triage (commands, the check recompute), settlement, merge groups,
 * expiries and the organization's page. Reads parse with {@link ReportState}: a document that is not a report
 * throws `StoredRecordError` (`./stored-record.ts`).
 */
import { z } from "zod";
import type { RepoConfig } from "../config/repo-config.js";
import type { CheckAnnotation } from "../github/check-runs.js";
import type { BaselineInfo } from "../render/baseline-comparison.js";
import type { CreditInfo, GuidanceInfo } from "../render/check-run-facts.js";
import type { CodeScanningInfo } from "../render/code-scanning-section.js";
import type { PolicyPart } from "../domain/policy.js";
import { ReportFinding } from "../domain/finding-types.js";
import type { RedisConnection } from "../runtime/connection.js";
import { scanEndKey } from "./scan-state.js";
import { parseStored, type Stored } from "./stored-record.js";

/** What a scan looked at, as far as coverage goes: its preset and its audit areas (empty = everything). */
export const ReportScope = z.object({
  presetRef: z.string(),
  auditAreas: z.array(z.string()).readonly(),
});
export type ReportScope = z.infer<typeof ReportScope>;

/** A finding's fetched description and recommended fix, as kept (untrusted Markdown, cut to fit). */
export const KeptDetail = z.object({
  description: z.string(),
  /** absent when the service gave none */
  recommendedFix: z.string().optional(),
});
export type KeptDetail = z.infer<typeof KeptDetail>;

/** The extras a report shows beside its findings, as stored (re-rendered by triage and settlement). */
export interface ShownExtras {
  /** the annotation on the guidance file when the pull request changes it (posted again on a fresh run) */
  guidanceAnnotation?: CheckAnnotation;
  guidance?: GuidanceInfo;
  credits?: CreditInfo;
  warnings: string[];
  /** the report's upload to GitHub code scanning, when `codeScanning.upload` is on */
  codeScanning?: CodeScanningInfo;
  /**
   * the findings against the base branch's last completed baseline, when it has one (or, with
   * `failOn: {only: new}`, that it has none): triage recomputes decide with it, as the report did
   */
  baseline?: BaselineInfo;
  /** the effective policy's parts with where each came from, as the report showed them */
  policyParts?: PolicyPart[];
}

/** An object (a JSON object, not an array): how the report's display parts and config are checked. */
const isObject = (v: unknown) => typeof v === "object" && v !== null && !Array.isArray(v);

/** One reported finding, as stored. */
export const ReportedFinding = z.looseObject({
  id: z.string(),
  label: z.string(),
  fingerprint: z.string(),
  /** line-independent shape key (src/domain/identity.ts); absent in states written before it */
  shape: z.string().optional(),
  severity: z.string(),
  title: z.string(),
  location: z.string(),
  category: z.string(),
  triageStatus: z.string(),
  resolutionStatus: z.string(),
  /** diffward's review comment of the finding on this pull request, when it has one */
  commentId: z.number().optional(),
  /** the finding's `diffward-ignore` marker at the report's head commit, when it has one */
  suppression: ReportFinding.shape.suppression,
});
export type ReportedFinding = Stored<typeof ReportedFinding>;

/**
 * What diffward keeps of a pull request's last report, for triage and settlement. What triage and settlement
 * decide with (the scan, its check run, the findings, the scopes) is checked field by field; the repository
 * config (checked when it was read from the repository) and the extras (re-rendered only) are checked to be
 * objects, so a display field a newer version shapes otherwise never makes the report unreadable.
 */
export const ReportState = z.looseObject({
  scanId: z.string(),
  projectId: z.string(),
  checkRunId: z.number(),
  headSha: z.string(),
  installationId: z.number(),
  accountLogin: z.string(),
  config: z.custom<RepoConfig>(isObject, "config must be an object"),
  /** the budget asked at launch, in credits */
  creditBudget: z.number().optional(),
  presetRef: z.string(),
  /**
   * SHA-256 of the annotations the current check run carries: GitHub appends annotations on every update
   * and never removes one, so a recompute whose annotations differ posts a fresh check run instead
   */
  annotationsDigest: z.string().optional(),
  /** the preset's name and the merge base as the scan reported them: the footer keeps them on recomputes */
  presetName: z.string().optional(),
  baseCommit: z.string().optional(),
  /** guidance, credits and warnings shown beside the findings (re-rendered by triage and settlement) */
  extras: z.custom<ShownExtras>(isObject, "extras must be an object").optional(),
  /** the pull request's own `.github/diffward.yml` is invalid: the check fails whatever the findings */
  configInvalidInPull: z.boolean().optional(),
  /** every distinct scope (preset, audit areas) the pull request's reports had, oldest first */
  scopes: z.array(ReportScope).optional(),
  /** the scope covers earlier ones but the spend was not settled: close not-reported threads when it is */
  closeWhenSettled: z.boolean().optional(),
  findings: z.array(ReportedFinding),
  /**
   * finding id → the description and recommended fix fetched for its review comment, cut to fit
   * (`src/report/decide/details.ts` `keepDetails`): recomputes show them in the check run's details as the
   * report did. Absent in states written before it, and for findings whose detail was not fetched.
   */
  details: z.record(z.string(), KeptDetail).optional(),
  /** ms since epoch */
  reportedAt: z.number(),
});
export type ReportState = Stored<typeof ReportState>;

/** How long a report is kept after its last write, in seconds (90 days, like the pull request's state). */
const REPORT_TTL_SECONDS = 60 * 60 * 24 * 90;

/**
 * Stores a pull request's report unless its scan was stopped (KEYS[1] the scan's end record, KEYS[2] the
 * report; ARGV the JSON and its TTL in seconds): the check and the write are one step, so a stop recorded
 * before it always wins. Returns 1 when stored.
 */
const PUT_UNLESS_STOPPED = `
if redis.call('HEXISTS', KEYS[1], 'stop') == 1 then return 0 end
redis.call('SET', KEYS[2], ARGV[1], 'EX', tonumber(ARGV[2]))
return 1
`;

/** The pull requests' last reports under diffward's state prefix. */
export class ReportStore {
  constructor(
    readonly redis: RedisConnection,
    readonly prefix: string,
  ) {}

  #k(key: string): string {
    return `${this.prefix}:report:${key}`;
  }

  /**
   * The last report of the pull request `key` (`owner/repo#n`), if it has one.
   * @throws {StoredRecordError} when the document is not a report.
   */
  async get(key: string): Promise<ReportState | undefined> {
    const k = this.#k(key);
    const raw = await this.redis.get(k);
    return raw ? parseStored(ReportState, k, raw) : undefined;
  }

  /** Replaces the pull request's report (settlement, a triage recompute), kept 90 days. */
  async put(key: string, report: ReportState): Promise<void> {
    await this.redis.set(this.#k(key), JSON.stringify(report), "EX", REPORT_TTL_SECONDS);
  }

  /**
   * Stores the pull request's report (kept 90 days) in one step with the check that its scan was not stopped
   * (`ScanStateStore.recordScanStop`): the report of a superseded head never replaces it.
   * @returns false when the scan was stopped (nothing stored).
   */
  async putUnlessStopped(key: string, scanId: string, report: ReportState): Promise<boolean> {
    const stored = await this.redis.eval(
      PUT_UNLESS_STOPPED,
      2,
      scanEndKey(this.prefix, scanId),
      this.#k(key),
      JSON.stringify(report),
      String(REPORT_TTL_SECONDS),
    );
    return Number(stored) === 1;
  }
}
