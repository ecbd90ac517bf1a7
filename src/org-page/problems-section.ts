/**
 * The problems section: invalid `.github/diffward.yml` per repository (recorded by the pull-request job),
 * the account's service token, the service's and GitHub's health (cached), this installation's jobs per queue
 * (its own index, `src/runtime/installation-jobs.ts`), the whole deployment's queue depths for the admin
 * bearer only, and this installation's failed jobs (BullMQ).
 */
import type { Job } from "bullmq";
import type { FailedJobRow, ProblemsSection, QueueDepth } from "./page-model.js";
import { installationQueueCounts } from "../runtime/installation-jobs.js";
import { QUEUE_KEYS, queueStatus } from "../runtime/queue-admin.js";
import type { OrgRecords } from "../stores/org-records.js";
import { plural } from "../render/format.js";
import { within } from "../runtime/ttl-cache.js";
import type { GitHubHealth, OrgPageDeps } from "./page-deps.js";

/** Failed jobs read per queue, newest first, before this installation's are kept. */
export const FAILED_JOBS_READ = 50;

/** What {@link problemsSection} reads for. */
export interface ProblemsScope {
  installationId: number;
  account: string;
  orgWide: boolean;
  /** the request carries the admin bearer (`DIFFWARD_ADMIN_TOKEN`): the whole deployment's queue depths */
  deployment: boolean;
  /** the viewer sees every repository of the installation (installation-wide failed jobs are shown) */
  seesAll: boolean;
  visible: (repository: string) => boolean;
  records: OrgRecords;
}

/**
 * Builds the problems section; the installation's jobs per queue and the token's presence only for an
 * organization-wide viewer, the deployment's queue depths only for the admin bearer.
 */
export async function problemsSection(deps: OrgPageDeps, s: ProblemsScope): Promise<ProblemsSection> {
  const { rt } = deps;
  const [configs, policies, service, github, queues, deploymentQueues, failedJobs] = await Promise.all([
    s.records.configProblems(s.installationId),
    s.records.policies(s.installationId),
    serviceState(deps),
    githubState(deps, s.installationId),
    s.orgWide ? installationQueues(deps, s.installationId) : Promise.resolve(null),
    s.deployment ? deploymentQueueDepths(deps) : Promise.resolve(null),
    installationFailedJobs(deps, s),
  ]);
  return {
    invalidConfigs: configs
      .filter((c) => s.visible(c.repository))
      .sort((a, b) => a.repository.localeCompare(b.repository)),
    policies: policies
      .filter((p) => s.visible(p.repository))
      .sort((a, b) => a.repository.localeCompare(b.repository)),
    missingToken: s.orgWide ? rt.scanner.tenantKey(s.account) === undefined : null,
    service,
    github,
    queues,
    deploymentQueues,
    failedJobs,
  };
}

/** The service's reachability as `/healthz` shows it (`src/runtime/health.ts`, cached there). */
async function serviceState(deps: OrgPageDeps): Promise<ProblemsSection["service"]> {
  if (!deps.rt.serviceHealth) return { state: "not checked" };
  try {
    const h = await within(deps.rt.serviceHealth(), deps.outsideBudgetMs, () => ({ service: "checking" }));
    const state = typeof h.service === "string" ? h.service : "unknown";
    return typeof h.serviceDetail === "string" ? { state, detail: h.serviceDetail } : { state };
  } catch (err) {
    deps.rt.log.warn({ err }, "organization page: service health not read");
    return { state: "unknown" };
  }
}

/**
 * Whether GitHub answers the installation (`GET /installation/repositories`, one repository asked: GitHub
 * REST "List repositories accessible to the app installation"), cached per installation.
 */
function githubState(deps: OrgPageDeps, installationId: number): Promise<GitHubHealth> {
  const answer = deps.githubHealth.get(String(installationId), async () => {
    try {
      const octokit = await deps.rt.octokit(installationId);
      const res = await octokit.request("GET /installation/repositories", { per_page: 1 });
      return { state: "ok", detail: plural(res.data.total_count, "repository", "repositories") };
    } catch (err) {
      deps.rt.log.warn({ err, installationId }, "organization page: GitHub did not answer the installation");
      const status = (err as { status?: number }).status;
      return { state: "unreachable", detail: status ? `HTTP ${status}` : (err as Error).name };
    }
  });
  return within(answer, deps.outsideBudgetMs, () => ({
    state: "checking",
    detail: "GitHub has not answered yet",
  }));
}

/** The installation's jobs in each queue, by state ({@link installationQueueCounts}). */
function installationQueues(deps: OrgPageDeps, installationId: number): Promise<QueueDepth[]> {
  return Promise.all(QUEUE_KEYS.map((k) => installationQueueCounts(deps.rt.queues[k], installationId)));
}

/** Each queue's depth over every installation (BullMQ job counts): the admin bearer's only. */
async function deploymentQueueDepths(deps: OrgPageDeps): Promise<QueueDepth[]> {
  return (await queueStatus(deps.rt.queues)).map((q) => ({
    queue: q.queue,
    waiting: q.waiting + q.prioritized,
    active: q.active,
    delayed: q.delayed,
    failed: q.failed,
  }));
}

/** The newest failed jobs of every queue that belong to the installation and a visible repository. */
async function installationFailedJobs(deps: OrgPageDeps, s: ProblemsScope): Promise<FailedJobRow[]> {
  const rows = await Promise.all(
    QUEUE_KEYS.map(async (k) => {
      const q = deps.rt.queues[k];
      const jobs = (await q.getJobs(["failed"], 0, FAILED_JOBS_READ - 1, false)) as Array<Job | undefined>;
      return jobs.flatMap((j) => (j ? failedRow(q.name, j, s) : []));
    }),
  );
  return rows.flat().sort((a, b) => (b.at ?? 0) - (a.at ?? 0));
}

/** A failed job as the page lists it, when it is the installation's and its repository is visible (pure). */
export function failedRow(
  queue: string,
  j: Pick<Job, "id" | "name" | "data" | "failedReason" | "finishedOn">,
  s: Pick<ProblemsScope, "installationId" | "seesAll" | "visible">,
): FailedJobRow[] {
  const d = (j.data ?? {}) as {
    installationId?: unknown;
    owner?: unknown;
    repo?: unknown;
    pullNumber?: unknown;
  };
  if (d.installationId !== s.installationId) return [];
  const repository =
    typeof d.owner === "string" && typeof d.repo === "string" ? `${d.owner}/${d.repo}` : null;
  // a job that names no repository (installation-wide work) is shown only to those who see every repository
  if (repository ? !s.visible(repository) : !s.seesAll) return [];
  return [
    {
      queue,
      id: j.id ?? "",
      name: j.name,
      repository,
      pullNumber: typeof d.pullNumber === "number" ? d.pullNumber : null,
      reason: j.failedReason ?? "",
      at: j.finishedOn ?? null,
    },
  ];
}
