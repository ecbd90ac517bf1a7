import { traceLogFields, tracingEnabled } from "./trace-context.js";
import { pino, type Bindings, type ChildLoggerOptions, type DestinationStream, type Logger, type LoggerOptions } from "pino";

/** What a redacted value is replaced with in log lines. */
export const REDACTED = "[redacted]";

/**
 * Fields that hold secrets wherever they appear in a log line's object (top level, one or two levels down:
 * pino's `redact` paths, fast-redact syntax). Values under these keys are replaced by {@link REDACTED}.
 */
export const SECRET_FIELDS: readonly string[] = [
  "token",
  "password",
  "secret",
  "privateKey",
  "webhookSecret",
  "scannerToken",
  "metricsToken",
  "authorization",
  "headers.authorization",
  "headers.cookie",
].flatMap((f) => [f, `*.${f}`, `*.*.${f}`]);

// scheme://userinfo@ : the userinfo (user, password or a token used as user) is a credential.
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@"'<>]+@/gi;

/**
 * Removes credentials from free text: the userinfo of every URL (`redis://:pw@host`, `https://u:p@host`,
 * `https://token@host` → `scheme://[redacted]@host`). Text without URLs is returned unchanged. Pure.
 */
export function redactText(text: string): string {
  return text.includes("://") ? text.replace(URL_USERINFO, `$1${REDACTED}@`) : text;
}

/**
 * A copy of `value` whose strings are passed through {@link redactText}, down to `depth` levels (objects,
 * arrays, `Error`s by their message, stack, `cause` and own fields). Values that need no change are kept
 * as they are. Pure.
 */
export function redactDeep(value: unknown, depth = 6): unknown {
  if (typeof value === "string") return redactText(value);
  if (depth <= 0 || value === null || typeof value !== "object") return value;
  if (value instanceof Error) return redactError(value, depth);
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, depth - 1));
  if (value instanceof URL) return redactText(value.toString());
  if (Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = redactDeep(v, depth - 1);
  return out;
}

/**
 * diffward's pino logger: no secret ever reaches a log line. Every line, Probot's and Octokit's included
 * (they log through it):
 * - known secret fields ({@link SECRET_FIELDS}) are replaced by `[redacted]` (pino `redact`);
 * - the userinfo of any URL in any string value, the message, child bindings and `err` included, is
 *   replaced by `[redacted]` (`formatters.log` and `formatters.bindings` passes, a `logMethod` hook and
 *   children whose bindings are redacted: {@link redactText});
 * - an error logged as `{ err }` keeps its class (`type`), stack and causes, redacted the same way;
 * - with tracing on (`src/runtime/trace-context.ts`), a line logged inside a span carries its `trace_id` and `span_id`.
 * @param destination where lines go (stdout by default; tests pass a stream to read them back).
 */
export function createLogger(options: LoggerOptions = {}, destination?: DestinationStream): Logger {
  const opts: LoggerOptions = {
    ...options,
    ...(tracingEnabled() && !options.mixin ? { mixin: traceLogFields } : {}),
    redact: { paths: [...SECRET_FIELDS], censor: REDACTED },
    formatters: {
      ...options.formatters,
      log: (obj) => redactDeep(obj) as Record<string, unknown>,
      bindings: (bindings) => redactDeep(bindings) as Record<string, unknown>,
    },
    // pino does not pass a child's bindings through `formatters.bindings`: children are wrapped below
    hooks: {
      logMethod(args, method) {
        // the message and its interpolated values; an Error logged alone gives pino its message too
        const clean = args.map((a) =>
          typeof a === "string" ? redactText(a) : a instanceof Error ? redactDeep(a) : a,
        ) as typeof args;
        return method.apply(this, clean);
      },
    },
  };
  return redactingChildren(destination ? pino(opts, destination) : pino(opts));
}

/** Makes `log.child(bindings)` (and its children's) redact `bindings` like a line's object. */
function redactingChildren(log: Logger): Logger {
  const child = log.child.bind(log) as unknown as (bindings: Bindings, options?: ChildLoggerOptions) => Logger;
  const wrapped = (bindings: Bindings, options?: ChildLoggerOptions): Logger =>
    redactingChildren(child(redactDeep(bindings) as Bindings, options));
  log.child = wrapped as unknown as Logger["child"];
  return log;
}

/**
 * A redacted copy of an error with the same prototype, so pino's `err` serializer still logs its class as
 * `type`, its stack, and its `cause` chain (pino-std-serializers appends each cause's message and stack).
 */
function redactError(error: Error, depth: number): Error {
  const copy = Object.create(Object.getPrototypeOf(error) as object) as Error & Record<string, unknown>;
  const own = (k: string, v: unknown) =>
    Object.defineProperty(copy, k, { value: v, writable: true, configurable: true, enumerable: false });
  own("message", redactText(error.message));
  if (Object.hasOwn(error, "name")) own("name", error.name);
  if (error.stack) own("stack", redactText(error.stack));
  if (error.cause !== undefined) own("cause", redactDeep(error.cause, depth - 1));
  for (const [k, v] of Object.entries(error)) copy[k] = redactDeep(v, depth - 1);
  return copy;
}
