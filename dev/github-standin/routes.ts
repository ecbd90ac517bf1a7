import { z } from "zod";
import { parsePatch } from "./diff.js";
import { HttpError, notFound, paginate, type RouteContext, type RouteReply } from "./http.js";
import {
  blobSha,
  type Account,
  type CheckRun,
  type Installation,
  type IssueComment,
  type PullRequest,
  type PullRequestFile,
  type Repository,
  type Review,
  type ReviewComment,
  repoNodeId,
} from "./state.js";

// Bodies reach these handlers only after ajv accepted them against GitHub's OpenAPI schema; these zod
// schemas type the fields the stand-in reads (loose: every other field is kept and ignored).
const Annotation = z.looseObject({ path: z.string(), start_line: z.number(), end_line: z.number() });
const CheckRunBody = z.looseObject({
  name: z.string().optional(),
  head_sha: z.string().optional(),
  details_url: z.string().optional(),
  external_id: z.string().optional(),
  status: z.enum(["queued", "in_progress", "completed", "waiting", "requested", "pending"]).optional(),
  conclusion: z.string().optional(),
  started_at: z.string().optional(),
  completed_at: z.string().optional(),
  output: z
    .looseObject({
      title: z.string().optional(),
      summary: z.string().optional(),
      text: z.string().optional(),
      annotations: z.array(Annotation).optional(),
    })
    .optional(),
  actions: z.array(z.looseObject({ label: z.string(), identifier: z.string() })).optional(),
});
const ReviewBody = z.looseObject({
  commit_id: z.string().optional(),
  body: z.string().optional(),
  event: z.enum(["APPROVE", "REQUEST_CHANGES", "COMMENT"]).optional(),
  comments: z
    .array(
      z.looseObject({
        path: z.string(),
        body: z.string(),
        position: z.number().int().optional(),
        line: z.number().int().optional(),
        side: z.string().optional(),
        start_line: z.number().int().optional(),
        start_side: z.string().optional(),
      }),
    )
    .optional(),
});
const BodyOnly = z.looseObject({ body: z.string() });
const ReactionBody = z.looseObject({ content: z.string() });

/** GitHub's maximum comment body, in characters (issue and review comments). */
export const MAX_COMMENT_BODY = 65_536;

type Handler = (ctx: RouteContext) => RouteReply;

function parseBody<T>(schema: z.ZodType<T>, ctx: RouteContext): T {
  const r = schema.safeParse(ctx.body);
  if (!r.success)
    throw new HttpError(
      422,
      "Invalid request.",
      r.error.issues.map((i) => i.message),
    );
  return r.data;
}

export function intParam(ctx: RouteContext, name: string): number {
  const n = Number(ctx.params[name]);
  if (!Number.isInteger(n)) throw notFound();
  return n;
}

export function now(): string {
  return new Date().toISOString().replace(/\.\d{3}Z$/, "Z");
}

export function userJson(ctx: RouteContext, u: Account & { id: number }) {
  return {
    login: u.login,
    id: u.id,
    node_id: `U_${u.id}`,
    type: u.type,
    site_admin: false,
    url: `${ctx.apiBase}/users/${u.login}`,
    html_url: `${ctx.origin}/${u.login}`,
  };
}

/** The repository of the route, visible to the caller's installation. @throws HttpError 404 otherwise. */
export function repoOf(ctx: RouteContext): Repository {
  const repo = ctx.state.repository(ctx.params["owner"] ?? "", ctx.params["repo"] ?? "");
  if (repo === undefined) throw notFound();
  if (ctx.installationId === undefined) {
    if (repo.private || ctx.method !== "GET") throw notFound();
  } else if (repo.installationId !== ctx.installationId) {
    throw notFound();
  }
  return repo;
}

function repoJson(ctx: RouteContext, repo: Repository) {
  const ownerType = ctx.state.installation(repo.installationId)?.account.type ?? "User";
  return {
    id: repo.id,
    node_id: repoNodeId(repo),
    name: repo.name,
    full_name: `${repo.owner}/${repo.name}`,
    private: repo.private,
    visibility: repo.private ? "private" : "public",
    owner: userJson(ctx, { login: repo.owner, type: ownerType, id: ctx.state.userId(repo.owner) }),
    html_url: `${ctx.origin}/${repo.owner}/${repo.name}`,
    url: `${ctx.apiBase}/repos/${repo.owner}/${repo.name}`,
    default_branch: repo.defaultBranch,
    fork: false,
    archived: false,
    disabled: false,
  };
}

function pullOf(ctx: RouteContext, repo: Repository, param = "pull_number"): PullRequest {
  const pr = ctx.state.pullRequest(repo.owner, repo.name, intParam(ctx, param));
  if (pr === undefined) throw notFound();
  return pr;
}

function prJson(ctx: RouteContext, repo: Repository, pr: PullRequest) {
  const r = repoJson(ctx, repo);
  return {
    id: pr.id,
    node_id: `PR_${pr.id}`,
    number: pr.number,
    state: pr.state,
    draft: pr.draft,
    locked: false,
    title: pr.title,
    body: pr.body,
    user: userJson(ctx, pr.user),
    url: `${r.url}/pulls/${pr.number}`,
    html_url: `${r.html_url}/pull/${pr.number}`,
    head: {
      label: `${repo.owner}:${pr.head.ref}`,
      ref: pr.head.ref,
      sha: pr.head.sha,
      repo: r,
      user: r.owner,
    },
    base: {
      label: `${repo.owner}:${pr.base.ref}`,
      ref: pr.base.ref,
      sha: pr.base.sha,
      repo: r,
      user: r.owner,
    },
    merged: false,
    created_at: pr.createdAt,
    updated_at: pr.updatedAt,
  };
}

function fileJson(ctx: RouteContext, repo: Repository, sha: string, f: PullRequestFile) {
  const counts = f.patch === undefined ? { additions: 0, deletions: 0 } : parsePatch(f.patch);
  return {
    sha: blobSha(`${sha}:${f.filename}`),
    filename: f.filename,
    status: f.status,
    additions: counts.additions,
    deletions: counts.deletions,
    changes: counts.additions + counts.deletions,
    blob_url: `${ctx.origin}/${repo.owner}/${repo.name}/blob/${sha}/${f.filename}`,
    raw_url: `${ctx.origin}/${repo.owner}/${repo.name}/raw/${sha}/${f.filename}`,
    contents_url: `${ctx.apiBase}/repos/${repo.owner}/${repo.name}/contents/${f.filename}?ref=${sha}`,
    ...(f.patch === undefined ? {} : { patch: f.patch }),
    ...(f.previousFilename === undefined ? {} : { previous_filename: f.previousFilename }),
  };
}

function checkRunJson(ctx: RouteContext, repo: Repository, run: CheckRun) {
  const url = `${ctx.apiBase}/repos/${repo.owner}/${repo.name}/check-runs/${run.id}`;
  return {
    id: run.id,
    node_id: `CR_${run.id}`,
    head_sha: run.headSha,
    external_id: run.externalId,
    url,
    html_url: `${ctx.origin}/${repo.owner}/${repo.name}/runs/${run.id}`,
    details_url: run.detailsUrl,
    status: run.status,
    conclusion: run.conclusion,
    started_at: run.startedAt,
    completed_at: run.completedAt,
    name: run.name,
    output: {
      ...run.output,
      annotations_count: run.annotations.length,
      annotations_url: `${url}/annotations`,
    },
    check_suite: { id: 1 },
    app: { id: 1, slug: run.appSlug },
    pull_requests: ctx.state
      .pullRequests(repo.owner, repo.name)
      .filter((p) => p.head.sha === run.headSha && p.state === "open")
      .map((p) => ({
        id: p.id,
        number: p.number,
        url: `${ctx.apiBase}/repos/${repo.owner}/${repo.name}/pulls/${p.number}`,
      })),
    actions: run.actions,
  };
}

function reviewCommentJson(ctx: RouteContext, repo: Repository, c: ReviewComment) {
  const url = `${ctx.apiBase}/repos/${repo.owner}/${repo.name}/pulls/comments/${c.id}`;
  return {
    id: c.id,
    node_id: `PRRC_${c.id}`,
    pull_request_review_id: c.reviewId,
    in_reply_to_id: c.inReplyToId ?? undefined,
    path: c.path,
    line: c.line,
    original_line: c.line,
    side: c.side,
    start_line: c.startLine,
    start_side: c.startSide,
    position: c.line,
    commit_id: c.commitId,
    original_commit_id: c.commitId,
    diff_hunk: "",
    body: c.body,
    user: userJson(ctx, c.user),
    created_at: c.createdAt,
    updated_at: c.updatedAt,
    url,
    html_url: `${ctx.origin}/${repo.owner}/${repo.name}/pull/${c.pullNumber}#discussion_r${c.id}`,
    pull_request_url: `${ctx.apiBase}/repos/${repo.owner}/${repo.name}/pulls/${c.pullNumber}`,
    author_association: "NONE",
  };
}

function issueCommentJson(ctx: RouteContext, repo: Repository, c: IssueComment) {
  return {
    id: c.id,
    node_id: `IC_${c.id}`,
    body: c.body,
    user: userJson(ctx, c.user),
    created_at: c.createdAt,
    updated_at: c.updatedAt,
    url: `${ctx.apiBase}/repos/${repo.owner}/${repo.name}/issues/comments/${c.id}`,
    html_url: `${ctx.origin}/${repo.owner}/${repo.name}/pull/${c.issueNumber}#issuecomment-${c.id}`,
    issue_url: `${ctx.apiBase}/repos/${repo.owner}/${repo.name}/issues/${c.issueNumber}`,
    author_association: "NONE",
  };
}

function reviewJson(ctx: RouteContext, repo: Repository, r: Review) {
  return {
    id: r.id,
    node_id: `PRR_${r.id}`,
    user: userJson(ctx, r.user),
    body: r.body,
    state: r.state,
    commit_id: r.commitId,
    submitted_at: r.submittedAt,
    html_url: `${ctx.origin}/${repo.owner}/${repo.name}/pull/${r.pullNumber}#pullrequestreview-${r.id}`,
    pull_request_url: `${ctx.apiBase}/repos/${repo.owner}/${repo.name}/pulls/${r.pullNumber}`,
    author_association: "NONE",
  };
}

function checkBodyLength(body: string): void {
  if (body.length > MAX_COMMENT_BODY) {
    throw new HttpError(422, "Validation Failed", [
      {
        resource: "IssueComment",
        code: "custom",
        field: "body",
        message: `body is too long (maximum is ${MAX_COMMENT_BODY} characters)`,
      },
    ]);
  }
}

export function bot(ctx: RouteContext): Account & { id: number } {
  return ctx.state.botUser(ctx.installationId ?? 0);
}

/** An installation as GitHub lists it (REST "List installations for the authenticated app"). */
export function installationJson(ctx: RouteContext, i: Installation) {
  return {
    id: i.id,
    account: userJson(ctx, i.account),
    app_id: i.appId,
    app_slug: i.appSlug,
    target_type: i.account.type,
    repository_selection: "all",
    permissions: { checks: "write", contents: "read", pull_requests: "write", issues: "write" },
    events: ["pull_request", "issue_comment", "pull_request_review_comment"],
  };
}

/** One page of `repositories` with their total, as the installation repository listings answer. */
export function repositoriesReply(ctx: RouteContext, all: readonly Repository[]): RouteReply {
  const page = paginate(ctx, all);
  return {
    status: 200,
    headers: page.headers,
    body: {
      total_count: all.length,
      repository_selection: "all",
      repositories: page.items.map((r) => repoJson(ctx, r)),
    },
  };
}

// ------------------------------------------------------------------------------------------------ routes

const installations: Record<string, Handler> = {
  "apps/create-installation-access-token": (ctx) => {
    const inst = ctx.state.installation(intParam(ctx, "installation_id"));
    if (inst === undefined) throw notFound();
    const { token, expiresAt } = ctx.state.issueToken(inst.id);
    return {
      status: 201,
      body: {
        token,
        expires_at: new Date(expiresAt).toISOString().replace(/\.\d{3}Z$/, "Z"),
        permissions: {
          checks: "write",
          contents: "read",
          pull_requests: "write",
          issues: "write",
          metadata: "read",
          security_events: "write",
          ...(ctx.state.teams.mayReadMembers(inst.id) ? { members: "read" } : {}),
        },
        repository_selection: "all",
      },
    };
  },
  "apps/get-authenticated": (ctx) => {
    // GitHub REST "Get the authenticated app" (JWT): the app behind the stand-in's installations.
    const slug = ctx.state.listInstallations()[0]?.appSlug ?? "diffward";
    return {
      status: 200,
      body: {
        id: 1,
        slug,
        node_id: "A_kwHOAAAAAQ",
        name: slug,
        description: "",
        external_url: "https://example.test",
        html_url: `https://github.com/apps/${slug}`,
        permissions: { checks: "write", contents: "read", pull_requests: "write", issues: "write" },
        events: ["pull_request", "issue_comment", "pull_request_review_comment"],
        created_at: "2026-01-01T00:00:00Z",
        updated_at: "2026-01-01T00:00:00Z",
      },
    };
  },
  "apps/list-installations": (ctx) => {
    const page = paginate(ctx, ctx.state.listInstallations());
    return {
      status: 200,
      headers: page.headers,
      body: page.items.map((i) => installationJson(ctx, i)),
    };
  },
  "apps/list-repos-accessible-to-installation": (ctx) =>
    repositoriesReply(ctx, ctx.state.repositoriesOf(ctx.installationId ?? 0)),
};

const repos: Record<string, Handler> = {
  "repos/get": (ctx) => ({ status: 200, body: repoJson(ctx, repoOf(ctx)) }),

  /**
   * GitHub REST "List matching references" (`git/list-matching-refs`): the refs that start with
   * `refs/<ref>` (`heads/<branch>` for branches), sorted by name, as an array of `git-ref` objects
   * (`ref`, `node_id`, `url`, `object: { type, sha, url }`); an empty array when none match. The stand-in
   * knows three kinds of branch: the branches pushes set (`setBranchHead`), each open pull request's head
   * branch and each merge group's
   * `gh-readonly-queue/…` branch, which GitHub deletes when the group is destroyed (merged, dequeued,
   * invalidated).
   */
  "git/list-matching-refs": (ctx) => {
    const repo = repoOf(ctx);
    const prefix = `refs/${ctx.params["ref"] ?? ""}`;
    const api = `${ctx.apiBase}/repos/${repo.owner}/${repo.name}/git`;
    const body = ctx.state
      .refsOf(repo.owner, repo.name)
      .filter(([ref]) => ref.startsWith(prefix))
      .map(([ref, sha]) => ({
        ref,
        node_id: `REF_${Buffer.from(`${repo.id}:${ref}`).toString("base64url")}`,
        url: `${api}/${ref}`,
        object: { type: "commit", sha, url: `${api}/commits/${sha}` },
      }));
    return { status: 200, body };
  },

  "repos/compare-commits-with-basehead": (ctx) => {
    const repo = repoOf(ctx);
    const [base, head] = (ctx.params["basehead"] ?? "").split("...");
    if (base === undefined || head === undefined || base === "" || head === "") throw notFound();
    const group = ctx.state.mergeGroup(repo.owner, repo.name, head);
    if (group !== undefined && group.baseSha === base) {
      // a merge group's head is one commit on top of its base (the queue merged the pull request onto it)
      return {
        status: 200,
        body: {
          url: `${ctx.apiBase}/repos/${repo.owner}/${repo.name}/compare/${base}...${head}`,
          html_url: `${ctx.origin}/${repo.owner}/${repo.name}/compare/${base}...${head}`,
          base_commit: { sha: base },
          merge_base_commit: { sha: base },
          status: "ahead",
          ahead_by: 1,
          behind_by: 0,
          total_commits: 1,
          commits: [{ sha: head }],
          files: group.files.map((f) => fileJson(ctx, repo, head, f)),
        },
      };
    }
    const pr = ctx.state
      .pullRequests(repo.owner, repo.name)
      .find(
        (p) =>
          [p.base.sha, p.base.ref, p.mergeBaseSha].includes(base) &&
          [...p.filesBySha.keys(), p.head.ref].includes(head),
      );
    if (pr === undefined) throw notFound();
    const headSha = head === pr.head.ref ? pr.head.sha : head;
    const baseSha = base === pr.base.ref ? pr.base.sha : base;
    const behindBy = baseSha === pr.mergeBaseSha ? 0 : 1;
    return {
      status: 200,
      body: {
        url: `${ctx.apiBase}/repos/${repo.owner}/${repo.name}/compare/${base}...${head}`,
        html_url: `${ctx.origin}/${repo.owner}/${repo.name}/compare/${base}...${head}`,
        base_commit: { sha: baseSha },
        merge_base_commit: { sha: pr.mergeBaseSha },
        status:
          pr.aheadBy === 0
            ? behindBy === 0
              ? "identical"
              : "behind"
            : behindBy === 0
              ? "ahead"
              : "diverged",
        ahead_by: pr.aheadBy,
        behind_by: behindBy,
        total_commits: pr.aheadBy,
        commits: [{ sha: headSha }],
        files: (pr.filesBySha.get(headSha) ?? []).map((f) => fileJson(ctx, repo, headSha, f)),
      },
    };
  },

  "repos/get-collaborator-permission-level": (ctx) => {
    const repo = repoOf(ctx);
    const login = ctx.params["username"] ?? "";
    if (!ctx.state.knowsUser(login)) throw notFound();
    const role = ctx.state.permission(repo.owner, repo.name, login) ?? (repo.private ? "none" : "read");
    const permission = role === "maintain" ? "write" : role === "triage" ? "read" : role;
    return {
      status: 200,
      body: {
        permission,
        role_name: role,
        user: {
          ...userJson(ctx, { login, type: "User", id: ctx.state.userId(login) }),
          permissions: {
            admin: role === "admin",
            maintain: ["admin", "maintain"].includes(role),
            push: ["admin", "maintain", "write"].includes(role),
            triage: ["admin", "maintain", "write", "triage"].includes(role),
            pull: role !== "none",
          },
          role_name: role,
        },
      },
    };
  },
};

const checks: Record<string, Handler> = {
  "checks/create": (ctx) => {
    const repo = repoOf(ctx);
    const b = parseBody(CheckRunBody, ctx);
    const status = b.conclusion !== undefined ? "completed" : (b.status ?? "queued");
    if (status === "completed" && b.conclusion === undefined) {
      throw new HttpError(422, 'Invalid request.\n\n`conclusion` is required when `status` is "completed".');
    }
    const run: CheckRun = {
      id: ctx.state.newId(),
      name: b.name ?? "",
      headSha: b.head_sha ?? "",
      externalId: b.external_id ?? null,
      detailsUrl: b.details_url ?? null,
      status,
      conclusion: b.conclusion ?? null,
      startedAt: b.started_at ?? now(),
      completedAt: status === "completed" ? (b.completed_at ?? now()) : null,
      output: {
        title: b.output?.title ?? null,
        summary: b.output?.summary ?? null,
        text: b.output?.text ?? null,
      },
      annotations: [...(b.output?.annotations ?? [])],
      actions: b.actions ?? [],
      appSlug: ctx.state.installation(ctx.installationId ?? 0)?.appSlug ?? "diffward",
    };
    ctx.state.checkRuns(repo.owner, repo.name).push(run);
    return { status: 201, body: checkRunJson(ctx, repo, run) };
  },

  "checks/update": (ctx) => {
    const repo = repoOf(ctx);
    const run = ctx.state
      .checkRuns(repo.owner, repo.name)
      .find((r) => r.id === intParam(ctx, "check_run_id"));
    if (run === undefined) throw notFound();
    const b = parseBody(CheckRunBody, ctx);
    const status = b.conclusion !== undefined ? "completed" : (b.status ?? run.status);
    if (status === "completed" && (b.conclusion ?? run.conclusion) === null) {
      throw new HttpError(422, 'Invalid request.\n\n`conclusion` is required when `status` is "completed".');
    }
    if (b.name !== undefined) run.name = b.name;
    if (b.external_id !== undefined) run.externalId = b.external_id;
    if (b.details_url !== undefined) run.detailsUrl = b.details_url;
    if (b.started_at !== undefined) run.startedAt = b.started_at;
    if (b.conclusion !== undefined) run.conclusion = b.conclusion;
    if (status === "completed" && run.status !== "completed") run.completedAt = b.completed_at ?? now();
    run.status = status;
    if (b.output !== undefined) {
      // The output's title/summary/text are replaced; annotations are appended (docs: "Update a check run").
      run.output = {
        title: b.output.title ?? run.output.title,
        summary: b.output.summary ?? run.output.summary,
        text: b.output.text ?? run.output.text,
      };
      run.annotations.push(...(b.output.annotations ?? []));
    }
    if (b.actions !== undefined) run.actions = b.actions;
    return { status: 200, body: checkRunJson(ctx, repo, run) };
  },

  "checks/get": (ctx) => {
    const repo = repoOf(ctx);
    const run = ctx.state
      .checkRuns(repo.owner, repo.name)
      .find((r) => r.id === intParam(ctx, "check_run_id"));
    if (run === undefined) throw notFound();
    return { status: 200, body: checkRunJson(ctx, repo, run) };
  },

  "checks/list-for-ref": (ctx) => {
    const repo = repoOf(ctx);
    const ref = ctx.params["ref"] ?? "";
    const byBranch = ctx.state
      .pullRequests(repo.owner, repo.name)
      .find((p) => p.head.ref === ref || `refs/heads/${p.head.ref}` === ref);
    const sha = byBranch?.head.sha ?? ref;
    let runs = ctx.state.checkRuns(repo.owner, repo.name).filter((r) => r.headSha === sha);
    if (ctx.query["check_name"] !== undefined) runs = runs.filter((r) => r.name === ctx.query["check_name"]);
    if (ctx.query["status"] !== undefined) runs = runs.filter((r) => r.status === ctx.query["status"]);
    if ((ctx.query["filter"] ?? "latest") === "latest") {
      // `latest`: only the most recent run of each name (docs: "List check runs for a Git reference").
      const latest = new Map<string, CheckRun>();
      for (const r of runs) latest.set(r.name, r);
      runs = [...latest.values()];
    }
    runs = [...runs].sort((a, b) => b.id - a.id);
    const page = paginate(ctx, runs);
    return {
      status: 200,
      headers: page.headers,
      body: { total_count: runs.length, check_runs: page.items.map((r) => checkRunJson(ctx, repo, r)) },
    };
  },
};

function commentable(pr: PullRequest, commitId: string, c: z.infer<typeof ReviewBody>["comments"]) {
  const files = pr.filesBySha.get(commitId) ?? [];
  return (c ?? []).map((comment) => {
    const file = files.find((f) => f.filename === comment.path);
    if (file === undefined) throw new HttpError(422, "Unprocessable Entity", ["Path could not be resolved"]);
    const lines = parsePatch(file.patch ?? "");
    const partOfDiff = new HttpError(422, "Unprocessable Entity", [
      "Pull request review thread line must be part of the diff",
    ]);
    if (comment.line === undefined) {
      const at = comment.position === undefined ? undefined : lines.positions.get(comment.position);
      if (at === undefined) {
        throw new HttpError(422, "Unprocessable Entity", ["Pull request review thread position is invalid"]);
      }
      return { ...comment, line: at.line, side: at.side, startLine: null, startSide: null };
    }
    const side = comment.side ?? "RIGHT";
    if (side !== "RIGHT" && side !== "LEFT")
      throw new HttpError(422, "Unprocessable Entity", ["Side is not included in the list"]);
    const set = side === "RIGHT" ? lines.right : lines.left;
    if (!set.has(comment.line)) throw partOfDiff;
    let startLine: number | null = null;
    let startSide: "LEFT" | "RIGHT" | null = null;
    if (comment.start_line !== undefined) {
      startSide = (comment.start_side ?? side) === "LEFT" ? "LEFT" : "RIGHT";
      if (comment.start_line >= comment.line && startSide === side) {
        throw new HttpError(422, "Unprocessable Entity", [
          "Pull request review thread start line must precede the end line",
        ]);
      }
      if (!(startSide === "RIGHT" ? lines.right : lines.left).has(comment.start_line)) throw partOfDiff;
      startLine = comment.start_line;
    }
    return { ...comment, line: comment.line, side: side as "LEFT" | "RIGHT", startLine, startSide };
  });
}

function addRootComment(ctx: RouteContext, repo: Repository, c: ReviewComment): void {
  ctx.state.reviewComments(repo.owner, repo.name).push(c);
  ctx.state.threads(repo.owner, repo.name).push({
    id: `PRRT_kwDOstandin${c.id}`,
    pullNumber: c.pullNumber,
    rootCommentId: c.id,
    isResolved: false,
  });
}

function reviewCommentOf(ctx: RouteContext, repo: Repository): ReviewComment {
  const c = ctx.state.reviewComments(repo.owner, repo.name).find((x) => x.id === intParam(ctx, "comment_id"));
  if (c === undefined) throw notFound();
  return c;
}

const pulls: Record<string, Handler> = {
  "pulls/get": (ctx) => {
    const repo = repoOf(ctx);
    return { status: 200, body: prJson(ctx, repo, pullOf(ctx, repo)) };
  },

  "pulls/list": (ctx) => {
    const repo = repoOf(ctx);
    const state = ctx.query["state"] ?? "open";
    const all = ctx.state
      .pullRequests(repo.owner, repo.name)
      .filter((p) => state === "all" || p.state === state)
      .filter(
        (p) =>
          ctx.query["head"] === undefined ||
          `${repo.owner}:${p.head.ref}`.toLowerCase() === ctx.query["head"]?.toLowerCase(),
      )
      .filter((p) => ctx.query["base"] === undefined || p.base.ref === ctx.query["base"])
      .sort((a, b) => b.number - a.number);
    const page = paginate(ctx, all);
    return { status: 200, headers: page.headers, body: page.items.map((p) => prJson(ctx, repo, p)) };
  },

  "pulls/list-files": (ctx) => {
    const repo = repoOf(ctx);
    const pr = pullOf(ctx, repo);
    const page = paginate(ctx, pr.filesBySha.get(pr.head.sha) ?? []);
    return {
      status: 200,
      headers: page.headers,
      body: page.items.map((f) => fileJson(ctx, repo, pr.head.sha, f)),
    };
  },

  "pulls/create-review": (ctx) => {
    const repo = repoOf(ctx);
    const pr = pullOf(ctx, repo);
    const b = parseBody(ReviewBody, ctx);
    const commitId = b.commit_id ?? pr.head.sha;
    if (!pr.filesBySha.has(commitId))
      throw new HttpError(422, "Unprocessable Entity", [`No commit found for SHA: ${commitId}`]);
    if (b.event === "REQUEST_CHANGES" && (b.body ?? "") === "") {
      throw new HttpError(422, "Unprocessable Entity", ["Body is required when using REQUEST_CHANGES"]);
    }
    if (b.event === "COMMENT" && (b.body ?? "") === "" && (b.comments ?? []).length === 0) {
      throw new HttpError(422, "Unprocessable Entity", ["Review cannot be blank: add a body or comments"]);
    }
    checkBodyLength(b.body ?? "");
    for (const c of b.comments ?? []) checkBodyLength(c.body);
    const resolved = commentable(pr, commitId, b.comments);
    const at = now();
    const review: Review = {
      id: ctx.state.newId(),
      pullNumber: pr.number,
      body: b.body ?? "",
      state:
        b.event === "APPROVE"
          ? "APPROVED"
          : b.event === "REQUEST_CHANGES"
            ? "CHANGES_REQUESTED"
            : b.event === "COMMENT"
              ? "COMMENTED"
              : "PENDING",
      commitId,
      submittedAt: at,
      user: bot(ctx),
    };
    ctx.state.reviews(repo.owner, repo.name).push(review);
    for (const c of resolved) {
      addRootComment(ctx, repo, {
        id: ctx.state.newId(),
        pullNumber: pr.number,
        reviewId: review.id,
        inReplyToId: null,
        path: c.path,
        line: c.line,
        side: c.side,
        startLine: c.startLine,
        startSide: c.startSide,
        body: c.body,
        commitId,
        createdAt: at,
        updatedAt: at,
        user: review.user,
      });
    }
    return { status: 200, body: reviewJson(ctx, repo, review) };
  },

  "pulls/list-review-comments": (ctx) => {
    const repo = repoOf(ctx);
    const pr = pullOf(ctx, repo);
    const all = [...ctx.state.reviewComments(repo.owner, repo.name, pr.number)];
    if (ctx.query["direction"] === "desc") all.reverse();
    const page = paginate(ctx, all);
    return {
      status: 200,
      headers: page.headers,
      body: page.items.map((c) => reviewCommentJson(ctx, repo, c)),
    };
  },

  "pulls/get-review-comment": (ctx) => {
    const repo = repoOf(ctx);
    return { status: 200, body: reviewCommentJson(ctx, repo, reviewCommentOf(ctx, repo)) };
  },

  "pulls/update-review-comment": (ctx) => {
    const repo = repoOf(ctx);
    const c = reviewCommentOf(ctx, repo);
    const b = parseBody(BodyOnly, ctx);
    checkBodyLength(b.body);
    c.body = b.body;
    c.updatedAt = now();
    return { status: 200, body: reviewCommentJson(ctx, repo, c) };
  },

  "pulls/create-reply-for-review-comment": (ctx) => {
    const repo = repoOf(ctx);
    const pr = pullOf(ctx, repo);
    const parent = reviewCommentOf(ctx, repo);
    if (parent.pullNumber !== pr.number) throw notFound();
    // Docs: "This must be the ID of a top-level review comment, not a reply to that comment."
    if (parent.inReplyToId !== null)
      throw new HttpError(422, "Unprocessable Entity", ["Replies to replies are not supported"]);
    const b = parseBody(BodyOnly, ctx);
    checkBodyLength(b.body);
    const at = now();
    const reply: ReviewComment = {
      ...parent,
      id: ctx.state.newId(),
      reviewId: ctx.state.newId(),
      inReplyToId: parent.id,
      body: b.body,
      createdAt: at,
      updatedAt: at,
      user: bot(ctx),
    };
    ctx.state.reviewComments(repo.owner, repo.name).push(reply);
    return { status: 201, body: reviewCommentJson(ctx, repo, reply) };
  },
};

function react(ctx: RouteContext, subject: "pull_request_review_comment" | "issue_comment"): RouteReply {
  const repo = repoOf(ctx);
  const commentId = intParam(ctx, "comment_id");
  const exists =
    subject === "issue_comment"
      ? ctx.state.issueComments(repo.owner, repo.name).some((c) => c.id === commentId)
      : ctx.state.reviewComments(repo.owner, repo.name).some((c) => c.id === commentId);
  if (!exists) throw notFound();
  const { content } = parseBody(ReactionBody, ctx);
  const user = bot(ctx);
  const all = ctx.state.reactions(repo.owner, repo.name);
  const json = (r: (typeof all)[number]) => ({
    id: r.id,
    node_id: `REA_${r.id}`,
    user: userJson(ctx, r.user),
    content: r.content,
    created_at: r.createdAt,
  });
  // GitHub answers 200 with the existing reaction when this user already reacted with this content.
  const existing = all.find(
    (r) =>
      r.subject === subject && r.commentId === commentId && r.content === content && r.user.id === user.id,
  );
  if (existing !== undefined) return { status: 200, body: json(existing) };
  const reaction = { id: ctx.state.newId(), subject, commentId, content, createdAt: now(), user };
  all.push(reaction);
  return { status: 201, body: json(reaction) };
}

const issues: Record<string, Handler> = {
  "reactions/create-for-pull-request-review-comment": (ctx) => react(ctx, "pull_request_review_comment"),
  "reactions/create-for-issue-comment": (ctx) => react(ctx, "issue_comment"),

  "issues/create-comment": (ctx) => {
    const repo = repoOf(ctx);
    const pr = pullOf(ctx, repo, "issue_number");
    const b = parseBody(BodyOnly, ctx);
    checkBodyLength(b.body);
    const at = now();
    const c: IssueComment = {
      id: ctx.state.newId(),
      issueNumber: pr.number,
      body: b.body,
      createdAt: at,
      updatedAt: at,
      user: bot(ctx),
    };
    ctx.state.issueComments(repo.owner, repo.name).push(c);
    return { status: 201, body: issueCommentJson(ctx, repo, c) };
  },

  "issues/update-comment": (ctx) => {
    const repo = repoOf(ctx);
    const c = ctx.state
      .issueComments(repo.owner, repo.name)
      .find((x) => x.id === intParam(ctx, "comment_id"));
    if (c === undefined) throw notFound();
    const b = parseBody(BodyOnly, ctx);
    checkBodyLength(b.body);
    c.body = b.body;
    c.updatedAt = now();
    return { status: 200, body: issueCommentJson(ctx, repo, c) };
  },

  "issues/list-comments": (ctx) => {
    const repo = repoOf(ctx);
    const pr = pullOf(ctx, repo, "issue_number");
    const since = ctx.query["since"];
    const all = ctx.state
      .issueComments(repo.owner, repo.name, pr.number)
      .filter((c) => since === undefined || c.updatedAt >= since);
    const page = paginate(ctx, all);
    return {
      status: 200,
      headers: page.headers,
      body: page.items.map((c) => issueCommentJson(ctx, repo, c)),
    };
  },
};

/** REST handlers by OpenAPI operationId (GraphQL is handled in `graphql.ts`). */
export const ROUTES: Readonly<Record<string, Handler>> = {
  ...installations,
  ...repos,
  ...checks,
  ...pulls,
  ...issues,
};
