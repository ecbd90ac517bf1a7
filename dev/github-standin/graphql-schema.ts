/**
 * GitHub's GraphQL schema, as `@octokit/graphql-schema` publishes it (GitHub's public introspection result),
 * built once with graphql-js: the stand-in parses, validates and runs every query against it, so a query
 * diffward sends is one GitHub's API would accept, field for field and argument for argument.
 */
import { buildClientSchema, type GraphQLSchema, type IntrospectionQuery } from "graphql";
import { schema as published } from "@octokit/graphql-schema";

let built: GraphQLSchema | undefined;

/** GitHub's GraphQL schema (built on first use, about 60 ms). */
export function githubSchema(): GraphQLSchema {
  built ??= buildClientSchema(published.json as IntrospectionQuery);
  return built;
}
