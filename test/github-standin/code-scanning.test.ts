import { gzipSync } from "node:zlib";
import { Octokit } from "@octokit/rest";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startGitHubStandIn, type GitHubStandIn } from "../../dev/github-standin/index.js";
import { encodeSarif } from "../../src/code-scanning/sarif-log.js";
import type { ReportFinding } from "../../src/domain/finding-types.js";
import { nthFinding } from "../support/finding.js";

const FAKE_JWT = "eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOjF9.c2lnbmF0dXJl";
const HEAD = "a".repeat(40);
const HEAD2 = "d".repeat(40);
const quiet = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };
const repo = { owner: "octo-org", repo: "app" };

let sb: GitHubStandIn;
let gh: Octokit;

const sarifOf = (findings: ReportFinding[], headSha = HEAD) =>
  encodeSarif({ findings, labelPrefix: "SC", toolVersion: "0.1.0", headSha, scanId: "s1" }).sarif;

async function refusal(p: Promise<unknown>): Promise<number> {
  const e = await p.then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(e).toBeInstanceOf(Error);
  return (e as { status: number }).status;
}

beforeEach(async () => {
  sb = await startGitHubStandIn();
  sb.state.addInstallation({ id: 42, account: { login: "octo-org", type: "Organization" } });
  sb.state.addRepository({ owner: "octo-org", name: "app", installationId: 42, private: true });
  const app = new Octokit({ baseUrl: sb.url, auth: FAKE_JWT, log: quiet });
  const { data } = await app.apps.createInstallationAccessToken({ installation_id: 42 });
  gh = new Octokit({ baseUrl: sb.url, auth: data.token, log: quiet });
});
afterEach(async () => sb.close());

describe("GitHub stand-in: code scanning", () => {
  it("accepts a SARIF upload, turns each result into an alert and serves list/get/update", async () => {
    const upload = await gh.codeScanning.uploadSarif({
      ...repo,
      commit_sha: HEAD,
      ref: "refs/pull/7/head",
      sarif: sarifOf([nthFinding(1, { location: "src/a.ts:3" }), nthFinding(2, { location: "src/b.ts" })]),
      tool_name: "diffward",
    });
    expect(upload.status).toBe(202);
    expect(upload.data.id).toBeTruthy();
    expect(sb.state.sarifUploads("octo-org", "app")).toHaveLength(1);

    const { data: alerts } = await gh.codeScanning.listAlertsForRepo({
      ...repo,
      tool_name: "diffward",
      ref: "refs/pull/7/head",
    });
    expect(alerts.map((a) => a.state)).toEqual(["open", "open"]);
    const first = alerts.find((a) => a.most_recent_instance.message?.text?.includes(nthFinding(1).id))!;
    expect(first.rule.id).toBe("injection");
    expect(first.rule.security_severity_level).toBe("high");
    expect(first.most_recent_instance.location).toMatchObject({ path: "src/a.ts", start_line: 3 });
    expect(first.most_recent_instance.commit_sha).toBe(HEAD);

    expect((await gh.codeScanning.getAlert({ ...repo, alert_number: first.number })).data.number).toBe(
      first.number,
    );
    // dismissing needs a reason, as on GitHub
    expect(
      await refusal(gh.codeScanning.updateAlert({ ...repo, alert_number: first.number, state: "dismissed" })),
    ).toBe(422);
    const { data: dismissed } = await gh.codeScanning.updateAlert({
      ...repo,
      alert_number: first.number,
      state: "dismissed",
      dismissed_reason: "false positive",
      dismissed_comment: "diffward: test",
    });
    expect(dismissed).toMatchObject({ state: "dismissed", dismissed_reason: "false positive" });
    expect(dismissed.dismissed_by?.login).toBe("diffward[bot]");
    // the only request GitHub would refuse is the dismissal without a reason
    expect(sb.violations().map((v) => `${v.method} ${v.status}`)).toEqual(["PATCH 422"]);
    expect((await gh.codeScanning.listAlertsForRepo({ ...repo, tool_name: "other" })).data).toHaveLength(0);
  });

  it("matches results across uploads by fingerprint: numbers and dismissals survive, missing ones are fixed", async () => {
    const a = nthFinding(1);
    const b = nthFinding(2, { location: "src/b.ts:9", category: "secrets" });
    await gh.codeScanning.uploadSarif({
      ...repo,
      commit_sha: HEAD,
      ref: "refs/pull/7/head",
      sarif: sarifOf([a, b]),
    });
    const [alertB, alertA] = sb.state.codeScanningAlerts("octo-org", "app").slice().reverse();
    await gh.codeScanning.updateAlert({
      ...repo,
      alert_number: alertA!.number,
      state: "dismissed",
      dismissed_reason: "won't fix",
    });
    // the next push: the same finding A under a new id (same fingerprint: path, category, title and start
    // line, src/domain/identity.ts); B is gone
    const a2 = nthFinding(99, { title: a.title, location: a.location });
    await gh.codeScanning.uploadSarif({
      ...repo,
      commit_sha: HEAD2,
      ref: "refs/pull/7/head",
      sarif: sarifOf([a2], HEAD2),
    });
    const alerts = sb.state.codeScanningAlerts("octo-org", "app");
    expect(alerts).toHaveLength(2);
    expect(alertA!.state).toBe("dismissed");
    expect(alertA!.mostRecent.message).toContain(a2.id);
    expect(alertB!.state).toBe("fixed");
  });

  it("refuses SARIF that is not gzip+Base64 or fails the official schema, and records the violation", async () => {
    expect(
      await refusal(
        gh.codeScanning.uploadSarif({
          ...repo,
          commit_sha: HEAD,
          ref: "refs/pull/7/head",
          sarif: "not sarif",
        }),
      ),
    ).toBe(422);
    const bad = gzipSync(Buffer.from(JSON.stringify({ version: "2.1.0", runs: [{ tool: { driver: {} } }] })));
    expect(
      await refusal(
        gh.codeScanning.uploadSarif({
          ...repo,
          commit_sha: HEAD,
          ref: "refs/pull/7/head",
          sarif: bad.toString("base64"),
        }),
      ),
    ).toBe(422);
    expect(sb.violations().map((v) => v.openapiErrors.join(" "))).toEqual([
      expect.stringContaining("not gzip-compressed"),
      expect.stringContaining("required property 'name'"),
    ]);
    // and what GitHub's OpenAPI description refuses: a ref outside refs/(heads|tags|pull)/
    expect(
      await refusal(
        gh.codeScanning.uploadSarif({
          ...repo,
          commit_sha: HEAD,
          ref: "main",
          sarif: sarifOf([nthFinding(1)]),
        }),
      ),
    ).toBe(422);
    expect(sb.state.sarifUploads("octo-org", "app")).toHaveLength(0);
    expect(sb.state.codeScanningAlerts("octo-org", "app")).toHaveLength(0);
  });
});
