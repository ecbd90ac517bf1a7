/**
 * The organization floor on the real stack (Redis, the sandbox over HTTP, the GitHub stand-in): the
 * organization's `.github` repository's `.github/diffward.yml` holds `enforce:`; a pull request of a
 * repository with its own file (no `_extends`) is decided under the raised values, its check run's summary
 * names each with the organization's file, and the audit trail keeps them. An invalid floor is a
 * configuration error: the check run names the problem and its line, nothing is launched.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../../dev/harness/harness.js";
import { demoConfig } from "../../dev/harness/demo-repo.js";
import { createOrgPageDeps, loadInstallationPage } from "../../src/org-page/page-data.js";
import { renderInstallationPage } from "../../src/org-page/render-page.js";
import { completedRun, openPull, seedPull, sha } from "../support/pr.js";

const FILE = ".github/diffward.yml";

describe("organization floor (enforce:)", () => {
  let h: Harness;
  let n = 0;

  beforeAll(async () => {
    h = await startHarness({ sandbox: { scenario: "demo", scanDurationMs: () => 1_000, seed: 35 } });
  });
  afterAll(async () => h?.close());

  /** An organization of its own (installation `id`), its `.github` repository holding `orgFile`. */
  function organization(login: string, id: number, orgFile: string) {
    // seeding a first pull request creates the installation; the `.github` repository joins it
    const first = seedPull(h, {
      head: sha(3500 + id),
      repo: `seed-${id}`,
      owner: { login, type: "Organization" },
      installationId: id,
    });
    h.github.state.addRepository({
      owner: login,
      name: ".github",
      installationId: id,
      files: { main: { [FILE]: orgFile } },
    });
    return first;
  }
  const pullIn = (login: string, id: number, config: string | null) =>
    openPull(h, {
      head: sha(3600 + ++n),
      repo: `floored-${n}`,
      owner: { login, type: "Organization" },
      installationId: id,
      config,
    });

  /** The audit trail of a repository, oldest first. */
  async function auditOf(pr: { owner: string; repo: string }) {
    const audit = [];
    for await (const e of h.booted.rt.stores.audit.read({ repository: `${pr.owner}/${pr.repo}` }))
      audit.push(e);
    return audit;
  }

  it("raises a looser failOn to the floor's, names it and the organization file in the summary, and audits it", async () => {
    organization("floor-org", 9351, "enforce:\n  failOn: medium\n  forks: approve\n");
    const pr = await pullIn("floor-org", 9351, demoConfig().replace("failOn: high", "failOn: critical"));
    const run = await completedRun(h, pr.owner, pr.repo, sha(3600 + n));
    expect(run.output.summary).toContain(
      "Organization floor: `failOn.severity` raised from `critical` to `medium` by floor-org/.github:.github/diffward.yml.",
    );
    // the effective policy names the floor as the source of each raised value, and the file it came from
    expect(run.output.summary).toContain(
      "| `failOn` | `medium` | organization floor (floor-org/.github:.github/diffward.yml): severity raised from critical (repository file (.github/diffward.yml)) |",
    );
    expect(run.output.summary).toContain("| `mode` | `enforce` | default |");

    expect(await auditOf(pr)).toEqual([
      expect.objectContaining({
        action: "floor-raise",
        source: "org-floor",
        outcome: "applied",
        pullNumber: pr.number,
        from: "critical",
        to: "medium",
        detail: "failOn.severity",
        reason: "failOn.severity raised to the organization floor of floor-org/.github:.github/diffward.yml",
      }),
    ]);
  });

  it("keeps a stricter repository's own value: nothing raised, nothing named", async () => {
    const pr = await pullIn(
      "floor-org",
      9351,
      demoConfig().replace("failOn: high", "failOn: low") + "forks: skip\n",
    );
    const run = await completedRun(h, pr.owner, pr.repo, sha(3600 + n));
    expect(run.output.summary).not.toContain("Organization floor");
    expect(await auditOf(pr)).toEqual([]);
  });

  it("the organization's page shows each repository's effective policy, floor raised or not", async () => {
    const deps = createOrgPageDeps(h.booted.rt, {
      accountOf: async () => "floor-org",
      githubUrl: "https://github.com",
      outsideBudgetMs: 10_000,
    });
    const page = await loadInstallationPage(deps, 9351, { orgWide: true, repositories: "all" });
    // the repositories whose pull request events were decided (the seeding one sent none)
    expect(page.problems.policies).toEqual([
      expect.objectContaining({
        repository: "floor-org/floored-1",
        mode: "enforce",
        failOn: "medium",
        raised: ["failOn.severity"],
      }),
      expect.objectContaining({
        repository: "floor-org/floored-2",
        mode: "enforce",
        failOn: "low",
        raised: [],
      }),
    ]);
    const html = renderInstallationPage(page, { user: "floor-org", logoutPath: "/logout" });
    expect(html).toContain("<h3>Effective policy</h3>");
    expect(html).toContain("raised: <code>failOn.severity</code>");
    expect(html).toContain("not raised");
  });

  it("a repository without its own file: the summary names the organization's file as the source of each part, and the floor's raised values", async () => {
    organization(
      "fallback-org",
      9353,
      demoConfig('policies:\n  - paths: ["test/**"]\n    mode: monitor\nmode: evaluate') +
        "\nenforce:\n  triage:\n    maxAcceptanceDays: 90\n",
    );
    const pr = await pullIn("fallback-org", 9353, null);
    const run = await completedRun(h, pr.owner, pr.repo, sha(3600 + n));
    const org = "organization file (fallback-org/.github:.github/diffward.yml)";
    expect(run.output.summary).toContain(`| \`failOn\` | \`high\` | ${org} |`);
    expect(run.output.summary).toContain(`| \`policies[0]\` | \`test/** → monitor\` | ${org} |`);
    expect(run.output.summary).toContain(`| \`mode\` | \`evaluate\` | ${org} |`);
    // a raised value outside the policy's own keys is a part of its own, named with the floor's file
    expect(run.output.summary).toContain(
      "| `triage.maxAcceptanceDays` | `90` | organization floor (fallback-org/.github:.github/diffward.yml): raised from 365 |",
    );
    expect(await auditOf(pr)).toEqual([
      expect.objectContaining({
        action: "floor-raise",
        detail: "triage.maxAcceptanceDays",
        from: "365",
        to: "90",
      }),
    ]);
  });

  it("an enforce key outside the list fails the check run with the problem and its line, and launches nothing", async () => {
    organization("bad-floor-org", 9352, "enforce:\n  failOn: high\n  mode: evaluate\n");
    const before = h.sandbox.state.scans.size;
    const pr = await pullIn("bad-floor-org", 9352, demoConfig());
    const run = await completedRun(h, pr.owner, pr.repo, sha(3600 + n));
    expect(run.conclusion).toBe("failure");
    expect(run.output.summary).toContain("bad-floor-org/.github:.github/diffward.yml");
    expect(run.output.summary).toContain("enforce.mode (line 3)");
    expect(run.output.summary).toContain('unknown key "mode"');
    expect(h.sandbox.state.scans.size).toBe(before);
  });
});
