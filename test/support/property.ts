/**
 * The run options of every fast-check property and model-based test (`fc.assert(…, propertyOptions(n))`),
 * so that a red `npm test` is never a coin toss and exploring is one script away:
 *
 * - `npm test`: the fixed seed {@link FIXED_SEED} and the call's own number of runs: the same inputs on every
 *   run and every machine.
 * - `npm run test:explore` (`DIFFWARD_EXPLORE=1`): a fresh random seed per property and the call's runs times
 *   `DIFFWARD_EXPLORE_FACTOR` (default 10). A failure prints one line
 *   `fast-check counterexample: seed=<seed> path="<path>" in <file> > <test>` before fast-check's own report
 *   (which says the same, with the shrunk counterexample); each counterexample found becomes a fixed example
 *   next to its property.
 * - `DIFFWARD_SEED=<seed> DIFFWARD_PATH=<path>` replays one failure (pick its test with `vitest run <file> -t`).
 *
 * `fc.configureGlobal` is not used: a call's own `numRuns` overrides the global one, so exploring could not
 * raise the runs of the properties that set theirs.
 */
import { relative } from "node:path";
import fc from "fast-check";
import { expect } from "vitest";

/** The seed of every property in `npm test`. Any fixed integer does; changing it is a deliberate act. */
export const FIXED_SEED = 20_261_124;

const exploring = process.env.DIFFWARD_EXPLORE === "1";
const factor = Number(process.env.DIFFWARD_EXPLORE_FACTOR ?? 10);

/** The number of runs a property asked for `numRuns` makes in this run (raised when exploring). */
export function propertyRuns(numRuns: number): number {
  return exploring ? Math.ceil(numRuns * factor) : numRuns;
}

/** A test's timeout for a property whose runs {@link propertyRuns} scales: `ms`, times the factor when exploring. */
export function propertyTimeout(ms: number): number {
  return exploring ? Math.ceil(ms * factor) : ms;
}

function randomSeed(): number {
  return (Math.random() * 0x1_0000_0000) | 0;
}

/** Prints the seed and path of a failure on one line, then fails as fast-check's default reporter does. */
function reportFailure<Ts>(out: fc.RunDetails<Ts>): void {
  if (!out.failed) return;
  const { testPath, currentTestName } = expect.getState();
  const path = out.counterexamplePath ?? "";
  const where = `${testPath ? relative(process.cwd(), testPath) : "?"} > ${currentTestName ?? "?"}`;
  const replay = `DIFFWARD_SEED=${out.seed} DIFFWARD_PATH="${path}"`;
  console.error(`fast-check counterexample: seed=${out.seed} path="${path}" in ${where} (replay: ${replay})`);
  throw new Error(fc.defaultReportMessage(out), { cause: out.errorInstance });
}

/**
 * fast-check parameters: `numRuns` runs (fast-check's default, 100, when omitted) from the fixed seed, or
 * as described above when exploring or replaying; `extra` (e.g. `endOnFailure`, `verbose`) is kept.
 */
export function propertyOptions<Ts = unknown>(
  numRuns = 100,
  extra: Omit<fc.Parameters<Ts>, "seed" | "numRuns" | "path"> = {},
): fc.Parameters<Ts> {
  if (process.env.DIFFWARD_SEED !== undefined) {
    const path = process.env.DIFFWARD_PATH;
    return { ...extra, seed: Number(process.env.DIFFWARD_SEED), numRuns, ...(path ? { path } : {}) };
  }
  if (!exploring) return { ...extra, seed: FIXED_SEED, numRuns };
  return { ...extra, seed: randomSeed(), numRuns: propertyRuns(numRuns), reporter: reportFailure };
}
