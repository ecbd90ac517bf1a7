import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import {
  dismissalReasonFor,
  planAlertEvent,
  planAlertUpdate,
  resolutionForDismissal,
  type AlertEvent,
} from "../../src/code-scanning/alert-mapping.js";
import { alertNamesFinding } from "../../src/code-scanning/alert-sync.js";
import { toCodeScanningAlert } from "../../src/github/code-scanning.js";

// Real `code_scanning_alert` payloads (GitHub's own examples).
const require = createRequire(import.meta.url);
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- raw webhook payloads
type Payload = any;
const groups = require("@octokit/webhooks-examples/api.github.com/index.json") as Array<{
  name: string;
  examples: Payload[];
}>;
function example(action: string): Payload {
  const e = groups.find((g) => g.name === "code_scanning_alert")!.examples.find((x) => x.action === action);
  return structuredClone(e);
}

/** The job's view of a payload, as the handler builds it. */
function eventOf(p: Payload): AlertEvent {
  return {
    action: p.action,
    toolName: p.alert.tool?.name ?? null,
    senderLogin: p.sender.login,
    senderType: p.sender.type ?? null,
    dismissedReason: p.alert.dismissed_reason ?? null,
    dismissedComment: p.alert.dismissed_comment ?? null,
  };
}

describe("GitHub → service: planAlertEvent", () => {
  it("a person's closed_by_user on a diffward alert sets the mapped resolution with login and comment", () => {
    const p = example("closed_by_user");
    expect(p.alert.dismissed_reason).toBe("false positive"); // the real example
    p.alert.tool.name = "diffward";
    p.alert.dismissed_comment = "Only reachable from @admin tooling <b>here</b>";
    const plan = planAlertEvent(eventOf(p));
    expect(plan).toMatchObject({ kind: "set", target: { resolutionStatus: "FALSE_POSITIVE" } });
    if (plan.kind !== "set") return;
    expect(plan.note).toContain("`Codertocat`");
    expect(plan.note).toContain('"false positive"');
    expect(plan.note).toContain("Only reachable from");
    expect(plan.note).not.toMatch(/@[A-Za-z]/); // the comment cannot mention anyone
    expect(plan.note).not.toContain("<b>");
  });

  it("maps every GitHub dismissal reason as the issue says", () => {
    expect(resolutionForDismissal("false positive")).toEqual({ resolutionStatus: "FALSE_POSITIVE" });
    expect(resolutionForDismissal("won't fix")).toEqual({ resolutionStatus: "WONT_FIX" });
    expect(resolutionForDismissal("used in tests")).toEqual({
      resolutionStatus: "WONT_FIX",
      reason: "out_of_scope",
    });
    expect(resolutionForDismissal(null)).toBeUndefined();
    expect(resolutionForDismissal("mitigated")).toBeUndefined();
  });

  it("reopened_by_user → NOT_STARTED", () => {
    const p = example("reopened");
    p.action = "reopened_by_user";
    p.alert.tool.name = "diffward";
    p.sender = { login: "octo-dev", type: "User" };
    expect(planAlertEvent(eventOf(p))).toMatchObject({
      kind: "set",
      target: { resolutionStatus: "NOT_STARTED" },
    });
  });

  it("ignores other tools, other actions and diffward's own changes (no loop)", () => {
    expect(planAlertEvent(eventOf(example("closed_by_user")))).toMatchObject({ kind: "ignore" }); // Anchore
    for (const action of ["created", "fixed", "reopened"]) {
      const p = example(action);
      p.alert.tool.name = "diffward";
      expect(planAlertEvent(eventOf(p)).kind).toBe("ignore");
    }
    const echo = example("closed_by_user");
    echo.alert.tool.name = "diffward";
    echo.sender = { login: "diffward[bot]", type: "Bot" };
    expect(planAlertEvent(eventOf(echo))).toMatchObject({
      kind: "ignore",
      why: expect.stringContaining("bot"),
    });
    const marked = example("closed_by_user");
    marked.alert.tool.name = "diffward";
    marked.alert.dismissed_comment = "diffward: resolution False positive set from the pull request";
    expect(planAlertEvent(eventOf(marked)).kind).toBe("ignore");
  });
});

describe("service → GitHub: planAlertUpdate", () => {
  it("a closing resolution dismisses an open alert once, with the mapped reason and a diffward comment", () => {
    const plan = planAlertUpdate({ state: "open" }, { resolutionStatus: "FALSE_POSITIVE", by: "octo-dev" });
    expect(plan).toEqual({
      kind: "dismiss",
      reason: "false positive",
      comment: "diffward: resolution False positive set from the pull request by GitHub user octo-dev.",
    });
    expect(
      planAlertUpdate({ state: "dismissed" }, { resolutionStatus: "FALSE_POSITIVE", by: "x" }).kind,
    ).toBe("none");
    expect(planAlertUpdate({ state: "fixed" }, { resolutionStatus: "WONT_FIX", by: "x" }).kind).toBe("none");
  });
  it("/reopen reopens a dismissed alert; IN_PROGRESS changes nothing", () => {
    expect(planAlertUpdate({ state: "dismissed" }, { resolutionStatus: "NOT_STARTED", by: "x" })).toEqual({
      kind: "reopen",
    });
    expect(planAlertUpdate({ state: "open" }, { resolutionStatus: "NOT_STARTED", by: "x" }).kind).toBe(
      "none",
    );
    expect(planAlertUpdate({ state: "open" }, { resolutionStatus: "IN_PROGRESS", by: "x" }).kind).toBe(
      "none",
    );
  });
  it("maps every closing resolution to a reason GitHub's webhook schema knows", () => {
    expect(dismissalReasonFor("FALSE_POSITIVE")).toBe("false positive");
    for (const s of ["WONT_FIX", "RESOLVED", "MITIGATED", "DUPLICATE"])
      expect(dismissalReasonFor(s)).toBe("won't fix");
    expect(dismissalReasonFor("IN_PROGRESS")).toBeUndefined();
  });
  it("finds the alert of a finding by the id or label in its message", () => {
    const alert = toCodeScanningAlert({
      number: 3,
      most_recent_instance: {
        message: { text: "SC-1a2b3c4d: SQL injection (diffward finding fnd_01HX1a2b3c4d)" },
      },
    });
    expect(alertNamesFinding(alert, "fnd_01HX1a2b3c4d")).toBe(true);
    expect(alertNamesFinding(alert, "fnd_01HY1a2b3c4d")).toBe(false);
    const labelOnly = toCodeScanningAlert({
      number: 4,
      most_recent_instance: { message: { text: "SC-1a2b3c4d: x" } },
    });
    expect(alertNamesFinding(labelOnly, "fnd_01HY1a2b3c4d")).toBe(true);
  });
});
