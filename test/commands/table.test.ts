/** The verb table as the single source of parsing, dispatch and help (src/commands/table.ts). */
import { describe, expect, it } from "vitest";
import {
  FINDING_VERBS,
  PULL_REQUEST_VERBS,
  VERB_TABLE,
  moduleFor,
  parseCommand,
  renderHelp,
} from "../../src/commands/index.js";

/** The argument each verb that needs one is written with; the others take none. */
const EXAMPLE_ARGUMENTS: Record<string, string> = {
  severity: " low",
  note: " text",
  "areas add": " Billing: invoices and refunds",
  "areas remove": " billing",
};

describe("the verb table drives parsing, dispatch and help", () => {
  it("every row parses in the conversation form to a command its module runs", () => {
    for (const row of VERB_TABLE) {
      const ref = row.scope === "finding" ? " SC-01234567" : "";
      const arg = EXAMPLE_ARGUMENTS[row.verb] ?? "";
      const cmd = parseCommand(`/diffward ${row.verb}${ref}${arg}`, "conversation");
      expect(cmd.kind, row.verb).toBe(row.module.kind);
      expect(moduleFor(cmd.kind)).toBe(row.module);
    }
  });

  it("help lists every verb of the table in table order, pull-request verbs in the conversation only", () => {
    const conversation = renderHelp("conversation");
    const positions = VERB_TABLE.map((r) => conversation.indexOf(`- \`/diffward ${r.verb}`));
    expect(positions.every((p) => p >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    const reply = renderHelp("reply");
    for (const v of FINDING_VERBS) expect(reply).toContain(`- \`/${v}`);
    for (const v of PULL_REQUEST_VERBS) expect(reply).not.toContain(`- \`/${v}`);
  });

  it("each module states its needs: finding verbs need a target and the service; help and status are open", () => {
    for (const row of VERB_TABLE) {
      const needs = row.module.needs;
      expect(needs.target === "finding", row.verb).toBe(row.scope === "finding");
      if (row.verb === "help" || row.verb === "status") expect(needs.permission).toBe("anyone");
      else if (row.verb === "publish" || row.verb === "publish scan")
        expect(needs.permission).toBe("publish");
      else expect(needs.permission, row.verb).toBe("command");
    }
  });
});
