/**
 * The full sweep after diffward's Redis state was lost ({@link sweepAll}): every installation's repositories
 * with a config, each paced within its installation's rate limit, and one repository's passes
 * ({@link reconcileRepository}: pull requests, merge groups, baseline, baseline schedule), which the in-flight
 * reconciliation also runs on a repository it sweeps.
 */
import { withEffectiveDisclosure } from "../../config/repo-config.js";
import { RatePacer, type RatePacerOptions } from "../../github/rate-pacer.js";
import { pacedBy, readOpenHeads, type RepoHeads } from "../../github/open-heads.js";
import type { InstallationOctokit } from "../../github/octokit-types.js";
import { OwnerConfigs, loadRepoConfig, type LoadedConfig } from "../../runtime/config-loader.js";
import type { Runtime } from "../../runtime/runtime.js";
import { syncBaselineSchedule } from "../../baseline/index.js";
import { reconcileBaseline } from "./baselines.js";
import { reconcileMergeGroups } from "./merge-groups.js";
import { reconcilePulls } from "./pull-requests.js";
import type { ConfigCache, RepoPart, RepoPass } from "./repository-pass.js";
import type { ReconcileSummary } from "./summary.js";

/** How a reconciliation runs beside the runtime (`Runtime.appOctokit` reads the App's installations). */
export interface ReconcileOptions {
  /** the full sweep's rate pacing per installation ({@link RatePacer}'s options; tests give a clock) */
  pacer?: RatePacerOptions;
}

/**
 * Rebuilds what was in flight from GitHub's side after diffward's Redis state was lost (a flush, a new
 * Redis, an outage longer than the keys' lives), so every in-flight scan is still reported:
 * for each installation (GitHub REST "List installations for the authenticated app", app JWT; suspended ones
 * skipped), each of its repositories ("List repositories accessible to the app installation") to which
 * `.github/diffward.yml` applies (its own or its owner's `.github` repository's, {@link OwnerConfigs}, read once;
 * the others are skipped: diffward never ran there), each open pull request's head commit, diffward's latest
 * check run there ("List check runs for a Git reference", `check_name=diffward`) that is not `completed` and
 * carries a scan id in `external_id`:
 * - when the `poll-<scanId>` job still exists, nothing is done (a failed one is retried, and so is a failed
 *   `report-<scanId>` job of a completed poll);
 * - otherwise the pull request state, the launch record (so a redelivered webhook never launches the head
 *   again: "never pay twice"), the scan link and the `poll-<scanId>` job are recreated. The BullMQ job id
 *   dedupes, so two reconciliations racing add one job. Nothing is sent to the service here: the poll job
 *   reads the scan after `firstPollDelayMs` and honours its `Retry-After` from then on.
 * Merge groups the same way, from each of the repository's merge-queue branches that exist now
 * ({@link reconcileMergeGroups}).
 * A pull request's unfinished check run on its head without `external_id` (its launch waited out
 * `debounceSeconds`, or the scan-id write had not reached GitHub) that diffward's state does not follow: when
 * the service has a scan of the head created since the check run ({@link findUnlinkedScan}), that scan is
 * resumed as above and its id written on the check run; otherwise a `pull-request` job decides the head's
 * launch again ({@link redecideUnlinked}), launched once (its launch job reads the scan list first too), or
 * the check run concluded. Never a second paid scan for a launch that reached the service.
 * `launchedAt` restarts at reconciliation, so `scanTimeoutMinutes` counts from then.
 * Each installation's requests are paced within its primary rate limit ({@link RatePacer}): the sweep waits
 * for `x-ratelimit-reset` while `x-ratelimit-remaining` is within the share left to live traffic.
 */
export async function sweepAll(
  rt: Runtime,
  opts: ReconcileOptions,
  summary: ReconcileSummary,
  log: Runtime["log"],
): Promise<void> {
  const app = await rt.appOctokit();
  const installations = await app.paginate(app.rest.apps.listInstallations, { per_page: 100 });
  for (const inst of installations) {
    const ilog = log.child({ installation: inst.id });
    if (inst.suspended_at) {
      ilog.info("reconcile: installation suspended, skipped");
      continue;
    }
    summary.installations += 1;
    const accountLogin = (inst.account && "login" in inst.account ? inst.account.login : undefined) ?? "";
    const pacer = new RatePacer(opts.pacer);
    const points = new RatePacer(opts.pacer);
    try {
      const octokit = pacer.attach(await rt.octokit(inst.id));
      const at = { octokit, installationId: inst.id, appId: inst.app_id, accountLogin, points };
      await sweepInstallation(rt, at, summary, ilog);
    } catch (error) {
      summary.errors += 1;
      ilog.warn({ err: error as Error }, "reconcile: installation skipped");
    } finally {
      summary.rateWaits += pacer.waits + points.waits;
      summary.rateWaitedMs += pacer.waitedMs + points.waitedMs;
    }
  }
}

/** Repositories read by one GraphQL walk before they are reconciled (GitHub's `nodes(ids:)` bound). */
const WALK_CHUNK = 100;

/** One installation being swept: its client, its app's id, its account, the pacer of its GraphQL points. */
interface InstallationSweep {
  octokit: InstallationOctokit;
  installationId: number;
  appId: number;
  accountLogin: string;
  points: RatePacer;
}

/**
 * One installation's repositories (REST "List repositories accessible to the app installation": GraphQL has
 * no such list), 100 at a time: read by the GraphQL walk ({@link walkChunk}), then each reconciled.
 */
async function sweepInstallation(
  rt: Runtime,
  at: InstallationSweep,
  summary: ReconcileSummary,
  ilog: Runtime["log"],
): Promise<void> {
  const { octokit } = at;
  const repos = await octokit.paginate(octokit.rest.apps.listReposAccessibleToInstallation, {
    per_page: 100,
  });
  const configs = new Map<string, OwnerConfigs>();
  for (let i = 0; i < repos.length; i += WALK_CHUNK) {
    const chunk = repos.slice(i, i + WALK_CHUNK);
    const heads = await walkChunk(at, chunk, summary, ilog);
    for (const repo of chunk) {
      try {
        const owner = repo.owner.login;
        if (!configs.has(owner)) configs.set(owner, new OwnerConfigs(octokit, owner));
        const h = heads.get(repo.node_id);
        const loaded =
          h && h.config !== "unread"
            ? await configs.get(owner)!.loadText(repo.name, h.config)
            : await configs.get(owner)!.load(repo.name);
        if (loaded.kind === "absent") {
          summary.skippedWithoutConfig += 1;
          continue;
        }
        summary.repositories += 1;
        const r: RepoPart = {
          installationId: at.installationId,
          accountLogin: at.accountLogin || owner,
          owner,
          repo: repo.name,
          repoPrivate: repo.private,
          defaultBranch: repo.default_branch ?? "main",
        };
        await reconcileRepository(rt, octokit, summary, r, loaded, h);
      } catch (error) {
        summary.errors += 1;
        ilog.warn({ repository: repo.full_name, err: error as Error }, "reconcile: repository skipped");
      }
    }
  }
}

/**
 * What needs resuming in up to 100 repositories, read with GitHub's GraphQL API ({@link readOpenHeads}); each
 * answer's `rateLimit` is counted in the summary and paces the next query (the walk waits for `resetAt` while
 * `remaining` is within the share of the hour's points left to live traffic, {@link RatePacer}).
 * @returns the repositories' heads by node id; empty when the walk failed (logged): each repository is then
 *   read by REST, as before the walk.
 */
async function walkChunk(
  at: InstallationSweep,
  chunk: ReadonlyArray<{ node_id: string }>,
  summary: ReconcileSummary,
  ilog: Runtime["log"],
): Promise<Map<string, RepoHeads>> {
  const spent = pacedBy(at.points, (s) => {
    summary.graphqlQueries += 1;
    summary.graphqlPoints += s.cost;
  });
  try {
    return await readOpenHeads(
      at.octokit,
      chunk.map((r) => ({ nodeId: r.node_id })),
      { appId: at.appId, spent },
    );
  } catch (error) {
    ilog.warn({ err: error as Error }, "reconcile: GraphQL walk failed, repositories read by REST");
    return new Map();
  }
}

/**
 * One repository's pull requests, merge groups and baseline schedule. `given` is its config when the caller
 * read it already (the full sweep, {@link OwnerConfigs}); otherwise it is read here, once for the three
 * passes and the schedule. `heads` is what the full sweep's GraphQL walk read of it (its open pull requests,
 * default branch head and their check runs): the passes read nothing of that again.
 */
export async function reconcileRepository(
  rt: Runtime,
  octokit: InstallationOctokit,
  summary: ReconcileSummary,
  r: RepoPart,
  given?: LoadedConfig,
  heads?: RepoHeads,
): Promise<void> {
  const loaded = given ?? (await loadRepoConfig(octokit, r.owner, r.repo));
  const cache: ConfigCache =
    loaded.kind === "ok"
      ? { config: withEffectiveDisclosure(loaded.config, { private: r.repoPrivate }) }
      : {};
  const at: RepoPass = { octokit, summary, r, cache, ...(heads ? { heads } : {}) };
  await reconcilePulls(rt, at);
  await reconcileMergeGroups(rt, at);
  await reconcileBaseline(rt, at);
  // the repository's baseline job scheduler, rebuilt from its config (lost with Redis, or never set); an
  // invalid config leaves it as it is, since pull requests already show its problems
  const baseline =
    loaded.kind === "ok" ? loaded.config : loaded.kind === "absent" ? undefined : ("keep" as const);
  await syncBaselineSchedule(rt, r, baseline);
}
