/**
 * `npm run sandbox`: starts the sandbox on `PORT` (default 4010). A DEVELOPMENT TOOL, not the scanning
 * service; nothing points at it unless told to.
 * Environment: `PORT`, `SANDBOX_HOST` (default 127.0.0.1), `SANDBOX_SCENARIO` (file in fixtures/scenarios/,
 * default `demo`), `SANDBOX_SEED` (integer), `SANDBOX_SCAN_DURATION_MS` (default 8000).
 */
import { z } from "zod";
import { SANDBOX_DEFAULTS, startSandbox } from "./index.js";

const Env = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(4010),
  SANDBOX_HOST: z.string().min(1).default("127.0.0.1"),
  SANDBOX_SCENARIO: z.string().min(1).default("demo"),
  SANDBOX_SEED: z.coerce.number().int().optional(),
  SANDBOX_SCAN_DURATION_MS: z.coerce.number().int().min(0).default(8000),
});

const parsed = Env.safeParse(process.env);
if (!parsed.success) {
  console.error(`sandbox: bad environment\n${z.prettifyError(parsed.error)}`);
  process.exit(1);
}
const env = parsed.data;
const sandbox = await startSandbox({
  port: env.PORT,
  host: env.SANDBOX_HOST,
  scenario: env.SANDBOX_SCENARIO,
  scanDurationMs: env.SANDBOX_SCAN_DURATION_MS,
  ...(env.SANDBOX_SEED === undefined ? {} : { seed: env.SANDBOX_SEED }),
});

console.log(
  [
    "",
    "  *** SCANNING-SERVICE SANDBOX: A DEVELOPMENT TOOL, NOT THE SCANNING SERVICE ***",
    "  In-memory stand-in for local development, tests and demos. Data vanishes on exit.",
    "",
    `  URL (base_url):  ${sandbox.url}`,
    `  Dev token:       ${SANDBOX_DEFAULTS.token}   (all five scopes)`,
    `  Project id:      ${SANDBOX_DEFAULTS.projectId}   repository: ${SANDBOX_DEFAULTS.repositoryId}`,
    `  Scenario:        ${env.SANDBOX_SCENARIO}   scan duration: ${env.SANDBOX_SCAN_DURATION_MS} ms`,
    `  Admin:           GET /_sandbox/stats, POST /_sandbox/faults, POST /_sandbox/reset`,
    "",
  ].join("\n"),
);

const stop = (): void => {
  void sandbox.close().then(() => process.exit(0));
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
