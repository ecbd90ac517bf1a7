/**
 * `tsx bench/otlp-sink.ts [port]`: a local OTLP/HTTP receiver for measuring tracing's overhead with the bench
 * (`docs/benchmarks.md`, "Tracing overhead"). Accepts `POST /v1/traces` (protobuf or JSON, as the exporter sends;
 * the body is read and dropped, like a collector that keeps up) and answers 200; on SIGTERM or SIGINT prints
 * `{ requests, bytes }` as one JSON line and exits. Default port 4318 (OTLP/HTTP's).
 */
import { createServer } from "node:http";

const port = Number(process.argv[2] ?? 4318);
let requests = 0;
let bytes = 0;
const server = createServer((req, res) => {
  req.on("data", (c: Buffer) => (bytes += c.length));
  req.on("end", () => {
    if (req.method === "POST" && req.url === "/v1/traces") requests++;
    res.writeHead(200, { "content-type": req.headers["content-type"] ?? "application/json" }).end();
  });
});
server.listen(port, "127.0.0.1", () => process.stdout.write(`otlp sink at http://127.0.0.1:${port}\n`));
const stop = () => {
  process.stdout.write(`${JSON.stringify({ requests, bytes })}\n`);
  process.exit(0);
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
