import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import addFormatsModule from "ajv-formats";
import { z } from "zod";

// ajv-formats is CommonJS (`module.exports = formatsPlugin`, also exposed as `.default`); under NodeNext the
// default import is the module object, so `.default` is the plugin for both the types and the runtime.
const addFormats = addFormatsModule.default;

/** One operation of `fixtures/openapi/github-subset.json` (written by `scripts/extract-openapi.ts`). */
export const SubsetOperation = z.object({
  method: z.enum(["GET", "POST", "PATCH", "PUT", "DELETE"]),
  path: z.string().startsWith("/"),
  operationId: z.string(),
  successStatus: z.number().int(),
  parameters: z.array(
    z.object({
      name: z.string(),
      in: z.enum(["path", "query"]),
      required: z.boolean(),
      schema: z.record(z.string(), z.unknown()),
    }),
  ),
  requestBody: z.object({ required: z.boolean(), schema: z.record(z.string(), z.unknown()) }).nullable(),
  synthetic: z.boolean().optional(),
});
export type SubsetOperation = z.infer<typeof SubsetOperation>;

/** The whole subset file: where it came from and the operations. */
export const OpenApiSubset = z.object({
  source: z
    .object({ package: z.string(), version: z.string(), file: z.string(), openapi: z.string() })
    .loose(),
  operations: z.array(SubsetOperation).min(1),
});
export type OpenApiSubset = z.infer<typeof OpenApiSubset>;

/** A compiled operation: route matcher plus ajv validators. */
export interface CompiledOperation {
  readonly op: SubsetOperation;
  readonly pattern: RegExp;
  readonly paramNames: readonly string[];
  readonly literalLength: number;
  readonly validateParams: ValidateFunction;
  readonly validateBody: ValidateFunction | undefined;
}

/** The outcome of matching a request path against the subset. */
export interface RouteMatch {
  readonly compiled: CompiledOperation;
  readonly params: Record<string, string>;
}

/**
 * Finds `fixtures/openapi/github-subset.json` from this module (works from `src/` and from `dist/src/`).
 * @throws Error when the file is missing (run `npm run openapi:extract`).
 */
export function subsetPath(): string {
  for (const rel of [
    "../../fixtures/openapi/github-subset.json",
    "../../../fixtures/openapi/github-subset.json",
  ]) {
    const candidate = fileURLToPath(new URL(rel, import.meta.url));
    if (existsSync(candidate)) return candidate;
  }
  throw new Error("fixtures/openapi/github-subset.json not found: run `npm run openapi:extract -- <dir>`");
}

/**
 * Reads and parses the committed OpenAPI subset.
 * @throws ZodError when the file does not have the expected shape.
 */
export function loadOpenApiSubset(file: string = subsetPath()): OpenApiSubset {
  return OpenApiSubset.parse(JSON.parse(readFileSync(file, "utf8")));
}

function formatErrors(where: string, errors: ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).map((e) => {
    const at = e.instancePath === "" ? where : `${where}${e.instancePath}`;
    const extra =
      e.keyword === "enum" && "allowedValues" in e.params
        ? ` (${JSON.stringify((e.params as { allowedValues: unknown }).allowedValues)})`
        : "";
    return `${at} ${e.message ?? e.keyword}${extra}`;
  });
}

/**
 * Validates requests against GitHub's OpenAPI description (the committed subset). Bodies are validated as
 * sent; path and query parameters are strings on the wire, so they are validated with type coercion
 * (`"5"` is a valid `integer`). Unknown query parameters are ignored, as GitHub does.
 */
export class OpenApiValidator {
  readonly subset: OpenApiSubset;
  private readonly compiled: CompiledOperation[];

  constructor(subset: OpenApiSubset = loadOpenApiSubset()) {
    this.subset = subset;
    // OpenAPI 3.0 schemas carry `nullable` and other non-JSON-Schema keywords: strict off, nullable on.
    const bodyAjv = new Ajv({ allErrors: true, strict: false });
    const paramAjv = new Ajv({ allErrors: true, strict: false, coerceTypes: true });
    addFormats(bodyAjv);
    addFormats(paramAjv);
    this.compiled = subset.operations
      .map((op): CompiledOperation => {
        const paramNames: string[] = [];
        const source = op.path
          .split("/")
          .map((segment) =>
            segment.replace(/\{([^}]+)\}|[^{]+/g, (m, name: string | undefined) => {
              if (name === undefined) return m.replace(/[.*+?^$()|[\]\\]/g, "\\$&");
              paramNames.push(name);
              // `{path}` (contents) may contain raw slashes; other parameters are one segment.
              return name === "path" ? "(.+)" : "([^/]+)";
            }),
          )
          .join("/");
        const properties = Object.fromEntries(op.parameters.map((p) => [p.name, p.schema]));
        const required = op.parameters.filter((p) => p.required).map((p) => p.name);
        return {
          op,
          pattern: new RegExp(`^${source}$`),
          paramNames,
          literalLength: op.path.replace(/\{[^}]+\}/g, "").length,
          validateParams: paramAjv.compile({ type: "object", properties, required }),
          validateBody: op.requestBody === null ? undefined : bodyAjv.compile(op.requestBody.schema),
        };
      })
      // The most literal template wins (`/pulls/comments/{id}` before `/pulls/{pull_number}/...`).
      .sort((a, b) => b.literalLength - a.literalLength);
  }

  /** Matches `method` + `path` (no query, no `/api/v3` prefix) to an operation, or `undefined`. */
  match(method: string, path: string): RouteMatch | undefined {
    for (const compiled of this.compiled) {
      if (compiled.op.method !== method) continue;
      const m = compiled.pattern.exec(path);
      if (m === null) continue;
      const params: Record<string, string> = {};
      compiled.paramNames.forEach((name, i) => {
        const raw = m[i + 1] ?? "";
        try {
          params[name] = decodeURIComponent(raw);
        } catch {
          params[name] = raw;
        }
      });
      return { compiled, params };
    }
    return undefined;
  }

  /**
   * Validates path + query parameters, returning human-readable ajv errors (empty when valid).
   * Query values are coerced in a copy; the caller's object is not changed.
   */
  validateParameters(
    compiled: CompiledOperation,
    params: Record<string, string>,
    query: Record<string, string>,
  ) {
    const known = new Set(compiled.op.parameters.map((p) => p.name));
    const data: Record<string, unknown> = { ...params };
    for (const [k, v] of Object.entries(query)) if (known.has(k)) data[k] = v;
    return compiled.validateParams(data) ? [] : formatErrors("parameters", compiled.validateParams.errors);
  }

  /** Validates a JSON request body; a missing body is an error only when the operation requires one. */
  validateBody(compiled: CompiledOperation, body: unknown): string[] {
    const rb = compiled.op.requestBody;
    if (rb === null || compiled.validateBody === undefined) return [];
    if (body === undefined) return rb.required ? ["body is required"] : [];
    return compiled.validateBody(body) ? [] : formatErrors("body", compiled.validateBody.errors);
  }
}
