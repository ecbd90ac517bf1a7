/**
 * Reading a CODEOWNERS file's text into rules, by GitHub's documented syntax ("CODEOWNERS syntax",
 * https://docs.github.com/en/repositories/managing-your-repositorys-settings-and-features/customizing-your-repository/about-code-owners#codeowners-syntax):
 * one rule a line, a path pattern followed by owners written `@username`, `@org/team-name` or as an e-mail
 * address; `#` starts a comment; a pattern with no owners leaves its paths without one. What GitHub says does not
 * work is refused here instead of being read as gitignore reads it ("Syntax exceptions"): `!` to negate a
 * pattern and `\#` to escape a leading `#`.
 */
import type {
  CodeOwner,
  CodeownersFile,
  CodeownersRule,
  CodeownersSyntaxError,
} from "../../domain/codeowners.js";
import { patternProblem } from "./match-pattern.js";

/** `@org/team-name`: an organization login, then the team's slug. */
const TEAM = /^@([A-Za-z0-9][A-Za-z0-9-]*)\/([A-Za-z0-9_.-]+)$/;
/** `@username`: a GitHub login (letters, digits, hyphens; underscores appear in enterprise managed users). */
const USER = /^@([A-Za-z0-9][A-Za-z0-9_-]*)$/;
/** An e-mail address: something, one `@`, a domain with a dot. */
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * The owner `token` names, or a sentence saying why it names none.
 * Rule: GitHub "CODEOWNERS syntax" (`@username`, `@org/team-name`, `user@example.com`).
 */
export function parseOwner(token: string): CodeOwner | string {
  const team = TEAM.exec(token);
  if (team) return { kind: "team", org: team[1]!, slug: team[2]! };
  const user = USER.exec(token);
  if (user) return { kind: "user", login: user[1]! };
  if (EMAIL.test(token)) return { kind: "email", email: token };
  return `\`${token}\` is not an owner: write \`@username\`, \`@org/team-name\` or an e-mail address`;
}

/**
 * The pattern at the start of `line` (already trimmed): up to the first whitespace that no backslash escapes,
 * and the rest of the line after it.
 */
function splitPattern(line: string): { pattern: string; rest: string } {
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (ch === "\\") i++;
    else if (ch === " " || ch === "\t") return { pattern: line.slice(0, i), rest: line.slice(i + 1) };
  }
  return { pattern: line, rest: "" };
}

/** The rule on `line` (trimmed, not blank, not a comment), or a sentence saying why it is not one. */
function parseRuleLine(line: string, lineNumber: number): CodeownersRule | string {
  const { pattern, rest } = splitPattern(line);
  const problem = patternProblem(pattern);
  if (problem) return problem;
  const owners: CodeOwner[] = [];
  for (const token of rest.split(/[ \t]+/)) {
    if (token === "") continue;
    if (token.startsWith("#")) break; // the rest of the line is a comment
    const owner = parseOwner(token);
    if (typeof owner === "string") return owner;
    owners.push(owner);
  }
  return { pattern, owners, line: lineNumber };
}

/**
 * The rules of a CODEOWNERS file's `text`, in file order, and the lines that are not rules. A line that is not
 * a rule (a bad owner, a pattern GitHub does not support) is left out whole and listed in `errors`; GitHub
 * itself lists a file's errors at `GET /repos/{owner}/{repo}/codeowners/errors`, which is the one to trust.
 * Linear in the text's length; never throws.
 */
export function parseCodeowners(text: string): CodeownersFile {
  const rules: CodeownersRule[] = [];
  const errors: CodeownersSyntaxError[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === "" || line.startsWith("#")) continue;
    const rule = parseRuleLine(line, i + 1);
    if (typeof rule === "string") errors.push({ line: i + 1, message: rule });
    else rules.push(rule);
  }
  return { rules, errors };
}
