import { isSpanContextValid, trace, type Attributes } from "@opentelemetry/api";
import type { Telemetry } from "bullmq";
import { BullMQOtel } from "bullmq-otel";

/**
 * Whether traces are exported: an OTLP endpoint is configured (`OTEL_EXPORTER_OTLP_ENDPOINT` or
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) and the SDK is not disabled (`OTEL_SDK_DISABLED=true`). The variables
 * are OpenTelemetry's own (https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/
 * and https://opentelemetry.io/docs/specs/otel/protocol/exporter/). Off, no SDK starts and nothing is traced.
 */
export function tracingEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}

/** The instrumentation scope of diffward's own spans and of BullMQ's (`bullmq-otel`). */
export const TRACER_NAME = "diffward";

/**
 * BullMQ's `telemetry` option for diffward's queues and workers when tracing is on (`bullmq-otel`: a job's
 * producer span's context travels in the job, so the worker's span continues the trace of whoever added the
 * job; https://docs.bullmq.io/guide/telemetry); `undefined` when off (BullMQ then traces nothing).
 */
export function queueTelemetry(): { telemetry?: Telemetry } {
  return tracingEnabled()
    ? { telemetry: new BullMQOtel({ tracerName: TRACER_NAME }) as unknown as Telemetry }
    : {};
}

/** What a job's data or a webhook may name, by diffward's field names (every field optional). */
export interface TraceSubject {
  installationId?: unknown;
  owner?: unknown;
  repo?: unknown;
  pullNumber?: unknown;
  headSha?: unknown;
  scanId?: unknown;
  deliveryId?: unknown;
}

/**
 * The span attributes of a job's data (or a webhook delivery's fields): installation id, repository
 * (`owner/repo`), pull request number, head SHA, scan id and delivery GUID, each only when present with its
 * expected type. Identifiers only: never a token, a finding's text or anything else of the data. Pure.
 */
export function traceAttributes(data: unknown): Attributes {
  if (data === null || typeof data !== "object") return {};
  const d = data as TraceSubject;
  const out: Attributes = {};
  if (typeof d.installationId === "number") out["diffward.installation.id"] = d.installationId;
  if (typeof d.owner === "string" && typeof d.repo === "string")
    out["diffward.repository"] = `${d.owner}/${d.repo}`;
  if (typeof d.pullNumber === "number") out["diffward.pull_request.number"] = d.pullNumber;
  if (typeof d.headSha === "string") out["diffward.head_sha"] = d.headSha;
  if (typeof d.scanId === "string") out["diffward.scan.id"] = d.scanId;
  if (typeof d.deliveryId === "string") out["diffward.delivery.guid"] = d.deliveryId;
  return out;
}

/** Adds {@link traceAttributes} of `data` to the active span (none when tracing is off). */
export function annotateActiveSpan(data: unknown): void {
  const span = trace.getActiveSpan();
  if (span?.isRecording()) span.setAttributes(traceAttributes(data));
}

/**
 * pino's `mixin` when tracing is on: `trace_id` and `span_id` of the active span on every line logged inside
 * it (the OpenTelemetry log correlation field names,
 * https://opentelemetry.io/docs/specs/otel/compatibility/logging_trace_context/); nothing outside a span.
 */
export function traceLogFields(): { trace_id?: string; span_id?: string } {
  const ctx = trace.getActiveSpan()?.spanContext();
  return ctx && isSpanContextValid(ctx) ? { trace_id: ctx.traceId, span_id: ctx.spanId } : {};
}
