/**
 * The JSON Schema of `.github/diffward.yml` served by the web process, so that every deployment publishes the
 * schema of the very version it runs at a URL its organization already knows: `<DIFFWARD_PUBLIC_URL>/diffward.schema.json`
 * (the origin sign-in uses). Editors read it from a `# yaml-language-server: $schema=<url>` comment or VS Code's
 * `yaml.schemas` setting (README, "Configuration reference"). It is built from the same zod schema as
 * `schema/diffward.schema.json` (`npm run schema:config`), so the two are the same document.
 *
 * Public by design: the schema holds no secret and no installation's data. Answers `GET` and `HEAD` with
 * `application/schema+json`, an `ETag` of its text (a matching `If-None-Match` gets 304), five minutes of
 * caching, and `Access-Control-Allow-Origin: *` (browser-based editors fetch it cross-origin).
 */
import { createHash } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { renderConfigJsonSchema } from "../config/json-schema.js";

/** The path the schema is served at. */
export const CONFIG_SCHEMA_ROUTE = "/diffward.schema.json";

let rendered: { text: string; etag: string } | undefined;

/** The schema's text and its strong ETag, rendered once per process (the schema is fixed at build time). */
function schemaDocument(): { text: string; etag: string } {
  if (!rendered) {
    const text = renderConfigJsonSchema();
    rendered = { text, etag: `"${createHash("sha256").update(text).digest("base64url").slice(0, 27)}"` };
  }
  return rendered;
}

/**
 * Answers a `GET` or `HEAD` of {@link CONFIG_SCHEMA_ROUTE} (`path`: the request's path without its query);
 * `false` when the request is not one, and nothing was answered.
 */
export function servedConfigSchema(req: IncomingMessage, res: ServerResponse, path?: string): boolean {
  if (path !== CONFIG_SCHEMA_ROUTE || (req.method !== "GET" && req.method !== "HEAD")) return false;
  const { text, etag } = schemaDocument();
  const headers = {
    "content-type": "application/schema+json; charset=utf-8",
    "cache-control": "public, max-age=300",
    "access-control-allow-origin": "*",
    etag,
  };
  if (req.headers["if-none-match"] === etag) res.writeHead(304, headers).end();
  else
    res
      .writeHead(200, { ...headers, "content-length": Buffer.byteLength(text) })
      .end(req.method === "HEAD" ? undefined : text);
  return true;
}
