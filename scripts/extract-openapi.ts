/**
 * Extracts the subset of GitHub's official OpenAPI description that diffward calls, so the GitHub stand-in
 * (`dev/github-standin/`) can validate every request without shipping the 385 MB `@octokit/openapi` package.
 *
 * Usage: `npm run openapi:extract -- /tmp/oa/node_modules/@octokit/openapi`
 *
 * Reads `generated/api.github.com.deref.json` (falls back to `generated/api.github.com.json`), keeps for each
 * operation in {@link OPERATIONS}: method, path template, operationId, the path/query parameter schemas, the
 * JSON request body schema and the lowest 2xx response status. Every `$ref` is inlined (cycles are cut to
 * `{}`), and documentation-only keywords (`description`, `example`, `examples`) are dropped to keep the file
 * small. Writes `fixtures/openapi/github-subset.json` with the package name and version it came from.
 *
 * `POST /graphql` and the App's web flow (`/login/oauth/…`) are not in the REST description; they are appended
 * from {@link SYNTHETIC_OPERATIONS} (marked `"synthetic": true`).
 */
import { readFileSync, writeFileSync, mkdirSync, existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";

/** The operations diffward makes, as `[METHOD, path template]`. */
export const OPERATIONS: ReadonlyArray<readonly [string, string]> = [
  ["POST", "/app/installations/{installation_id}/access_tokens"],
  ["GET", "/app"],
  ["GET", "/app/installations"],
  ["GET", "/app/hook/deliveries"],
  ["POST", "/app/hook/deliveries/{delivery_id}/attempts"],
  ["GET", "/installation/repositories"],
  ["GET", "/repos/{owner}/{repo}"],
  ["GET", "/repos/{owner}/{repo}/contents/{path}"],
  ["GET", "/repos/{owner}/{repo}/commits/{ref}"],
  ["POST", "/repos/{owner}/{repo}/check-runs"],
  ["PATCH", "/repos/{owner}/{repo}/check-runs/{check_run_id}"],
  ["GET", "/repos/{owner}/{repo}/check-runs/{check_run_id}"],
  ["GET", "/repos/{owner}/{repo}/commits/{ref}/check-runs"],
  ["GET", "/repos/{owner}/{repo}/compare/{basehead}"],
  ["GET", "/repos/{owner}/{repo}/git/matching-refs/{ref}"],
  ["GET", "/repos/{owner}/{repo}/pulls"],
  ["GET", "/repos/{owner}/{repo}/pulls/{pull_number}"],
  ["GET", "/repos/{owner}/{repo}/pulls/{pull_number}/files"],
  ["POST", "/repos/{owner}/{repo}/pulls/{pull_number}/reviews"],
  ["GET", "/repos/{owner}/{repo}/pulls/{pull_number}/comments"],
  ["GET", "/repos/{owner}/{repo}/pulls/comments/{comment_id}"],
  ["PATCH", "/repos/{owner}/{repo}/pulls/comments/{comment_id}"],
  ["POST", "/repos/{owner}/{repo}/pulls/{pull_number}/comments/{comment_id}/replies"],
  ["POST", "/repos/{owner}/{repo}/pulls/comments/{comment_id}/reactions"],
  ["POST", "/repos/{owner}/{repo}/issues/comments/{comment_id}/reactions"],
  ["POST", "/repos/{owner}/{repo}/issues/{issue_number}/comments"],
  ["PATCH", "/repos/{owner}/{repo}/issues/comments/{comment_id}"],
  ["GET", "/repos/{owner}/{repo}/issues/{issue_number}/comments"],
  ["GET", "/repos/{owner}/{repo}/collaborators/{username}/permission"],
  ["GET", "/repos/{owner}/{repo}/codeowners/errors"],
  ["GET", "/orgs/{org}/teams/{team_slug}/memberships/{username}"],
  ["POST", "/repos/{owner}/{repo}/code-scanning/sarifs"],
  ["GET", "/repos/{owner}/{repo}/code-scanning/alerts"],
  ["GET", "/repos/{owner}/{repo}/code-scanning/alerts/{alert_number}"],
  ["PATCH", "/repos/{owner}/{repo}/code-scanning/alerts/{alert_number}"],
  ["GET", "/user"],
  ["GET", "/user/installations"],
  ["GET", "/user/installations/{installation_id}/repositories"],
  ["GET", "/user/memberships/orgs/{org}"],
];

const text = { type: "string" };

/** A synthetic `POST` operation with a required JSON object body. */
const post = (
  path: string,
  operationId: string,
  required: string[],
  properties: Record<string, unknown>,
) => ({
  method: "POST",
  path,
  operationId,
  successStatus: 200,
  parameters: [],
  requestBody: { required: true, schema: { type: "object", required, properties } },
});

/**
 * Operations outside the REST description, appended as `synthetic`: `POST /graphql` (its body only requires a
 * string `query`), and the App's web flow, which GitHub serves on its web host, not the API (GitHub Docs
 * "Generating a user access token for a GitHub App": `GET /login/oauth/authorize` with `client_id`,
 * `redirect_uri`, `login`, `state`, `allow_signup`, `prompt`; `POST /login/oauth/access_token` with
 * `client_id`, `client_secret`, `code`, `redirect_uri`, `repository_id`, or a `refresh_token` and
 * `grant_type`).
 */
export const SYNTHETIC_OPERATIONS = [
  post("/graphql", "graphql", ["query"], { query: text, variables: { type: "object" } }),
  {
    method: "GET",
    path: "/login/oauth/authorize",
    operationId: "oauth/authorize",
    successStatus: 302,
    parameters: [
      { name: "client_id", in: "query", required: true, schema: text },
      ...["redirect_uri", "login", "state", "allow_signup", "prompt"].map((name) => ({
        name,
        in: "query",
        required: false,
        schema: text,
      })),
    ],
    requestBody: null,
  },
  post("/login/oauth/access_token", "oauth/create-access-token", ["client_id", "client_secret"], {
    client_id: text,
    client_secret: text,
    code: text,
    redirect_uri: text,
    repository_id: text,
    refresh_token: text,
    grant_type: { type: "string", enum: ["refresh_token"] },
  }),
];

const JsonObject = z.record(z.string(), z.unknown());
type JsonObject = z.infer<typeof JsonObject>;

const Parameter = z.looseObject({
  name: z.string(),
  in: z.string(),
  required: z.boolean().optional(),
  schema: JsonObject.optional(),
});

const Operation = z.looseObject({
  operationId: z.string(),
  parameters: z.array(z.unknown()).optional(),
  requestBody: z
    .looseObject({
      required: z.boolean().optional(),
      content: z.record(z.string(), z.looseObject({ schema: JsonObject.optional() })),
    })
    .optional(),
  responses: z.record(z.string(), z.unknown()),
});

const Description = z.looseObject({
  openapi: z.string(),
  info: z.looseObject({ version: z.string() }),
  paths: z.record(z.string(), z.record(z.string(), z.unknown())),
  components: JsonObject.optional(),
});
type Description = z.infer<typeof Description>;

const DOC_KEYWORDS = new Set(["description", "example", "examples", "externalDocs", "title"]);
const SCHEMA_MAP_KEYWORDS = new Set(["properties", "patternProperties", "definitions", "$defs"]);

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function lookupRef(root: Description, ref: string): unknown {
  if (!ref.startsWith("#/")) throw new Error(`Unsupported external $ref: ${ref}`);
  let node: unknown = root;
  for (const raw of ref.slice(2).split("/")) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (!isObject(node) || !(key in node)) throw new Error(`Unresolvable $ref: ${ref}`);
    node = node[key];
  }
  return node;
}

/** Inlines `$ref`s and strips documentation keywords from a JSON Schema (OpenAPI 3.0 flavour). */
function cleanSchema(root: Description, schema: unknown, seen: ReadonlyArray<string> = []): unknown {
  if (Array.isArray(schema)) return schema.map((item) => cleanSchema(root, item, seen));
  if (!isObject(schema)) return schema;
  const ref = schema["$ref"];
  if (typeof ref === "string") {
    if (seen.includes(ref)) return {};
    return cleanSchema(root, lookupRef(root, ref), [...seen, ref]);
  }
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) {
    if (DOC_KEYWORDS.has(key) || key.startsWith("x-")) continue;
    if (SCHEMA_MAP_KEYWORDS.has(key) && isObject(value)) {
      out[key] = Object.fromEntries(
        Object.entries(value).map(([name, sub]) => [name, cleanSchema(root, sub, seen)]),
      );
    } else {
      out[key] = cleanSchema(root, value, seen);
    }
  }
  return out;
}

function resolveNode(root: Description, node: unknown): unknown {
  if (isObject(node) && typeof node["$ref"] === "string") return lookupRef(root, node["$ref"]);
  return node;
}

/**
 * Builds the subset document.
 * @throws Error when an operation in {@link OPERATIONS} is missing from the description.
 */
export function extractSubset(root: Description, pkg: { name: string; version: string }, file: string) {
  const operations = OPERATIONS.map(([method, path]) => {
    const pathItem = root.paths[path];
    const raw = pathItem?.[method.toLowerCase()];
    if (raw === undefined) throw new Error(`Operation ${method} ${path} not found in ${file}`);
    const op = Operation.parse(raw);
    const parameters = [
      ...((pathItem?.["parameters"] as unknown[] | undefined) ?? []),
      ...(op.parameters ?? []),
    ]
      .map((p) => Parameter.parse(resolveNode(root, p)))
      .filter((p) => p.in === "path" || p.in === "query")
      .map((p) => ({
        name: p.name,
        in: p.in,
        required: p.required ?? p.in === "path",
        schema: cleanSchema(root, p.schema ?? {}),
      }));
    const body = op.requestBody?.content["application/json"];
    const statuses = Object.keys(op.responses)
      .map(Number)
      .filter((s) => s >= 200 && s < 300)
      .sort((a, b) => a - b);
    const successStatus = statuses[0];
    if (successStatus === undefined) throw new Error(`No 2xx response for ${method} ${path}`);
    return {
      method,
      path,
      operationId: op.operationId,
      successStatus,
      parameters,
      requestBody:
        body === undefined
          ? null
          : { required: op.requestBody?.required ?? false, schema: cleanSchema(root, body.schema ?? {}) },
    };
  });
  return {
    source: {
      package: pkg.name,
      version: pkg.version,
      file,
      openapi: root.openapi,
      apiVersion: root.info.version,
      note: "Generated by scripts/extract-openapi.ts; do not edit. POST /graphql and the web flow's /login/oauth/authorize and /login/oauth/access_token are synthetic (not in the REST description).",
    },
    operations: [...operations, ...SYNTHETIC_OPERATIONS.map((op) => ({ ...op, synthetic: true }))],
  };
}

function main(argv: string[]): void {
  const pkgDir = argv[0];
  if (pkgDir === undefined) {
    console.error("usage: npm run openapi:extract -- <path to node_modules/@octokit/openapi>");
    process.exit(2);
  }
  const pkg = z
    .object({ name: z.string(), version: z.string() })
    .parse(JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8")));
  const candidates = ["generated/api.github.com.deref.json", "generated/api.github.com.json"];
  const file = candidates.find((c) => existsSync(join(pkgDir, c)));
  if (file === undefined) throw new Error(`No api.github.com description under ${pkgDir}/generated`);
  const root = Description.parse(JSON.parse(readFileSync(join(pkgDir, file), "utf8")));
  const subset = extractSubset(root, pkg, file);
  const here = dirname(fileURLToPath(import.meta.url));
  const outFile = resolve(here, "../fixtures/openapi/github-subset.json");
  mkdirSync(dirname(outFile), { recursive: true });
  writeFileSync(outFile, `${JSON.stringify(subset, null, 1)}\n`);
  console.log(`wrote ${outFile}: ${subset.operations.length} operations from ${pkg.name}@${pkg.version}`);
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2));
}
