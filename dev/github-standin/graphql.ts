import {
  getArgumentValues,
  getOperationAST,
  getVariableValues,
  GraphQLError,
  parse,
  validate,
  type DocumentNode,
} from "graphql";
import { z } from "zod";
import type { RouteContext, RouteReply } from "./http.js";
import type { GraphqlPoints } from "./graphql-exec.js";
import { githubError, installationPoints, priceQuery, runQuery, type GqlError } from "./graphql-exec.js";
import { githubSchema } from "./graphql-schema.js";

/** A GraphQL request body: `query` text and optional `variables`. */
export const GraphqlBody = z.looseObject({
  query: z.string(),
  operationName: z.string().nullish(),
  variables: z.record(z.string(), z.unknown()).nullish(),
});
export type GraphqlBody = z.infer<typeof GraphqlBody>;

/** Result of a GraphQL call; `unsupported` marks a query the stand-in does not understand (a violation). */
export interface GraphqlResult {
  reply: RouteReply;
  unsupported?: string;
  /** points the query cost its installation (GitHub's `rateLimit.cost`), when it ran */
  cost?: number;
}

const refused = (q: string, errors: GqlError[]): GraphqlResult => ({
  reply: { status: 200, body: { errors } },
  unsupported: `graphql: refused: ${errors[0]?.message ?? ""} in ${q.replace(/\s+/g, " ").slice(0, 120)}`,
});

/**
 * GitHub's wording of the validation errors its API answers most (graphql-js words them otherwise):
 * an unknown field (`undefinedField`) and an unknown argument (`argumentNotAccepted`).
 */
function githubValidationError(e: GraphQLError): GqlError {
  const field = /^Cannot query field "(\w+)" on type "(\w+)"/.exec(e.message);
  if (field) return { ...githubError(e), message: `Field '${field[1]}' doesn't exist on type '${field[2]}'` };
  const arg = /^Unknown argument "(\w+)" on field "\w+\.(\w+)"/.exec(e.message);
  if (arg) return { ...githubError(e), message: `Field '${arg[2]}' doesn't accept argument '${arg[1]}'` };
  return githubError(e);
}

/**
 * Answers a GraphQL call (`POST /graphql`) as GitHub does: the document parsed and validated against
 * GitHub's schema (`graphql-schema.ts`; a syntax error, an unknown field, argument or type, or a variable of
 * the wrong type is refused), priced (`graphql-exec.ts`: paging bounds and node limit refused too), charged
 * to the installation's hourly points (`x-ratelimit-*` with `x-ratelimit-resource: graphql`; past the budget
 * `RATE_LIMITED`, nothing charged), then run with the stand-in's resolvers (`graphql-types.ts`): a repository,
 * node, pull request or review thread the installation cannot see is a `NOT_FOUND` error beside `data`, as
 * GitHub answers it. A refused query, and one asking a field the stand-in does not serve, is flagged.
 */
export function handleGraphql(ctx: RouteContext, body: GraphqlBody, points: GraphqlPoints): GraphqlResult {
  const q = body.query;
  let doc: DocumentNode;
  try {
    doc = parse(q);
  } catch (error) {
    if (error instanceof GraphQLError) return refused(q, [{ message: `Parse error: ${error.message}` }]);
    throw error;
  }
  const schema = githubSchema();
  const invalid = validate(schema, doc);
  if (invalid.length > 0) return refused(q, invalid.map(githubValidationError));
  const op = getOperationAST(doc, body.operationName ?? undefined);
  if (!op || op.operation === "subscription")
    return refused(q, [{ message: "The GitHub stand-in does not support this GraphQL operation." }]);
  const coerced = getVariableValues(schema, op.variableDefinitions ?? [], body.variables ?? {});
  if (coerced.errors) return refused(q, coerced.errors.map(githubError));
  const vars = coerced.coerced;
  const price = priceQuery(schema, doc, op, vars);
  if (price.errors.length > 0) return refused(q, price.errors);
  const installationId = ctx.installationId ?? 0;
  const limit = points.fixed?.points ?? installationPoints(ctx.state.repositoriesOf(installationId).length);
  const rateLimitDef = schema.getQueryType()?.getFields()["rateLimit"];
  const dryRun =
    op.operation === "query" &&
    rateLimitDef !== undefined &&
    op.selectionSet.selections.some(
      (s) =>
        s.kind === "Field" &&
        s.name.value === "rateLimit" &&
        getArgumentValues(rateLimitDef, s, vars)["dryRun"] === true,
    );
  const charged = points.charge(installationId, limit, price.cost, Date.now(), dryRun);
  const headers = {
    "x-ratelimit-limit": String(limit),
    "x-ratelimit-remaining": String(charged.rateLimit.remaining),
    "x-ratelimit-used": String(charged.rateLimit.used),
    "x-ratelimit-reset": String(Math.floor(Date.parse(charged.rateLimit.resetAt) / 1000)),
    "x-ratelimit-resource": "graphql",
  };
  if (charged.over)
    return {
      reply: {
        status: 200,
        headers,
        body: {
          errors: [
            {
              type: "RATE_LIMITED",
              message: `API rate limit exceeded for installation ID ${installationId}.`,
            },
          ],
        },
      },
    };
  const root = {
    __typename: op.operation === "mutation" ? "Mutation" : "Query",
    rateLimit: { __typename: "RateLimit", ...charged.rateLimit, nodeCount: price.nodes },
  };
  const run = runQuery(schema, doc, op.name?.value, root, vars, ctx);
  const out = run.errors.length > 0 ? { data: run.data, errors: run.errors } : { data: run.data };
  return {
    reply: { status: 200, headers, body: out },
    ...(dryRun ? {} : { cost: price.cost }),
    ...(run.unserved.length > 0
      ? { unsupported: `graphql: fields the stand-in does not serve: ${run.unserved.join(", ")}` }
      : {}),
  };
}
