/** The publish verbs' plans (src/commands/verbs/publish.ts). */
import { describe, expect, it } from "vitest";
import { parseCommand } from "../../../src/commands/index.js";
import {
  planPublish,
  planPublishScan,
  type PublishCommand,
  type PublishScanCommand,
} from "../../../src/commands/verbs/publish.js";
import { DETAIL, input, parsed } from "../../support/verbs.js";

describe("publish plan", () => {
  it("publish: the target finding, without a password", () => {
    const plan = planPublish(input(parsed("/diffward publish SC-01234567", "publish") as PublishCommand));
    expect(plan).toEqual({ findingId: DETAIL.id, label: "SC-01234567", withPassword: false });
  });
});

describe("publish scan plan", () => {
  it("publish scan: the last reported scan, never with a password; nothing without a report", () => {
    const cmd = parsed("/diffward publish scan", "publish-scan") as PublishScanCommand;
    expect(planPublishScan(input(cmd), { scanId: "scan_9", headSha: "abcdef1234" })).toEqual({
      kind: "publish",
      scanId: "scan_9",
      headSha: "abcdef1234",
      withPassword: false,
    });
    expect(planPublishScan(input(cmd), undefined)).toMatchObject({ kind: "answer" });
    // "publish" followed by a finding label is still the finding verb
    expect(parseCommand("/diffward publish SC-01234567", "conversation").kind).toBe("publish");
  });
});
