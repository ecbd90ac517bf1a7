import type { Logger } from "pino";
import { Probot, ProbotOctokit } from "probot";
import { devPrivateKey } from "../../dev/harness/harness.js";
import type { Runtime } from "../../src/runtime/runtime.js";
import { startWebServer, type WebServer } from "../../src/web.js";

/**
 * The web server module (`startWebServer`) on a free port of 127.0.0.1 with an app that handles nothing and
 * Octokit's retry and throttling off: for tests of its own routes (`/audit`, `/diffward.schema.json`) over real
 * HTTP. `options` adds what a test needs (e.g. `audit`).
 */
export function bareWebServer(
  redis: Runtime["redis"],
  log: Logger,
  options: Partial<Parameters<typeof startWebServer>[0]> = {},
): Promise<WebServer> {
  return startWebServer({
    probot: new Probot({
      appId: 1,
      privateKey: devPrivateKey(),
      secret: "s",
      log,
      Octokit: ProbotOctokit.defaults({ retry: { enabled: false }, throttle: { enabled: false } }),
    }),
    app: () => undefined,
    rt: { redis, log },
    port: 0,
    ...options,
  });
}
