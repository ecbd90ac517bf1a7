import { randomBytes } from "node:crypto";
import { pino } from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { fingerprint, shapeKey } from "../../src/domain/identity.js";
import type { ReportFinding } from "../../src/domain/finding-types.js";
import { approvalRequest } from "../support/finding.js";
import { RESOLUTION_STATUSES } from "../../src/scanner/catalog.js";
import { isBlocking } from "../../src/domain/verdict.js";
import { createRedis } from "../../src/runtime/connection.js";
import type { Runtime } from "../../src/runtime/runtime.js";
import { createStores } from "../../src/stores/index.js";
import { DEFAULT_SETTINGS } from "../../src/config/settings.js";
import {
  checkApproval,
  claimApprovalRequest,
  dropApprovalRequest,
  isDismissal,
  needsApproval,
  planApprovalsForScan,
  readApprovals,
  releaseApprovalClaim,
  requestFor,
  storeApprovalRequest,
  type ApprovalRequest,
} from "../../src/triage/approvals.js";

const approval = { minSeverity: "high", approvers: "maintain", codeowners: false, notify: false } as const;
const f: ReportFinding = {
  id: "fnd_aaaaaaaa11111111",
  title: "Session secret hard-coded",
  location: "src/server.js:8",
  severity: "HIGH",
  category: "secrets",
  triageStatus: "NEW",
  resolutionStatus: "NOT_STARTED",
};
const request = approvalRequest(f, "2026-03-01T00:00:00.000Z");

describe("needsApproval", () => {
  it("holds dismissals at or above minSeverity by users below approvers; off without triage.approval", () => {
    const ask = (
      status: string,
      severity: string,
      role: string,
      cfg: typeof approval | undefined = approval,
    ) => needsApproval(cfg, { status: status as never, severity: severity as never, role });
    for (const status of ["FALSE_POSITIVE", "WONT_FIX", "DUPLICATE", "MITIGATED", "RESOLVED"])
      expect(ask(status, "HIGH", "write")).toBe(true);
    expect(ask("FALSE_POSITIVE", "CRITICAL", "triage")).toBe(true);
    expect(ask("FALSE_POSITIVE", "MEDIUM", "write")).toBe(false);
    expect(ask("FALSE_POSITIVE", "HIGH", "maintain")).toBe(false);
    expect(ask("FALSE_POSITIVE", "HIGH", "admin")).toBe(false);
    for (const status of ["IN_PROGRESS", "NOT_STARTED"]) expect(ask(status, "CRITICAL", "write")).toBe(false);
    expect(needsApproval(undefined, { status: "FALSE_POSITIVE", severity: "CRITICAL", role: "write" })).toBe(
      false,
    );
  });

  it("every resolution that stops a finding from blocking is a dismissal that needs approval, and no other", () => {
    for (const status of RESOLUTION_STATUSES) {
      const stopsBlocking = !isBlocking(
        { severity: "HIGH", triageStatus: "NEW", resolutionStatus: status },
        "high",
      );
      expect(isDismissal(status), status).toBe(stopsBlocking);
      expect(needsApproval(approval, { status, severity: "HIGH", role: "write" }), status).toBe(
        stopsBlocking,
      );
    }
  });
});

describe("checkApproval", () => {
  it("a different user at or above approvers approves; the requester never does", () => {
    expect(checkApproval(request, { login: "octo-maint", role: "maintain", severity: "HIGH" })).toEqual({
      ok: true,
    });
    expect(checkApproval(request, { login: "Octo-Writer", role: "admin", severity: "HIGH" })).toEqual({
      ok: false,
      why: "self",
    });
    expect(checkApproval(request, { login: "other", role: "write", severity: "HIGH" })).toMatchObject({
      why: "below",
      approvers: "maintain",
    });
    // a stricter role configured since the request applies
    expect(
      checkApproval(request, { login: "octo-maint", role: "maintain", severity: "HIGH", approvers: "admin" }),
    ).toMatchObject({ why: "below", approvers: "admin" });
  });

  it("a severity raise above the request's invalidates it; a lowering does not", () => {
    expect(checkApproval(request, { login: "m", role: "admin", severity: "CRITICAL" })).toEqual({
      ok: false,
      why: "severity-rose",
      from: "HIGH",
      to: "CRITICAL",
    });
    expect(checkApproval(request, { login: "m", role: "admin", severity: "MEDIUM" })).toEqual({ ok: true });
  });
});

describe("planApprovalsForScan", () => {
  // the next push's scan: a new id, the line moved, and the service recognises the finding
  const moved = { ...f, id: "fnd_bbbbbbbb22222222", location: "src/server.js:30", triageStatus: "RECURRING" };

  it("a request follows its finding to the new scan's id (same fingerprint, or recognised shape), and survives the push", () => {
    const plan = planApprovalsForScan([request], [moved]);
    expect(plan.keep).toEqual([
      { ...request, findingId: moved.id, fingerprint: fingerprint(moved), shape: shapeKey(moved) },
    ]);
    const sameLine = { ...f, id: "fnd_cccccccc33333333" };
    expect(planApprovalsForScan([request], [sameLine]).keep[0]!.findingId).toBe(sameLine.id);
    // moved and NEW to the service: another finding, the request stays where it was
    expect(planApprovalsForScan([request], [{ ...moved, triageStatus: "NEW" }]).keep).toEqual([request]);
    expect(requestFor(plan.keep, { id: moved.id, fingerprint: "x" })).toBeDefined();
  });

  it("is invalidated by a severity raise, dropped when the finding was decided, kept when not reported", () => {
    expect(planApprovalsForScan([request], [{ ...moved, severity: "CRITICAL" }]).invalidated).toHaveLength(1);
    expect(planApprovalsForScan([request], [{ ...moved, severity: "CRITICAL" }]).keep).toEqual([]);
    expect(
      planApprovalsForScan([request], [{ ...moved, resolutionStatus: "RESOLVED" }]).settled,
    ).toHaveLength(1);
    const other = { ...moved, title: "Open redirect", category: "redirect" };
    expect(planApprovalsForScan([request], [other]).keep).toEqual([request]);
  });
});

/** The approval store on a real Redis: one approving comment wins a request. */
describe("approval requests store (real Redis)", () => {
  const redis = createRedis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
  const prefix = `{dwt-appr-${randomBytes(3).toString("hex")}}`;
  // the store reaches only the stores and the logger of the runtime
  const log = pino({ level: "silent" });
  const rt = {
    stores: createStores(redis, prefix, { settings: DEFAULT_SETTINGS, now: Date.now, log }),
    log,
  } as unknown as Runtime;
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
    const held = rt.stores.orgRecords;
    expect(await held.heldApprovals(key.slice(0, key.indexOf("/")))).toEqual([key]);
    expect(await dropApprovalRequest(rt, key, identity)).toMatchObject({ findingId: finding.id });
    expect(await held.heldApprovals(key.slice(0, key.indexOf("/")))).toEqual([]);
    expect((await claimApprovalRequest(rt, key, identity, { commentId: 100, by: "x" })).kind).toBe("none");
  });
});
