import { randomBytes } from "node:crypto";
import { pino } from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { fingerprint } from "../../src/domain/identity.js";
import { createRedis } from "../../src/runtime/connection.js";
import type { Runtime } from "../../src/runtime/runtime.js";
import { OrgRecords } from "../../src/runtime/org-records.js";
import { StateStore } from "../../src/runtime/state.js";
import {
  claimApprovalRequest,
  dropApprovalRequest,
  readApprovals,
  releaseApprovalClaim,
  storeApprovalRequest,
  type ApprovalRequest,
} from "../../src/triage/approvals.js";

/** The approval store on a real Redis (issue 12 item 1): one approving comment wins a request. */
describe("approval requests store (real Redis)", () => {
  const redis = createRedis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
  const prefix = `{dwt-appr-${randomBytes(3).toString("hex")}}`;
  // the store reaches only the state store and the logger of the runtime
  const rt = { state: new StateStore(redis, prefix), log: pino({ level: "silent" }) } as unknown as Runtime;
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  const finding = { id: "fnd_aaaaaaaa11111111", title: "t", location: "a.js:1", category: "secrets" };
  const identity = { id: finding.id, fingerprint: fingerprint(finding) };
  const request: ApprovalRequest = {
    findingId: finding.id,
    fingerprint: identity.fingerprint,
    severity: "HIGH",
    resolutionStatus: "FALSE_POSITIVE",
    requestedBy: "octo-writer",
    requestedAt: "2026-11-23T00:00:00.000Z",
    approvers: "maintain",
  };

  it("two approving comments at once: exactly one claims, the other is told who has it", async () => {
    const key = "octo/app#1";
    await storeApprovalRequest(rt, key, request);
    const results = await Promise.all(
      [11, 12, 13, 14].map((commentId) =>
        claimApprovalRequest(rt, key, identity, { commentId, by: `m${commentId}` }),
      ),
    );
    const claimed = results.filter((r) => r.kind === "claimed");
    expect(claimed).toHaveLength(1);
    const winner = claimed[0]!.kind === "claimed" ? claimed[0]!.request.claim! : undefined;
    expect(results.filter((r) => r.kind === "busy")).toEqual(Array(3).fill({ kind: "busy", by: winner!.by }));
    // a retry of the winning comment's job goes on; after a release another comment may claim
    expect((await claimApprovalRequest(rt, key, identity, winner!)).kind).toBe("claimed");
    await releaseApprovalClaim(rt, key, identity, winner!.commentId);
    expect((await readApprovals(rt, key))[0]!.claim).toBeUndefined();
    expect((await claimApprovalRequest(rt, key, identity, { commentId: 99, by: "m99" })).kind).toBe(
      "claimed",
    );
    // a release by a comment that does not hold the claim changes nothing
    await releaseApprovalClaim(rt, key, identity, 11);
    expect((await readApprovals(rt, key))[0]!.claim).toEqual({ commentId: 99, by: "m99" });
    // the owner's index of pull requests holding requests (the organization's page) follows the store
    const held = new OrgRecords(redis, prefix);
    expect(await held.heldApprovals(key.slice(0, key.indexOf("/")))).toEqual([key]);
    expect(await dropApprovalRequest(rt, key, identity)).toMatchObject({ findingId: finding.id });
    expect(await held.heldApprovals(key.slice(0, key.indexOf("/")))).toEqual([]);
    expect((await claimApprovalRequest(rt, key, identity, { commentId: 100, by: "x" })).kind).toBe("none");
  });
});
