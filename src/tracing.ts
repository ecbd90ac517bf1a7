import { tracingEnabled } from "./runtime/trace-context.js";

/**
 * Starts OpenTelemetry's Node SDK when tracing is on ({@link tracingEnabled}: `OTEL_EXPORTER_OTLP_ENDPOINT` or
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` set, `OTEL_SDK_DISABLED` not `true`); imported first by `src/index.ts`,
 * before anything that opens a server or a connection. Off, it imports nothing more and starts nothing.
 *
 * The SDK reads the other standard variables itself (`OTEL_SERVICE_NAME`, default `diffward`;
 * `OTEL_EXPORTER_OTLP_PROTOCOL` `http/protobuf` (default), `http/json` or `grpc`; `OTEL_EXPORTER_OTLP_HEADERS`;
 * `OTEL_TRACES_SAMPLER`; `OTEL_RESOURCE_ATTRIBUTES`; https://opentelemetry.io/docs/languages/sdk-configuration/).
 * Spans: incoming HTTP requests (webhook deliveries; `@opentelemetry/instrumentation-http`, applied to
 * `node:http`'s server, which ESM and CommonJS share), outgoing `fetch` requests (Octokit's and the scanning
 * service client's; `@opentelemetry/instrumentation-undici`, through `diagnostics_channel`), and BullMQ's job
 * spans (`bullmq-otel`, `src/runtime/trace-context.ts`). Traces only: no metrics or logs are exported.
 */
async function startTracing(): Promise<{ shutdown(): Promise<void> } | undefined> {
  if (!tracingEnabled()) return undefined;
  const [{ NodeSDK }, { HttpInstrumentation }, { UndiciInstrumentation }, { createRequire }] =
    await Promise.all([
      import("@opentelemetry/sdk-node"),
      import("@opentelemetry/instrumentation-http"),
      import("@opentelemetry/instrumentation-undici"),
      import("node:module"),
    ]);
  const sdk = new NodeSDK({
    ...(process.env.OTEL_SERVICE_NAME ? {} : { serviceName: "diffward" }),
    instrumentations: [
      // probes and scrapes are not traced: only what a delivery or a job causes
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (req) => /^\/(healthz|readyz|metrics)\b/.test(req.url ?? ""),
      }),
      new UndiciInstrumentation(),
    ],
  });
  sdk.start();
  // The http instrumentation patches `node:http` when it is first required (require-in-the-middle); diffward
  // is ESM and never requires it, so require it once here: the patch is on `Server.prototype`, which the
  // ESM `node:http` shares.
  createRequire(import.meta.url)("node:http");
  return sdk;
}

/** The started SDK, when tracing is on: `shutdown()` flushes the spans not yet exported. */
export const tracing = await startTracing();
