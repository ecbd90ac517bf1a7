/**
 * The week's failing heads told as timelines (bench/week.ts): for each head the invariants name (launched
 * more often than allowed, reported not exactly once, a check run left open), what the stand-ins saw of it,
 * in time order: the deliveries of its pull request, its scans (launch parameters and end), its check runs'
 * creation and every write to them. Written beside the bench's report, for the closing note's "why".
 */
import type { GitHubStandIn } from "../dev/github-standin/index.js";
import type { SandboxState } from "../dev/sandbox/index.js";

/** A head to tell and why it is told. */
export interface StoryHead {
  headSha: string;
  why: string;
}

interface Line {
  at: number;
  text: string;
}

const short = (sha: unknown) => (typeof sha === "string" ? sha.slice(0, 8) : String(sha));

/** One head's timeline: lines of `+seconds what`, from the week's start (`from`, epoch ms). */
export function tellHead(gh: GitHubStandIn, sandbox: SandboxState, head: StoryHead, from: number): string {
  const lines: Line[] = [];
  type PullPayload = {
    pull_request?: { number?: number; head?: { sha?: string } };
    repository?: { name?: string };
  };
  const deliveries = gh.state.deliveries.list().reverse();
  // the pull request whose head it was (a merge group's or a default branch's head has none)
  const of = deliveries
    .map((d) => d.payload as PullPayload)
    .find((p) => p.pull_request?.head?.sha === head.headSha);
  const created = gh.requests.find(
    (r) =>
      r.operationId === "checks/create" &&
      (r.body as { head_sha?: string } | undefined)?.head_sha === head.headSha,
  );
  const [owner, repo] = created?.path.split("/").slice(2, 4) ?? [];
  for (const d of deliveries) {
    const p = d.payload as PullPayload;
    if (
      !of ||
      p.repository?.name !== of.repository?.name ||
      p.pull_request?.number !== of.pull_request?.number
    )
      continue;
    lines.push({
      at: Date.parse(d.deliveredAt),
      text: `delivery ${d.event}.${d.action ?? ""} head ${short(p.pull_request?.head?.sha)} → ${d.statusCode}`,
    });
  }
  for (const s of sandbox.scans.values()) {
    if (s.commitHash !== head.headSha) continue;
    lines.push({
      at: s.createdAtMs,
      text: `scan ${s.id} launched: base ${short(s.baseCommit)}, preset ${s.presetRef}, budget ${s.creditBudget}`,
    });
    if (s.final) lines.push({ at: s.final.atMs, text: `scan ${s.id} ${s.final.status}` });
  }
  const runIds = new Set(
    owner && repo
      ? gh.state
          .checkRuns(owner, repo)
          .filter((c) => c.headSha === head.headSha)
          .map((c) => c.id)
      : [],
  );
  for (const r of gh.requests) {
    if (r.status >= 400) continue;
    const body = r.body as
      | {
          head_sha?: string;
          status?: string;
          conclusion?: string;
          output?: { title?: string };
          external_id?: string;
        }
      | undefined;
    if (r.operationId === "checks/create" && body?.head_sha === head.headSha)
      lines.push({
        at: r.at,
        text: `check run created (installation ${r.installationId}): ${body.status ?? "queued"} ${body.output?.title ?? ""}`,
      });
    if (r.operationId === "checks/update" && runIds.has(Number(r.path.split("/").pop())))
      lines.push({
        at: r.at,
        text: `check run ${r.path.split("/").pop()} updated (installation ${r.installationId}): ${body?.status ?? ""} ${body?.conclusion ?? ""} ${body?.external_id ? `scan ${body.external_id} ` : ""}${body?.output?.title ?? ""}`,
      });
  }
  lines.sort((a, b) => a.at - b.at);
  const t = (at: number) => `+${((at - from) / 1000).toFixed(1)} s`;
  const where = of ? `${repo ?? of.repository?.name}#${of.pull_request?.number}` : (repo ?? "?");
  return [`${where}@${short(head.headSha)}: ${head.why}`, ...lines.map((l) => `  ${t(l.at)} ${l.text}`)].join(
    "\n",
  );
}
