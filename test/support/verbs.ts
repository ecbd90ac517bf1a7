/**
 * What the verb modules' plan tests share (test/commands/verbs/, test/commands/table.test.ts): a finding
 * `SC-01234567` as the service details it, a pull request, a completed report, a command parsed as written
 * in a conversation comment, and a verb's input around it.
 */
import { expect } from "vitest";
import { parseCommand, type VerbInput } from "../../src/commands/index.js";
import type { ReportState } from "../../src/stores/stored-report.js";
import type { FindingDetail } from "../../src/scanner/schemas.js";
import { finding } from "./finding.js";
import { repoConfig } from "./jobs.js";

/** The finding the plans act on, as the service details it (label `SC-01234567`, HIGH, open). */
export const DETAIL = {
  ...finding({
    id: "f_abcdef0101234567",
    displayId: 7,
    title: "SQL injection in user lookup",
    location: "src/db.ts:12",
  }),
  description: "d",
  scanId: "scan_1",
  createdAt: "2026-01-01T00:00:00Z",
  notes: [],
} as FindingDetail;
/** The clock of every plan. */
export const NOW = Date.parse("2026-03-04T05:06:07Z");
/** The pull request the commands are written in. */
export const PULL = { owner: "octo", repo: "app", pullNumber: 9 };

/** The pull request's last report: scan `scan_done`, no finding, the default config. */
export const report = {
  scanId: "scan_done",
  headSha: "1234567abc",
  findings: [],
  config: repoConfig(),
} as unknown as ReportState;

/** A verb's input for `cmd`, written by `octo-writer` in the conversation, about {@link DETAIL}; `over` replaces fields. */
export function input<C>(cmd: C, over: Partial<VerbInput<C>> = {}): VerbInput<C> {
  return {
    cmd,
    form: "conversation",
    sender: "octo-writer",
    pull: PULL,
    commentId: 4242,
    labelPrefix: "SC",
    now: NOW,
    config: undefined,
    tenant: undefined,
    target: { detail: DETAIL, commentId: 77 },
    settings: { guidanceFile: "SCANNER.md" },
    help: (unknown) => `help${unknown ? ` ${unknown}` : ""}`,
    ...over,
  };
}

/** `body` parsed as a conversation comment, expected to be a command of `kind`. */
export function parsed<K extends string>(body: string, kind: K) {
  const cmd = parseCommand(body, "conversation");
  expect(cmd.kind).toBe(kind);
  return cmd as Extract<typeof cmd, { kind: K }>;
}
