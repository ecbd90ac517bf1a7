import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { gunzipSync } from "node:zlib";
import { Ajv, type ValidateFunction } from "ajv";
import addFormatsModule from "ajv-formats";

const addFormats = addFormatsModule.default;

/**
 * GitHub's limits on an uploaded analysis (REST "Upload an analysis as SARIF data"; "SARIF file is too
 * large"): over any maximum the upload is rejected.
 */
export const SARIF_UPLOAD_MAXIMUMS = {
  gzipBytes: 10 * 1024 * 1024,
  runsPerFile: 20,
  resultsPerRun: 25_000,
  rulesPerRun: 25_000,
  locationsPerResult: 1_000,
  tagsPerRule: 20,
} as const;

/** The official SARIF 2.1.0 JSON Schema (OASIS; draft-07), copied into fixtures/sarif/ (its README gives the origin). */
export function sarifSchemaPath(): string {
  return resolve(import.meta.dirname, "../../fixtures/sarif/sarif-schema-2.1.0.json");
}

let compiled: ValidateFunction | undefined;

/** Validates a SARIF log against the official 2.1.0 schema; returns one line per problem (empty when valid). */
export function sarifSchemaErrors(log: unknown): string[] {
  if (!compiled) {
    const ajv = new Ajv({ allErrors: true, strict: false });
    addFormats(ajv);
    compiled = ajv.compile(JSON.parse(readFileSync(sarifSchemaPath(), "utf8")) as object);
  }
  if (compiled(log)) return [];
  return (compiled.errors ?? []).map((e) => `sarif${e.instancePath} ${e.message ?? "is invalid"}`);
}

/** A decoded upload, or why it cannot be read. */
export type DecodedSarif = { ok: true; log: unknown; gzipBytes: number } | { ok: false; error: string };

/** Decodes the `sarif` field of an upload: Base64, then gzip, then JSON (REST "Upload an analysis as SARIF data"). */
export function decodeSarifUpload(field: string): DecodedSarif {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(field.replace(/\s+/g, "")))
    return { ok: false, error: "sarif is not Base64" };
  const gz = Buffer.from(field, "base64");
  let text: string;
  try {
    text = gunzipSync(gz).toString("utf8");
  } catch {
    return { ok: false, error: "sarif is not gzip-compressed" };
  }
  try {
    return { ok: true, log: JSON.parse(text) as unknown, gzipBytes: gz.length };
  } catch {
    return { ok: false, error: "sarif is not JSON" };
  }
}
