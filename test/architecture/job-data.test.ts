/**
 * Every job's data validated by its schema: each kind of the job catalogue (`src/job-catalogue/catalogue.ts`)
 * has a zod schema, a queue and a processor (`src/workers/processors.ts`); `addJob` refuses data its kind's
 * schema does not take, on a real Redis, and adds nothing; and no code in `src/` adds a job any other way.
 * The last is read with the TypeScript compiler's type checker: a call of `add`, `addBulk` or
 * `upsertJobScheduler` on anything typed as a BullMQ `Queue` (or a subclass) outside `add-job.ts` fails it.
 */
import { randomBytes } from "node:crypto";
import { readdirSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import ts from "typescript";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  InvalidJobDataError,
  JOBS,
  JOB_KINDS,
  addJob,
  kindOfJobName,
  type JobData,
} from "../../src/job-catalogue/index.js";
import { PROCESSORS } from "../../src/workers/processors.js";
import { createRedis } from "../../src/runtime/connection.js";
import { QUEUE_NAMES, jobId } from "../../src/runtime/names.js";
import { createQueues } from "../../src/runtime/queues.js";
import { flushPrefix } from "../support/flush.js";
import { launchJob, pullRequestEvent } from "../support/jobs.js";

const ROOT = resolve(import.meta.dirname, "../..");
/** The one file allowed to add a job to a queue. */
const ADD_FUNCTION_FILE = "src/job-catalogue/add-job.ts";
/** The methods of a BullMQ `Queue` that add jobs. */
const ADDING_METHODS = ["add", "addBulk", "upsertJobScheduler"];

describe("every job's data validated by its schema", () => {
  it("every kind has a schema, a queue, a unique name and a processor", () => {
    expect(JOB_KINDS.length).toBeGreaterThanOrEqual(19);
    for (const kind of JOB_KINDS) {
      const spec = JOBS[kind];
      expect(spec.data, kind).toBeInstanceOf(z.ZodType);
      expect(Object.keys(QUEUE_NAMES), kind).toContain(spec.queue);
      expect(kindOfJobName(spec.name), kind).toBe(kind);
    }
    expect(new Set(JOB_KINDS.map((k) => JOBS[k].name)).size).toBe(JOB_KINDS.length);
    expect(Object.keys(PROCESSORS).sort()).toEqual([...JOB_KINDS].sort());
  });

  describe("adding a job whose data fails its schema throws and adds nothing (real Redis)", () => {
    const url = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
    const redis = createRedis(url);
    const prefix = `dwt-jobdata-${randomBytes(3).toString("hex")}`;
    const queues = createQueues({ connection: redis, prefix });
    afterAll(async () => {
      await Promise.all(Object.values(queues).map((q) => q.close()));
      await flushPrefix(prefix, url);
      redis.disconnect();
    });
    const jobCount = async () =>
      (await Promise.all(Object.values(queues).map((q) => q.count()))).reduce((a, b) => a + b, 0);

    it("refuses data that is not an object, for every kind", async () => {
      for (const kind of JOB_KINDS) {
        const refused = addJob({ queues, redis }, kind, "not job data" as unknown as JobData<typeof kind>, {
          jobId: jobId("refused", kind),
          fair: true,
        });
        await expect(refused, kind).rejects.toBeInstanceOf(InvalidJobDataError);
      }
      expect(await jobCount()).toBe(0);
    });

    it("refuses data missing what its kind needs, naming the fields, and adds the same data once it is whole", async () => {
      const { config: _config, ...noConfig } = launchJob;
      const missing = addJob({ queues, redis }, "launch", noConfig as JobData<"launch">, {
        jobId: "launch-x",
      });
      await expect(missing).rejects.toThrow(/job launch: its data does not match its schema \(config: /);
      const typo = { ...pullRequestEvent, pullNumber: "3" } as unknown as JobData<"pullRequest">;
      const refused = await addJob({ queues, redis }, "pullRequest", typo, { jobId: "pr-x" }).catch((e) => e);
      expect(refused).toBeInstanceOf(InvalidJobDataError);
      expect((refused as InvalidJobDataError).problems).toEqual([expect.stringMatching(/^pullNumber: /)]);
      expect(await jobCount()).toBe(0);

      const added = await addJob({ queues, redis }, "launch", launchJob, {
        jobId: "launch-x",
        delay: 60_000,
      });
      expect(added.name).toBe("launch");
      // what the schema parsed: the fields of a pull request event the fixture spreads in are left out
      expect(added.data).toEqual(JOBS.launch.data.parse(launchJob));
      expect(added.data).not.toHaveProperty("deliveryId");
      // the catalogue's options, with the caller's id and delay
      expect(added.opts).toMatchObject({ attempts: 8, delay: 60_000, removeOnFail: { age: 7 * 24 * 3600 } });
      expect(await queues.launch.count()).toBe(1);
    });

    it("refuses a job id BullMQ would refuse (`:`)", async () => {
      await expect(
        addJob({ queues, redis }, "pullRequest", pullRequestEvent, { jobId: "pr:1" }),
      ).rejects.toThrow(/contains ":"/);
    });
  });

  it("no queue.add, .addBulk or .upsertJobScheduler call in src/ outside the catalogue's add function", () => {
    expect(queueAddsOutside(ADD_FUNCTION_FILE)).toEqual([]);
    // the scan sees the calls it is meant to find: the catalogue's own
    expect(queueAddsOutside("")).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^src\/job-catalogue\/add-job\.ts:\d+ queue\.add$/),
        expect.stringMatching(/^src\/job-catalogue\/add-job\.ts:\d+ .*\.upsertJobScheduler$/),
      ]),
    );
  }, 180_000);
});

let program: ts.Program | undefined;

/** `src/` as one TypeScript program (tsconfig.json's options), built once. */
function sourceProgram(): ts.Program {
  if (program) return program;
  const files = readdirSync(join(ROOT, "src"), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".ts"))
    .map((f) => join(ROOT, "src", f));
  const config = ts.readConfigFile(join(ROOT, "tsconfig.json"), (p) => ts.sys.readFile(p));
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT);
  program = ts.createProgram(files, { ...options, noEmit: true });
  return program;
}

/** Whether `type` is BullMQ's `Queue` or a class built on it. */
function isBullQueue(checker: ts.TypeChecker, type: ts.Type, seen = new Set<ts.Type>()): boolean {
  if (seen.has(type)) return false;
  seen.add(type);
  const symbol = type.getSymbol() ?? type.aliasSymbol;
  const fromBull = symbol?.declarations?.some((d) => /[\\/]bullmq[\\/]/.test(d.getSourceFile().fileName));
  if (symbol?.getName() === "Queue" && fromBull) return true;
  if (type.isUnionOrIntersection()) return type.types.some((t) => isBullQueue(checker, t, seen));
  if (!type.isClassOrInterface()) return false;
  return checker.getBaseTypes(type).some((t) => isBullQueue(checker, t, seen));
}

/**
 * Each call in `src/` that adds a job to a BullMQ queue, as `file:line receiver.method`, outside `allowed`. A
 * call on `super` (a queue class calling BullMQ's own implementation: `InstallationQueue`) adds nothing of its
 * own and is left out.
 */
function queueAddsOutside(allowed: string): string[] {
  const p = sourceProgram();
  const checker = p.getTypeChecker();
  const found: string[] = [];
  for (const source of p.getSourceFiles()) {
    const file = relative(ROOT, source.fileName);
    if (!file.startsWith("src/") || file === allowed) continue;
    const visit = (node: ts.Node): void => {
      if (
        ts.isCallExpression(node) &&
        ts.isPropertyAccessExpression(node.expression) &&
        ADDING_METHODS.includes(node.expression.name.text) &&
        node.expression.expression.kind !== ts.SyntaxKind.SuperKeyword &&
        isBullQueue(checker, checker.getTypeAtLocation(node.expression.expression))
      ) {
        const line = source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
        found.push(`${file}:${line} ${node.expression.getText()}`);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}
