/**
 * One voice: a finding's status names read the same in every place diffward
 * posts: the check run summary row, the finding comment, the answer to a reply command and the annotation
 * (and the help text and the refusals that name a status). Each status is set the way a user sets it, by a
 * reply command, and the name is then read back from each place.
 */
import { describe, expect, it } from "vitest";
import { parseCommand, renderHelp, RESOLUTION_VERBS, type VerbInput } from "../../src/commands/index.js";
import { planResolution, type ResolutionCommand } from "../../src/commands/verbs/resolution.js";
import type { ReportFinding } from "../../src/domain/finding-types.js";
import { isRuledOut } from "../../src/domain/verdict.js";
import { planAlertUpdate } from "../../src/code-scanning/alert-mapping.js";
import { toAnnotations } from "../../src/render/annotations.js";
import { conflictAnswer } from "../../src/render/command-answers.js";
import { STATUS_NAMES, statusName } from "../../src/render/glossary.js";
import { renderFindingComment } from "../../src/render/inline-comment.js";
import type { FindingDetail } from "../../src/scanner/schemas.js";
import { finding } from "../support/finding.js";
import { fullCheckRun } from "../support/check-run.js";

const base = finding({
  id: "fnd_0000000000abcd1234",
  location: "src/server.js#L22-L27",
  severity: "HIGH",
  triageStatus: "CONFIRMED",
});

/** The answer diffward gives to `/<verb>` replied under the finding's comment. */
function acknowledgement(verb: string): { status: string; answer: string } {
  const cmd = parseCommand(`/${verb}`, "reply");
  expect(cmd.kind).toBe("resolution");
  const input: VerbInput<ResolutionCommand> = {
    cmd: cmd as ResolutionCommand,
    form: "reply",
    sender: "octo-reviewer",
    pull: { owner: "octo", repo: "app", pullNumber: 9 },
    commentId: 1,
    labelPrefix: "SC",
    now: Date.parse("2026-03-04T05:06:07Z"),
    config: undefined,
    tenant: undefined,
    target: {
      detail: { ...base, scanId: "scan_1", createdAt: "2026-01-01T00:00:00Z", notes: [] } as FindingDetail,
      commentId: 77,
    },
    settings: { guidanceFile: "SCANNER.md" },
    help: () => "help",
  };
  const plan = planResolution(input);
  return { status: plan.resolution.resolutionStatus, answer: plan.summary };
}

/** The cell of the check run summary row of `f`, by column name (the full-disclosure table). */
function summaryCell(summary: string, label: string, column: string): string {
  const lines = summary.split("\n");
  const header = lines.find((l) => l.startsWith("| Label |"))!;
  const columns = header.split(" | ").map((c) => c.replace(/^\| |\s*\|$/g, ""));
  const row = lines.find((l) => l.startsWith(`| \`${label}\``));
  expect(row, `a summary row for ${label}`).toBeDefined();
  const cells = row!.split(" | ").map((c) => c.replace(/^\| |\s*\|$/g, ""));
  return cells[columns.indexOf(column)]!;
}

function everywhere(f: ReportFinding) {
  const summary = fullCheckRun([f]).summary;
  const comment = renderFindingComment(f, { labelPrefix: "SC" });
  const [annotation] = toAnnotations([f], "full", { failOn: "high", labelPrefix: "SC" });
  return {
    row: {
      triage: summaryCell(summary, "SC-abcd1234", "Triage"),
      resolution: summaryCell(summary, "SC-abcd1234", "Resolution"),
      location: summaryCell(summary, "SC-abcd1234", "Location"),
    },
    comment: {
      triage: /\*\*Triage:\*\* ([^·(\n]+?)(?: \(|\s·)/.exec(comment)?.[1],
      resolution: /\*\*Resolution:\*\* ([^\n]+)/.exec(comment)?.[1],
      location: /^🟠 High · `SC-abcd1234` · \S+ · (`[^`]+`)$/m.exec(comment)?.[1],
    },
    annotation: annotation && {
      triage: /Triage: ([^.]+)\./.exec(annotation.message)?.[1],
      resolution: /Resolution: ([^.]+)\./.exec(annotation.message)?.[1],
      location: `\`${annotation.path}:${annotation.start_line}-${annotation.end_line}\``,
    },
  };
}

describe("a finding's status names are the same everywhere diffward posts", () => {
  for (const verb of Object.keys(RESOLUTION_VERBS)) {
    it(`after /${verb}: check run row, finding comment, acknowledgement and annotation agree`, () => {
      const ack = acknowledgement(verb);
      const name = statusName(ack.status);
      expect(STATUS_NAMES[ack.status], `${ack.status} has a glossary name`).toBe(name);
      expect(ack.answer).toContain(`\`SC-abcd1234\` is now **${name}**`);
      const f = { ...base, resolutionStatus: ack.status };
      const seen = everywhere(f);
      expect(seen.row.resolution).toBe(name);
      expect(seen.comment.resolution).toBe(name);
      expect(seen.row.triage).toBe("Confirmed");
      expect(seen.comment.triage).toBe("Confirmed");
      // the location reads `path:start-end` in the row and the comment, where the annotation points
      expect(seen.row.location).toBe("`src/server.js:22-27`");
      expect(seen.comment.location).toBe("`src/server.js:22-27`");
      // the code scanning alert's dismissal comment, for the resolutions that dismiss it
      const alert = planAlertUpdate({ state: "open" }, { resolutionStatus: ack.status, by: "octo-reviewer" });
      if (alert.kind === "dismiss") expect(alert.comment).toContain(`diffward: resolution ${name} set from`);
      if (isRuledOut(f)) {
        // a ruled-out finding has no annotation at all (nothing to disagree with)
        expect(seen.annotation).toBeUndefined();
      } else {
        expect(seen.annotation).toEqual({
          triage: "Confirmed",
          resolution: name,
          location: "`src/server.js:22-27`",
        });
      }
    });
  }

  it("every triage status reads the same in the row, the comment and the annotation", () => {
    for (const triage of ["PENDING", "NEW", "RECURRING", "CONFIRMED", "INCONCLUSIVE"]) {
      const seen = everywhere({ ...base, triageStatus: triage });
      expect([seen.row.triage, seen.comment.triage, seen.annotation?.triage]).toEqual([
        STATUS_NAMES[triage],
        STATUS_NAMES[triage],
        STATUS_NAMES[triage],
      ]);
    }
  });

  it("the help, a wrong reason and a label conflict name statuses and severities by the glossary", () => {
    const help = renderHelp("reply");
    expect(help).toContain("- `/false-positive` (False positive): ");
    expect(help).toContain("- `/wontfix` (Won't fix): ");
    expect(help).not.toMatch(/\((FALSE_POSITIVE|WONT_FIX|RESOLVED|MITIGATED|DUPLICATE)\)/);
    const wrong = parseCommand("/fp risk_accepted", "reply");
    expect(wrong.kind).toBe("refusal");
    expect((wrong as { message: string }).message).toContain(
      "`risk_accepted` is a reason for Won't fix, not for False positive; nothing was changed. Reasons for False positive:",
    );
    expect(conflictAnswer("SC-abcd1234", [{ ...base, severity: "HIGH" }], "SC")).toContain(
      "(SC-abcd1234, High)",
    );
  });
});
