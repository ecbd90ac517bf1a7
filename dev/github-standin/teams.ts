/**
 * Organization teams and CODEOWNERS in the stand-in: who is in which team (GitHub REST "Get team
 * membership for a user", `GET /orgs/{org}/teams/{team_slug}/memberships/{username}`), whether an
 * installation may read it (the App's `members: read` permission), and the syntax errors GitHub lists for a
 * repository's CODEOWNERS (GitHub REST "List CODEOWNERS errors", `GET /repos/{owner}/{repo}/codeowners/errors`).
 */
import { HttpError, notFound, type RouteContext, type RouteReply } from "./http.js";
import { filesAt } from "./contents.js";
import { repoOf } from "./routes.js";

/** GitHub's locations of CODEOWNERS, in the order it looks (the first found is the one used). */
export const CODEOWNERS_PATHS = [".github/CODEOWNERS", "CODEOWNERS", "docs/CODEOWNERS"] as const;

/** One entry of GitHub's `codeowners/errors` answer. */
interface CodeownersError {
  line: number;
  column: number;
  source: string;
  kind: string;
  suggestion: string | null;
  message: string;
  path: string;
}

// `@user`, `@org/team-slug` (GitHub's login and slug characters) or an e-mail address.
const OWNER = /^(@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\/[A-Za-z0-9_.-]+)?|[^@\s]+@[^@\s]+\.[^@\s]+)$/;

/**
 * The syntax errors of a CODEOWNERS text as GitHub reports them: an owner that is neither `@user`,
 * `@org/team` nor an e-mail address is an `Invalid owner`; a pattern using gitignore syntax GitHub does not
 * support (`!` negation, `[ ]` ranges: a bracket no backslash escapes, a `\#` escape) is an `Invalid pattern` (GitHub Docs "About code
 * owners", CODEOWNERS syntax). Lines and columns are 1-based.
 */
export function codeownersErrors(text: string, path: string): CodeownersError[] {
  const errors: CodeownersError[] = [];
  text.split(/\r?\n/).forEach((source, i) => {
    const line = i + 1;
    const content = source.replace(/\s#.*$/, "");
    if (content.trim() === "" || content.trimStart().startsWith("#")) return;
    const tokens = [...content.matchAll(/\S+/g)];
    const [pattern, ...owners] = tokens;
    const error = (kind: string, column: number, suggestion: string | null = null) =>
      errors.push({
        line,
        column,
        source,
        kind,
        suggestion,
        message: `${kind} on line ${line}:\n\n  ${source}\n  ${" ".repeat(column - 1)}^`,
        path,
      });
    // a bracket counts only when no backslash escapes it: `\[id\]` is a literal path (GitHub's message for
    // an unescaped one: "both `[` and `]` must be escaped with a `\`")
    if (pattern && /^(!|\\#)|(^|[^\\])(\\\\)*[[\]]/.test(pattern[0]))
      error("Invalid pattern", (pattern.index ?? 0) + 1);
    for (const owner of owners) if (!OWNER.test(owner[0])) error("Invalid owner", (owner.index ?? 0) + 1);
  });
  return errors;
}

type Handler = (ctx: RouteContext) => RouteReply;

export const TEAM_ROUTES: Record<string, Handler> = {
  /**
   * GitHub REST "Get team membership for a user": `{ url, role, state }` (`state` `active` or `pending`);
   * 404 when the user is not in the team; 403 for an installation without `members: read`.
   */
  "teams/get-membership-for-user-in-org": (ctx) => {
    if (!ctx.state.teams.mayReadMembers(ctx.installationId))
      throw new HttpError(403, "Resource not accessible by integration");
    const org = ctx.params["org"] ?? "";
    const slug = ctx.params["team_slug"] ?? "";
    const login = ctx.params["username"] ?? "";
    const m = ctx.state.teams.membership(org, slug, login);
    if (m === undefined) throw notFound();
    return {
      status: 200,
      body: {
        url: `${ctx.apiBase}/organizations/${ctx.state.userId(org)}/team/${slug}/memberships/${login}`,
        role: m.role,
        state: m.state,
      },
    };
  },

  /**
   * GitHub REST "List CODEOWNERS errors": the errors of the first CODEOWNERS found at `ref` (default: the
   * default branch) in GitHub's order of locations; 404 when there is none.
   */
  "repos/codeowners-errors": (ctx) => {
    const repo = repoOf(ctx);
    const ref = ctx.query["ref"] ?? repo.defaultBranch;
    const files = filesAt(repo, ref);
    if (files === undefined) throw new HttpError(404, `No commit found for the ref ${ref}`);
    const path = CODEOWNERS_PATHS.find((p) => files.has(p));
    if (path === undefined) throw notFound();
    const content = files.get(path) ?? "";
    const text = typeof content === "string" ? content : Buffer.from(content).toString("utf8");
    return { status: 200, body: { errors: codeownersErrors(text, path) } };
  },
};
