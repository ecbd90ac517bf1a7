import { describe, expect, it } from "vitest";
import { expiryStage } from "../../../src/triage/job/acceptance-expiry.js";
import type { Decision } from "../../../src/domain/decision.js";
import { acceptance } from "../../support/finding.js";

const ACCEPTED = acceptance({ expiryId: "expiry-1" });
const ENDED: Decision = {
  ...ACCEPTED,
  resolutionStatus: "NOT_STARTED",
  expiresAt: undefined,
  expiryId: undefined,
  endedExpiryId: "expiry-1",
};
const RENEWED: Decision = { ...ACCEPTED, expiresAt: "2026-05-01T00:00:00.000Z", expiryId: "expiry-2" };
const SENT = { decision: JSON.stringify(ACCEPTED), resolution: "1", note: "1", ended: "1" };

describe("where an expiry stands in its pull request's decisions", () => {
  it("is due while the finding's decision carries it", () => {
    expect(expiryStage([ACCEPTED], "expiry-1", {})).toEqual({ stage: "due", decision: ACCEPTED });
  });

  it("is ended, with the accepted decision of its record, while the decision is the one it recorded and not yet reflected", () => {
    expect(expiryStage([ENDED], "expiry-1", SENT)).toEqual({ stage: "ended", decision: ACCEPTED });
    expect(expiryStage([ENDED], "expiry-1", { ...SENT, reflected: "1" })).toBeUndefined();
  });

  it("is gone once a later decision of the finding replaced it (a renewal, a reopening), before or after it ended", () => {
    expect(expiryStage([RENEWED], "expiry-1", {})).toBeUndefined();
    expect(expiryStage([RENEWED], "expiry-1", SENT)).toBeUndefined();
    expect(expiryStage([{ ...ENDED, endedExpiryId: undefined }], "expiry-1", SENT)).toBeUndefined();
    expect(expiryStage([], "expiry-1", SENT)).toBeUndefined();
  });
});
