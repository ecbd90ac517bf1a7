/**
 * The check run's details (`output.text`, `disclosure: full`) carry the description and recommended fix of
 * every open finding whose detail the report fetched (the ones shown inline), made safe; the other open
 * findings say where to read theirs; no detail is fetched for them. Recomputes (a `/fp` reply that posts a
 * fresh check run, a conversation command that updates the run in place) keep the same text, from the
 * report state in Redis. `disclosure: summary` shows none of it. End to end: the real app on Redis, the
 * sandbox over HTTP, the GitHub stand-in.
 */
import { describe, expect, it } from "vitest";
import type { Harness } from "../../dev/harness/harness.js";
import { demoConfig } from "../../dev/harness/demo-repo.js";
import { webhookExample } from "../../dev/harness/examples.js";
import type { ScenarioInput } from "../../dev/sandbox/schemas.js";
import { ZWSP } from "../../src/render/escape.js";
import { findingLabel } from "../../src/scanner/labels.js";
import {
  currentCheckRun,
  openReportedPull,
  type ReportedPull,
  SECRET,
  TRIAGE_SCENARIO,
} from "../support/reported-pull.js";
import { replyTo, sandboxCalls, sayIn, useCommandHarness, WRITER } from "../support/commands.js";
import { DIFFWARD_HTML, hazards } from "../support/markdown.js";

const PUBLIC_URL = "https://scanner.example";
const GET_DETAIL = "GET /projects/:projectId/findings/:findingId";

const LEGACY = "Prototype pollution in legacy merge helper";
const PIN = "Dependency pins a vulnerable version";

/** Untrusted service text: a mention, a cross-reference, raw HTML, and code that must stay exact. */
const SQLI_DESCRIPTION = [
  "`findUser` concatenates `req.query.name` into SQL. Reported by @octocat in #12 <img src=x onerror=alert(1)>.",
  "",
  "```js",
  'const sql = "SELECT * FROM users WHERE name = \'" + name + "\'";',
  "```",
].join("\n");
const SQLI_FIX = [
  "Use a parameterized query (ping @security-team):",
  "",
  "```js",
  'db.query("SELECT * FROM users WHERE name = $1", [name]);',
  "```",
].join("\n");

const SCENARIO: ScenarioInput = {
  name: "details",
  spendCredits: 10,
  findings: [
    // the triage scenario's two blocking findings, with the long texts this test reads
    { ...TRIAGE_SCENARIO.findings![0]!, description: SQLI_DESCRIPTION, recommendedFix: SQLI_FIX },
    {
      ...TRIAGE_SCENARIO.findings![1]!,
      description: "The session secret is the literal `keyboard cat`.",
      recommendedFix: "Read it from `SESSION_SECRET`.",
    },
    {
      // outside the pull request's diff: no review comment, so no detail is fetched for it
      title: LEGACY,
      location: "lib/legacy.js:40",
      severity: "MEDIUM",
      category: "prototype-pollution",
      description: "LEGACY-DESCRIPTION-NOT-FETCHED",
      recommendedFix: "LEGACY-FIX-NOT-FETCHED",
    },
    {
      // no line: no annotation, so deciding on it leaves the annotations as they are (update in place)
      title: PIN,
      location: "module Foo",
      severity: "LOW",
      category: "dependencies",
      description: "PIN-DESCRIPTION-NOT-FETCHED",
    },
  ],
};

let h: Harness;
useCommandHarness((started) => (h = started), { publicUrl: PUBLIC_URL, scenario: SCENARIO });

const sqliDescriptionShown = "`findUser` concatenates `req.query.name` into SQL. Reported by @";
const sqliCode = 'const sql = "SELECT * FROM users WHERE name = \'" + name + "\'";';
const fixCode = 'db.query("SELECT * FROM users WHERE name = $1", [name]);';

/** The parts of the check run's text that must survive every recompute. */
function expectSqliDetails(text: string | null): void {
  expect(text).toBeTruthy();
  const t = text!;
  expect(t).toContain(sqliDescriptionShown);
  expect(t).toContain(`@${ZWSP}octocat`); // the mention is broken
  expect(t).toContain(`#${ZWSP}12`); // so is the cross-reference
  expect(t).toContain("\\<img src=x onerror=alert(1)>"); // raw HTML shown as text
  expect(t).toContain(`\`\`\`js\n${sqliCode}\n\`\`\``); // code kept byte for byte
  expect(t).toContain("**Recommended fix**");
  expect(t).toContain(`ping @${ZWSP}security-team`);
  expect(t).toContain(`\`\`\`js\n${fixCode}\n\`\`\``);
  expect(hazards(t, PUBLIC_URL, { html: DIFFWARD_HTML })).toEqual([]);
}

function section(text: string, label: string): string {
  const start = text.indexOf(label);
  expect(start).toBeGreaterThan(-1);
  const end = text.indexOf("\n---\n", start);
  return text.slice(start, end === -1 ? undefined : end);
}

describe("the check run's details: description and fix of the inline findings, kept on recomputes", () => {
  let pr: ReportedPull;

  it("the completed check run shows what was fetched, safely, and points elsewhere for the rest", async () => {
    const detailsBefore = sandboxCalls(h, GET_DETAIL);
    pr = await openReportedPull(h, 301, { [WRITER]: "write" });
    // only the findings shown inline cost a detail request (SQLI and SECRET)
    expect(pr.comments.size).toBe(2);
    expect(sandboxCalls(h, GET_DETAIL) - detailsBefore).toBe(2);

    const run = await currentCheckRun(h, pr);
    expectSqliDetails(run.output.text);
    const text = run.output.text!;
    expect(text).toContain("The session secret is the literal `keyboard cat`.");
    expect(text).toContain("Read it from `SESSION_SECRET`.");
    // not fetched: never shown, and the entry says where to read it
    expect(text).not.toContain("NOT-FETCHED");
    const legacy = findingLabel(pr.byTitle.get(LEGACY)!, "SC");
    const legacyUrl = `${PUBLIC_URL}/projects/`;
    expect(section(text, legacy)).toContain(
      "_Description and recommended fix: see [its page in the scanning service](" + legacyUrl,
    );
    expect(section(text, legacy)).not.toContain("review comment");
    expect(h.github.violations()).toEqual([]);
  });

  it("a /fp reply (a fresh check run) keeps the description and fix of the others", async () => {
    const beforeId = (await currentCheckRun(h, pr)).id;
    await replyTo(h, pr, SECRET, "/fp not_reachable");
    const after = await currentCheckRun(h, pr);
    expect(after.id).not.toBe(beforeId); // the ruled out finding's annotation had to go
    expectSqliDetails(after.output.text);
    expect(after.output.text).not.toContain("keyboard cat"); // ruled out: no longer among the open ones
    expect(after.output.text).not.toContain("NOT-FETCHED");
  });

  it("a conversation command that updates the run in place keeps them too", async () => {
    const before = await currentCheckRun(h, pr);
    const [beforeId, beforeSummary] = [before.id, before.output.summary]; // the stand-in's run changes in place
    const said = await sayIn(
      h,
      pr,
      `/diffward severity ${findingLabel(pr.byTitle.get(PIN)!)} medium`,
      WRITER,
    );
    expect(said.answer).toContain("set to **Medium**");
    const after = await currentCheckRun(h, pr);
    expect(after.id).toBe(beforeId); // same annotations: the run was updated in place
    expect(after.output.summary).not.toBe(beforeSummary); // and it was updated
    expectSqliDetails(after.output.text);
    const pin = findingLabel(pr.byTitle.get(PIN)!, "SC");
    expect(section(after.output.text!, pin)).toContain("its page in the scanning service");
    expect(after.output.text).not.toContain("NOT-FETCHED");
    // every check-run PATCH with an output carried the details (none left `text` out)
    const patches = h.github.requests.filter(
      (r) =>
        r.operationId === "checks/update" &&
        r.path === `/repos/${pr.owner}/${pr.repo}/check-runs/${after.id}` &&
        (r.body as { output?: unknown }).output !== undefined,
    );
    expect(patches.length).toBeGreaterThan(0);
    for (const p of patches) expect((p.body as { output: { text?: string } }).output.text).toBeTruthy();
  });
});

describe("disclosure: summary shows none of it", () => {
  it("no details text; no description or fix in the summary", async () => {
    const p = await openSummaryPull(302);
    const run = await currentCheckRun(h, p);
    expect(run.output.text ?? null).toBeNull();
    for (const secret of ["findUser", "parameterized", "keyboard cat", "SESSION_SECRET", "NOT-FETCHED"])
      expect(run.output.summary).not.toContain(secret);
  });
});

/** Opens a pull request of the same repository with `disclosure: summary` in its config. */
async function openSummaryPull(pullNumber: number): Promise<ReportedPull> {
  const p = webhookExample("pull_request", "opened") as {
    repository: { owner: { login: string }; name: string; default_branch: string };
  };
  const config = demoConfig().replace("disclosure: full", "disclosure: summary");
  expect(config).toContain("disclosure: summary");
  // the stand-in keeps the repository's files from its first seed (the pull request above)
  h.github.state.setFile(
    p.repository.owner.login,
    p.repository.name,
    p.repository.default_branch,
    ".github/diffward.yml",
    config,
  );
  return openReportedPull(h, pullNumber, { [WRITER]: "write" });
}
