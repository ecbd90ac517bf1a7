/**
 * `npm run demo`: diffward's whole loop on this machine, with no account. Starts the scanning-service
 * sandbox, a local GitHub API stand-in (every request checked against GitHub's OpenAPI description), and
 * diffward (webhook server + queue workers) on Redis; sends real webhook payloads from
 * `@octokit/webhooks-examples` (a push to the default branch that gets a baseline scan, a pull request opened, then a new
 * push, a triage reply, a two-person dismissal, then the pull request in a merge queue, whose group reuses its report); then the
 * repository's account signs in to the organization's page with GitHub (the stand-in's web flow; a screenshot when Debian's
 * Chromium is installed); writes what diffward posted to `out/demo/` as Markdown and as an HTML page styled like GitHub's, linking
 * the organization's page; prints what happened and how long it took.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { startHarness } from "../dev/harness/harness.js";
import { ensureRedis } from "../dev/harness/redis.js";
import { webhookExample } from "../dev/harness/examples.js";
import { demoConfig, demoPullFiles, modifiedFilePatch } from "../dev/harness/demo-repo.js";
import { renderDemoPage } from "../dev/harness/demo-page.js";
import { visitOrgPage } from "../dev/harness/org-page-demo.js";
import { demoApproval, demoReplyCommand } from "../dev/harness/triage.js";
import { demoMergeQueue } from "../dev/harness/merge-queue.js";
import { demoBaseline } from "../dev/harness/baseline.js";
import { findingLabel } from "../src/scanner/labels.js";
import { statusName } from "../src/render/glossary.js";
import { storedVerdict } from "../src/report/decide/current-verdict.js";
import { pullKey } from "../src/runtime/names.js";

const HEAD_1 = "1f1e1d1c1b1a19181716151413121110f0e0d0c0";
const HEAD_2 = "2a2b2c2d2e2f30313233343536373839aabbccdd";
const GUIDANCE_TEXT =
  "# Guidance\n\nTreat src/db.js as handling untrusted input.\nCode under lib/ is legacy and out of scope.\n";
const MERGE_BASE = "0b5e0b5e0b5e0b5e0b5e0b5e0b5e0b5e0b5e0b5e";
const GROUP_HEAD = "3c3d3e3f404142434445464748494a4b4c4d4e4f";
const GROUP_BASE = "0b5e0b5e0b5e0b5e0b5e0b5e0b5e0b5e0b5e0b60";
/** The default branch's commit the baseline scans (the pull request's merge base). */
const BASELINE_HEAD = MERGE_BASE;
/** The demo repository's baseline: each push to the default branch gets a whole-repository scan. */
const BASELINE_CONFIG =
  'baseline:\n  on: push\n  preset: full-standard\npolicies:\n  - paths: ["lib/**"]\n    mode: monitor';
/** The pull request's second head suppresses one finding where the code is (src/server.js line 31). */
const SERVER_AT_HEAD_2 = Array.from({ length: 40 }, (_, i) =>
  i + 1 === 30 ? "  // diffward-ignore risk_accepted: the proxy rate-limits /login" : `line ${i + 1}`,
).join("\n");

const started = Date.now();
const redis = await ensureRedis().catch((e: Error) => {
  console.error(e.message);
  process.exit(1);
});
const h = await startHarness({
  redisUrl: redis.url,
  sandbox: { scenario: "demo", scanDurationMs: 5_000, retryAfterSeconds: 1, seed: 7 },
  settings: { progressIntervalMs: 2_000 },
  signIn: true,
});
const story: string[] = [];
const say = (s: string) => {
  story.push(s);
  console.log(`  ${((Date.now() - started) / 1000).toFixed(1).padStart(5)} s  ${s}`);
};
console.log("diffward demo: sandbox of the scanning service, GitHub stand-in, Redis, diffward web + workers");

try {
  // 1. A pull request is opened (real payload), on a repository onboarded with .github/diffward.yml.
  const opened = webhookExample("pull_request", "opened") as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  opened.pull_request.head.sha = HEAD_1;
  opened.pull_request.updated_at = "2026-11-22T10:00:00Z";
  const owner: string = opened.repository.owner.login;
  const repo: string = opened.repository.name;
  const number: number = opened.number;
  h.seed(opened, {
    files: demoPullFiles(),
    mergeBaseSha: MERGE_BASE,
    repoFiles: {
      [opened.repository.default_branch]: { ".github/diffward.yml": demoConfig(BASELINE_CONFIG) },
    },
    permissions: { [opened.pull_request.user.login]: "write" },
  });
  // 0. The default branch gets its baseline (real push payload): a whole-repository scan of its head.
  const baseline = await demoBaseline(
    h,
    { owner, repo, defaultBranch: opened.repository.default_branch },
    BASELINE_HEAD,
  );
  say(
    `push to ${opened.repository.default_branch} (${BASELINE_HEAD.slice(0, 7)}): baseline scan ${baseline.scanId} reported in ${baseline.tookMs} ms: ${baseline.run.conclusion} — ${baseline.run.output.title}`,
  );
  const ack1 = await h.send("pull_request", opened);
  say(
    `pull_request.opened delivered (${owner}/${repo}#${number}, head ${HEAD_1.slice(0, 7)}): ${ack1.status} in ${ack1.durationMs.toFixed(0)} ms`,
  );
  const first = await h.waitFor(
    () => h.github.state.checkRuns(owner, repo).find((c) => c.headSha === HEAD_1 && c.externalId),
    30_000,
    "the first scan to launch",
  );
  say(
    `check run created and diff scan ${first.externalId} launched with baseCommit = merge base ${MERGE_BASE.slice(0, 7)}`,
  );

  // 2. A new push while the first scan runs (real synchronize payload): the first scan is superseded.
  const pushed = webhookExample("pull_request", "synchronize") as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  pushed.pull_request.head.sha = HEAD_2;
  pushed.pull_request.updated_at = "2026-11-22T10:05:00Z";
  pushed.before = HEAD_1;
  pushed.after = HEAD_2;
  // The push also edits the guidance file: the scan of this head runs with the PR's own guidance.
  const files2 = [
    ...demoPullFiles().map((f) =>
      f.filename === "README.md" ? { ...f, patch: modifiedFilePatch(12, 18) } : f,
    ),
    { filename: "SCANNER.md", status: "modified" as const, patch: modifiedFilePatch(4, 6) },
  ];
  h.github.state.setFile(owner, repo, HEAD_2, "SCANNER.md", GUIDANCE_TEXT);
  h.github.state.setFile(owner, repo, HEAD_2, "src/server.js", SERVER_AT_HEAD_2);
  h.github.state.updatePullRequestHead({
    owner,
    repo,
    number,
    sha: HEAD_2,
    files: files2,
    mergeBaseSha: MERGE_BASE,
  });
  const ack2 = await h.send("pull_request", pushed);
  say(
    `pull_request.synchronize delivered (new head ${HEAD_2.slice(0, 7)}): ${ack2.status} in ${ack2.durationMs.toFixed(0)} ms`,
  );
  const cancelled = await h.waitFor(
    () => h.github.state.checkRuns(owner, repo).find((c) => c.headSha === HEAD_1 && c.status === "completed"),
    30_000,
    "the first check run to be superseded",
  );
  say(`first check run concluded ${cancelled.conclusion}: ${cancelled.output.title}`);
  const done = await h.waitFor(
    () => h.github.state.checkRuns(owner, repo).find((c) => c.headSha === HEAD_2 && c.status === "completed"),
    60_000,
    "the second scan to be reported",
  );
  say(`second scan ${done.externalId} reported: ${done.conclusion} — ${done.output.title}`);
  // The completing check-run write goes first and the review after it (`WRITE_PRIORITY`).
  await h.waitFor(
    () => h.github.state.reviews(owner, repo, number).length > 0,
    30_000,
    "the review to be posted",
  );
  const comments = h.github.state.reviewComments(owner, repo, number);
  say(
    `${h.github.state.reviews(owner, repo, number).length} review with ${comments.length} inline comments, ${done.annotations.length} annotations`,
  );

  const against = /Of \d+ open findings?, .*? new in this pull request\./.exec(
    done.output.summary ?? "",
  )?.[0];
  say(`against the baseline of ${opened.repository.default_branch}: ${against ?? "MISSING"}`);
  if (!against) process.exitCode = 1;
  // the same report under `failOn: {severity: high, only: new}`: the blocking rule with the kept comparison
  const kept = await h.waitFor(
    async () => {
      const r = await h.booted.rt.stores.reports.get(pullKey(owner, repo, number));
      return r?.headSha === HEAD_2 ? r : undefined;
    },
    10_000,
    "the report state",
  );
  const onlyNew = storedVerdict({
    ...kept,
    config: { ...kept.config, failOn: { severity: "high", only: "new" } },
  });
  say(
    `with failOn: {severity: high, only: new} the check would be ${onlyNew.conclusion}: ${onlyNew.blocking} new blocking, ${onlyNew.preexistingAtThreshold} at or above high already open on ${opened.repository.default_branch} listed but not blocking`,
  );

  // the policy decided: a path rule (lib/** → monitor) and one inline suppression (diffward-ignore)
  const summary = done.output.summary ?? "";
  const monitored = /Monitored: \*\*(\d+)\*\*/.exec(summary)?.[1];
  const suppressed = /Suppressed: \*\*(\d+)\*\*/.exec(summary)?.[1];
  const inline = /_suppressed inline at `([^`]+)`_/.exec(summary)?.[1];
  say(
    `policy: lib/** → monitor kept ${monitored ?? "?"} finding from blocking; ${suppressed ?? "?"} suppressed inline (diffward-ignore risk_accepted at ${inline ?? "MISSING"}, set won't fix for the author)`,
  );
  if (monitored !== "1" || suppressed !== "1") process.exitCode = 1;

  const spent = /Spent: \*\*(\d+)\*\*/.exec(done.output.summary ?? "")?.[1];
  say(`summary: ${spent ?? "?"} credits spent (usage ledger); guidance file edit flagged and annotated`);

  // 3. A reviewer answers a finding in its review thread.
  const reply = await demoReplyCommand(h, { owner, repo, pullNumber: number, login: "octo-reviewer" });
  say(
    `octo-reviewer replied "${reply.command}" to ${findingLabel(reply.findingId, h.booted.rt.settings.labelPrefix)}: resolution ${statusName(reply.resolutionStatus ?? "")}, check run ${reply.conclusion}`,
  );
  // The triage changed the annotations: a fresh check run on the same head carries the current ones.
  const label = findingLabel(reply.findingId, h.booted.rt.settings.labelPrefix);
  const current = await h.waitFor(
    () =>
      h.github.state
        .checkRuns(owner, repo)
        .filter((c) => c.headSha === HEAD_2 && c.status === "completed" && c.id > done.id)
        .at(-1),
    20_000,
    "the fresh check run after the triage",
  );
  const stale = current.annotations.filter((a) => String(a.title ?? "").startsWith(`${label} `));
  say(
    `annotations refreshed: fresh check run #${current.id} on ${HEAD_2.slice(0, 7)} replaced #${done.id} (${done.annotations.length} → ${current.annotations.length} annotations, ${stale.length === 0 ? `none for ${label}` : `STILL ${stale.length} for ${label}`})`,
  );
  if (stale.length > 0) process.exitCode = 1;

  // 3b. Two-person dismissals (triage.approval): a writer's dismissal of a HIGH finding waits for a maintainer.
  const approval = await demoApproval(h, {
    owner,
    repo,
    pullNumber: number,
    defaultBranch: opened.repository.default_branch,
    baseConfig: demoConfig,
  });
  const approvalLabel = findingLabel(approval.findingId, h.booted.rt.settings.labelPrefix);
  say(
    `with triage.approval on, ${approval.requester} replied "${approval.command}" to ${approvalLabel} (${statusName(approval.severity)}): held for approval, resolution still ${statusName(approval.statusWhileHeld ?? "unknown")}; ${approval.approver} (maintain) replied "/approve": resolution ${statusName(approval.statusAfter ?? "unknown")}`,
  );
  if (approval.statusWhileHeld !== "NOT_STARTED" || approval.statusAfter !== "WONT_FIX") process.exitCode = 1;

  // 4. The pull request enters the merge queue (real merge_group payload): its report is reused.
  const queued = await demoMergeQueue(
    h,
    { owner, repo, pullNumber: number },
    { headSha: GROUP_HEAD, baseSha: GROUP_BASE },
  );
  say(
    `merge_group.checks_requested (group ${GROUP_HEAD.slice(0, 7)} for #${number}): check ${queued.run.conclusion} in ${queued.tookMs} ms — ${queued.run.output.title}; new scans launched: ${queued.launchesAfter - queued.launchesBefore}`,
  );

  // The first check run keeps the stop's words: the first scan's CANCELLED status (diffward's own cancel)
  // never rewrites it, nor does its report.
  const firstConclusions = h.github.requests.filter(
    (r) =>
      r.method === "PATCH" &&
      r.path.endsWith(`/check-runs/${cancelled.id}`) &&
      (r.body as { conclusion?: string } | undefined)?.conclusion !== undefined,
  ).length;
  say(
    `first check run #${cancelled.id} at the end: ${cancelled.conclusion} — ${cancelled.output.title} (concluded ${firstConclusions} time${firstConclusions === 1 ? "" : "s"})`,
  );
  if (firstConclusions !== 1 || !cancelled.output.title?.startsWith("Superseded by")) process.exitCode = 1;

  // 5. The organization's page: the repository's account signs in with GitHub (the stand-in's web flow).
  const outDir = resolve("out/demo");
  mkdirSync(outDir, { recursive: true });
  const visit = await visitOrgPage(h, owner, opened.installation.id, outDir);
  say(
    `organization's page ${visit.url}: ${owner} signed in with GitHub (the stand-in's web flow) and sees ${visit.monthSpent ?? "?"} credits spent this month, ${visit.reports} report${visit.reports === 1 ? "" : "s"} and ${visit.inFlight} scan${visit.inFlight === 1 ? "" : "s"} in flight (out/demo/org-page.html${visit.screenshotFile ? ", screenshot out/demo/org-page.png" : ""})`,
  );
  if (visit.reports === 0) process.exitCode = 1;

  const scans = [...h.sandbox.state.scans.values()];
  const violations = h.github.violations();
  say(
    `scans launched: ${scans.length} (${scans.map((s) => `${s.id} ${h.sandbox.state.statusOf(s)}`).join(", ")})`,
  );
  say(`GitHub requests: ${h.github.requests.length}, rejected by the OpenAPI check: ${violations.length}`);

  const page = renderDemoPage({
    title: opened.pull_request.title,
    owner,
    repo,
    pullNumber: number,
    github: h.github,
    story,
    links: [{ href: "org-page.html", text: "The organization's page, as the account signed in saw it" }],
  });
  writeFileSync(resolve(outDir, "index.html"), page.html);
  writeFileSync(resolve(outDir, "report.md"), page.markdown);
  writeFileSync(resolve(outDir, "github-requests.json"), JSON.stringify(h.github.requests, null, 2));
  console.log(`\nWrote out/demo/index.html, out/demo/report.md and out/demo/github-requests.json`);
  console.log(`Done in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
  if (violations.length > 0) {
    console.error("OpenAPI violations:", JSON.stringify(violations, null, 2));
    process.exitCode = 1;
  }
} catch (error) {
  console.error("demo failed:", (error as Error).message);
  process.exitCode = 1;
} finally {
  await h.close();
  await redis.stop?.();
}
