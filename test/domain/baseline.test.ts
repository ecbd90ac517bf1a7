import { describe, expect, it } from "vitest";
import { compareWithBaseline, recount } from "../../src/domain/baseline.js";
import { fingerprint } from "../../src/domain/identity.js";
import { finding } from "../support/finding.js";

describe("compareWithBaseline", () => {
  const onBase = finding({ id: "a", title: "SQL injection in getUser", location: "src/db/users.ts:42" });
  const moved = finding({ id: "b", title: "SQL injection in getUser", location: "src/db/users.ts:80" });
  const fresh = finding({ id: "c", title: "Open redirect", location: "src/web/login.ts:9" });
  const ruledOut = finding({
    id: "d",
    title: "Noise",
    location: "x.ts:1",
    resolutionStatus: "FALSE_POSITIVE",
  });
  const baseline = {
    branch: "main",
    headSha: "f".repeat(40),
    openFingerprints: [fingerprint(onBase), fingerprint(ruledOut)],
  };

  it("counts open findings by fingerprint: the same one is pre-existing, a moved or new one is new", () => {
    expect(compareWithBaseline([onBase, moved, fresh], baseline)).toEqual({
      branch: "main",
      headSha: "f".repeat(40),
      preexisting: 1,
      fresh: 2,
      preexistingIds: ["a"],
    });
  });

  it("leaves ruled-out findings out on the pull request's side", () => {
    expect(compareWithBaseline([onBase, ruledOut], baseline)).toMatchObject({ preexisting: 1, fresh: 0 });
    expect(compareWithBaseline([], baseline)).toMatchObject({ preexisting: 0, fresh: 0 });
  });

  it("keeps the ids of every finding open on the base, ruled out ones too (a reopen later still reads right); recount follows triage", () => {
    const onBaseRuledOut = { ...onBase, id: "e", resolutionStatus: "WONT_FIX" };
    const cmp = compareWithBaseline([onBase, onBaseRuledOut, fresh], baseline);
    expect(cmp.preexistingIds).toEqual(["a", "e"]);
    expect(cmp).toMatchObject({ preexisting: 1, fresh: 1 });
    // the team reopens e and marks a false positive: counted from the kept ids, not from the base again
    const now = [
      { ...onBase, resolutionStatus: "FALSE_POSITIVE" },
      { ...onBaseRuledOut, resolutionStatus: "NOT_STARTED" },
      fresh,
    ];
    expect(recount(now, cmp.preexistingIds)).toEqual({ preexisting: 1, fresh: 1 });
  });
});
