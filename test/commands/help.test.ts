import { describe, expect, it } from "vitest";
import { renderHelp } from "../../src/commands/help.js";
import { parseCommand } from "../../src/commands/parse.js";
import { ALL_REASON_CODES } from "../../src/scanner/catalog.js";

describe("renderHelp", () => {
  it("lists every reply verb and every reason code", () => {
    const md = renderHelp("reply", { labelPrefix: "SC" });
    for (const v of [
      "/resolve",
      "/mitigate",
      "/wontfix",
      "/false-positive",
      "/fp",
      "/duplicate",
      "/in-progress",
    ])
      expect(md).toContain(`\`${v}`);
    for (const v of [
      "/reopen",
      "/severity critical|high|medium|low|info|reset",
      "/note <markdown>",
      "/publish",
      "/help",
    ])
      expect(md).toContain(`\`${v}`);
    for (const code of ALL_REASON_CODES) expect(md).toContain(`\`${code}\``);
    expect(md).not.toContain("/diffward rescan");
  });

  it("shows the conversation syntax with the configured label prefix", () => {
    const md = renderHelp("conversation", { labelPrefix: "QX" });
    expect(md).toContain("`/diffward resolve QX-1a2b3c4d [reason code or text]`");
    for (const v of [
      "rescan [preset=<ref>] [budget=<credits>]",
      "cancel",
      "status",
      "credits",
      "guidance",
      "areas",
    ])
      expect(md).toContain(`\`/diffward ${v}\``);
    for (const code of ALL_REASON_CODES) expect(md).toContain(code);
  });

  it("every syntax line it shows parses to that command", () => {
    for (const form of ["reply", "conversation"] as const) {
      const lines = [...renderHelp(form).matchAll(/^- `(\/[^`]+)`: /gm)].map((m) => m[1]!);
      expect(lines.length).toBeGreaterThan(10);
      for (const line of lines) {
        const body = line
          .replace(/ \[.*$/, "")
          .replace(/ <markdown>/, " hello")
          .replace(/critical\|.*$/, "low");
        const r = parseCommand(body, form);
        expect(["ignore", "error", "refusal"], `${form}: ${body}`).not.toContain(r.kind);
        if (r.kind === "help") expect(r.unknown).toBeUndefined();
      }
    }
  });

  it("echoes an unknown verb inertly", () => {
    const md = renderHelp("reply", { unknown: "@admin`<b>" });
    expect(md).toContain("Unknown command `@\u200badminb`");
    expect(md).not.toContain("<b>");
  });
});
