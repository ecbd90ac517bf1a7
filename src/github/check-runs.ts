import { listAll, type InstallationOctokit, type RepoRef } from "./octokit-types.js";

export const CHECK_NAME = "diffward";

/** Conclusions a completed check run can have (GitHub REST "Create a check run", `conclusion`). */
export type CheckConclusion =
  "action_required" | "cancelled" | "failure" | "neutral" | "success" | "skipped" | "timed_out";

/** One check-run annotation (GitHub REST "Update a check run", `output.annotations[]`). */
export interface CheckAnnotation {
  path: string;
  start_line: number;
  end_line: number;
  annotation_level: "notice" | "warning" | "failure";
  message: string;
  title?: string;
  raw_details?: string;
}

/**
 * The `output` of a check run, the one type for every output diffward renders or writes (GitHub REST "Update a
 * check run": https://docs.github.com/en/rest/checks/runs#update-a-check-run).
 */
export interface CheckRunOutput {
  /** short plain-text line shown in the checks list */
  title: string;
  /** Markdown, at most 65,535 bytes */
  summary: string;
  /** Markdown details, at most 65,535 bytes; absent when there is nothing more to say */
  text?: string;
  /** at most 50 per request; GitHub appends them on each update (see src/render/annotations.ts) */
  annotations?: CheckAnnotation[];
}

/** A button on a check run (`actions[]`: label ≤ 20 characters, identifier ≤ 20, description ≤ 40). */
export interface CheckAction {
  label: string;
  description: string;
  identifier: string;
}

export interface CheckRunUpdate {
  status?: "queued" | "in_progress" | "completed";
  conclusion?: CheckConclusion;
  output?: CheckRunOutput;
  externalId?: string;
  detailsUrl?: string;
  actions?: CheckAction[];
}

function body(update: CheckRunUpdate) {
  return {
    ...(update.status ? { status: update.status } : {}),
    ...(update.conclusion ? { conclusion: update.conclusion, completed_at: new Date().toISOString() } : {}),
    ...(update.output ? { output: update.output } : {}),
    ...(update.externalId !== undefined ? { external_id: update.externalId } : {}),
    ...(update.detailsUrl ? { details_url: update.detailsUrl } : {}),
    ...(update.actions ? { actions: update.actions } : {}), // [] removes every button
  };
}

/**
 * Creates diffward's check run on `headSha` (GitHub REST `POST /repos/{owner}/{repo}/check-runs`).
 * @returns the check run id.
 */
export async function createCheckRun(
  octokit: InstallationOctokit,
  repo: RepoRef,
  headSha: string,
  update: CheckRunUpdate,
): Promise<number> {
  const { data } = await octokit.rest.checks.create({
    owner: repo.owner,
    repo: repo.repo,
    name: CHECK_NAME,
    head_sha: headSha,
    ...body(update),
  } as Parameters<InstallationOctokit["rest"]["checks"]["create"]>[0]);
  return data.id;
}

/** Updates a check run (GitHub REST `PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}`). */
export async function updateCheckRun(
  octokit: InstallationOctokit,
  repo: RepoRef,
  checkRunId: number,
  update: CheckRunUpdate,
): Promise<void> {
  await octokit.rest.checks.update({
    owner: repo.owner,
    repo: repo.repo,
    check_run_id: checkRunId,
    ...body(update),
  } as Parameters<InstallationOctokit["rest"]["checks"]["update"]>[0]);
}

/** A diffward check run found on a commit. */
export interface FoundCheckRun {
  id: number;
  status: string;
  conclusion: string | null;
  externalId: string | null;
  headSha: string;
  /** `started_at` (ISO 8601): GitHub sets it when the check run is created, and diffward never changes it */
  startedAt: string | null;
}

/** Reads one check run (GitHub REST `GET /repos/{owner}/{repo}/check-runs/{check_run_id}`). */
export async function getCheckRun(
  octokit: InstallationOctokit,
  repo: RepoRef,
  checkRunId: number,
): Promise<FoundCheckRun> {
  const { data: r } = await octokit.rest.checks.get({
    owner: repo.owner,
    repo: repo.repo,
    check_run_id: checkRunId,
  });
  return foundCheckRun(r);
}

/** A check run as GitHub's REST API answers it, as diffward reads it. */
function foundCheckRun(r: {
  id: number;
  status: string;
  conclusion?: string | null;
  external_id?: string | null;
  head_sha: string;
  started_at?: string | null;
}): FoundCheckRun {
  return {
    id: r.id,
    status: r.status,
    conclusion: r.conclusion ?? null,
    externalId: r.external_id ?? null,
    headSha: r.head_sha,
    startedAt: r.started_at ?? null,
  };
}

/**
 * Lists diffward's check runs on a ref (GitHub REST `GET /repos/{owner}/{repo}/commits/{ref}/check-runs`
 * with `check_name=diffward`), newest first as GitHub returns them.
 */
export const listCheckRunsForRef = listAll(
  (octokit, repo, ref: string) =>
    octokit.paginate(octokit.rest.checks.listForRef, { ...repo, ref, check_name: CHECK_NAME, per_page: 100 }),
  foundCheckRun,
);
