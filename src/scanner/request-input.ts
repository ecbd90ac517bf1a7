/**
 * The caller's input to a request, checked with zod before anything is sent (nothing sent, nothing spent)
 * and then made into the request's query or JSON body. A refusal is a {@link ScannerRequestError} naming
 * the endpoint and the first offending field.
 */
import type { z } from "zod";
import { formatPath } from "./envelopes.js";
import { ScannerRequestError } from "./errors.js";

/** A request's query: `undefined` values are not sent. */
export type Query = Record<string, string | number | undefined>;

/**
 * What a request sends besides its path: a query (`undefined` values are not sent) and a JSON body
 * (`undefined` sends none).
 */
export interface Payload {
  query?: Query;
  body?: unknown;
}

/** Caller input, given the endpoint to name in its error: checked, then made into the request's payload. */
export type CheckedInput = (endpoint: string) => Payload;

/** Sends the checked input as the request's JSON body (JSON leaves out a field left `undefined`). */
export const asBody = (body: unknown): Payload => ({ body });

/** Sends the checked input as the request's query (a value left `undefined` is not sent). */
export const asQuery = (query: Query): Payload => ({ query });

/**
 * Caller input for a `RequestSpec` (./transport.ts), a {@link CheckedInput}: `value` is checked with `schema` ({@link checkInput},
 * naming the endpoint of the request it is sent with, and `field` for a one-value input), then `send` makes
 * the query or body of the checked value.
 */
export function checked<S extends z.ZodType>(
  schema: S,
  value: unknown,
  send: (checked: z.output<S>) => Payload,
  field?: string,
): CheckedInput {
  return (endpoint) => send(checkInput(schema, value, endpoint, field));
}

/**
 * Checks caller input with `schema`.
 * @throws {ScannerRequestError} naming the first offending field (prefixed by `field` for scalar inputs).
 */
export function checkInput<S extends z.ZodType>(
  schema: S,
  input: unknown,
  endpoint: string,
  field?: string,
): z.output<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const path: PropertyKey[] = [...(field ? [field] : []), ...(issue.path as PropertyKey[])];
  let message = issue.message;
  if (issue.code === "unrecognized_keys") {
    path.push(issue.keys[0]!);
    message = `unknown option (allowed: ${allowedKeys(schema).join(", ")})`;
  }
  throw new ScannerRequestError(endpoint, path.length ? formatPath(path) : "(input)", message);
}

function allowedKeys(schema: z.ZodType): string[] {
  const shape = (schema as unknown as { shape?: Record<string, unknown> }).shape;
  return shape ? Object.keys(shape) : [];
}
