/**
 * Where the findings of a completed scan come from: a scenario (a file in `fixtures/scenarios/` or an inline
 * object, validated with {@link Scenario}) or the seeded generator.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { SandboxConfigError } from "./errors.js";
import type { SeededRandom } from "./random.js";
import { Scenario, type ScenarioFinding, type ScenarioInput } from "./schemas.js";
import { SEVERITIES } from "../../src/scanner/catalog.js";

/** Folder of the scenario files: `fixtures/scenarios/` at the repository root. */
export const SCENARIOS_DIR = join(
  dirname(fileURLToPath(import.meta.url)),
  "..",
  "..",
  "fixtures",
  "scenarios",
);

/**
 * Loads a scenario by file name (`demo` or `demo.json`, looked up in {@link SCENARIOS_DIR}) or validates an
 * inline one.
 *
 * @throws SandboxConfigError when the file is missing, is not JSON, or does not match {@link Scenario}.
 */
export function loadScenario(scenario: string | ScenarioInput): Scenario {
  let raw: unknown = scenario;
  let where = "inline scenario";
  if (typeof scenario === "string") {
    if (!/^[A-Za-z0-9_.-]+$/.test(scenario)) {
      throw new SandboxConfigError(`scenario name "${scenario}" must be a file name in ${SCENARIOS_DIR}`);
    }
    const file = join(SCENARIOS_DIR, scenario.endsWith(".json") ? scenario : `${scenario}.json`);
    where = file;
    try {
      raw = JSON.parse(readFileSync(file, "utf8"));
    } catch (err) {
      throw new SandboxConfigError(`cannot read scenario ${file}: ${(err as Error).message}`);
    }
  }
  const parsed = Scenario.safeParse(raw);
  if (!parsed.success) {
    throw new SandboxConfigError(`invalid ${where}:\n${z.prettifyError(parsed.error)}`);
  }
  return parsed.data;
}

const FILES = ["src/server.js", "src/db.js", "src/auth/session.ts", "lib/util.py", "app/models/user.rb"];
const CATEGORIES = ["injection", "authentication", "authorization", "crypto", "xss", "ssrf", "secrets"];
const TITLES = [
  "SQL built from request input",
  "Session cookie without Secure flag",
  "Missing authorization check on admin route",
  "Weak hash used for passwords",
  "Reflected input in HTML response",
  "Outbound request to user-supplied URL",
  "Hard-coded API key",
];

/**
 * Generates `count` findings (3 to 8 when omitted) with every location shape the service is known to emit:
 * `path:line`, `path:start-end`, `path#Lstart-Lend`, a bare path and an unparseable `module Foo`.
 */
export function generateFindings(rng: SeededRandom, count = rng.int(3, 8)): ScenarioFinding[] {
  const out: ScenarioFinding[] = [];
  for (let i = 0; i < count; i += 1) {
    const file = rng.pick(FILES);
    const start = rng.int(1, 120);
    const end = start + rng.int(1, 12);
    const shape = i % 5;
    const location =
      shape === 0
        ? `${file}:${start}`
        : shape === 1
          ? `${file}:${start}-${end}`
          : shape === 2
            ? `${file}#L${start}-L${end}`
            : shape === 3
              ? file
              : `module ${rng.pick(["Foo", "Billing", "Auth"])}`;
    const severity = SEVERITIES[i % SEVERITIES.length] ?? "INFO";
    const confirmed = rng.next() < 0.4;
    out.push({
      title: rng.pick(TITLES),
      location,
      severity,
      category: rng.pick(CATEGORIES),
      triageStatus: confirmed ? "CONFIRMED" : "NEW",
      confirmationEvidence: confirmed ? rng.pick(["POC", "ANALYSIS"] as const) : null,
      description: `Generated finding ${i + 1}: the code at \`${location}\` looks risky.`,
      pocReport: confirmed ? "A generated proof of concept reached the sink." : null,
      recommendedFix: "Validate the input before use.",
    });
  }
  return out;
}
