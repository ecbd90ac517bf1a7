/**
 * `diffward check-config [path]`: checks a `.github/diffward.yml` before it is pushed, with the app's own
 * parser and messages (src/config/repo-config/validation.ts), and no server: nothing here reads Redis,
 * GitHub, the scanning service or the environment. Pure: the caller reads the file and prints the lines.
 */
import { checkConfigFileYaml } from "./repo-config.js";

/** The outcome of checking one file: the lines to print and the process's exit status. */
export interface ConfigCheck {
  /** 0: valid; 1: a problem (or the file could not be read) */
  exitCode: 0 | 1;
  /** one line per problem, `file:line:column: path: what is wrong (what is allowed)`, or the verdict */
  lines: string[];
}

/**
 * Checks `text`, the content of the file `file` (named in every line, as compilers do, so editors and CI
 * logs link each problem to its place). A file with `enforce:` is read as the organization's file
 * (the `.github` repository's), whose floor applies to every repository of the organization.
 */
export function checkConfigText(file: string, text: string): ConfigCheck {
  const result = checkConfigFileYaml(text);
  if (result.ok) {
    const floor = /^enforce\s*:/m.test(text) ? " (with an organization floor, enforce:)" : "";
    return { exitCode: 0, lines: [`${file}: valid${floor}`] };
  }
  const lines = result.details.map((d) => {
    const at = d.line === undefined ? "" : d.column === undefined ? `:${d.line}` : `:${d.line}:${d.column}`;
    return `${file}${at}: ${d.path ? `${d.path}: ` : ""}${d.message}`;
  });
  const count = result.details.length;
  return { exitCode: 1, lines: [...lines, `${file}: ${count} problem${count === 1 ? "" : "s"}`] };
}
