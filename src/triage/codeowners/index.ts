/**
 * CODEOWNERS as GitHub reads it: the file at the base branch's commit, in GitHub's order of locations, parsed
 * and matched by GitHub's documented rules, not gitignore's (GitHub "About code owners",
 * https://docs.github.com/en/repositories/managing-your-repositorys-settings-and-features/customizing-your-repository/about-code-owners).
 */
import type { CodeOwner, CodeownersFile, CodeownersRule } from "../../domain/codeowners.js";
import { lastMatchingRule } from "./match-pattern.js";

export type {
  CodeOwner,
  CodeownersFile,
  CodeownersRule,
  CodeownersSyntaxError,
  LoadedCodeowners,
} from "../../domain/codeowners.js";
export { parseCodeowners, parseOwner } from "./parse-codeowners.js";
export {
  CodeownersCache,
  loadCodeowners,
  loadCodeownersErrors,
  type CodeownersRef,
} from "./load-codeowners.js";
export type { GitHubCodeownersError } from "../../github/repo-files.js";
export { CODEOWNERS_LOCATIONS, CODEOWNERS_MAX_BYTES } from "./locations.js";
export { compilePattern, matchesPattern, patternProblem } from "./match-pattern.js";

/**
 * The code owners of the repository path `path` (`src/a.ts`, no leading `/` needed) and the rule that names
 * them: the last rule whose pattern matches wins, and a matching rule with no owners means the path has none
 * (GitHub "Example of a CODEOWNERS file": `/apps/github` left empty). No matching rule: no owners, `rule: null`.
 */
export function ownersOf(
  file: CodeownersFile,
  path: string,
): { owners: CodeOwner[]; rule: CodeownersRule | null } {
  const rule = lastMatchingRule(file.rules, path);
  return { owners: rule?.owners ?? [], rule };
}
