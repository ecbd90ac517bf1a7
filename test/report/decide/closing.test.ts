/** Which finding comments a report closes or reopens (src/report/decide/closing.ts), without network. */
import { describe, expect, it } from "vitest";
import { fingerprint, shapeKey } from "../../../src/domain/identity.js";
import { findingMarker } from "../../../src/render/inline-comment.js";
import { parseNotReportedMarker, renderNotReportedComment } from "../../../src/render/not-reported.js";
import {
  closingCoverage,
  decideCoverage,
  planNotReported,
  scopeCovers,
} from "../../../src/report/decide/closing.js";
import type { PostedFindingComment } from "../../../src/report/decide/posted.js";

const f = (id: string, title: string) => ({
  id,
  title,
  location: "src/a.js:1",
  category: "injection",
  resolutionStatus: "NOT_STARTED",
});
function posted(id: string, title: string, extra = "**finding text**"): PostedFindingComment {
  const fp = fingerprint(f(id, title));
  return {
    commentId: id.length * 7,
    findingId: id,
    fingerprint: fp,
    body: `${findingMarker(id, fp, shapeKey(f(id, title)))}\n\n${extra}`,
  };
}
const scan = { id: "scn_2", headSha: "abcdef0123456789abcdef0123456789abcdef01" };

describe("coverage and scope (pure)", () => {
  it("full coverage needs a settled spend below the budget and a scope covering every earlier one", () => {
    expect(decideCoverage({ ranShort: false, scopeCovers: true })).toEqual({ complete: true });
    expect(decideCoverage({ ranShort: true, scopeCovers: true })).toEqual({
      complete: false,
      why: "ran-short",
    });
    expect(decideCoverage({ ranShort: undefined, scopeCovers: true })).toMatchObject({ why: "not-settled" });
    expect(decideCoverage({ ranShort: false, scopeCovers: false })).toMatchObject({ why: "scope-changed" });

    const whole = { presetRef: "diff-standard", auditAreas: [] };
    const api = { presetRef: "diff-standard", auditAreas: ["http-api"] };
    expect(scopeCovers(whole, api)).toBe(true);
    expect(scopeCovers(api, whole)).toBe(false);
    expect(scopeCovers({ ...api, auditAreas: ["http-api", "data-access"] }, api)).toBe(true);
    expect(scopeCovers({ ...whole, presetRef: "diff-quick" }, whole)).toBe(false);
    expect(scopeCovers(whole, undefined)).toBe(false);
  });

  it("remembers every earlier scope: a narrower scan in between keeps a wider earlier one uncovered", () => {
    const whole = { presetRef: "p", auditAreas: [] as string[] };
    const api = { presetRef: "p", auditAreas: ["http-api"] };
    const first = closingCoverage(undefined, { scope: whole, ranShort: false });
    expect(first.coverage.complete).toBe(false); // no earlier report known: nothing to close on a guess
    const second = closingCoverage(
      { presetRef: "p", config: {}, scopes: first.scopes },
      { scope: api, ranShort: false },
    );
    expect(second.coverage).toMatchObject({ why: "scope-changed" });
    const third = closingCoverage(
      { presetRef: "p", config: { auditAreas: ["http-api"] }, scopes: second.scopes },
      { scope: api, ranShort: false },
    );
    expect(third.coverage).toMatchObject({ why: "scope-changed" }); // the whole-change scan's comments
    const fourth = closingCoverage(
      { presetRef: "p", config: {}, scopes: third.scopes },
      { scope: whole, ranShort: false },
    );
    expect(fourth.coverage.complete).toBe(true);
  });
});

describe("planNotReported (pure)", () => {
  const a = posted("fnd_aaaaaaaa1111", "SQL injection");
  const b = posted("fnd_bbbbbbbb2222", "Open redirect");
  const full = { complete: true } as const;

  it("closes the comments of findings the scan no longer reports, with full coverage only", () => {
    const findings = [{ id: a.findingId, fingerprint: a.fingerprint, resolutionStatus: "NOT_STARTED" }];
    const writes = planNotReported({ posted: [a, b], findings, coverage: full, scan });
    expect(writes.map((w) => [w.kind, w.commentId])).toEqual([["close", b.commentId]]);
    const body = (writes[0] as { body: string }).body;
    expect(body.split("\n")[0]).toBe(b.body.split("\n")[0]); // the finding marker stays first
    expect(body).toContain("Not reported by the scan of `abcdef0`");
    expect(body).toContain("<details><summary>As last reported</summary>");
    expect(body).toContain("**finding text**");
    expect(parseNotReportedMarker(body)).toBe("scn_2");
    for (const why of ["ran-short", "not-settled", "scope-changed"] as const)
      expect(planNotReported({ posted: [a, b], findings, coverage: { complete: false, why }, scan })).toEqual(
        [],
      );
  });

  it("a new id with the same fingerprint is the same finding; an already closed comment is left alone", () => {
    const moved = [{ id: "fnd_cccccccc3333", fingerprint: b.fingerprint, resolutionStatus: "NOT_STARTED" }];
    expect(planNotReported({ posted: [b], findings: moved, coverage: full, scan })).toEqual([]);
    const closed = { ...b, body: renderNotReportedComment(b.body, { id: "scn_1", headSha: "1234567890" }) };
    expect(renderNotReportedComment(closed.body, scan)).toBe(closed.body);
    expect(planNotReported({ posted: [closed], findings: [], coverage: full, scan })).toEqual([]);
  });

  it("reopens a closed comment's thread when the finding is reported again and still open", () => {
    const closed = { ...b, body: renderNotReportedComment(b.body, { id: "scn_1", headSha: "1234567890" }) };
    const again = (resolutionStatus: string) => [
      { id: "fnd_new", fingerprint: b.fingerprint, resolutionStatus },
    ];
    expect(
      planNotReported({
        posted: [closed],
        findings: again("NOT_STARTED"),
        coverage: { complete: false, why: "ran-short" },
        scan,
      }),
    ).toEqual([{ kind: "reopen", commentId: b.commentId, findingId: "fnd_new" }]);
    expect(
      planNotReported({ posted: [closed], findings: again("FALSE_POSITIVE"), coverage: full, scan }),
    ).toEqual([]);
  });
});
