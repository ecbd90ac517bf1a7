import { Cluster } from "ioredis";
import type { z } from "zod";
import type { RedisConnection } from "../runtime/connection.js";

/** `T` without its index signatures: the fields a type names. */
type Named<T> = { [K in keyof T as string extends K ? never : number extends K ? never : K]: T[K] };

/**
 * The type of a record whose schema is a loose zod object (`z.looseObject`): its named fields, without the
 * index signature zod adds for the unknown ones. The unknown fields are still kept at run time, so a record
 * read, changed and written back keeps what a newer version added; the type only says what this one uses.
 */
export type Stored<S extends z.ZodType> = Named<z.output<S>>;

/**
 * A record read from Redis that is not what its store writes: not JSON, or JSON that does not fit its zod
 * schema (a manual edit, a bug, a newer version's shape). Thrown by the stores' reads of records that drive a
 * decision, so the job that read it fails (and is retried) instead of acting on a wrong record; the process
 * goes on. Where a store treats such a record as absent instead, its docs say so.
 */
export class StoredRecordError extends Error {
  constructor(
    /** the record's Redis key (with the state prefix), and the hash field when the record is one */
    readonly key: string,
    /** what is wrong: the JSON error, or zod's issues as `path: message` */
    readonly problem: string,
  ) {
    super(`the Redis record ${key} is not a record diffward writes: ${problem}`);
    this.name = "StoredRecordError";
  }
}

/**
 * The record `raw` (JSON) parsed with `schema`.
 * @throws {StoredRecordError} naming `key` when `raw` is not JSON or does not fit `schema`.
 */
export function parseStored<S extends z.ZodType>(schema: S, key: string, raw: string): z.output<S> {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (error) {
    throw new StoredRecordError(key, (error as Error).message);
  }
  return checkStored(schema, key, json);
}

/**
 * A value read from Redis (a hash field, a parsed JSON document) checked with `schema`.
 * @throws {StoredRecordError} naming `key` when it does not fit.
 */
export function checkStored<S extends z.ZodType>(schema: S, key: string, value: unknown): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new StoredRecordError(
    key,
    parsed.error.issues.map((i) => `${i.path.join(".") || "(record)"}: ${i.message}`).join("; "),
  );
}

/** The record `raw` (JSON) parsed with `schema`, or `undefined` when it is not JSON or does not fit. */
export function parseStoredOrAbsent<S extends z.ZodType>(schema: S, raw: string): z.output<S> | undefined {
  try {
    const parsed = schema.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The keys matching `match` (Redis `SCAN` with `MATCH`; a key that appears or expires meanwhile may be missed
 * or seen). On a cluster, every master's keys: a prefix's hash tag puts a store's keys on one.
 */
export async function* scanKeys(redis: RedisConnection, match: string): AsyncGenerator<string> {
  const nodes = redis instanceof Cluster ? redis.nodes("master") : [redis];
  for (const node of nodes) {
    let cursor = "0";
    do {
      const [next, keys] = await node.scan(cursor, "MATCH", match, "COUNT", 1000);
      cursor = next;
      yield* keys;
    } while (cursor !== "0");
  }
}
