/**
 * Regression tests of the command path, against the real app on Redis, the sandbox and the
 * GitHub stand-in:
 * - a labelled command replied inside another finding's thread acts on the named finding (the
 *   label wins, and the answer says so), never on the thread's finding;
 * - publishing has its own floor (`commands.publishPermission`, default `admin`, off on public
 *   repositories unless set), and `/diffward rescan budget=` never exceeds the repository's `creditBudget`.
 */
import { describe, expect, it } from "vitest";
import type { Harness } from "../../dev/harness/harness.js";
import { findingLabel } from "../../src/scanner/labels.js";
import { type ReportedPull, sandboxFinding, SQLI, SECRET, RATE } from "../support/reported-pull.js";
import { openConfiguredPull, replyTo, sayIn, useCommandHarness, WRITER } from "../support/commands.js";

const ADMIN = "octo-admin";

let h: Harness;
useCommandHarness((started) => (h = started), { publicUrl: "https://scanner.example" });

let nextPull = 300;
async function pull(configExtra = ""): Promise<ReportedPull> {
  nextPull += 1;
  return openConfiguredPull(h, nextPull, { [ADMIN]: "admin", [WRITER]: "write" }, configExtra);
}

const reply = async (pr: ReportedPull, title: string, body: string, login = WRITER) =>
  (await replyTo(h, pr, title, body, login)).answer;
const say = async (pr: ReportedPull, body: string, login = WRITER) =>
  (await sayIn(h, pr, body, login)).answer;

const publishedIds = () =>
  h.sandbox.state.published.filter((p) => p.kind === "finding").map((p) => p.targetId);

describe("a labelled command inside another finding's thread", () => {
  it("/diffward wontfix SC-<B> under finding A's comment sets B, leaves A, and says so", async () => {
    const pr = await pull();
    const b = pr.byTitle.get(SECRET)!;
    const answer = await reply(pr, SQLI, `/diffward wontfix ${findingLabel(b)} risk_accepted`);
    expect(sandboxFinding(h, pr, SECRET).resolutionStatus).toBe("WONT_FIX");
    expect(sandboxFinding(h, pr, SQLI).resolutionStatus).toBe("NOT_STARTED");
    expect(answer).toContain(`names \`${findingLabel(b)}\`, so diffward acted on that finding`);
    expect(answer).toContain(`not on this thread's finding \`${findingLabel(pr.byTitle.get(SQLI)!)}\``);
  });

  it("/diffward publish SC-<B> under finding A's comment publishes B, never A", async () => {
    const pr = await pull("commands:\n  publishPermission: write");
    const b = pr.byTitle.get(RATE)!;
    const answer = await reply(pr, SQLI, `/diffward publish ${findingLabel(b)}`);
    expect(answer).toContain("public artifact");
    expect(publishedIds()).toContain(b);
    expect(publishedIds()).not.toContain(pr.byTitle.get(SQLI)!);
  });
});

describe("publishing and rescan budgets", () => {
  it("publishing is off on a public repository unless commands.publishPermission is set", async () => {
    const pr = await pull();
    const before = publishedIds().length;
    const answer = await say(pr, `/diffward publish ${findingLabel(pr.byTitle.get(SQLI)!)}`, ADMIN);
    expect(answer).toContain("Publishing is off on this public repository");
    expect(answer).toContain("commands.publishPermission");
    expect(publishedIds().length).toBe(before);
  });

  it("with commands.publishPermission: admin, a writer is refused and an admin publishes", async () => {
    const pr = await pull("commands:\n  publishPermission: admin");
    const id = pr.byTitle.get(SQLI)!;
    const refused = await say(pr, `/diffward publish ${findingLabel(id)}`, WRITER);
    expect(refused).toContain("needs at least the `admin` permission");
    expect(refused).toContain("`commands.publishPermission`");
    expect(publishedIds()).not.toContain(id);
    const ok = await say(pr, `/diffward publish ${findingLabel(id)}`, ADMIN);
    expect(ok).toContain("public artifact");
    expect(publishedIds()).toContain(id);
  });

  it("rescan budget= above the repository's creditBudget is refused and launches nothing", async () => {
    const pr = await pull("creditBudget: 50");
    const scans = h.sandbox.state.scans.size;
    const answer = await say(pr, "/diffward rescan budget=1000000");
    expect(answer).toContain("`budget=1000000` is above this repository's `creditBudget` of 50 credits");
    expect(answer).toContain("nothing was launched");
    await new Promise((r) => setTimeout(r, 1_500));
    expect(h.sandbox.state.scans.size).toBe(scans);
  });
});
