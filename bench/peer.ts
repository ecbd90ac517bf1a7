/**
 * The peer of the benchmark: a plain fixed-interval poller (every 5 s) that follows the SAME scans as
 * diffward through the same typed client ({@link ScannerClient}, with its own token so the sandbox's
 * per-token early-poll rule treats it as a separate caller) and reports them with the same pure builders
 * (`planReport`, `toAnnotations`) to its own GitHub stand-in. It ignores `Retry-After`, updates the check run
 * on every poll whose percent changed, and has no queue: one timer per scan in memory. Every figure of the
 * bench is printed for diffward and for this peer side by side.
 */
import { Octokit } from "@octokit/rest";
import { toReportFinding } from "../src/report/decide/findings.js";
import type { GitHubStandIn } from "../dev/github-standin/index.js";
import type { ReportFinding } from "../src/domain/finding-types.js";
import type { RepoConfig } from "../src/config/repo-config.js";
import { planReport } from "../src/report/decide/plan.js";
import { batches, toAnnotations } from "../src/render/annotations.js";
import { isTerminalScanStatus } from "../src/scanner/catalog.js";
import type { ScannerClient } from "../src/scanner/client.js";
import type { ResponseInfo } from "../src/scanner/transport.js";
import { ScannerApiError } from "../src/scanner/errors.js";
import type { FindingListItem } from "../src/scanner/schemas.js";

/** One scan the peer follows, and where it reports it. */
export interface PeerTarget {
  scanId: string;
  installationId: number;
  owner: string;
  repo: string;
  pullNumber: number;
  headSha: string;
}

/** What the peer measured for one scan. Times are epoch ms. */
export interface PeerScanRecord {
  target: PeerTarget;
  followedAt: number;
  polls: number;
  poll429s: number;
  pages: number;
  details: number;
  /** when a poll first saw the scan terminal */
  terminalSeenAt?: number;
  /** when the completing check-run PATCH was answered */
  reportedAt?: number;
  findings?: number;
  annotations?: number;
  shown?: number;
  error?: string;
}

/** Options of {@link FixedIntervalPoller}. */
export interface PeerOptions {
  client: ScannerClient;
  projectId: string;
  /** the peer's own GitHub stand-in (seeded with the same installations, repositories and pull requests) */
  github: GitHubStandIn;
  config: RepoConfig;
  /** fixed poll interval, in ms (the bench uses 5,000) */
  intervalMs: number;
  labelPrefix?: string;
  /** the table the client's `onResponse` hook ({@link FixedIntervalPoller.counter}) writes into */
  calls: Record<string, Record<string, number>>;
}

/** The fixed-interval peer. Call {@link follow} when diffward's scan appears; read {@link records}. */
export class FixedIntervalPoller {
  readonly records = new Map<string, PeerScanRecord>();
  /** service calls by `METHOD route` → status → count (from the client's `onResponse` hook) */
  readonly calls: Record<string, Record<string, number>>;
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #octokits = new Map<number, Octokit>();
  #stopped = false;

  constructor(private readonly opts: PeerOptions) {
    this.calls = opts.calls;
  }

  /** The hook to pass as the peer client's `onResponse` (counts every answered request). */
  static counter(calls: Record<string, Record<string, number>>): (info: ResponseInfo) => void {
    return (info) => {
      const row = (calls[`${info.method} ${info.route}`] ??= {});
      row[String(info.status)] = (row[String(info.status)] ?? 0) + 1;
    };
  }

  /** Starts following a scan: creates the peer's check run now, first poll after `intervalMs`. */
  follow(target: PeerTarget, now = Date.now()): void {
    if (this.records.has(target.scanId) || this.#stopped) return;
    const rec: PeerScanRecord = { target, followedAt: now, polls: 0, poll429s: 0, pages: 0, details: 0 };
    this.records.set(target.scanId, rec);
    void this.#start(rec).catch((e: Error) => (rec.error = e.message));
  }

  /** Stops every timer (pending polls are dropped). */
  stop(): void {
    this.#stopped = true;
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
  }

  /** Scans reported (or failed) so far. */
  done(): number {
    let n = 0;
    for (const r of this.records.values()) if (r.reportedAt !== undefined || r.error) n += 1;
    return n;
  }

  async #octokit(installationId: number): Promise<Octokit> {
    let o = this.#octokits.get(installationId);
    if (!o) {
      const { token } = this.opts.github.state.issueToken(installationId);
      o = new Octokit({ baseUrl: this.opts.github.url, auth: token });
      this.#octokits.set(installationId, o);
    }
    return o;
  }

  #later(fn: () => Promise<void>, ms: number): void {
    if (this.#stopped) return;
    const t = setTimeout(() => {
      this.#timers.delete(t);
      void fn();
    }, ms);
    this.#timers.add(t);
  }

  async #start(rec: PeerScanRecord): Promise<void> {
    const t = rec.target;
    const gh = await this.#octokit(t.installationId);
    const created = await gh.request("POST /repos/{owner}/{repo}/check-runs", {
      owner: t.owner,
      repo: t.repo,
      name: "peer",
      head_sha: t.headSha,
      status: "queued",
    });
    const checkRunId = Number(created.data.id);
    let lastPercent = -1;
    const tick = async (): Promise<void> => {
      try {
        let status: string;
        let percent = 0;
        try {
          const { scan } = await this.opts.client.getScan(this.opts.projectId, t.scanId);
          rec.polls += 1;
          status = scan.status;
          percent = scan.progress?.percent ?? 0;
        } catch (error) {
          if (error instanceof ScannerApiError && error.code === "rate_limited") {
            rec.poll429s += 1;
            return this.#later(tick, this.opts.intervalMs);
          }
          throw error;
        }
        if (!isTerminalScanStatus(status)) {
          if (percent !== lastPercent) {
            lastPercent = percent;
            await gh.request("PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}", {
              owner: t.owner,
              repo: t.repo,
              check_run_id: checkRunId,
              status: "in_progress",
              output: { title: `Scanning: ${percent}%`, summary: `Scan ${t.scanId} is ${status}.` },
            });
          }
          return this.#later(tick, this.opts.intervalMs);
        }
        rec.terminalSeenAt = Date.now();
        await this.#report(rec, gh, checkRunId);
      } catch (error) {
        rec.error = (error as Error).message;
      }
    };
    this.#later(tick, this.opts.intervalMs);
  }

  async #report(rec: PeerScanRecord, gh: Octokit, checkRunId: number): Promise<void> {
    const t = rec.target;
    const items: FindingListItem[] = [];
    for (let page = 1; ; page++) {
      const res = await this.opts.client.listFindings(this.opts.projectId, {
        scanId: t.scanId,
        page,
        limit: 100,
      });
      rec.pages += 1;
      items.push(...res.items);
      if (items.length >= res.total || res.items.length === 0) break;
    }
    const findings: ReportFinding[] = items.map(toReportFinding);
    const files = await gh.paginate("GET /repos/{owner}/{repo}/pulls/{pull_number}/files", {
      owner: t.owner,
      repo: t.repo,
      pull_number: t.pullNumber,
      per_page: 100,
    });
    const cfg = this.opts.config;
    const plan = planReport({
      findings,
      files: files.map((f) => ({ filename: f.filename, ...(f.patch ? { patch: f.patch } : {}) })),
      posted: [],
      config: {
        failOn: cfg.failOn,
        disclosure: cfg.disclosure ?? "full",
        maxInline: cfg.comments.maxInline,
        minSeverity: cfg.comments.minSeverity,
      },
    });
    const bodies = await Promise.all(
      plan.post.map(async (p) => {
        const d = await this.opts.client.getFinding(this.opts.projectId, p.finding.id);
        rec.details += 1;
        return {
          path: p.path,
          line: p.line,
          body: `**${p.finding.title}**\n\n${d.description}`.slice(0, 60_000),
        };
      }),
    );
    if (bodies.length > 0) {
      await gh.request("POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews", {
        owner: t.owner,
        repo: t.repo,
        pull_number: t.pullNumber,
        commit_id: t.headSha,
        event: "COMMENT",
        body: `peer: ${findings.length} findings`,
        comments: bodies,
      });
    }
    const annotations = toAnnotations(findings, cfg.disclosure ?? "full", {
      failOn: cfg.failOn,
      labelPrefix: this.opts.labelPrefix ?? "SC",
    });
    const [first = [], ...rest] = batches(annotations, 50);
    const output = { title: `${findings.length} findings`, summary: `Scan ${t.scanId}.` };
    await gh.request("PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}", {
      owner: t.owner,
      repo: t.repo,
      check_run_id: checkRunId,
      conclusion: plan.verdict.conclusion,
      output: { ...output, annotations: first },
    });
    rec.reportedAt = Date.now();
    for (const batch of rest) {
      await gh.request("PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}", {
        owner: t.owner,
        repo: t.repo,
        check_run_id: checkRunId,
        output: { ...output, annotations: batch },
      });
    }
    rec.findings = findings.length;
    rec.annotations = annotations.length;
    rec.shown = bodies.length;
  }
}
