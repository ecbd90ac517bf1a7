/** The rescan and cancel verbs' plans (src/commands/verbs/scan.ts). */
import { describe, expect, it } from "vitest";
import {
  planCancel,
  planRescan,
  type CancelCommand,
  type RescanCommand,
} from "../../../src/commands/verbs/scan.js";
import { report, input, parsed } from "../../support/verbs.js";
import { repoConfig } from "../../support/jobs.js";

describe("rescan and cancel plans", () => {
  const open = {
    state: "open",
    draft: false,
    headSha: "abcdef1234567",
    headRef: "f",
    baseRef: "main",
    authorLogin: "a",
  };

  it("a closed pull request is not scanned again", () => {
    const cmd = parsed("/diffward rescan", "rescan") as RescanCommand;
    const plan = planRescan(input(cmd, { config: repoConfig() }), { ...open, state: "closed" });
    expect(plan.enqueue).toBeUndefined();
    expect(plan.answer).toBe("This pull request is closed, so diffward does not scan it again.");
  });

  it("an open one: one rescan keyed by the command comment, with the preset and budget asked", () => {
    const cmd = parsed("/diffward rescan preset=deep budget=40", "rescan") as RescanCommand;
    const plan = planRescan(input(cmd, { config: repoConfig() }), open);
    expect(plan.enqueue).toEqual({
      pull: open,
      nonce: "cmd-4242",
      requestedBy: "octo-writer",
      presetRef: "deep",
      creditBudget: 40,
    });
    expect(plan.answer).toContain("up to **40 credits** will be reserved at launch");
    expect(plan.answer).toContain("with preset `deep`");
  });

  it("without budget= the repository's creditBudget is what is reserved", () => {
    const cmd = parsed("/diffward rescan", "rescan") as RescanCommand;
    const plan = planRescan(input(cmd, { config: repoConfig({ creditBudget: 25 }) }), open);
    expect(plan.enqueue?.creditBudget).toBe(25); // sent with the request, so a preset= override runs with it
    expect(plan.answer).toContain("up to **25 credits**");
  });

  it("a budget= above the repository's creditBudget is refused with a clear answer; at or below it passes", () => {
    const over = parsed("/diffward rescan preset=deep budget=26", "rescan") as RescanCommand;
    const refused = planRescan(input(over, { config: repoConfig({ creditBudget: 25 }) }), open);
    expect(refused.enqueue).toBeUndefined();
    expect(refused.answer).toContain("`budget=26` is above this repository's `creditBudget` of 25 credits");
    expect(refused.answer).toContain("nothing was launched");
    const within = parsed("/diffward rescan budget=25", "rescan") as RescanCommand;
    expect(
      planRescan(input(within, { config: repoConfig({ creditBudget: 25 }) }), open).enqueue?.creditBudget,
    ).toBe(25);
  });

  it("cancel: nothing running, or the running scan already reported, answers only", () => {
    const cmd = parsed("/diffward cancel", "cancel") as CancelCommand;
    expect(planCancel(input(cmd), { scan: undefined, report: undefined })).toEqual({
      answer: "No scan of this pull request is running, so there is nothing to cancel.",
    });
    expect(
      planCancel(input(cmd), { scan: { headSha: "x", scanId: "scan_done", projectId: "p" }, report }),
    ).toHaveProperty("answer");
    expect(
      planCancel(input(cmd), { scan: { headSha: "x", scanId: "scan_2", projectId: "p" }, report }),
    ).toEqual({
      cancel: { projectId: "p", scanId: "scan_2" },
      by: "octo-writer",
    });
  });

  it("cancel: a scan diffward read as ended (its report still to come) is not cancelled", () => {
    const cmd = parsed("/diffward cancel", "cancel") as CancelCommand;
    for (const endedStatus of ["COMPLETED", "FAILED", "CANCELLED"] as const) {
      const scan = { headSha: "x", scanId: "scan_2", projectId: "p", endedStatus };
      expect(planCancel(input(cmd), { scan, report })).toEqual({
        answer: "Scan `scan_2` has already finished, so there is nothing to cancel.",
      });
    }
  });
});
