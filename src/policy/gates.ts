import picomatch from "picomatch";
import type { RepoConfig } from "../config/repo-config.js";
import type { Gate } from "../domain/gate.js";

/** A changed file of the pull request (GitHub "List pull requests files"). */
export interface GateFile {
  filename: string;
  status: string;
  additions: number;
  deletions: number;
}

/** What {@link decideGate} knows of the pull request. */
export interface GateInput {
  config: Pick<RepoConfig, "guidance" | "forks" | "paths" | "authors" | "commands">;
  files: readonly GateFile[];
  authorLogin: string;
  /** true when the head repository is not known to be the base repository ({@link headIsFork}) */
  fromFork: boolean;
  /** the author's permission meets `commands.minPermission` (only asked for forks) */
  authorPermitted: boolean;
  /** the committed guidance file's path (`SCANNER_GUIDANCE_FILE`) */
  guidanceFile: string;
  /** a permitted user clicked "Scan anyway" (or asked for a rescan) */
  approved: boolean;
}

/**
 * Whether a pull request's head must be treated as coming from a fork (an outsider's repository), failing
 * closed: only a head repository known to be the base repository (same `full_name`, case-insensitive) is
 * not a fork. GitHub sends `pull_request.head.repo: null` when the head repository was deleted (REST
 * "Get a pull request": `head.repo` is nullable), and some triggers (a re-run, a job from an older
 * version) do not know it: both are treated as a fork, so the fork gate asks for approval.
 * @param headRepoFullName `head.repo.full_name`, or `undefined`/`null` when GitHub gave none
 * @param baseFullName `owner/repo` of the base repository
 */
export function headIsFork(headRepoFullName: string | null | undefined, baseFullName: string): boolean {
  if (!headRepoFullName) return true;
  return headRepoFullName.toLowerCase() !== baseFullName.toLowerCase();
}

/**
 * Decides, without I/O, whether a pull request may spend credits now (README "Guidance, spend and
 * approvals"), in this order:
 * 1. `authors.skip` lists the author → skip;
 * 2. every changed file matches `paths.ignore` (picomatch globs, dotfiles included) → skip;
 * 3. a fork whose author is below `commands.minPermission`: `forks: skip` → skip, `approve` → wait for a
 *    permitted user's "Scan anyway" (like GitHub's approval of workflows from outside collaborators);
 * 4. the pull request changes the guidance file (the scan would run with the PR's own guidance):
 *    `guidance.onChange: require-approval` → wait for approval; `warn` → scan, flagged.
 * An approved request passes 3 and 4, never 1 and 2 (they are the repository's own choices).
 */
export function decideGate(input: GateInput): Gate {
  const { config } = input;
  const author = input.authorLogin.toLowerCase();
  if (config.authors.skip.some((login) => login.toLowerCase() === author)) {
    return {
      kind: "skip",
      reason: "authors-skip",
      detail: `the author \`${input.authorLogin}\` is listed in \`authors.skip\``,
    };
  }
  if (config.paths.ignore.length > 0 && input.files.length > 0) {
    const ignored = picomatch(config.paths.ignore, { dot: true });
    if (input.files.every((f) => ignored(f.filename))) {
      return {
        kind: "skip",
        reason: "paths-ignore",
        detail: `all ${input.files.length} changed file${input.files.length === 1 ? "" : "s"} match \`paths.ignore\``,
      };
    }
  }
  const g = input.files.find((f) => f.filename === input.guidanceFile);
  const guidanceChange = g ? { additions: g.additions, deletions: g.deletions, status: g.status } : undefined;
  if (!input.approved && input.fromFork && !input.authorPermitted) {
    if (config.forks === "skip") {
      return {
        kind: "skip",
        reason: "fork-skip",
        detail: "pull requests from forks are not scanned here (`forks: skip`)",
      };
    }
    if (config.forks === "approve") {
      return {
        kind: "approval",
        reason: "fork",
        detail: `this pull request comes from a fork and \`${input.authorLogin}\` is below \`${config.commands.minPermission}\` on this repository`,
        ...(guidanceChange ? { guidanceChange } : {}),
      };
    }
  }
  if (!input.approved && guidanceChange && config.guidance.onChange === "require-approval") {
    return {
      kind: "approval",
      reason: "guidance-changed",
      detail: `this pull request changes the guidance file \`${input.guidanceFile}\`, which steers its own scan`,
      guidanceChange,
    };
  }
  return guidanceChange ? { kind: "scan", guidanceChange } : { kind: "scan" };
}
