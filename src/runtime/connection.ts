import { Cluster, Redis, type ClusterOptions, type RedisOptions } from "ioredis";

/** A connection to a standalone Redis or to a Redis Cluster; BullMQ and diffward's state accept either. */
export type RedisConnection = Redis | Cluster;

/** Where Redis is: one server (`REDIS_URL`) or a cluster's seed nodes (`REDIS_CLUSTER_NODES`). */
export interface RedisTarget {
  /** `redis://` or `rediss://` URL, with user, password and db number when needed */
  url?: string;
  /** cluster seed nodes, `host:port` or `redis(s)://` URLs; when set, `url` is ignored */
  clusterNodes?: readonly string[];
}

/**
 * BullMQ's key prefix for diffward's queues. The braces are a Redis Cluster hash tag (Redis Cluster
 * specification, "Hash tags"): only `diffward` is hashed, so every key of every queue lands in one slot, as
 * BullMQ requires of a cluster (BullMQ docs, "Redis Cluster": "use a prefix with a hash tag"). The same key
 * layout is used on a standalone Redis, so a deployment can move to a cluster without renaming keys.
 */
export const DEFAULT_QUEUE_PREFIX = "{diffward}";

/**
 * Prefix of diffward's own state keys (pull requests, launch records, scan links, decisions). One hash tag
 * for all of them: the multi-key operations (`linkScan`'s MULTI over the scan link and the installation's
 * in-flight set) then always run in one slot of a cluster.
 */
export const DEFAULT_STATE_PREFIX = "{dw}";

/** The hash tag of a key or prefix (the text between the first `{` and the next `}`, when not empty). */
export function hashTag(key: string): string | undefined {
  const open = key.indexOf("{");
  if (open < 0) return undefined;
  const close = key.indexOf("}", open + 1);
  return close > open + 1 ? key.slice(open + 1, close) : undefined;
}

/**
 * ioredis options from a `redis://` or `rediss://` URL: host, port (default 6379), user and password
 * (percent-decoded), db number from the path, and TLS for `rediss://` with the host name as SNI server name
 * (managed Redis services present certificates for their host names; the certificate is verified against
 * Node's CA store, extended with `NODE_EXTRA_CA_CERTS` for a private CA).
 * @throws {Error} when the URL is not a redis:// or rediss:// URL (the message never includes the password).
 */
export function redisOptionsFromUrl(url: string): RedisOptions {
  if (!URL.canParse(url)) throw new Error("REDIS_URL is not a URL");
  const u = new URL(url);
  if (u.protocol !== "redis:" && u.protocol !== "rediss:")
    throw new Error(`REDIS_URL must use redis:// or rediss://, not ${u.protocol}//`);
  const host = u.hostname.replace(/^\[|\]$/g, "") || "127.0.0.1";
  const db = u.pathname.length > 1 ? Number(u.pathname.slice(1)) : undefined;
  if (db !== undefined && !Number.isInteger(db)) throw new Error("the path of REDIS_URL must be a db number");
  return {
    host,
    port: u.port ? Number(u.port) : 6379,
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    ...(db ? { db } : {}),
    ...(u.protocol === "rediss:" ? { tls: { servername: host } } : {}),
  };
}

/**
 * Cluster seed nodes and options from `REDIS_CLUSTER_NODES` entries. Entries are `host:port` or URLs; the
 * user, password and TLS of the first URL entry apply to every node (a cluster shares its credentials).
 * Host names are passed to the socket unresolved (`dnsLookup`), so TLS certificates are checked against the
 * names (the setting AWS ElastiCache documents for TLS clusters).
 */
export function clusterConfig(nodes: readonly string[]): {
  startupNodes: Array<{ host: string; port: number }>;
  options: ClusterOptions;
} {
  if (nodes.length === 0) throw new Error("REDIS_CLUSTER_NODES names no node");
  let shared: RedisOptions = {};
  const startupNodes = nodes.map((n) => {
    const o = redisOptionsFromUrl(/^rediss?:\/\//.test(n) ? n : `redis://${n}`);
    if (/^rediss?:\/\//.test(n) && Object.keys(shared).length === 0) {
      const { username, password, tls } = o;
      shared = {
        ...(username ? { username } : {}),
        ...(password ? { password } : {}),
        ...(tls ? { tls: {} } : {}),
      };
    }
    return { host: o.host!, port: o.port! };
  });
  return {
    startupNodes,
    options: {
      // BullMQ requires maxRetriesPerRequest null for its blocking connections (BullMQ docs, "Connections")
      redisOptions: { ...shared, maxRetriesPerRequest: null },
      enableReadyCheck: true,
      dnsLookup: (address, callback) => callback(null, address),
    },
  };
}

/**
 * Opens an ioredis connection fit for BullMQ workers: `maxRetriesPerRequest: null` is required by
 * BullMQ for blocking connections (BullMQ docs, "Connections"), so a Redis outage pauses work instead of
 * failing it. `enableReadyCheck` is kept so a restarting Redis is waited for. With cluster nodes, a
 * `Cluster` connection (ioredis) follows slot moves and fail-overs.
 */
export function createRedis(target: string | RedisTarget): RedisConnection {
  const t: RedisTarget = typeof target === "string" ? { url: target } : target;
  if (t.clusterNodes && t.clusterNodes.length > 0) {
    const { startupNodes, options } = clusterConfig(t.clusterNodes);
    return new Cluster(startupNodes, options);
  }
  return new Redis({
    ...redisOptionsFromUrl(t.url ?? "redis://127.0.0.1:6379"),
    maxRetriesPerRequest: null,
    enableReadyCheck: true,
    lazyConnect: false,
  });
}

/**
 * Refuses key prefixes that would split diffward's keys over several cluster slots.
 * @throws {Error} naming the prefix when it has no hash tag and `cluster` is true.
 */
export function assertClusterPrefixes(cluster: boolean, prefixes: Record<string, string>): void {
  if (!cluster) return;
  for (const [what, prefix] of Object.entries(prefixes))
    if (hashTag(prefix) === undefined)
      throw new Error(
        `${what} "${prefix}" has no hash tag: in Redis Cluster mode it must look like {name} so that related keys share a slot`,
      );
}
