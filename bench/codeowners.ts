/**
 * CODEOWNERS at GitHub's limits: how long `parseCodeowners` and `ownersOf` (src/triage/codeowners/) take on
 * the files a repository may hold. Pure CPU, no Redis or network:
 * - a 100,000-line file of rules in the shapes GitHub's docs show (anchored directories, extensions,
 *   `**` segments, teams and e-mail owners), and the lookup of paths that match the first rule or none
 *   (every rule is tried, last to first);
 * - a file just under 3 MB on one line (no newline), and 3 MB of arbitrary characters;
 * - adversarial patterns: many `*` in one segment and many `**` segments against long paths.
 * Each figure is the median of `--runs` runs (default 5). Usage: `npx tsx bench/codeowners.ts [--runs N]`.
 */
import { performance } from "node:perf_hooks";
import { matchesPattern, ownersOf, parseCodeowners } from "../src/triage/codeowners/index.js";
import { CODEOWNERS_MAX_BYTES } from "../src/triage/codeowners/locations.js";
import { percentile, seeded } from "./lib.js";

const runsFlag = process.argv.indexOf("--runs");
const RUNS = runsFlag >= 0 ? Number(process.argv[runsFlag + 1]) : 5;

/** The median wall time of `RUNS` calls of `f`, in ms. */
function medianMs(f: () => unknown): number {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    f();
    times.push(performance.now() - start);
  }
  return Math.round(percentile(times, 50) * 10) / 10;
}

/** Rule `i` of the 100,000-line file, cycling through the shapes of GitHub's examples. */
function rule(i: number): string {
  const shapes = [
    `/services/svc-${i}/ @org/team-${i % 97}`,
    `*.ext${i} @user-${i % 500}`,
    `docs/area-${i}/* docs-${i}@example.com`,
    `**/logs-${i} @octocat @org/ops`,
    `/apps/app-${i}/src/**/generated-${i}.ts @user-${i % 13}`,
    `# a comment line ${i}`,
  ];
  return shapes[i % shapes.length]!;
}

const big = Array.from({ length: 100_000 }, (_, i) => rule(i)).join("\n");
const random = seeded(1);
const noise = Array.from({ length: CODEOWNERS_MAX_BYTES - 1 }, () =>
  String.fromCharCode(32 + Math.floor(random.next() * 95)),
).join("");
const oneLine = `/${"a".repeat(CODEOWNERS_MAX_BYTES - 10)} @x`;

const file = parseCodeowners(big);
const figures = {
  runs: RUNS,
  "100k lines: bytes": Buffer.byteLength(big),
  "100k lines: rules / errors": `${file.rules.length} / ${file.errors.length}`,
  "100k lines: parse ms": medianMs(() => parseCodeowners(big)),
  "100k lines: ownersOf, path matching no rule, ms (first call compiles every pattern)": medianMs(() =>
    ownersOf(parseCodeowners(big), "nowhere/at/all.txt"),
  ),
  "100k lines: ownersOf, path matching no rule, ms (patterns compiled)": medianMs(() =>
    ownersOf(file, "nowhere/at/all.txt"),
  ),
  "100k lines: ownersOf, path matching rule 1, ms": medianMs(() => ownersOf(file, "services/svc-0/a.ts")),
  "3 MB on one line: parse ms": medianMs(() => parseCodeowners(oneLine)),
  "3 MB of arbitrary characters: parse ms": medianMs(() => parseCodeowners(noise)),
  "`*a` x30 then `*b` against 20,000 characters: ms": medianMs(() =>
    matchesPattern(`${"*a".repeat(30)}*b`, "a".repeat(20_000)),
  ),
  "`**/a/` x20 then `b` against 2,000 segments: ms": medianMs(() =>
    matchesPattern(`${"**/a/".repeat(20)}b`, `${"a/".repeat(2_000)}c`),
  ),
};
console.log(JSON.stringify(figures, null, 2));
