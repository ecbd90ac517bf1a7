import { randomBytes } from "node:crypto";
import nock from "nock";
import { pino } from "pino";
import { Probot, ProbotOctokit } from "probot";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { diffwardApp } from "../../src/handlers/index.js";
import { webhookExample } from "../../dev/harness/examples.js";
import { devPrivateKey } from "../../dev/harness/harness.js";
import { createRedis } from "../../src/runtime/connection.js";
import { createQueues } from "../../src/runtime/queues.js";
import { loadRepoConfig } from "../../src/runtime/config-loader.js";
import type { Payload } from "../support/pr.js";
import { JOBS } from "../../src/job-catalogue/index.js";

const redis = createRedis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
const prefix = `dwt-handlers-${randomBytes(3).toString("hex")}`;
const queues = createQueues({ connection: redis, prefix });

function probot() {
  const p = new Probot({
    appId: 1,
    privateKey: devPrivateKey(),
    log: pino({ level: "silent" }),
    Octokit: ProbotOctokit.defaults({ retry: { enabled: false }, throttle: { enabled: false } }),
  });
  diffwardApp({ queues })(p);
  return p;
}

describe("handlers: guards and one job per delivery, no GitHub call on the webhook path", () => {
  let app: Probot;
  beforeAll(() => {
    nock.disableNetConnect();
    nock.enableNetConnect("127.0.0.1");
    app = probot();
  });
  afterEach(() => {
    expect(nock.pendingMocks()).toEqual([]);
  });
  afterAll(async () => {
    nock.enableNetConnect();
    for (const q of Object.values(queues)) await q.obliterate({ force: true }).catch(() => undefined);
    for (const q of Object.values(queues)) await q.close();
    redis.disconnect();
  });

  it("pull_request.opened enqueues one pull-request job with the head, base and installation", async () => {
    const payload: Payload = webhookExample("pull_request", "opened");
    await app.receive({ id: "delivery-opened-1", name: "pull_request", payload });
    await app.receive({ id: "delivery-opened-1", name: "pull_request", payload }); // redelivery
    const jobs = await queues.events.getJobs(["waiting", "delayed", "active"]);
    const mine = jobs.filter((j) => j.data.deliveryId === "delivery-opened-1");
    expect(mine).toHaveLength(1);
    expect(mine[0]!.name).toBe(JOBS.pullRequest.name);
    expect(mine[0]!.data).toMatchObject({
      installationId: payload.installation.id,
      owner: "Codertocat",
      repo: "Hello-World",
      pullNumber: 2,
      headSha: payload.pull_request.head.sha,
      baseRef: "master",
    });
  });

  it("pull_request.edited without a base change is ignored; with one, it rescans", async () => {
    const payload: Payload = webhookExample("pull_request", "opened");
    payload.action = "edited";
    payload.changes = { title: { from: "old" } };
    await app.receive({ id: "delivery-edited-title", name: "pull_request", payload });
    payload.changes = { base: { ref: { from: "develop" }, sha: { from: "0".repeat(40) } } };
    await app.receive({ id: "delivery-edited-base", name: "pull_request", payload });
    const ids = (await queues.events.getJobs(["waiting", "delayed"])).map((j) => j.data.deliveryId);
    expect(ids).not.toContain("delivery-edited-title");
    expect(ids).toContain("delivery-edited-base");
  });

  it("check_suite.rerequested (Re-run all) enqueues an explicit rescan per pull request of the suite", async () => {
    const payload: Payload = webhookExample("check_suite", "rerequested");
    payload.check_suite.pull_requests = [
      { number: 7, head: { sha: "e".repeat(40), ref: "feature" }, base: { ref: "main" } },
    ];
    await app.receive({ id: "delivery-suite-rerun", name: "check_suite", payload });
    const job = (await queues.events.getJobs(["waiting", "delayed"])).find(
      (j) => j.data.deliveryId === "delivery-suite-rerun",
    );
    expect(job?.name).toBe(JOBS.rerequest.name);
    expect(job?.data).toMatchObject({
      pullNumber: 7,
      headSha: "e".repeat(40),
      explicit: { nonce: "delivery-suite-rerun" },
    });
  });

  it("a re-run names the head repository only when GitHub's head and base repository ids match (else the fork gate applies)", async () => {
    const payload: Payload = webhookExample("check_suite", "rerequested");
    const same = { id: payload.repository.id, url: payload.repository.url, name: payload.repository.name };
    payload.check_suite.pull_requests = [
      { number: 8, head: { sha: "a".repeat(40), ref: "f", repo: same }, base: { ref: "main", repo: same } },
      {
        number: 9,
        head: { sha: "b".repeat(40), ref: "f", repo: { ...same, id: same.id + 1 } },
        base: { ref: "main", repo: same },
      },
    ];
    await app.receive({ id: "delivery-suite-rerun-forks", name: "check_suite", payload });
    const jobs = (await queues.events.getJobs(["waiting", "delayed"])).filter(
      (j) => j.data.deliveryId === "delivery-suite-rerun-forks",
    );
    expect(jobs.find((j) => j.data.pullNumber === 8)?.data.headRepoFullName).toBe(
      payload.repository.full_name,
    );
    expect(jobs.find((j) => j.data.pullNumber === 9)?.data).not.toHaveProperty("headRepoFullName");
  });

  it("check_run.requested_action scan-anyway enqueues the approval (permission checked in the job); other actions are ignored", async () => {
    const payload: Payload = webhookExample("check_run", "requested_action");
    payload.requested_action = { identifier: "scan-anyway" };
    payload.check_run.pull_requests = [
      { number: 3, head: { sha: "f".repeat(40), ref: "x" }, base: { ref: "main" } },
    ];
    await app.receive({ id: "delivery-approve", name: "check_run", payload });
    payload.requested_action = { identifier: "something-else" };
    await app.receive({ id: "delivery-other-action", name: "check_run", payload });
    const ids = (await queues.events.getJobs(["waiting", "delayed"])).map((j) => j.data.deliveryId);
    expect(ids).toContain("delivery-approve");
    expect(ids).not.toContain("delivery-other-action");
  });

  it("pull_request.closed enqueues the cancellation", async () => {
    const payload: Payload = webhookExample("pull_request", "closed");
    await app.receive({ id: "delivery-closed", name: "pull_request", payload });
    const job = (await queues.events.getJobs(["waiting"])).find(
      (j) => j.data.deliveryId === "delivery-closed",
    );
    expect(job?.name).toBe(JOBS.pullClosed.name);
  });

  it("merge_group checks_requested and destroyed (real example payload) each enqueue one job; redeliveries collapse", async () => {
    const payload: Payload = webhookExample("merge_group", "checks_requested");
    await app.receive({ id: "delivery-mg-1", name: "merge_group", payload });
    await app.receive({ id: "delivery-mg-1", name: "merge_group", payload }); // redelivery
    const destroyed: Payload = { ...structuredClone(payload), action: "destroyed", reason: "merged" };
    await app.receive({ id: "delivery-mg-2", name: "merge_group", payload: destroyed });
    const jobs = await queues.events.getJobs(["waiting", "delayed", "active"]);
    const requested = jobs.filter((j) => j.data.deliveryId === "delivery-mg-1");
    expect(requested).toHaveLength(1);
    expect(requested[0]!.name).toBe(JOBS.mergeGroup.name);
    expect(requested[0]!.data).toMatchObject({
      installationId: payload.installation.id,
      owner: "octo-org",
      repo: "octo-repo",
      headSha: payload.merge_group.head_sha,
      headRef: payload.merge_group.head_ref,
      baseSha: payload.merge_group.base_sha,
      baseRef: "refs/heads/main",
    });
    const gone = jobs.filter((j) => j.data.deliveryId === "delivery-mg-2");
    expect(gone.map((j) => j.name)).toEqual([JOBS.mergeGroupDestroyed.name]);
    expect(gone[0]!.data).toMatchObject({ headSha: payload.merge_group.head_sha, reason: "merged" });
  });

  it("push to the default branch (real example payload) enqueues one baseline-push job; other branches, tags and deletions enqueue nothing", async () => {
    const branch = (e: Record<string, unknown>) => String(e.ref).startsWith("refs/heads/");
    const payload: Payload = webhookExample("push", undefined, branch);
    expect(payload.ref).toBe(`refs/heads/${payload.repository.default_branch}`);
    await app.receive({ id: "delivery-push-1", name: "push", payload });
    await app.receive({ id: "delivery-push-1", name: "push", payload }); // redelivery
    const elsewhere: Payload = { ...structuredClone(payload), ref: "refs/heads/feature" };
    await app.receive({ id: "delivery-push-2", name: "push", payload: elsewhere });
    const tag: Payload = webhookExample("push", undefined, (e) => String(e.ref).startsWith("refs/tags/"));
    await app.receive({ id: "delivery-push-3", name: "push", payload: tag });
    const deletion: Payload = { ...structuredClone(payload), deleted: true, after: "0".repeat(40) };
    await app.receive({ id: "delivery-push-4", name: "push", payload: deletion });
    const jobs = await queues.events.getJobs(["waiting", "delayed", "active"]);
    const pushes = jobs.filter((j) => String(j.data.deliveryId).startsWith("delivery-push-"));
    expect(pushes).toHaveLength(1);
    expect(pushes[0]!.name).toBe(JOBS.baselinePush.name);
    expect(pushes[0]!.data).toMatchObject({
      deliveryId: "delivery-push-1",
      trigger: "push",
      installationId: payload.installation.id,
      owner: "Codertocat",
      repo: "Hello-World",
      defaultBranch: "master",
      headSha: payload.after,
    });
  });

  it("merge_group without an installation (not sent to an app) is ignored", async () => {
    const payload: Payload = webhookExample("merge_group", "checks_requested");
    delete payload.installation;
    await app.receive({ id: "delivery-mg-3", name: "merge_group", payload });
    const jobs = await queues.events.getJobs(["waiting", "delayed", "active"]);
    expect(jobs.filter((j) => j.data.deliveryId === "delivery-mg-3")).toEqual([]);
  });
});

describe("config loading (Probot's octokit.config, nock)", () => {
  const api = "https://api.github.com";
  let octokit: ProbotOctokit;
  beforeAll(() => {
    nock.disableNetConnect();
    octokit = new (ProbotOctokit.defaults({ retry: { enabled: false }, throttle: { enabled: false } }))({
      auth: { token: "t" },
    });
  });
  afterAll(() => {
    nock.cleanAll();
    nock.enableNetConnect();
  });

  it("no file in the repository nor in the organization's .github: not onboarded", async () => {
    const scope = nock(api)
      .get("/repos/acme/app/contents/.github%2Fdiffward.yml")
      .reply(404)
      .get("/repos/acme/.github/contents/.github%2Fdiffward.yml")
      .reply(404);
    expect(await loadRepoConfig(octokit, "acme", "app")).toEqual({ kind: "absent" });
    scope.done();
  });

  it("the repository's file, from the default branch (no ref sent), with defaults applied", async () => {
    const scope = nock(api)
      .get("/repos/acme/app/contents/.github%2Fdiffward.yml")
      .query((q) => q.ref === undefined)
      .reply(200, "repositoryId: repo_1\nfailOn: critical\n", {
        "content-type": "text/plain; charset=utf-8",
      })
      // the organization floor (enforce:), read for every repository
      .get("/repos/acme/.github/contents/.github%2Fdiffward.yml")
      .reply(404);
    const loaded = await loadRepoConfig(octokit, "acme", "app");
    expect(loaded.kind).toBe("ok");
    if (loaded.kind === "ok") {
      expect(loaded.config).toMatchObject({
        repositoryId: "repo_1",
        failOn: "critical",
        debounceSeconds: 10,
        drafts: "skip",
      });
    }
    scope.done();
  });

  it("_extends pulls in the organization's shared file", async () => {
    const scope = nock(api)
      .get("/repos/acme/app/contents/.github%2Fdiffward.yml")
      .reply(200, "_extends: .github\nrepositoryId: repo_2\n", {
        "content-type": "text/plain; charset=utf-8",
      })
      .get("/repos/acme/.github/contents/.github%2Fdiffward.yml")
      .twice()
      .reply(200, "failOn: medium\ndrafts: scan\n", { "content-type": "text/plain; charset=utf-8" });
    const loaded = await loadRepoConfig(octokit, "acme", "app");
    expect(loaded.kind === "ok" && loaded.config).toMatchObject({
      repositoryId: "repo_2",
      failOn: "medium",
      drafts: "scan",
    });
    scope.done();
  });

  it("baseline comes from the organization's shared file like every key, and the repository's file overrides it", async () => {
    const scope = nock(api)
      .get("/repos/acme/app/contents/.github%2Fdiffward.yml")
      .reply(200, "_extends: .github\nrepositoryId: repo_3\n", {
        "content-type": "text/plain; charset=utf-8",
      })
      .get("/repos/acme/.github/contents/.github%2Fdiffward.yml")
      .twice()
      .reply(200, "baseline:\n  on: schedule\n  schedule: daily\n  preset: full-standard\n", {
        "content-type": "text/plain; charset=utf-8",
      });
    const loaded = await loadRepoConfig(octokit, "acme", "app");
    expect(loaded.kind === "ok" && loaded.config.baseline).toEqual({
      on: "schedule",
      schedule: "daily",
      preset: "full-standard",
    });
    scope.done();
  });

  it("invalid values name the field, the allowed values and the line (the file read again as text)", async () => {
    const scope = nock(api)
      .get("/repos/acme/app/contents/.github%2Fdiffward.yml")
      .times(2)
      .reply(200, "repositoryId: r\nfailOn: hgih\nunknownKey: 1\n", {
        "content-type": "text/plain; charset=utf-8",
      })
      .get("/repos/acme/.github/contents/.github%2Fdiffward.yml")
      .reply(404);
    const loaded = await loadRepoConfig(octokit, "acme", "app");
    expect(loaded.kind).toBe("invalid");
    const text = loaded.kind === "invalid" ? loaded.problems.join("\n") : "";
    expect(text).toContain("failOn (line 2): must be one of");
    expect(text).toContain("unknownKey (line 3)");
    scope.done();
  });
});
