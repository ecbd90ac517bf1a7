/**
 * The app installed again (`installation.created` after an `installation.deleted`): diffward's check runs
 * the uninstall left unfinished are ended, and the newest head of each open pull request they were on is
 * scanned again ({@link processReinstall}).
 */
import type { Job } from "bullmq";
import { getCheckRun, type FoundCheckRun } from "../github/check-runs.js";
import { unlessStatus, type InstallationOctokit } from "../github/octokit-types.js";
import { pacedBy, readOpenHeads, type RepoHeads } from "../github/open-heads.js";
import type { PullHead } from "../github/pulls.js";
import { RatePacer } from "../github/rate-pacer.js";
import { updateCheck } from "../github/writes.js";
import { enqueueReport } from "../report/job.js";
import { ScannerApiError } from "../scanner/errors.js";
import type { ScanDetail } from "../scanner/schemas.js";
import { syncBaselineSchedule } from "../baseline/index.js";
import {
  addJob,
  type BaselineJobData,
  type PollJobData,
  type PullRequestJobData,
  type ReinstallJobData,
  type RepoContext,
} from "../job-catalogue/index.js";
import { pullHeadOf } from "../job-kit/types.js";
import { applyWrites } from "../runtime/apply-writes.js";
import { OwnerConfigs } from "../runtime/config-loader.js";
import { baselineKey, groupKey, jobId, pullKey } from "../runtime/names.js";
import type { GroupState } from "../stores/pull-state.js";
import type { Runtime } from "../runtime/runtime.js";

/** What one reinstall found: check runs ended, heads enqueued for a new scan, finished scans not paid again. */
export interface ReinstallOutcome {
  /** diffward's unfinished check runs started before the installation was created, now completed */
  concluded: number;
  /** newest heads enqueued for a new scan (an explicit request, one per head and installation) */
  relaunched: number;
  /** heads whose scan had finished: reported from that scan (its check run), not launched again */
  reported: number;
  /** heads whose finished scan cannot be reported (the service no longer has it, or the config is not valid) */
  finished: number;
  /** heads without a check run whose event the uninstall left undecided, now decided by a `pull-request` job */
  decided: number;
  /** default-branch heads whose baseline the uninstall left unfinished, started again (`baseline-push` job) */
  baselines: number;
  /** merge groups' check runs the uninstall left unfinished, now completed `cancelled` */
  mergeGroups: number;
}

/** A repository of the installation, as the jobs carry it. */
type RepoPart = Omit<RepoContext, "repoHtmlUrl">;

/** Repositories read by one GraphQL walk (GitHub's `nodes(ids:)` bound, as the reconciliation's). */
const WALK_CHUNK = 100;

/**
 * After a reinstall (GitHub gives a new installation id; the uninstall cancelled every scan in flight and
 * could no longer write its check runs, since GitHub refuses a removed installation's token): walks the
 * installation's repositories (REST "List repositories accessible to the app installation", then the
 * reconciliation's GraphQL walk, {@link readOpenHeads}, 100 repositories to a query) and, in each one with
 * a `.github/diffward.yml`, each open pull request whose newest head an earlier installation left without
 * its report ({@link leftHeads}). A head whose event came just before the uninstall, and whose job could no
 * longer create its check run, is decided now by its `pull-request` job, as the event would have been
 * ({@link enqueueHead}); an older head's check run whose scan the uninstall cancelled is completed
 * `cancelled` first ({@link endLeftRun}). A head whose `diffward` check run the uninstall left unfinished:
 * - the check run is completed (`cancelled`, saying why), so every check run diffward created ends;
 * - the head is scanned again as an explicit request (`pull-request` job, nonce `reinstall-<installationId>`,
 *   job id per head): a redelivered `installation.created` or a second worker adds nothing, and the state's
 *   nonce makes a replayed job a duplicate delivery. The launch passes the same gates, spend caps and
 *   credit budget as any other;
 * - unless the scan on it had finished (the service answers `GET /projects/{projectId}/scans/{scanId}` with
 *   status `COMPLETED`, spec §Scan status): a finished scan is never paid for twice. It is reported on that
 *   check run from the scan as it is ({@link reportFinished}: a `report` job, job id per installation and
 *   scan); when the service no longer has it (404) or the config is not valid, the check run is completed
 *   `neutral` naming the scan, and `/diffward rescan` reports the head anew.
 * A merge group's check run the uninstall left unfinished is completed `cancelled` ({@link endGroups}).
 * The default branch's head gets the same: a baseline check run the uninstall left unfinished ends and the
 * baseline starts again ({@link resumeBaseline}); and a repository with `baseline.on: schedule` gets its
 * schedule back (the uninstall ended it: its jobs named the removed installation).
 * Heads whose check runs completed before the uninstall, and pull requests diffward never followed, are
 * left alone: nothing diffward owed them was lost.
 * @throws GitHub errors of the repository listing (the job is retried; the walk's steps are idempotent).
 */
export async function processReinstall(rt: Runtime, job: Job<ReinstallJobData>): Promise<ReinstallOutcome> {
  const d = job.data;
  const log = rt.log.child({ job: "reinstall", installation: d.installationId });
  const out: ReinstallOutcome = {
    concluded: 0,
    relaunched: 0,
    reported: 0,
    finished: 0,
    decided: 0,
    baselines: 0,
    mergeGroups: 0,
  };
  await rt.stores.pulls.setInstallationRemoved(d.installationId, false);
  // before the walk: an event job of the removed installation that runs after the walk hands over instead
  if (d.accountLogin) await rt.stores.pulls.noteInstalled(d.accountLogin, d.installationId, rt.now());
  const octokit = await rt.octokit(d.installationId);
  const repos = await octokit.paginate(octokit.rest.apps.listReposAccessibleToInstallation, {
    per_page: 100,
  });
  const groups = await leftGroups(rt, d.installationId);
  const points = new RatePacer();
  const configs = new Map<string, OwnerConfigs>();
  for (let i = 0; i < repos.length; i += WALK_CHUNK) {
    const chunk = repos.slice(i, i + WALK_CHUNK);
    const heads = await readOpenHeads(
      octokit,
      chunk.map((r) => ({ nodeId: r.node_id })),
      {
        appId: d.appId,
        spent: pacedBy(points),
      },
    );
    for (const repo of chunk) {
      const r: RepoPart = {
        installationId: d.installationId,
        accountLogin: d.accountLogin || repo.owner.login,
        owner: repo.owner.login,
        repo: repo.name,
        repoPrivate: repo.private,
        defaultBranch: repo.default_branch ?? "main",
      };
      const repoGroups = groups.get(`${r.owner}/${r.repo}`);
      if (repoGroups) out.mergeGroups += await endGroups(rt, octokit, r, repoGroups);
      const h = heads.get(repo.node_id);
      if (!h || h.config === undefined) continue; // no .github/diffward.yml on the default branch
      const left = await leftHeads(rt, r, h, d.installedAt);
      const baseline = await leftBaseline(rt, r, h, d.installedAt);
      const owner = repo.owner.login;
      if (!configs.has(owner)) configs.set(owner, new OwnerConfigs(octokit, owner));
      // the text the walk read costs no request (GitHub gives none for a binary or truncated file: REST then)
      const loaded =
        h.config !== "unread"
          ? await configs.get(owner)!.loadText(repo.name, h.config)
          : await configs.get(owner)!.load(repo.name);
      if (loaded.kind === "absent") continue;
      const config = loaded.kind === "ok" ? loaded.config : undefined;
      // the uninstall ended the repository's baseline schedule (its jobs name the removed installation)
      if (config) await syncBaselineSchedule(rt, r, config);
      if (baseline) await resumeBaseline(rt, r, baseline, d, out);
      if (left.length > 0) await resumeRepository(rt, r, left, { d, config, octokit }, out);
    }
  }
  log.info(out, "reinstalled: check runs left by the uninstall ended, heads scanned again");
  return out;
}

/** diffward's latest check run on a head when it is not completed. */
function unfinished(runs: readonly FoundCheckRun[]): FoundCheckRun | undefined {
  const run = runs[0];
  return run && run.status !== "completed" ? run : undefined;
}

/** An open pull request whose newest head an earlier installation left without its report. */
type LeftHead =
  /** diffward's check run on the head, left unfinished */
  | { kind: "unfinished"; pr: PullHead; run: FoundCheckRun }
  /**
   * a head pushed while diffward followed an older one, whose event the uninstall left undecided; `older`:
   * the older head's check run when the uninstall cancelled its scan (it could not write that check run)
   */
  | { kind: "undecided"; pr: PullHead; older?: number };

/**
 * The repository's open pull requests whose newest head an earlier installation left without its report:
 * - diffward's latest check run on the head is not completed, and diffward's state of the pull request
 *   names another installation (the state is the record of who follows the head; a check run of the new
 *   installation's own events is followed under its id); without a state (lost with Redis), a check run
 *   started before the installation was created (`started_at`, whole seconds);
 * - or the head has no diffward check run while the state, naming another installation, follows an older
 *   head and is open, or was closed only by the uninstall (`uninstalled`: it cancelled the older head's
 *   scan, whose check run then comes along to be completed): the head's event came before the uninstall and
 *   its job could no longer write (GitHub refuses a removed installation's token);
 * - or the head has no diffward check run and an event of the pull request was delivered to an earlier
 *   installation and left undecided by its job, which ran after the uninstall (`noteUndecided`): a pull
 *   request opened just before the uninstall has no state at all.
 * A head the state follows without a check run (a draft skipped under `drafts: skip`) was decided, and a pull
 * request with neither a state nor a mark was never followed: both are left.
 */
async function leftHeads(rt: Runtime, r: RepoPart, h: RepoHeads, installedAt: string): Promise<LeftHead[]> {
  const left: LeftHead[] = [];
  for (const pr of h.pulls) {
    const run = unfinished(pr.runs);
    if (!run && pr.runs.length > 0) continue;
    const key = pullKey(r.owner, r.repo, pr.number);
    const state = await rt.stores.pulls.getPull(key);
    if (run) {
      if (leftByEarlier(r, state, run, installedAt)) left.push({ kind: "unfinished", pr, run });
      continue;
    }
    const earlier = state ? state.installationId !== r.installationId : true;
    const older = earlier && state && state.headSha !== pr.headSha;
    const undecided =
      (older && (!state.closed || state.uninstalled)) ||
      (earlier && (await rt.stores.pulls.undecidedBy(key)) !== undefined);
    if (undecided)
      left.push({
        kind: "undecided",
        pr,
        ...(older && state.uninstalled && state.checkRunId !== undefined ? { older: state.checkRunId } : {}),
      });
  }
  return left;
}

/**
 * Ends what the uninstall left on one repository's pull requests: an unfinished check run is reported from
 * its finished scan, or completed and its head scanned again; an undecided head is decided now.
 */
async function resumeRepository(
  rt: Runtime,
  r: RepoPart,
  left: readonly LeftHead[],
  at: { d: ReinstallJobData; config: PollJobData["config"] | undefined; octokit: InstallationOctokit },
  out: ReinstallOutcome,
): Promise<void> {
  for (const head of left) {
    const { pr } = head;
    if (head.kind === "undecided") {
      if (head.older !== undefined && (await endLeftRun(rt, at.octokit, r, head.older, "older")))
        out.concluded += 1;
      await enqueueHead(rt, r, pr, at.d, "decide");
      await rt.stores.pulls.clearUndecided(pullKey(r.owner, r.repo, pr.number));
      out.decided += 1;
      continue;
    }
    const { run } = head;
    const finished = run.externalId ? await finishedScan(rt, r, run.externalId) : undefined;
    if (finished && finished !== "gone" && at.config) {
      await reportFinished(rt, r, { pr, run, config: at.config }, finished);
      out.reported += 1;
      continue;
    }
    await applyWrites(rt, r.installationId, [
      updateCheck(r, run.id, finished ? finishedConclusion(run.externalId!) : cancelledConclusion()),
    ]);
    out.concluded += 1;
    if (finished) {
      out.finished += 1;
      continue;
    }
    await enqueueHead(rt, r, pr, at.d, "relaunch");
    out.relaunched += 1;
  }
}

/**
 * Completes a check run the uninstall left (an older head's, a merge group's) `cancelled` with the words for
 * what it was on, unless it has completed (read first: a retried reinstall writes nothing twice).
 * @returns whether it was completed now.
 * @throws what the read or the write throws but a 404 (the check run is gone: nothing to end).
 */
async function endLeftRun(
  rt: Runtime,
  octokit: InstallationOctokit,
  r: RepoPart,
  checkRunId: number,
  on: "older" | "group",
): Promise<boolean> {
  const run = await unlessStatus(404, getCheckRun(octokit, r, checkRunId));
  if (!run || run.status === "completed") return false;
  await applyWrites(rt, r.installationId, [updateCheck(r, checkRunId, cancelledConclusion(on))]);
  return true;
}

/**
 * diffward's latest check run on the default branch's head (a baseline) when an earlier installation left it
 * unfinished: diffward's baseline state of the repository names another installation; without a state, the
 * check run started before the installation was created.
 */
async function leftBaseline(
  rt: Runtime,
  r: RepoPart,
  h: RepoHeads,
  installedAt: string,
): Promise<{ headSha: string; run: FoundCheckRun } | undefined> {
  const run = h.defaultHead && unfinished(h.defaultHead.runs);
  if (!h.defaultHead || !run) return undefined;
  const state = await rt.stores.baselines.get(baselineKey(r.owner, r.repo));
  return leftByEarlier(r, state, run, installedAt) ? { headSha: h.defaultHead.sha, run } : undefined;
}

/**
 * Whether an unfinished check run was left by an earlier installation: diffward's state of its target names
 * another installation; without a state (lost with Redis), the check run started before this installation was
 * created (`started_at` and `installation.created_at`, whole seconds). Pure.
 */
function leftByEarlier(
  r: RepoPart,
  state: { installationId: number } | undefined,
  run: FoundCheckRun,
  installedAt: string,
): boolean {
  if (state) return state.installationId !== r.installationId;
  return Boolean(run.startedAt && Date.parse(run.startedAt) < Date.parse(installedAt));
}

/**
 * Ends a baseline check run the uninstall left unfinished and starts the head's baseline again: the check run
 * is completed (`cancelled`; `neutral` naming the scan when it had finished `COMPLETED`, which is not paid for
 * again), diffward's baseline state is handed to the new installation under the baseline's lock (as a
 * concluded start, so the new start is not taken for a duplicate), and a `baseline-push` start of the head is
 * added (job id per installation and commit: a redelivery or a second worker adds none). That start applies
 * `baseline.on` (a scheduled baseline waits for its schedule), the spend caps and the credit budget.
 * @throws the service's errors other than 404 on the scan's read (the reinstall job is retried).
 */
async function resumeBaseline(
  rt: Runtime,
  r: RepoPart,
  left: { headSha: string; run: FoundCheckRun },
  d: ReinstallJobData,
  out: ReinstallOutcome,
): Promise<void> {
  const { headSha, run } = left;
  const finished = run.externalId ? await finishedScan(rt, r, run.externalId) : undefined;
  const key = baselineKey(r.owner, r.repo);
  await rt.stores.pulls.withPullLock(key, async () => {
    const state = await rt.stores.baselines.get(key);
    if (state && state.installationId === r.installationId) return;
    await rt.stores.baselines.set(key, {
      installationId: r.installationId,
      owner: r.owner,
      repo: r.repo,
      branch: r.defaultBranch,
      headSha,
      concluded: true,
    });
  });
  await applyWrites(rt, r.installationId, [
    updateCheck(r, run.id, finished ? finishedConclusion(run.externalId!) : cancelledConclusion("baseline")),
  ]);
  out.concluded += 1;
  if (finished) {
    out.finished += 1;
    return;
  }
  const data: BaselineJobData = {
    ...r,
    trigger: "push",
    headSha,
    deliveryId: `reinstall-${d.installationId}`,
  };
  await addJob(rt, "baselinePush", data, {
    jobId: jobId("reinstall-baseline", d.installationId, r.owner, r.repo, headSha),
  });
  out.baselines += 1;
}

/**
 * The merge groups an earlier installation left with their check run unfinished, by repository (`owner/repo`):
 * diffward's group states (one Redis `SCAN` for the whole reinstall) naming another installation, with a check
 * run and not concluded, whose scan the uninstall cancelled (`uninstalled`) or whose launch had not sent its
 * scan yet (not destroyed, no scan: the launch was dropped for the removed installation). A group that GitHub
 * destroyed had its check run completed then; a group whose state was lost with Redis is not found (its
 * branch is gone once the group is, and nothing else names its commit).
 */
async function leftGroups(
  rt: Runtime,
  installationId: number,
): Promise<Map<string, Array<GroupState & { checkRunId: number }>>> {
  const byRepo = new Map<string, Array<GroupState & { checkRunId: number }>>();
  for await (const [, g] of rt.stores.pulls.allStates("mg")) {
    if (g.installationId === installationId || g.concluded || g.checkRunId === undefined) continue;
    if (!g.uninstalled && (g.destroyed || g.scanId !== undefined)) continue;
    const repo = `${g.owner}/${g.repo}`;
    byRepo.set(repo, [...(byRepo.get(repo) ?? []), { ...g, checkRunId: g.checkRunId }]);
  }
  return byRepo;
}

/**
 * Ends the merge groups' check runs the uninstall left unfinished in one repository: each check run is read
 * (REST "Get a check run"; 404: gone, nothing to end) and, unless completed, completed `cancelled`; then the
 * group's state is handed to the new installation as concluded (under the group's lock), so a replayed
 * reinstall reads nothing more. The group is not scanned again: it was built for the queue as it was, its
 * scan was cancelled by the uninstall, and GitHub removes a pull request whose required check fails from the
 * queue; the summary says to queue it again, which checks a new group.
 * @returns how many check runs were completed.
 * @throws GitHub errors other than 404 (the reinstall job is retried).
 */
async function endGroups(
  rt: Runtime,
  octokit: InstallationOctokit,
  r: RepoPart,
  groups: ReadonlyArray<GroupState & { checkRunId: number }>,
): Promise<number> {
  let ended = 0;
  for (const g of groups) {
    if (await endLeftRun(rt, octokit, r, g.checkRunId, "group")) ended += 1;
    const key = groupKey(r.owner, r.repo, g.headSha);
    await rt.stores.pulls.withPullLock(key, async () => {
      const now = await rt.stores.pulls.getGroup(key);
      if (!now || now.installationId === r.installationId || now.concluded) return;
      const { launchKey: _l, launchJobId: _j, uninstalled: _u, ...rest } = now;
      await rt.stores.pulls.setGroup(key, { ...rest, installationId: r.installationId, concluded: true });
    });
  }
  return ended;
}

/** A scan that finished `COMPLETED`, as the service still has it, with the project it is in. */
interface FinishedScan {
  scan: ScanDetail;
  projectId: string;
}

/**
 * Whether the scan had finished `COMPLETED` (spec §Scan status): the service's answer to
 * `GET /projects/{projectId}/scans/{scanId}`; `gone` when diffward recorded it completed but the service no
 * longer has it (404) or the account has no scanner token; `undefined` when it did not complete.
 * @throws the service's other errors (the reinstall job is retried).
 */
async function finishedScan(
  rt: Runtime,
  r: RepoPart,
  scanId: string,
): Promise<FinishedScan | "gone" | undefined> {
  const end = await rt.stores.scans.getScanEnd(scanId);
  if (end.status && end.status !== "COMPLETED") return undefined;
  const tenant = await rt.scanner.forAccount(r.accountLogin);
  if (!tenant) return end.status ? "gone" : undefined;
  const projectId = (await rt.stores.scans.getScanLink(scanId))?.projectId ?? tenant.projectId;
  try {
    const { scan } = await tenant.client.getScan(projectId, scanId);
    if (scan.status === "COMPLETED") return { scan, projectId };
    return end.status ? "gone" : undefined;
  } catch (error) {
    if (end.status && error instanceof ScannerApiError && error.code === "not_found") return "gone";
    throw error;
  }
}

/**
 * Reports a scan that finished while the app was uninstalled, from that scan (nothing launched): under the
 * pull request's lock its state follows the scan again on the new installation and the uninstall's stop of
 * the scan is forgotten; then the scan is linked to the new installation and its `report` job added (job id
 * `reinstall-report-<installationId>-<scanId>`: a redelivery or a second worker adds none), which completes
 * the check run the uninstall left unfinished.
 */
async function reportFinished(
  rt: Runtime,
  r: RepoPart,
  at: { pr: PullHead; run: FoundCheckRun; config: PollJobData["config"] },
  { scan, projectId }: FinishedScan,
): Promise<void> {
  const { pr, run, config } = at;
  const key = pullKey(r.owner, r.repo, pr.number);
  const scanId = scan.id;
  const where = { owner: r.owner, repo: r.repo, pullNumber: pr.number, headSha: pr.headSha };
  const prev = await rt.stores.pulls.withPullLock(key, async () => {
    const before = await rt.stores.pulls.getPull(key);
    const { closed: _closed, ...rest } = before ?? {};
    const mergeBase = before?.headSha === pr.headSha ? before.mergeBase : undefined;
    await rt.stores.pulls.setPull(key, {
      ...rest,
      installationId: r.installationId,
      ...where,
      ...(mergeBase ? { mergeBase } : {}),
      checkRunId: run.id,
      scanId,
      projectId,
    });
    await rt.stores.scans.clearScanStop(scanId);
    return before;
  });
  const link = { ...where, scanId, projectId, checkRunId: run.id };
  await rt.stores.scans.linkScan({ ...link, installationId: r.installationId, accountLogin: r.accountLogin });
  const data: PollJobData & { terminalAt: number } = {
    ...r,
    ...link,
    mergeBase: prev?.headSha === pr.headSha ? (prev.mergeBase ?? null) : null,
    presetRef: config.preset ?? rt.settings.defaultPreset,
    ...(config.creditBudget !== undefined ? { creditBudget: config.creditBudget } : {}),
    config,
    launchedAt: rt.now(),
    terminalAt: rt.now(),
  };
  await enqueueReport(rt, data, scan, jobId("reinstall-report", r.installationId, scanId));
}

/**
 * The conclusion of a check run whose scan the uninstall cancelled, by what it was on: a pull request's head
 * (scanned anew), an older head of a pull request pushed since (its newest head is decided), the default
 * branch's head (its baseline starts again) or a merge group (queue it again).
 */
function cancelledConclusion(on: "pull" | "older" | "baseline" | "group" = "pull") {
  const checked = on === "group" ? "this merge group was being checked" : "this commit was being scanned";
  const next = {
    pull: "this commit is scanned anew in a new `diffward` check run.",
    older: "the pull request's newest commit is checked in its own `diffward` check run.",
    baseline:
      "the default branch's baseline is started again (a scheduled baseline at its next run), in a new " +
      "`diffward` check run.",
    group: "add the pull request to the merge queue again to check it in a new merge group.",
  }[on];
  return {
    status: "completed" as const,
    conclusion: "cancelled" as const,
    output: {
      title: "Cancelled: diffward was uninstalled",
      summary: `diffward was uninstalled while ${checked}, and its scan was cancelled. The app was installed again: ${next}`,
    },
  };
}

function finishedConclusion(scanId: string) {
  return {
    status: "completed" as const,
    conclusion: "neutral" as const,
    output: {
      title: "Not reported: diffward was uninstalled",
      summary:
        `Scan \`${scanId}\` of this commit finished while diffward was uninstalled, so its findings were not ` +
        "posted. It is not launched again (it would be paid twice): comment `/diffward rescan` to scan and " +
        "report this commit anew.",
    },
  };
}

/**
 * The job id of the decision of a head the uninstall left undecided, under the new installation: the walk's
 * and a hand-over's are one, so a head both decide is decided once.
 */
function decideJobId(installationId: number, owner: string, repo: string, pull: number, headSha: string) {
  return jobId("reinstall-decided", installationId, owner, repo, pull, headSha);
}

/**
 * An event of the removed installation `d.installationId` whose job ran after the uninstall, once the account
 * was installed again as `installationId` after that removal (`installed:<accountLogin>`; an account has one
 * installation of the App at a time): its pull request is handed to the new
 * installation as the reinstall's walk would have (`decide`, the same job id per head: a head both decide is
 * one job). The walk reads the undecided mark the job wrote first, so an event whose job runs while the walk
 * does is decided by one or the other.
 */
export async function handOverToReinstall(
  rt: Runtime,
  d: PullRequestJobData,
  installationId: number,
): Promise<void> {
  const { explicit: _explicit, resume: _resume, ...event } = d;
  const data: PullRequestJobData = { ...event, installationId, action: "reinstall" };
  await addJob(rt, "pullRequest", data, {
    jobId: decideJobId(installationId, d.owner, d.repo, d.pullNumber, d.headSha),
  });
  await rt.stores.pulls.clearUndecided(pullKey(d.owner, d.repo, d.pullNumber));
}

/**
 * The head's `pull-request` job, once per head and installation (job id), in one of two ways:
 * - `relaunch`: the new scan of a head whose check run the uninstall left unfinished, an explicit request
 *   (nonce `reinstall-<installationId>`: a replayed job is a duplicate delivery);
 * - `decide`: the decision the uninstall left undone, as the head's event would have been (not an explicit
 *   request: every gate applies, a draft under `drafts: skip` included, with the debounce window); a replay
 *   finds the head followed (a duplicate delivery).
 */
async function enqueueHead(
  rt: Runtime,
  r: RepoPart,
  pr: PullHead,
  d: ReinstallJobData,
  how: "relaunch" | "decide",
): Promise<void> {
  const data: PullRequestJobData = {
    deliveryId: d.deliveryId,
    action: "reinstall",
    ...r,
    ...pullHeadOf(pr, rt.now()),
    ...(how === "relaunch" ? { explicit: { nonce: `reinstall-${d.installationId}` } } : {}),
  };
  const id =
    how === "relaunch"
      ? jobId("reinstalled", d.installationId, r.owner, r.repo, pr.number, pr.headSha)
      : decideJobId(d.installationId, r.owner, r.repo, pr.number, pr.headSha);
  await addJob(rt, "pullRequest", data, { jobId: id });
}
