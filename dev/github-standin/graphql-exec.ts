/**
 * Prices and runs a GraphQL query over GitHub's schema (`graphql-schema.ts`) with the stand-in's resolvers
 * (`graphql-types.ts`), as GitHub does
 * (https://docs.github.com/en/graphql/overview/rate-limits-and-query-limits-for-the-graphql-api):
 * - every connection needs `first` or `last`, each within 1..100; a query may ask for at most 500,000 nodes
 *   (each connection's `first`/`last` times its parents');
 * - its cost in points is the number of requests its connections need (each connection once per parent it
 *   may have: the product of its ancestors' `first`/`last`), divided by 100 and rounded, at least 1;
 * - an installation's budget is 5,000 points an hour, plus 50 for each repository beyond 20, at most 12,500.
 * Parsing, validation against the schema and execution are graphql-js's.
 */
import {
  execute,
  getArgumentValues,
  getNamedType,
  isInterfaceType,
  isObjectType,
  Kind,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type GraphQLError,
  type GraphQLField,
  type GraphQLFieldResolver,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from "graphql";
import type { RouteContext } from "./http.js";
import type { GraphqlLimit } from "./limits.js";
import { RESOLVERS, type GqlObject } from "./graphql-types.js";

/** A GraphQL error as GitHub shows it: `type` (`NOT_FOUND`, `MAX_NODE_LIMIT_EXCEEDED`...), `message`, `path`. */
export interface GqlError {
  type?: string;
  message: string;
  path?: ReadonlyArray<string | number>;
  locations?: ReadonlyArray<{ line: number; column: number }>;
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

/** A connection field of GitHub's schema: its type is a `…Connection` and it pages by `first`/`last`. */
function isConnection(def: GraphQLField<unknown, unknown>): boolean {
  return getNamedType(def.type).name.endsWith("Connection") && def.args.some((a) => a.name === "first");
}

/** The walk of one operation's selections: the document's fragments and the request's variables. */
interface Walk {
  schema: GraphQLSchema;
  fragments: Record<string, FragmentDefinitionNode>;
  vars: Record<string, unknown>;
  price: QueryPrice;
}

function pageSize(w: Walk, node: FieldNode, args: Record<string, unknown>): number {
  const first = args["first"] as number | undefined;
  const last = args["last"] as number | undefined;
  const n = first ?? last;
  const name = node.name.value;
  if (n === undefined) {
    w.price.errors.push({
      type: "MISSING_PAGINATION_BOUNDARIES",
      message: `You must provide a \`first\` or \`last\` value to properly paginate the \`${name}\` connection.`,
    });
    return 1;
  }
  if (n < 1 || n > MAX_PAGE) {
    w.price.errors.push({
      type: "EXCESSIVE_PAGINATION",
      message: `Requesting ${n} records on the \`${name}\` connection exceeds the \`${first !== undefined ? "first" : "last"}\` limit of ${MAX_PAGE} records.`,
    });
    return MAX_PAGE;
  }
  return n;
}

/**
 * Walks `set` on `type`, each selection reached `parents` times; on a connection type, `page` is the
 * connection's `first`/`last`, by which its `nodes` and `edges` multiply.
 */
function priceSet(
  w: Walk,
  set: SelectionSetNode,
  type: GraphQLCompositeType,
  parents: number,
  page = 1,
): void {
  for (const sel of set.selections) {
    if (sel.kind === Kind.INLINE_FRAGMENT || sel.kind === Kind.FRAGMENT_SPREAD) {
      const fragment = sel.kind === Kind.INLINE_FRAGMENT ? sel : w.fragments[sel.name.value];
      if (!fragment) continue;
      const on = fragment.typeCondition ? w.schema.getType(fragment.typeCondition.name.value) : type;
      if (on) priceSet(w, fragment.selectionSet, on as GraphQLCompositeType, parents, page);
      continue;
    }
    if (!isObjectType(type) && !isInterfaceType(type)) continue;
    const def = type.getFields()[sel.name.value];
    if (!def || !sel.selectionSet) continue;
    const args = getArgumentValues(def, sel, w.vars);
    let each =
      type.name.endsWith("Connection") && ["nodes", "edges"].includes(def.name) ? parents * page : parents;
    let inner = 1;
    if (isConnection(def)) {
      inner = pageSize(w, sel, args);
      w.price.requests += each;
      w.price.nodes += each * inner;
      if (w.price.nodes > MAX_NODES)
        w.price.errors.push({
          type: "MAX_NODE_LIMIT_EXCEEDED",
          message: `By the time this query traverses to the ${def.name} connection, it is requesting up to ${w.price.nodes.toLocaleString("en-US")} possible nodes which exceeds the maximum limit of ${MAX_NODES.toLocaleString("en-US")}.`,
        });
    } else if (def.name === "nodes" && Array.isArray(args["ids"])) {
      const ids = args["ids"] as unknown[];
      each *= ids.length;
      if (ids.length > MAX_PAGE)
        w.price.errors.push({
          type: "EXCESSIVE_PAGINATION",
          message: `You may not ask for more than ${MAX_PAGE} node ids at once.`,
        });
    }
    priceSet(w, sel.selectionSet, getNamedType(def.type) as GraphQLCompositeType, each, inner);
  }
}

/** The fragments of a document by name. */
function fragmentsOf(doc: DocumentNode): Record<string, FragmentDefinitionNode> {
  return Object.fromEntries(
    doc.definitions.flatMap((d) => (d.kind === Kind.FRAGMENT_DEFINITION ? [[d.name.value, d]] : [])),
  );
}

/**
 * Prices `op` of `doc`, validated against `schema`, with the request's coerced variables (its `rateLimit`
 * fields cost nothing themselves).
 */
export function priceQuery(
  schema: GraphQLSchema,
  doc: DocumentNode,
  op: OperationDefinitionNode,
  vars: Record<string, unknown>,
): QueryPrice {
  const price: QueryPrice = { requests: 0, nodes: 0, cost: 0, errors: [] };
  const root = op.operation === "mutation" ? schema.getMutationType() : schema.getQueryType();
  if (root) priceSet({ schema, fragments: fragmentsOf(doc), vars, price }, op.selectionSet, root, 1);
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
function page(items: readonly unknown[], args: Record<string, unknown>) {
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

const isGqlObject = (v: unknown): v is GqlObject =>
  typeof v === "object" && v !== null && typeof (v as GqlObject).__typename === "string";

/** What a run answered: GitHub's `data` and `errors`, and the fields the stand-in has no resolver for. */
export interface RunResult {
  data: unknown;
  errors: GqlError[];
  /** `Type.field` of GitHub's schema the query asked and the stand-in does not serve */
  unserved: string[];
}

/**
 * Runs a priced query with graphql-js's executor: a stand-in object's field goes to its resolver (a connection's
 * items paged by `first`/`after`, `last`/`before`), any other object's (a page, a payload) is read as a property;
 * an abstract type resolves to the object's `__typename`. Errors take GitHub's shape (`type` beside `message`).
 */
export function runQuery(
  schema: GraphQLSchema,
  doc: DocumentNode,
  operationName: string | undefined,
  root: GqlObject,
  vars: Record<string, unknown>,
  ctx: RouteContext,
): RunResult {
  const unserved = new Set<string>();
  const fieldResolver: GraphQLFieldResolver<unknown, RouteContext> = (source, args, context, info) => {
    if (!isGqlObject(source)) return (source as Record<string, unknown> | null)?.[info.fieldName];
    const resolve = RESOLVERS[source.__typename]?.[info.fieldName];
    if (resolve === undefined) {
      unserved.add(`${source.__typename}.${info.fieldName}`);
      return null;
    }
    const value = resolve(source, args, context);
    const def = info.parentType.getFields()[info.fieldName];
    return def && isConnection(def) ? page(value as unknown[], args) : value;
  };
  const result = execute({
    schema,
    document: doc,
    rootValue: root,
    contextValue: ctx,
    variableValues: vars,
    operationName,
    fieldResolver,
    typeResolver: (value) => (isGqlObject(value) ? value.__typename : undefined),
  });
  if (result instanceof Promise) throw new Error("the stand-in's resolvers are synchronous");
  return {
    data: result.data ?? null,
    errors: (result.errors ?? []).map(githubError),
    unserved: [...unserved],
  };
}

/** A graphql-js error in GitHub's shape: its `type` (extensions) beside `message`, `path`, `locations`. */
export function githubError(e: GraphQLError): GqlError {
  const type = e.extensions["type"];
  return {
    ...(typeof type === "string" ? { type } : {}),
    message: e.message,
    ...(e.path ? { path: e.path } : {}),
    ...(e.locations ? { locations: e.locations } : {}),
  };
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
