/** Shared helpers of the benchmark: statistics, pull request fixtures, and readers of the stand-ins' records. */
import type { HeadlessHarness } from "../dev/harness/harness.js";
import { webhookExample } from "../dev/harness/examples.js";
import { demoConfig, demoPullFiles } from "../dev/harness/demo-repo.js";
import { seedFromPullRequestEvent, type GitHubStandIn } from "../dev/github-standin/index.js";
import type { SandboxState } from "../dev/sandbox/index.js";

/** Nearest-rank percentile of `values` (`p` in 0–100); NaN for an empty list. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1]!;
}

/** Sum of a list. */
export const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);

/** A small deterministic PRNG (mulberry32) for scan durations; `next()` in [0, 1). */
export function seeded(seed: number): { next(): number } {
  let a = seed >>> 0;
  return {
    next() {
      a = (a + 0x6d2b79f5) >>> 0;
      let t = a;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    },
  };
}

/** Sleeps `ms` milliseconds. */
export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** One pull request of the bench: where it lives and its `pull_request.opened` payload. */
export interface BenchPull {
  key: string;
  org: string;
  installationId: number;
  owner: string;
  repo: string;
  pullNumber: number;
  headSha: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a raw webhook payload, edited in place
  payload: any;
}

/** A 40-hex sha unique to (org index, pull number). */
function sha(orgIndex: number, n: number): string {
  return `${orgIndex.toString(16).padStart(4, "0")}${n.toString(16).padStart(8, "0")}`.padEnd(40, "e");
}

/**
 * `count` pull requests of one organization (one installation, one repository), from the real
 * `pull_request.opened` example payload with the number, head sha, owner and installation replaced.
 */
export function makePulls(org: string, orgIndex: number, count: number, repo = "app"): BenchPull[] {
  const installationId = 1000 + orgIndex;
  const out: BenchPull[] = [];
  for (let n = 1; n <= count; n++) {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- see BenchPull.payload
    const p: any = webhookExample("pull_request", "opened");
    p.number = n;
    p.pull_request.number = n;
    p.pull_request.head.sha = sha(orgIndex, n);
    p.pull_request.head.ref = `feature-${n}`;
    p.pull_request.updated_at = "2026-11-22T10:00:00Z";
    p.repository.owner.login = org;
    p.repository.owner.type = "Organization";
    p.repository.name = repo;
    p.repository.full_name = `${org}/${repo}`;
    p.repository.id = 50_000 + orgIndex;
    p.installation = { ...(p.installation ?? {}), id: installationId };
    // same-repository pull requests (not forks): head and base live in the edited repository
    p.pull_request.head.repo = { ...p.repository };
    p.pull_request.base.repo = { ...p.repository };
    out.push({
      key: `${org}/${repo}#${n}`,
      org,
      installationId,
      owner: org,
      repo,
      pullNumber: n,
      headSha: p.pull_request.head.sha,
      payload: p,
    });
  }
  return out;
}

/** Seeds diffward's stand-in and (when given) the peer's with the pull requests and the onboarding config. */
export function seedPulls(
  h: Pick<HeadlessHarness, "seed">,
  pulls: readonly BenchPull[],
  peer?: GitHubStandIn,
  repositoryId = "repo_demo",
): void {
  const cfg = demoConfig().replace("repositoryId: repo_demo", `repositoryId: ${repositoryId}`);
  for (const p of pulls) {
    const extra = {
      files: demoPullFiles(),
      mergeBaseSha: "c".repeat(40),
      repoFiles: { [p.payload.repository.default_branch]: { ".github/diffward.yml": cfg } },
    };
    h.seed(p.payload, extra);
    if (peer) seedFromPullRequestEvent(peer.state, p.payload, extra);
  }
}

/** A GitHub write request of the stand-in, tied to its pull request. */
export interface WriteRecord {
  key: string;
  at: number;
  kind:
    | "check-create"
    | "check-progress"
    | "check-complete"
    | "check-annotations"
    | "review"
    | "comment-edit"
    | "other";
  status: number;
}

/**
 * Sorts the stand-in's accepted and refused write requests (POST/PATCH/PUT/DELETE outside `/app`) by pull
 * request: check runs by head sha (one pull request per sha in the bench), reviews by path.
 */
export function writesByPull(gh: GitHubStandIn, pulls: readonly BenchPull[]): WriteRecord[] {
  const bySha = new Map(pulls.map((p) => [p.headSha, p]));
  const checkToKey = new Map<number, string>();
  const repos = new Set(pulls.map((p) => `${p.owner}/${p.repo}`));
  for (const r of repos) {
    const [owner, repo] = r.split("/") as [string, string];
    for (const c of gh.state.checkRuns(owner, repo)) {
      const p = bySha.get(c.headSha);
      if (p) checkToKey.set(c.id, p.key);
    }
  }
  const commentToKey = new Map<number, string>();
  for (const r of repos) {
    const [owner, repo] = r.split("/") as [string, string];
    for (const c of gh.state.reviewComments(owner, repo))
      commentToKey.set(c.id, `${owner}/${repo}#${c.pullNumber}`);
  }
  const out: WriteRecord[] = [];
  for (const req of gh.requests) {
    if (req.method === "GET" || req.path.startsWith("/app") || req.route === null) continue;
    const m = /^\/repos\/([^/]+)\/([^/]+)\//.exec(req.path);
    const owner = m?.[1] ?? "";
    const repo = m?.[2] ?? "";
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the recorded JSON body
    const body = (req.body ?? {}) as any;
    let key: string | undefined;
    let kind: WriteRecord["kind"] = "other";
    if (req.route === "/repos/{owner}/{repo}/check-runs") {
      key = bySha.get(String(body.head_sha))?.key;
      kind = "check-create";
    } else if (req.route === "/repos/{owner}/{repo}/check-runs/{check_run_id}") {
      key = checkToKey.get(Number(req.path.split("/").pop()));
      kind = body.conclusion
        ? "check-complete"
        : body.status === "in_progress"
          ? "check-progress"
          : "check-annotations";
    } else if (req.route === "/repos/{owner}/{repo}/pulls/{pull_number}/reviews") {
      key = `${owner}/${repo}#${req.path.split("/")[5]}`;
      kind = "review";
    } else if (req.route === "/repos/{owner}/{repo}/pulls/comments/{comment_id}") {
      key = commentToKey.get(Number(req.path.split("/").pop()));
      kind = "comment-edit";
    }
    out.push({ key: key ?? "?", at: req.at, kind, status: req.status });
  }
  return out;
}

/** The sandbox's request counters with route parameters normalized (`:x` and `{x}` → `*`). */
export function normalizeRoute(key: string): string {
  return key.replace(/:[A-Za-z]+/g, "*").replace(/\{[A-Za-z]+\}/g, "*");
}

/** Sums a `route → status → count` table into `normalized route → count` (answers of any status). */
export function flatten(
  table: Record<string, Record<string, number>>,
  onlyStatus?: string,
): Map<string, number> {
  const out = new Map<string, number>();
  for (const [k, row] of Object.entries(table)) {
    const n = onlyStatus ? (row[onlyStatus] ?? 0) : sum(Object.values(row));
    const nk = normalizeRoute(k);
    out.set(nk, (out.get(nk) ?? 0) + n);
  }
  return out;
}

/** Epoch ms at which each scan of the sandbox turned terminal (by scan id); running scans are absent. */
export function terminalTimes(state: SandboxState): Map<string, number> {
  state.advance();
  const out = new Map<string, number>();
  for (const s of state.scans.values()) if (s.final) out.set(s.id, s.final.atMs);
  return out;
}
