/** The read-only verbs' plans: status and guidance (src/commands/verbs/info.ts). */
import { describe, expect, it } from "vitest";
import {
  planGuidance,
  planStatus,
  type GuidanceCommand,
  type StatusCommand,
} from "../../../src/commands/verbs/info.js";
import { report, input, parsed } from "../../support/verbs.js";

describe("read-only plans", () => {
  it("status: never scanned; a scan in progress; the last report's verdict", () => {
    const cmd = parsed("/diffward status", "status") as StatusCommand;
    expect(planStatus(input(cmd), { scan: undefined, report: undefined }).answer).toBe(
      "diffward has not scanned this pull request yet.",
    );
    const answer = planStatus(input(cmd), { scan: { headSha: "abcdef99", scanId: "scan_2" }, report }).answer;
    expect(answer).toContain("- head: `abcdef9`");
    expect(answer).toContain("- scan `scan_2` is in progress");
    expect(answer).toContain(
      "- last report: scan `scan_done` of `1234567`, 0 findings: 0 open (0 blocking), 0 ruled out: **passing**",
    );
  });

  it("guidance: the layers that apply, the stored size and latest revision, the committed file", () => {
    const cmd = parsed("/diffward guidance", "guidance") as GuidanceCommand;
    const stored = planGuidance(input(cmd), {
      repositoryId: "repo_1",
      storedChars: 1234,
      revision: { revisionId: "rev_abc", updatedAt: "2026-03-01T10:00:00Z" },
      file: { path: "SCANNER.md", present: true, sizeChars: 56 },
      headSha: "1234567abcdef",
    }).answer;
    expect(stored).toContain(
      "1. **Committed file** `SCANNER.md`: **applies**: present at `1234567`, 56 characters",
    );
    expect(stored).toContain(
      "2. **Stored guidance** of repository `repo_1`: **applies**: 1,234 characters, latest revision `rev_abc` (2026-03-01)",
    );
    expect(stored).toContain("3. **Per-scan guidance**: none");
    const none = planGuidance(input(cmd), { repositoryId: "repo_1", storedChars: 0, revision: {} }).answer;
    expect(none).toContain("none stored, so this layer adds nothing");
    expect(none).toContain("no scan of this pull request has been reported yet");
  });
});
