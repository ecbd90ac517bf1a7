/**
 * Validates, prices and runs a GraphQL query over the stand-in's schema (`graphql-types.ts`) as GitHub does
 * (https://docs.github.com/en/graphql/overview/rate-limits-and-query-limits-for-the-graphql-api):
 * - every connection needs `first` or `last`, each within 1..100; a query may ask for at most 500,000 nodes
 *   (each connection's `first`/`last` times its parents');
 * - its cost in points is the number of requests its connections need (each connection once per parent it
 *   may have: the product of its ancestors' `first`/`last`), divided by 100 and rounded, at least 1;
 * - an installation's budget is 5,000 points an hour, plus 50 for each repository beyond 20, at most 12,500.
 */
import type { RouteContext } from "./http.js";
import type { GraphqlLimit } from "./limits.js";
import { resolveValue, type GqlField, type GqlOperation, type GqlSelection } from "./graphql-document.js";
import { ABSTRACT, INTERFACE_FIELDS, TYPES, type GqlObject } from "./graphql-types.js";

/** A GraphQL error as GitHub shows it: `type` (`NOT_FOUND`, `MAX_NODE_LIMIT_EXCEEDED`...), `message`, `path`. */
export interface GqlError {
  type?: string;
  message: string;
  path?: Array<string | number>;
}

/** Most nodes one query may ask for. */
export const MAX_NODES = 500_000;
/** Bounds of `first` and `last` on a connection. */
export const MAX_PAGE = 100;

/** What a query asks for before it runs: its connections' requests and nodes, or why it is refused. */
export interface QueryPrice {
  requests: number;
  nodes: number;
  /** points: `round(requests / 100)`, at least 1 */
  cost: number;
  errors: GqlError[];
}

/** The concrete type a fragment's condition selects on `typeName`, or whether the condition applies. */
function applies(typeName: string, on: string | undefined): boolean {
  return on === undefined || on === typeName || (ABSTRACT[on]?.includes(typeName) ?? false);
}

/** The types a selection on `typeName` (maybe abstract) may resolve to. */
function concrete(typeName: string): readonly string[] {
  return ABSTRACT[typeName] ?? [typeName];
}

function pageSize(f: GqlField, vars: Record<string, unknown>, price: QueryPrice): number {
  const first = resolveValue(f.args["first"] ?? null, vars);
  const last = resolveValue(f.args["last"] ?? null, vars);
  const n = (first ?? last) as number | null;
  if (n === null) {
    price.errors.push({
      type: "MISSING_PAGINATION_BOUNDARIES",
      message: `You must provide a \`first\` or \`last\` value to properly paginate the \`${f.name}\` connection.`,
    });
    return 1;
  }
  if (!Number.isInteger(n) || n < 1 || n > MAX_PAGE) {
    const which = first !== null ? "first" : "last";
    price.errors.push({
      type: "EXCESSIVE_PAGINATION",
      message: `Requesting ${n} records on the \`${f.name}\` connection exceeds the \`${which}\` limit of ${MAX_PAGE} records.`,
    });
    return MAX_PAGE;
  }
  return n;
}

/** Walks `sels` on `typeName`, each reached `parents` times, adding to `price`. */
function priceSelections(
  typeName: string,
  sels: readonly GqlSelection[],
  parents: number,
  vars: Record<string, unknown>,
  price: QueryPrice,
): void {
  for (const s of sels) {
    if (s.kind === "fragment") {
      const on = s.on ?? typeName;
      if (!(on in TYPES) && !(on in ABSTRACT))
        price.errors.push({
          type: "undefinedType",
          message: `No such type ${on}, so it can't be a fragment condition`,
        });
      else priceSelections(on, s.selections, parents, vars, price);
      continue;
    }
    if (s.name === "__typename") continue;
    const defs = concrete(typeName).map((t) => TYPES[t]?.[s.name]);
    const def = defs.find((d) => d !== undefined);
    const allowed = typeName in ABSTRACT ? INTERFACE_FIELDS[typeName]?.includes(s.name) : def !== undefined;
    if (def === undefined || !allowed) {
      price.errors.push({
        type: "undefinedField",
        message: `Field '${s.name}' doesn't exist on type '${typeName}'`,
      });
      continue;
    }
    const unknown = Object.keys(s.args).filter((a) => !(def.args ?? []).includes(a));
    for (const a of unknown)
      price.errors.push({
        type: "argumentNotAccepted",
        message: `Field '${s.name}' doesn't accept argument '${a}'`,
      });
    let each = parents;
    if (def.connection) {
      const n = pageSize(s, vars, price);
      price.requests += parents;
      each = parents * n;
      price.nodes += each;
      if (price.nodes > MAX_NODES)
        price.errors.push({
          type: "MAX_NODE_LIMIT_EXCEEDED",
          message: `By the time this query traverses to the ${s.name} connection, it is requesting up to ${price.nodes.toLocaleString("en-US")} possible nodes which exceeds the maximum limit of ${MAX_NODES.toLocaleString("en-US")}.`,
        });
    } else if (def.list) {
      const ids = resolveValue(s.args["ids"] ?? [], vars);
      each = parents * (Array.isArray(ids) ? ids.length : 1);
      if (Array.isArray(ids) && ids.length > MAX_PAGE)
        price.errors.push({
          type: "EXCESSIVE_PAGINATION",
          message: `You may not ask for more than ${MAX_PAGE} node ids at once.`,
        });
    }
    if (def.connection) priceConnection(def.of, s.selections, each, vars, price);
    else priceSelections(def.of, s.selections, each, vars, price);
  }
}

/** A connection's own fields (`nodes`, `edges { cursor node }`, `pageInfo`, `totalCount`) and its nodes'. */
function priceConnection(
  nodeType: string,
  sels: readonly GqlSelection[],
  each: number,
  vars: Record<string, unknown>,
  price: QueryPrice,
): void {
  for (const s of sels) {
    if (s.kind === "fragment" || ["totalCount", "pageInfo", "__typename"].includes(s.name)) continue;
    if (s.name === "nodes") priceSelections(nodeType, s.selections, each, vars, price);
    else if (s.name === "edges")
      for (const e of s.selections)
        if (e.kind === "field" && e.name === "node")
          priceSelections(nodeType, e.selections, each, vars, price);
        else if (e.kind === "field" && e.name !== "cursor" && e.name !== "__typename")
          price.errors.push({
            type: "undefinedField",
            message: `Field '${e.name}' doesn't exist on type 'Edge'`,
          });
        else
          price.errors.push({
            type: "undefinedField",
            message: `Field '${s.name}' doesn't exist on type 'Connection'`,
          });
  }
}

/** Prices `op` (its `rateLimit` fields cost nothing themselves). */
export function priceQuery(op: GqlOperation, vars: Record<string, unknown>): QueryPrice {
  const price: QueryPrice = { requests: 0, nodes: 0, cost: 0, errors: [] };
  priceSelections("Query", op.selections, 1, vars, price);
  price.cost = Math.max(1, Math.round(price.requests / 100));
  return price;
}

const cursorOf = (i: number) => Buffer.from(`cursor:v2:${i}`).toString("base64");
function indexOf(cursor: unknown): number | undefined {
  if (typeof cursor !== "string") return undefined;
  const m = /^cursor:v2:(\d+)$/.exec(Buffer.from(cursor, "base64").toString());
  return m === null ? undefined : Number(m[1]);
}

/** One page of `items` by `first`/`after` or `last`/`before`, as GitHub's connection fields. */
function page(items: readonly GqlObject[], args: Record<string, unknown>) {
  let from = 0;
  let to = items.length;
  const after = indexOf(args["after"]);
  const before = indexOf(args["before"]);
  if (after !== undefined) from = after + 1;
  if (before !== undefined) to = Math.min(to, before);
  if (typeof args["first"] === "number") to = Math.min(to, from + args["first"]);
  else if (typeof args["last"] === "number") from = Math.max(from, to - args["last"]);
  const edges = items.slice(from, to).map((node, k) => ({ cursor: cursorOf(from + k), node }));
  return {
    totalCount: items.length,
    edges,
    nodes: edges.map((e) => e.node),
    pageInfo: {
      hasNextPage: to < items.length,
      hasPreviousPage: from > 0,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
    },
  };
}

/** Runs a query that passed {@link priceQuery}; resolvers' misses become `NOT_FOUND` errors. */
export class Executor {
  readonly errors: GqlError[] = [];
  constructor(
    private readonly ctx: RouteContext,
    private readonly vars: Record<string, unknown>,
  ) {}

  run(root: GqlObject, sels: readonly GqlSelection[]): Record<string, unknown> {
    return this.object(root, sels, []);
  }

  private object(
    obj: GqlObject,
    sels: readonly GqlSelection[],
    path: Array<string | number>,
  ): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const s of sels) {
      if (s.kind === "fragment") {
        if (applies(obj.__typename, s.on)) Object.assign(out, this.object(obj, s.selections, path));
        continue;
      }
      if (s.name === "__typename") {
        out[s.alias] = obj.__typename;
        continue;
      }
      const def = TYPES[obj.__typename]?.[s.name];
      if (def === undefined) continue; // an interface's field the concrete type lacks
      const args = Object.fromEntries(
        Object.entries(s.args).map(([k, v]) => [k, resolveValue(v, this.vars)]),
      );
      const value = def.resolve(obj, args, this.ctx);
      out[s.alias] = this.value(value, s, def.connection ? args : undefined, [...path, s.alias]);
    }
    return out;
  }

  private value(
    value: unknown,
    s: GqlField,
    paging: Record<string, unknown> | undefined,
    path: Array<string | number>,
  ): unknown {
    if (paging !== undefined) return this.connection(page(value as GqlObject[], paging), s, path);
    if (Array.isArray(value)) return value.map((v, i) => this.value(v, s, undefined, [...path, i]));
    if (value === null || value === undefined) {
      if (s.selections.length > 0 && (s.name === "repository" || s.name === "node" || s.name === "nodes"))
        this.errors.push({ type: "NOT_FOUND", path, message: notFoundMessage(s, this.vars, path) });
      return null;
    }
    if (typeof value === "object" && "__typename" in value)
      return this.object(value as GqlObject, s.selections, path);
    return value;
  }

  private connection(p: ReturnType<typeof page>, s: GqlField, path: Array<string | number>) {
    const out: Record<string, unknown> = {};
    for (const c of s.selections) {
      if (c.kind === "fragment") continue;
      if (c.name === "totalCount") out[c.alias] = p.totalCount;
      else if (c.name === "pageInfo")
        out[c.alias] = Object.fromEntries(
          c.selections.flatMap((x) =>
            x.kind === "field" ? [[x.alias, p.pageInfo[x.name as keyof typeof p.pageInfo]]] : [],
          ),
        );
      else if (c.name === "nodes")
        out[c.alias] = p.nodes.map((n, i) => this.object(n, c.selections, [...path, c.alias, i]));
      else if (c.name === "edges")
        out[c.alias] = p.edges.map((e, i) => {
          const edge: Record<string, unknown> = {};
          for (const x of c.selections) {
            if (x.kind !== "field") continue;
            if (x.name === "cursor") edge[x.alias] = e.cursor;
            if (x.name === "node")
              edge[x.alias] = this.object(e.node, x.selections, [...path, c.alias, i, x.alias]);
          }
          return edge;
        });
    }
    return out;
  }
}

function notFoundMessage(s: GqlField, vars: Record<string, unknown>, path: Array<string | number>): string {
  if (s.name === "repository") {
    const owner = resolveValue(s.args["owner"] ?? null, vars);
    const name = resolveValue(s.args["name"] ?? null, vars);
    return `Could not resolve to a Repository with the name '${String(owner)}/${String(name)}'.`;
  }
  const ids = resolveValue(s.args["ids"] ?? s.args["id"] ?? null, vars);
  const id = Array.isArray(ids) ? ids[Number(path.at(-1))] : ids;
  return `Could not resolve to a node with the global id of '${String(id)}'`;
}

/** An installation's GraphQL budget in points an hour: 5,000, +50 per repository beyond 20, at most 12,500. */
export function installationPoints(repositories: number): number {
  return Math.min(12_500, 5_000 + 50 * Math.max(0, repositories - 20));
}

/**
 * Each installation's points spent in its current hour (the window starts with its first query); `fixed`
 * replaces GitHub's budget and window (the stand-in's `limits.graphql`).
 */
export class GraphqlPoints {
  private readonly windows = new Map<number, { start: number; used: number }>();
  private readonly windowMs: number;
  constructor(readonly fixed?: GraphqlLimit) {
    this.windowMs = (fixed?.windowSeconds ?? 3_600) * 1000;
  }

  /**
   * Charges `cost` to `installationId` (nothing for a dry run) within `limit`.
   * @returns GitHub's `RateLimit` fields, and `over` when the cost does not fit (nothing charged).
   */
  charge(installationId: number, limit: number, cost: number, now: number, dryRun = false) {
    let w = this.windows.get(installationId);
    if (w === undefined || now >= w.start + this.windowMs) {
      w = { start: now, used: 0 };
      this.windows.set(installationId, w);
    }
    const over = w.used + cost > limit;
    if (!over && !dryRun) w.used += cost;
    return {
      over,
      rateLimit: {
        cost,
        limit,
        used: w.used,
        remaining: limit - w.used,
        resetAt: new Date(w.start + this.windowMs).toISOString().replace(/\.\d{3}Z$/, "Z"),
      },
    };
  }
}
