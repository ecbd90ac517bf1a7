/**
 * Spec operations reachable from the pull request, end to end through the app, the
 * sandbox over HTTP and the GitHub stand-in: `/diffward publish scan`, `/diffward areas add|remove`,
 * `/diffward guidance`. Each has a permission floor, a clear answer, and sends what the spec says.
 */
import { describe, expect, it } from "vitest";
import type { Harness } from "../../dev/harness/harness.js";
import type { ReportedPull } from "../support/reported-pull.js";
import { openConfiguredPull, sandboxCalls, sayIn, useCommandHarness, WRITER } from "../support/commands.js";

const MAINTAINER = "octo-maintainer";
const READER = "octo-reader";

let h: Harness;
useCommandHarness((started) => (h = started), { publicUrl: "https://scanner.example" });

let nextPull = 600;
async function pull(config = ""): Promise<ReportedPull> {
  nextPull += 1;
  return openConfiguredPull(
    h,
    nextPull,
    { [WRITER]: "write", [MAINTAINER]: "maintain", [READER]: "read" },
    config,
  );
}

const say = async (pr: ReportedPull, body: string, login = WRITER) =>
  (await sayIn(h, pr, body, login)).answer;
const calls = (key: string) => sandboxCalls(h, key);
const PUBLISH_SCAN = "POST /projects/:projectId/scans/:scanId/publish";
const ADD_AREA = "POST /projects/:projectId/repositories/:repositoryId/audit-areas";
const REMOVE_AREA = "DELETE /projects/:projectId/repositories/:repositoryId/audit-areas/:areaKey";

/** Gives the harness's service token exactly `scopes` and makes diffward read `GET /token` again. */
function setScopes(scopes: string[]): void {
  h.sandbox.state.tokens.get("sandbox-token")!.scopes = scopes as never;
  h.booted.rt.scanner.invalidate();
}

describe("/diffward publish scan", () => {
  it("publishes the last reported scan, answers with its public URL and never a password; floor commands.publishPermission", async () => {
    const pr = await pull("commands:\n  publishPermission: maintain");
    const before = calls(PUBLISH_SCAN);
    const refused = await say(pr, "/diffward publish scan", WRITER);
    expect(refused).toContain("needs at least the `maintain` permission");
    expect(refused).toContain("commands.publishPermission");
    expect(calls(PUBLISH_SCAN)).toBe(before);

    const answer = await say(pr, "/diffward publish scan", MAINTAINER);
    expect(calls(PUBLISH_SCAN)).toBe(before + 1);
    const scanId = [...h.sandbox.state.scans.values()].find((s) => s.commitHash === pr.headSha)!.id;
    const published = h.sandbox.state.published.filter((p) => p.kind === "scan" && p.targetId === scanId);
    expect(published).toHaveLength(1);
    expect(published[0]!.accessPassword).toBeNull(); // withPassword: false
    expect(answer).toContain(`Published scan \`${scanId}\``);
    expect(answer).toContain(`https://scanner.example/public/scans/${published[0]!.publicId}`);
    expect(answer).toContain("never asks for an access password");
  });

  it("is off on a public repository unless commands.publishPermission is set", async () => {
    const pr = await pull();
    const before = calls(PUBLISH_SCAN);
    const answer = await say(pr, "/diffward publish scan", MAINTAINER);
    expect(answer).toContain("Publishing is off on this public repository");
    expect(calls(PUBLISH_SCAN)).toBe(before);
  });
});

describe("/diffward areas add | remove", () => {
  it("adds and removes a custom area; a discovered area's 409 is explained; a reader is refused", async () => {
    const pr = await pull();
    const repo = h.sandbox.state.repo("repo_demo");

    const reader = await say(pr, "/diffward areas add Billing: invoices", READER);
    expect(reader).toContain("needs at least the `write` permission");
    expect(calls(ADD_AREA)).toBe(0);

    const added = await say(pr, "/diffward areas add Billing: invoices, payment webhooks and refunds");
    expect(calls(ADD_AREA)).toBe(1);
    const area = repo.areas.get("billing")!;
    expect(area).toMatchObject({
      name: "Billing",
      description: "invoices, payment webhooks and refunds",
      source: "custom",
    });
    expect(added).toContain("Added the custom audit area `billing`");
    expect(await say(pr, "/diffward areas")).toContain("`billing`");

    const discovered = await say(pr, "/diffward areas remove legacy-admin");
    expect(calls(REMOVE_AREA)).toBe(1);
    expect(discovered).toContain("was **discovered** by the scanning service's map");
    expect(discovered).toContain("only custom areas can be removed");
    expect(repo.areas.has("legacy-admin")).toBe(true);

    const removed = await say(pr, "/diffward areas remove billing");
    expect(removed).toContain("Removed the custom audit area `billing`");
    expect(repo.areas.has("billing")).toBe(false);

    const unknown = await say(pr, "/diffward areas remove billing");
    expect(unknown).toContain("has no audit area `billing`");
  });

  it("without the token's guidance:write scope, nothing is sent and the answer says which scope is missing", async () => {
    const pr = await pull();
    const all = [...h.sandbox.state.tokens.get("sandbox-token")!.scopes];
    try {
      setScopes(all.filter((s) => s !== "guidance:write"));
      const before = calls(ADD_AREA);
      const answer = await say(pr, "/diffward areas add Reports: CSV exports");
      expect(answer).toContain("does not have the `guidance:write` scope");
      expect(calls(ADD_AREA)).toBe(before);
      expect(h.sandbox.state.repo("repo_demo").areas.has("reports")).toBe(false);
    } finally {
      setScopes(all);
    }
  });
});

describe("/diffward guidance", () => {
  it("shows the stored guidance's size and latest revision and which layers apply", async () => {
    const pr = await pull();
    const empty = await say(pr, "/diffward guidance");
    expect(empty).toContain("2. **Stored guidance** of repository `repo_demo`: none stored");
    expect(empty).toContain("1. **Committed file** `SCANNER.md`");
    expect(empty).toContain("3. **Per-scan guidance**: none");

    const res = await fetch(`${h.sandbox.url}/projects/prj_demo/repositories/repo_demo/guidance`, {
      method: "PUT",
      headers: { authorization: "Bearer sandbox-token", "content-type": "application/json" },
      body: JSON.stringify({ content: "Payments code matters most." }),
    });
    expect(res.status).toBe(200);
    const { revisionId } = (await res.json()) as { revisionId: string };
    const stored = await say(pr, "/diffward guidance");
    expect(stored).toContain(
      `2. **Stored guidance** of repository \`repo_demo\`: **applies**: 27 characters, latest revision \`${revisionId}\``,
    );
  });
});
