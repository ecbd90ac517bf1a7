/**
 * The shapes of a parsed CODEOWNERS file (GitHub "About code owners",
 * https://docs.github.com/en/repositories/managing-your-repositorys-settings-and-features/customizing-your-repository/about-code-owners).
 * The parser, matcher and loader are `src/triage/codeowners/` (which re-exports these); the shapes are pure
 * data, so they sit in the kernel where pure rules and renderers can name them without reaching a feature.
 */
import { z } from "zod";

/**
 * One owner named on a CODEOWNERS line: `@login` (a user), `@org/team-slug` (a team), or an e-mail address
 * (GitHub looks it up among its users' verified addresses; diffward cannot, so it is skipped with a note).
 */
export const CodeOwner = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("user"), login: z.string() }),
  z.object({ kind: z.literal("team"), org: z.string(), slug: z.string() }),
  z.object({ kind: z.literal("email"), email: z.string() }),
]);
export type CodeOwner = z.infer<typeof CodeOwner>;

/** One rule of a CODEOWNERS file: a path pattern and its owners (none: the pattern's paths have no owner). */
export const CodeownersRule = z.object({
  /** the pattern as written (escapes kept), e.g. `/docs/`, `*.js`, `apps/` */
  pattern: z.string(),
  owners: z.array(CodeOwner),
  /** the line of the file it was read from, 1-based */
  line: z.number().int().positive(),
});
export type CodeownersRule = z.infer<typeof CodeownersRule>;

/** A line diffward could not read as a rule (the rule is left out; GitHub's own list is `codeowners/errors`). */
export const CodeownersSyntaxError = z.object({
  /** 1-based */
  line: z.number().int().positive(),
  message: z.string(),
});
export type CodeownersSyntaxError = z.infer<typeof CodeownersSyntaxError>;

/** A parsed CODEOWNERS file: its rules in file order (the last matching one wins) and the lines left out. */
export const CodeownersFile = z.object({
  rules: z.array(CodeownersRule),
  errors: z.array(CodeownersSyntaxError),
});
export type CodeownersFile = z.infer<typeof CodeownersFile>;

/**
 * A repository's CODEOWNERS as read at one commit: the file GitHub uses (`file`, parsed, and where it was
 * found), or none. `file` is null when no location holds one, or when the one found cannot be used
 * (`tooLarge`: at or over GitHub's 3 MB; binary or not UTF-8), and `note` then says why.
 */
export const LoadedCodeowners = z.object({
  file: CodeownersFile.nullable(),
  /** the location it was read from (`.github/CODEOWNERS`, `CODEOWNERS`, `docs/CODEOWNERS`), null when none */
  path: z.string().nullable(),
  /** true when the file found is at or over GitHub's limit (3 MB) and GitHub ignores it */
  tooLarge: z.boolean().optional(),
  /** why `file` is null although a file was found, in a sentence */
  note: z.string().optional(),
});
export type LoadedCodeowners = z.infer<typeof LoadedCodeowners>;
