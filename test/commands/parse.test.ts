import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { MAX_NOTE_LENGTH, ParsedCommand, parseCommand, findCommandLine } from "../../src/commands/parse.js";
import { canonicalVerb, verbSyntax } from "../../src/commands/table.js";
import { RESOLUTION_VERBS } from "../../src/commands/verbs/resolution.js";
import type { CommandForm } from "../../src/domain/command-form.js";
import { REASON_CATALOG, SEVERITIES, reasonCodesFor, ALL_REASON_CODES } from "../../src/scanner/catalog.js";
import type { ReasonStatus } from "../../src/scanner/catalog.js";
import { parseFindingRef } from "../../src/scanner/labels.js";
import { propertyOptions } from "../support/property.js";

const label = { kind: "label", short: "1a2b3c4d", prefix: "SC" } as const;

type Row = [body: string, form: CommandForm, expected: Record<string, unknown>];

const table: Row[] = [
  // reply form: resolution verbs, with and without reasons
  ["/resolve", "reply", { kind: "resolution", verb: "resolve", status: "RESOLVED" }],
  ["/RESOLVE fixed_in_code", "reply", { kind: "resolution", status: "RESOLVED", reason: "fixed_in_code" }],
  ["/mitigate monitored", "reply", { kind: "resolution", status: "MITIGATED", reason: "monitored" }],
  ["/wontfix risk_accepted", "reply", { kind: "resolution", status: "WONT_FIX", reason: "risk_accepted" }],
  ["/wont-fix out_of_scope", "reply", { kind: "resolution", verb: "wontfix", reason: "out_of_scope" }],
  [
    "/false-positive not_reachable",
    "reply",
    { kind: "resolution", status: "FALSE_POSITIVE", reason: "not_reachable" },
  ],
  [
    "/fp guarded-elsewhere",
    "reply",
    { kind: "resolution", verb: "false-positive", reason: "guarded_elsewhere" },
  ],
  [
    "/duplicate same_root_cause",
    "reply",
    { kind: "resolution", status: "DUPLICATE", reason: "same_root_cause" },
  ],
  ["/duplicate of SC-aaaabbbb", "reply", { kind: "resolution", status: "DUPLICATE", note: "of SC-aaaabbbb" }],
  ["/resolve `fixed_upstream`.", "reply", { kind: "resolution", reason: "fixed_upstream" }],
  // reason code + text → note stating the code
  [
    "/resolve fixed_in_code in #42",
    "reply",
    {
      kind: "resolution",
      status: "RESOLVED",
      note: "Reason: `fixed_in_code`. in #42",
      reasonCode: "fixed_in_code",
    },
  ],
  [
    "/fp misread_code\nThe length is checked in parse().",
    "reply",
    {
      kind: "resolution",
      status: "FALSE_POSITIVE",
      note: "Reason: `misread_code`. The length is checked in parse().",
      reasonCode: "misread_code",
    },
  ],
  // free text → note
  [
    "/resolve Fixed by the new validator",
    "reply",
    { kind: "resolution", note: "Fixed by the new validator" },
  ],
  [
    "/mitigate\nBehind the VPN only.",
    "reply",
    { kind: "resolution", status: "MITIGATED", note: "Behind the VPN only." },
  ],
  [
    "/resolve monitored closely and patched",
    "reply",
    { kind: "resolution", note: "monitored closely and patched" },
  ],
  // a reason code of another status → refusal with this status's codes
  [
    "/resolve monitored",
    "reply",
    {
      kind: "refusal",
      status: "RESOLVED",
      reasonCode: "monitored",
      belongsTo: "MITIGATED",
      validCodes: ["fixed_in_code", "fixed_upstream", "code_removed"],
    },
  ],
  [
    "/wontfix not_reachable because of X",
    "reply",
    {
      kind: "refusal",
      status: "WONT_FIX",
      belongsTo: "FALSE_POSITIVE",
      validCodes: [...REASON_CATALOG.WONT_FIX],
    },
  ],
  // in-progress / reopen: text is a separate note, never reason or note
  ["/in-progress", "reply", { kind: "resolution", status: "IN_PROGRESS" }],
  [
    "/in-progress Looking at it",
    "reply",
    { kind: "resolution", status: "IN_PROGRESS", extraNote: "Looking at it" },
  ],
  [
    "/reopen fixed_in_code",
    "reply",
    { kind: "resolution", status: "NOT_STARTED", extraNote: "fixed_in_code" },
  ],
  ["/Reopen", "reply", { kind: "resolution", verb: "reopen", status: "NOT_STARTED" }],
  // severity
  ["/severity critical", "reply", { kind: "severity", severity: "CRITICAL" }],
  ["/severity HIGH", "reply", { kind: "severity", severity: "HIGH" }],
  ["/severity medium", "reply", { kind: "severity", severity: "MEDIUM" }],
  [
    "/severity low only admins reach it",
    "reply",
    { kind: "severity", severity: "LOW", extraNote: "only admins reach it" },
  ],
  ["/severity info", "reply", { kind: "severity", severity: "INFO" }],
  ["/severity reset", "reply", { kind: "severity", severity: null }],
  [
    "/severity hgih",
    "reply",
    {
      kind: "error",
      code: "invalid_severity",
      validValues: ["critical", "high", "medium", "low", "info", "reset"],
    },
  ],
  ["/severity", "reply", { kind: "error", code: "missing_argument" }],
  // note, publish, help
  ["/note Looks **fine** to me", "reply", { kind: "note", content: "Looks **fine** to me" }],
  ["/note\nline one\n\n```ts\nx()\n```", "reply", { kind: "note", content: "line one\n\n```ts\nx()\n```" }],
  ["/note", "reply", { kind: "error", verb: "note", code: "missing_argument" }],
  ["/publish", "reply", { kind: "publish", verb: "publish" }],
  ["/publish now", "reply", { kind: "error", code: "unexpected_argument" }],
  ["/help", "reply", { kind: "help", requiresPermission: false }],
  // not commands, unknown commands
  ["Thanks, looks good", "reply", { kind: "ignore" }],
  ["", "reply", { kind: "ignore" }],
  ["/usr/local/bin is on the PATH", "reply", { kind: "ignore" }],
  ["/frobnicate", "reply", { kind: "help", unknown: "frobnicate" }],
  ["/rescan", "reply", { kind: "help", unknown: "rescan" }],
  // quotes and fences: a quoted earlier command must not re-run
  ["> /resolve fixed_in_code\n\nI agree", "reply", { kind: "ignore" }],
  ["> /resolve\n/wontfix", "reply", { kind: "resolution", status: "WONT_FIX" }],
  ["```\n/resolve\n```", "reply", { kind: "ignore" }],
  ["~~~~\n/resolve\n~~~\n~~~~\n/mitigate", "reply", { kind: "resolution", status: "MITIGATED" }],
  ["    /resolve", "reply", { kind: "ignore" }],
  ["\r\n\r\n  /resolve  \r\n", "reply", { kind: "resolution", status: "RESOLVED" }],
  // the /diffward grammar in a reply
  ["/diffward status", "reply", { kind: "status", requiresPermission: false }],

  // conversation form: every finding verb with a label, a bare label or a full id
  ["/diffward resolve SC-1a2b3c4d", "conversation", { kind: "resolution", ref: label, status: "RESOLVED" }],
  [
    "/diffward resolve sc-1a2b3c4d code_removed",
    "conversation",
    { kind: "resolution", ref: label, reason: "code_removed" },
  ],
  [
    "/DiffWard mitigate XY-1a2b3c4d limited_exposure",
    "conversation",
    {
      kind: "resolution",
      ref: { kind: "label", short: "1a2b3c4d", prefix: "XY" },
      reason: "limited_exposure",
    },
  ],
  [
    "/diffward wontfix 1a2b3c4d",
    "conversation",
    { kind: "resolution", ref: { kind: "label", short: "1a2b3c4d" }, status: "WONT_FIX" },
  ],
  [
    "/diffward fp fnd_0123456789abcdef intended_behavior",
    "conversation",
    {
      kind: "resolution",
      ref: { kind: "id", id: "fnd_0123456789abcdef" },
      status: "FALSE_POSITIVE",
      reason: "intended_behavior",
    },
  ],
  ["/diffward false-positive `SC-1a2b3c4d`", "conversation", { kind: "resolution", ref: label }],
  [
    "/diffward duplicate SC-1a2b3c4d duplicate_of_finding",
    "conversation",
    { kind: "resolution", status: "DUPLICATE", reason: "duplicate_of_finding" },
  ],
  [
    "/diffward in-progress SC-1a2b3c4d on it",
    "conversation",
    { kind: "resolution", status: "IN_PROGRESS", extraNote: "on it" },
  ],
  ["/diffward reopen SC-1a2b3c4d", "conversation", { kind: "resolution", status: "NOT_STARTED", ref: label }],
  [
    "/diffward mitigate SC-1a2b3c4d fixed_in_code",
    "conversation",
    { kind: "refusal", ref: label, belongsTo: "RESOLVED", validCodes: [...REASON_CATALOG.MITIGATED] },
  ],
  ["/diffward severity SC-1a2b3c4d reset", "conversation", { kind: "severity", ref: label, severity: null }],
  ["/diffward severity SC-1a2b3c4d crit", "conversation", { kind: "error", code: "invalid_severity" }],
  ["/diffward note SC-1a2b3c4d see #12", "conversation", { kind: "note", ref: label, content: "see #12" }],
  ["/diffward publish SC-1a2b3c4d", "conversation", { kind: "publish", ref: label }],
  ["/diffward help", "conversation", { kind: "help", requiresPermission: false }],
  ["/diffward", "conversation", { kind: "help" }],
  ["/diffward frob SC-1a2b3c4d", "conversation", { kind: "help", unknown: "frob" }],
  // missing or invalid finding refs
  ["/diffward resolve", "conversation", { kind: "error", code: "missing_finding_ref" }],
  ["/diffward resolve fixed_in_code", "conversation", { kind: "error", code: "missing_finding_ref" }],
  ["/diffward severity critical", "conversation", { kind: "error", code: "missing_finding_ref" }],
  ["/diffward note SC-12 hello", "conversation", { kind: "error", code: "invalid_finding_ref" }],
  ["/diffward publish ../../etc", "conversation", { kind: "error", code: "invalid_finding_ref" }],
  // pull-request verbs
  ["/diffward rescan", "conversation", { kind: "rescan", requiresPermission: true }],
  [
    "/diffward rescan preset=diff-deep budget=250",
    "conversation",
    { kind: "rescan", preset: "diff-deep", budget: 250 },
  ],
  ["/diffward rescan budget=0", "conversation", { kind: "error", code: "invalid_argument" }],
  ["/diffward rescan budget=12.5", "conversation", { kind: "error", code: "invalid_argument" }],
  ["/diffward rescan preset=", "conversation", { kind: "error", code: "invalid_argument" }],
  ["/diffward rescan fast", "conversation", { kind: "error", code: "unexpected_argument" }],
  ["/diffward rescan budget=5 budget=6", "conversation", { kind: "error", code: "unexpected_argument" }],
  ["/diffward cancel", "conversation", { kind: "cancel", requiresPermission: true }],
  ["/diffward status", "conversation", { kind: "status", requiresPermission: false }],
  ["/diffward credits", "conversation", { kind: "credits", requiresPermission: true }],
  ["/diffward guidance", "conversation", { kind: "guidance", requiresPermission: true }],
  ["/diffward areas", "conversation", { kind: "areas", requiresPermission: true }],
  ["/diffward cancel everything", "conversation", { kind: "error", code: "unexpected_argument" }],
  // conversation comments that are not /diffward
  ["/resolve", "conversation", { kind: "ignore" }],
  ["/diffwardx status", "conversation", { kind: "ignore" }],
  ["> /diffward cancel\n\nwhy was it cancelled?", "conversation", { kind: "ignore" }],
  ["<!-- diffward:marker -->\n/diffward status", "conversation", { kind: "status" }],
];

describe("parseCommand examples", () => {
  it.each(table)("%j (%s)", (body, form, expected) => {
    const result = parseCommand(body, form);
    expect(result).toMatchObject(expected);
    expect(ParsedCommand.safeParse(result).success).toBe(true);
  });

  it("covers every canonical verb in both forms", () => {
    const verbsSeen = new Map<CommandForm, Set<string>>([
      ["reply", new Set()],
      ["conversation", new Set()],
    ]);
    for (const [body, form] of table) {
      const r = parseCommand(body, form);
      if (r.kind !== "ignore" && r.kind !== "error" && r.kind !== "refusal") verbsSeen.get(form)!.add(r.verb);
    }
    const finding = [...Object.keys(RESOLUTION_VERBS), "severity", "note", "publish", "help"];
    for (const v of finding) expect(verbsSeen.get("reply")).toContain(v);
    for (const v of [...finding, "rescan", "cancel", "status", "credits", "guidance", "areas"])
      expect(verbsSeen.get("conversation")).toContain(v);
  });

  it("puts the syntax in error messages and never both reason and note", () => {
    const r = parseCommand("/diffward resolve", "conversation", { labelPrefix: "QX" });
    expect(r.kind === "error" && r.message).toContain("/diffward resolve QX-1a2b3c4d");
    const s = parseCommand("/severity hgih", "reply");
    expect(s.kind === "error" && s.message).toContain("`hgih`");
  });

  it("caps note content at MAX_NOTE_LENGTH code points", () => {
    const ok = "é".repeat(MAX_NOTE_LENGTH);
    expect(parseCommand(`/note ${ok}`, "reply")).toMatchObject({ kind: "note", content: ok });
    expect(parseCommand(`/note ${ok}x`, "reply")).toMatchObject({ kind: "error", code: "note_too_long" });
    expect(parseCommand(`/resolve ${ok}x`, "reply")).toMatchObject({ kind: "error", code: "note_too_long" });
    expect(parseCommand(`/reopen ${ok}x`, "reply")).toMatchObject({ kind: "error", code: "note_too_long" });
    // the "Reason: `code`. " preamble counts too
    const near = "a".repeat(MAX_NOTE_LENGTH - 5);
    expect(parseCommand(`/resolve fixed_in_code ${near}`, "reply")).toMatchObject({ code: "note_too_long" });
  });

  it("finds the command line outside quotes and fences", () => {
    expect(findCommandLine("> a\n```\nb\n```\n  /x y \nrest\nmore")).toEqual({
      line: "/x y",
      rest: "rest\nmore",
    });
    expect(findCommandLine("```\n/x\n")).toBeUndefined();
  });

  it("resolves aliases and syntax lines", () => {
    expect(canonicalVerb("FP")).toBe("false-positive");
    expect(canonicalVerb("nope")).toBeUndefined();
    expect(verbSyntax("note", "reply")).toBe("/note <markdown>");
    expect(verbSyntax("publish", "conversation", "AB")).toBe("/diffward publish AB-1a2b3c4d");
  });
});

const resolutionVerbs = Object.keys(RESOLUTION_VERBS);
const words = [
  ...resolutionVerbs,
  "fp",
  "wont-fix",
  "severity",
  "note",
  "publish",
  "help",
  "rescan",
  "cancel",
  "status",
  "credits",
  "guidance",
  "areas",
  "bogus",
];
const tokens = fc.oneof(
  fc.constantFrom(
    ...ALL_REASON_CODES,
    "critical",
    "reset",
    "HIGH",
    "SC-1a2b3c4d",
    "1a2b3c4d",
    "fnd_abcdefghij",
  ),
  fc.constantFrom("budget=5", "preset=x", "budget=-1", "`", "```", ">", "\n", "\n> ", "\n```\n", "~~~"),
  fc.string({ maxLength: 12 }),
  fc.string({ unit: "grapheme", maxLength: 12 }),
);
const commandish = fc
  .tuple(
    fc.constantFrom("", "/diffward ", "> ", "```\n", "  "),
    fc.constantFrom(...words),
    fc.array(tokens, { maxLength: 6 }),
  )
  .map(([lead, verb, rest]) => `${lead}${lead === "/diffward " ? "" : "/"}${verb} ${rest.join(" ")}`);
const anyBody = fc.oneof(fc.string(), fc.string({ unit: "binary" }), commandish);
const forms = fc.constantFrom<CommandForm>("reply", "conversation");

describe("parseCommand properties", () => {
  it("never throws and always satisfies the ParsedCommand schema", () => {
    fc.assert(
      fc.property(anyBody, forms, (body, form) => {
        const r = parseCommand(body, form);
        expect(ParsedCommand.safeParse(r).success).toBe(true);
      }),
      propertyOptions(3000),
    );
    // non-string input from an untyped caller does not throw either
    expect(parseCommand(undefined as unknown as string, "reply")).toEqual({ kind: "ignore" });
  });

  it("resolution results respect the catalog and rules 1 and 2", () => {
    fc.assert(
      fc.property(commandish, forms, (body, form) => {
        const r = parseCommand(body, form);
        if (r.kind !== "resolution") return;
        if (r.reason !== undefined) {
          expect(reasonCodesFor(r.status)).toContain(r.reason);
          expect(r.note).toBeUndefined();
        }
        if (r.status === "NOT_STARTED" || r.status === "IN_PROGRESS") {
          expect(r.reason).toBeUndefined();
          expect(r.note).toBeUndefined();
        } else {
          expect(r.extraNote).toBeUndefined();
        }
        if (r.reasonCode !== undefined) expect(r.note).toContain(`\`${r.reasonCode}\``);
      }),
      propertyOptions(3000),
    );
  });

  it("refusals name another status and carry this status's codes", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...(Object.keys(REASON_CATALOG) as ReasonStatus[])),
        fc.constantFrom(...ALL_REASON_CODES),
        (status, code) => {
          const verb = Object.entries(RESOLUTION_VERBS).find(([, s]) => s === status)![0];
          const r = parseCommand(`/${verb} ${code}`, "reply");
          if ((REASON_CATALOG[status] as readonly string[]).includes(code)) {
            expect(r).toMatchObject({ kind: "resolution", status, reason: code });
          } else {
            expect(r).toMatchObject({ kind: "refusal", status, validCodes: [...REASON_CATALOG[status]] });
            expect(r.kind === "refusal" && r.belongsTo).not.toBe(status);
          }
        },
      ),
      propertyOptions(),
    );
  });

  it("severities are valid levels or null; finding refs are valid refs", () => {
    fc.assert(
      fc.property(anyBody, forms, (body, form) => {
        const r = parseCommand(body, form);
        if (r.kind === "severity" && r.severity !== null) expect(SEVERITIES).toContain(r.severity);
        if ("ref" in r && r.ref) {
          const text = r.ref.kind === "id" ? r.ref.id : `${r.ref.prefix ?? "SC"}-${r.ref.short}`;
          expect(parseFindingRef(text)).toBeDefined();
        }
        if (form === "conversation" && "ref" in r) expect(r.ref).toBeDefined();
        if (r.kind !== "ignore") expect(r.requiresPermission).toBe(r.kind !== "help" && r.kind !== "status");
      }),
      propertyOptions(3000),
    );
  });

  it("a command inside a quote or a fence never runs", () => {
    fc.assert(
      fc.property(commandish, fc.constantFrom("> ", ">"), (cmd, quote) => {
        const quoted = cmd
          .split("\n")
          .map((l) => `${quote}${l}`)
          .join("\n");
        expect(parseCommand(quoted, "reply")).toEqual({ kind: "ignore" });
        expect(parseCommand(quoted, "conversation")).toEqual({ kind: "ignore" });
        expect(parseCommand("```\n" + cmd.replace(/```/g, "") + "\n```", "reply")).toEqual({
          kind: "ignore",
        });
      }),
      propertyOptions(),
    );
  });
});

describe("the expiry clause of /wontfix and /mitigate", () => {
  it("reply and conversation forms carry the expiry beside the reason or the note", () => {
    expect(parseCommand("/wontfix risk_accepted until 2027-03-31", "reply")).toEqual({
      kind: "resolution",
      verb: "wontfix",
      requiresPermission: true,
      status: "WONT_FIX",
      reason: "risk_accepted",
      expiry: { kind: "until", at: "2027-03-31T23:59:59.999Z", typed: "until 2027-03-31" },
    });
    expect(
      parseCommand("/diffward wontfix SC-1a2b3c4d vendor fix pending for 30d", "conversation"),
    ).toMatchObject({
      kind: "resolution",
      status: "WONT_FIX",
      ref: { kind: "label", short: "1a2b3c4d" },
      note: "vendor fix pending",
      expiry: { kind: "for", days: 30 },
    });
    expect(parseCommand("/mitigate compensating_control until 2027-01-02T10:00:00Z", "reply")).toMatchObject({
      status: "MITIGATED",
      reason: "compensating_control",
      expiry: { kind: "until", at: "2027-01-02T10:00:00.000Z" },
    });
  });

  it("an unreadable date is an error that states the syntax; nothing else is parsed", () => {
    const bad = parseCommand("/wontfix risk_accepted until 2027-02-30", "reply");
    expect(bad).toMatchObject({ kind: "error", verb: "wontfix", code: "invalid_expiry" });
    if (bad.kind === "error") expect(bad.message).toContain("`until YYYY-MM-DD`");
    expect(parseCommand("/diffward wontfix SC-1a2b3c4d ok until soon", "conversation")).toMatchObject({
      kind: "error",
      code: "invalid_expiry",
    });
  });

  it("other resolution verbs keep `until …` as their text", () => {
    expect(parseCommand("/fp checked until 2027-03-31", "reply")).toMatchObject({
      status: "FALSE_POSITIVE",
      note: "checked until 2027-03-31",
    });
    expect(parseCommand("/fp checked until 2027-03-31", "reply")).not.toHaveProperty("expiry");
  });
});
