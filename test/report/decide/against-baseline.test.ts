/** What a report shows of its base branch's baseline (src/report/decide/against-baseline.ts). */
import { describe, expect, it } from "vitest";
import { againstBaseline } from "../../../src/report/decide/against-baseline.js";
import { fingerprint } from "../../../src/domain/identity.js";
import { finding } from "../../support/finding.js";

describe("againstBaseline", () => {
  const onBase = finding({ id: "a", title: "SQL injection", location: "src/db.ts:4" });
  const fresh = finding({ id: "b", title: "Open redirect", location: "src/web.ts:9" });
  const baseline = { branch: "main", headSha: "c".repeat(40), openFingerprints: [fingerprint(onBase)] };

  it("compares with the baseline of the same branch, whatever failOn says", () => {
    for (const failOn of ["high", { severity: "high", only: "new" }] as const)
      expect(againstBaseline(baseline, "main", [onBase, fresh], { failOn })).toMatchObject({
        branch: "main",
        preexisting: 1,
        fresh: 1,
        preexistingIds: ["a"],
      });
  });

  it("another branch's baseline, or none: with only: new it says there is none, otherwise nothing", () => {
    const onlyNew = { failOn: { severity: "high", only: "new" } } as const;
    expect(againstBaseline(baseline, "release", [onBase], onlyNew)).toEqual({
      branch: "release",
      missing: true,
    });
    expect(againstBaseline(undefined, "main", [onBase], onlyNew)).toEqual({ branch: "main", missing: true });
    expect(againstBaseline(baseline, "release", [onBase], { failOn: "high" })).toBeUndefined();
    expect(
      againstBaseline(undefined, "main", [onBase], { failOn: { severity: "high", only: "all" } }),
    ).toBeUndefined();
  });

  it("a path rule's own failOn with only: new also asks for the baseline", () => {
    const policies = [
      {
        paths: ["src/payments/**"],
        mode: "block" as const,
        failOn: { severity: "medium" as const, only: "new" as const },
      },
    ];
    expect(againstBaseline(undefined, "main", [onBase], { failOn: "high", policies })).toEqual({
      branch: "main",
      missing: true,
    });
  });
});
