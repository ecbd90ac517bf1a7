import { createHash, randomBytes } from "node:crypto";
import { OAuthUsers } from "./oauth-users.js";
import { OrgTeams } from "./team-memberships.js";
import { z } from "zod";
import { WebhookDeliveries } from "./webhook-deliveries.js";

/** A GitHub account (`User`, `Organization` or `Bot`). */
export const Account = z.object({
  login: z.string().min(1),
  type: z.enum(["User", "Organization", "Bot"]).default("User"),
});
export type Account = z.infer<typeof Account>;

/** `state.addInstallation()` input. `appId`/`appSlug` default to 1 / `"diffward"`. */
export const AddInstallationInput = z.object({
  id: z.number().int().positive(),
  account: Account,
  appId: z.number().int().positive().default(1),
  appSlug: z.string().min(1).default("diffward"),
});
export type AddInstallationInput = z.input<typeof AddInstallationInput>;

/** `state.addRepository()` input; `files` maps a ref (branch or sha) to `path → UTF-8 content`. */
export const AddRepositoryInput = z.object({
  owner: z.string().min(1),
  name: z.string().min(1),
  installationId: z.number().int().positive(),
  id: z.number().int().positive().optional(),
  private: z.boolean().default(false),
  defaultBranch: z.string().min(1).default("main"),
  files: z.record(z.string(), z.record(z.string(), z.string())).default({}),
});
export type AddRepositoryInput = z.input<typeof AddRepositoryInput>;

/** A file of a pull request; a file without `patch` is one GitHub found too large to diff. */
export const PullRequestFile = z.object({
  filename: z.string().min(1),
  status: z
    .enum(["added", "removed", "modified", "renamed", "copied", "changed", "unchanged"])
    .default("modified"),
  patch: z.string().optional(),
  previousFilename: z.string().optional(),
});
export type PullRequestFile = z.infer<typeof PullRequestFile>;

const GitRef = z.object({
  sha: z.string().regex(/^[0-9a-f]{7,64}$/i, "a hex commit sha"),
  ref: z.string().min(1),
});

/** `state.addPullRequest()` input. `aheadBy` is the number of commits for `compare` (default 1). */
export const AddPullRequestInput = z.object({
  owner: z.string().min(1),
  repo: z.string().min(1),
  number: z.number().int().positive(),
  title: z.string().default("A pull request"),
  body: z.string().nullable().default(null),
  head: GitRef,
  base: GitRef,
  mergeBaseSha: z.string().regex(/^[0-9a-f]{7,64}$/i),
  user: Account,
  files: z.array(PullRequestFile).default([]),
  draft: z.boolean().default(false),
  state: z.enum(["open", "closed"]).default("open"),
  aheadBy: z.number().int().nonnegative().default(1),
});
export type AddPullRequestInput = z.input<typeof AddPullRequestInput>;

/** `state.updatePullRequestHead()` input (a `synchronize`): new head sha, and the files at that head. */
export const UpdatePullRequestHeadInput = z.object({
  owner: z.string().min(1),
  repo: z.string().min(1),
  number: z.number().int().positive(),
  sha: z.string().regex(/^[0-9a-f]{7,64}$/i),
  files: z.array(PullRequestFile).optional(),
  mergeBaseSha: z
    .string()
    .regex(/^[0-9a-f]{7,64}$/i)
    .optional(),
  baseSha: z
    .string()
    .regex(/^[0-9a-f]{7,64}$/i)
    .optional(),
});
export type UpdatePullRequestHeadInput = z.input<typeof UpdatePullRequestHeadInput>;

/**
 * `state.addMergeGroup()` input: a merge queue's group for pull request `pullNumber` (docs: "Managing a merge
 * queue"). `headRef` defaults to GitHub's `refs/heads/gh-readonly-queue/<base>/pr-<n>-<sha>` form (with the
 * pull request's head SHA); `files` to the pull request's files at its head; `baseRef` to the PR's base.
 */
export const AddMergeGroupInput = z.object({
  owner: z.string().min(1),
  repo: z.string().min(1),
  pullNumber: z.number().int().positive(),
  headSha: z.string().regex(/^[0-9a-f]{40}$/i),
  baseSha: z.string().regex(/^[0-9a-f]{40}$/i),
  baseRef: z.string().min(1).optional(),
  headRef: z.string().min(1).optional(),
  files: z.array(PullRequestFile).optional(),
});
export type AddMergeGroupInput = z.input<typeof AddMergeGroupInput>;

/** Repository permission levels (`role_name`); `permission` is the legacy admin/write/read/none mapping. */
export const RoleName = z.enum(["admin", "maintain", "write", "triage", "read", "none"]);
export type RoleName = z.infer<typeof RoleName>;

export interface Installation {
  id: number;
  account: Account & { id: number };
  appId: number;
  appSlug: string;
}
export interface Repository {
  id: number;
  owner: string;
  name: string;
  installationId: number;
  private: boolean;
  defaultBranch: string;
  /** ref → path → content: text (UTF-8) or bytes (a binary file, or one that is not UTF-8) */
  files: Map<string, Map<string, string | Uint8Array>>;
  /** branch name → head commit, for branches set by pushes ({@link StandInState.setBranchHead}) */
  branches: Map<string, string>;
}
export interface PullRequest {
  id: number;
  owner: string;
  repo: string;
  number: number;
  title: string;
  body: string | null;
  head: { sha: string; ref: string };
  base: { sha: string; ref: string };
  mergeBaseSha: string;
  user: Account & { id: number };
  draft: boolean;
  state: "open" | "closed";
  aheadBy: number;
  /** Files per head sha (every head the PR has had); the current files are `filesBySha.get(head.sha)`. */
  filesBySha: Map<string, PullRequestFile[]>;
  createdAt: string;
  updatedAt: string;
}
export interface CheckRun {
  id: number;
  name: string;
  headSha: string;
  externalId: string | null;
  detailsUrl: string | null;
  status: "queued" | "in_progress" | "completed" | "waiting" | "requested" | "pending";
  conclusion: string | null;
  startedAt: string;
  completedAt: string | null;
  output: { title: string | null; summary: string | null; text: string | null };
  /** Every annotation sent, accumulated across create and updates (GitHub appends them). */
  annotations: Array<Record<string, unknown>>;
  actions: Array<Record<string, unknown>>;
  appSlug: string;
}
/** A merge group of a repository's merge queue. */
export interface MergeGroup {
  owner: string;
  repo: string;
  pullNumber: number;
  headSha: string;
  /** full ref, `refs/heads/gh-readonly-queue/<base>/pr-<n>-<sha>` */
  headRef: string;
  baseSha: string;
  /** full ref, `refs/heads/<base>` */
  baseRef: string;
  files: PullRequestFile[];
  /** set once GitHub destroyed the group (`merged`, `dequeued`, `invalidated`) */
  destroyed?: "merged" | "dequeued" | "invalidated";
}
export interface Review {
  id: number;
  pullNumber: number;
  body: string;
  state: "COMMENTED" | "APPROVED" | "CHANGES_REQUESTED" | "PENDING";
  commitId: string;
  submittedAt: string;
  user: Account & { id: number };
}
export interface ReviewComment {
  id: number;
  pullNumber: number;
  reviewId: number;
  inReplyToId: number | null;
  path: string;
  line: number | null;
  side: "LEFT" | "RIGHT";
  startLine: number | null;
  startSide: "LEFT" | "RIGHT" | null;
  body: string;
  commitId: string;
  createdAt: string;
  updatedAt: string;
  user: Account & { id: number };
}
export interface IssueComment {
  id: number;
  issueNumber: number;
  body: string;
  createdAt: string;
  updatedAt: string;
  user: Account & { id: number };
}
export interface Reaction {
  id: number;
  subject: "pull_request_review_comment" | "issue_comment";
  commentId: number;
  content: string;
  createdAt: string;
  user: Account & { id: number };
}
export interface ReviewThread {
  /** GraphQL node id (`PRRT_…`). */
  id: string;
  pullNumber: number;
  rootCommentId: number;
  isResolved: boolean;
}

/** One SARIF upload the stand-in accepted (REST "Upload an analysis as SARIF data"). */
export interface SarifUploadRecord {
  id: string;
  commitSha: string;
  ref: string;
  toolName: string | null;
  /** the decoded SARIF log */
  log: unknown;
  gzipBytes: number;
  receivedAt: string;
}
/** One code scanning alert made from uploaded results (matched across uploads by tool, rule and fingerprint). */
export interface CodeScanningAlertRecord {
  number: number;
  toolName: string;
  toolVersion: string | null;
  ruleId: string;
  ruleSeverity: "none" | "note" | "warning" | "error";
  securitySeverityLevel: "low" | "medium" | "high" | "critical" | null;
  ruleDescription: string;
  /** the result's identity: tool, rule and `partialFingerprints` (or the location when it has none) */
  identity: string;
  state: "open" | "dismissed" | "fixed";
  dismissedBy: (Account & { id: number }) | null;
  dismissedAt: string | null;
  dismissedReason: string | null;
  dismissedComment: string | null;
  createdAt: string;
  updatedAt: string;
  fixedAt: string | null;
  /** refs the alert has an instance on */
  refs: Set<string>;
  mostRecent: {
    ref: string;
    commitSha: string;
    message: string;
    path: string;
    startLine: number | null;
    endLine: number | null;
  };
}

interface RepoData {
  repo: Repository;
  pulls: Map<number, PullRequest>;
  checkRuns: CheckRun[];
  reviews: Review[];
  reviewComments: ReviewComment[];
  issueComments: IssueComment[];
  reactions: Reaction[];
  threads: ReviewThread[];
  permissions: Map<string, RoleName>;
  mergeGroups: MergeGroup[];
  sarifUploads: SarifUploadRecord[];
  codeScanningAlerts: CodeScanningAlertRecord[];
  codeScanningDisabled?: boolean;
}

/**
 * A repository's node id (REST `node_id`, GraphQL `id`): opaque, as GitHub's, and unique by its full name (seeds
 * may give two repositories the same numeric id).
 */
export function repoNodeId(repo: { owner: string; name: string }): string {
  return `R_${Buffer.from(`${repo.owner}/${repo.name}`).toString("base64url")}`;
}

/** Git's blob sha of `content` (what GitHub returns as `sha` for contents). */

export function blobSha(content: string | Uint8Array): string {
  const bytes = typeof content === "string" ? Buffer.from(content, "utf8") : Buffer.from(content);
  return createHash("sha1")
    .update(Buffer.concat([Buffer.from(`blob ${bytes.length}\0`), bytes]))
    .digest("hex");
}

function key(owner: string, repo: string): string {
  return `${owner}/${repo}`.toLowerCase();
}

/** Thrown by seeding helpers on inconsistent seeds (unknown installation, repository or pull request). */
export class StandInStateError extends Error {
  override readonly name = "StandInStateError";
}

/**
 * The stand-in's in-memory GitHub: installations, repositories, pull requests and everything the app writes.
 * Seed it with the `add*`/`set*` methods (inputs are zod-validated; bad seeds throw `ZodError` or
 * {@link StandInStateError}) and read what the app did with `checkRuns()`, `reviews()`, `reviewComments()`,
 * `issueComments()`, `reactions()` and `threads()`. Names compare case-insensitively, like GitHub.
 */
export class StandInState {
  /** The App's webhook deliveries: what the stand-in sent to the app, and how each went. */
  readonly deliveries = new WebhookDeliveries();
  /** The App's OAuth client and the users who can sign in with it (`oauth-users.ts`). */
  readonly oauth = new OAuthUsers();
  /** The organizations' team memberships, and installations without `members: read` (`team-memberships.ts`). */
  readonly teams = new OrgTeams();
  private readonly installations = new Map<number, Installation>();
  private readonly uninstalled = new Set<number>();
  private readonly repos = new Map<string, RepoData>();
  private readonly tokens = new Map<string, { installationId: number; expiresAt: number }>();
  private readonly users = new Map<string, number>();
  private readonly writeCounts = new Map<number, number>();
  private nextId = 1000;

  /** A fresh id, increasing across all objects (check runs, comments, reviews, reactions). */
  newId(): number {
    this.nextId += 1;
    return this.nextId;
  }

  /** A stable numeric id for a login (GitHub user ids). */
  userId(login: string): number {
    const k = login.toLowerCase();
    let id = this.users.get(k);
    if (id === undefined) {
      id = 5000 + this.users.size;
      this.users.set(k, id);
    }
    return id;
  }

  /** Whether a login was ever seen (installation account, PR author, permission seed). */
  knowsUser(login: string): boolean {
    return this.users.has(login.toLowerCase());
  }

  addInstallation(input: AddInstallationInput): Installation {
    const i = AddInstallationInput.parse(input);
    const installation: Installation = {
      id: i.id,
      account: { ...i.account, id: this.userId(i.account.login) },
      appId: i.appId,
      appSlug: i.appSlug,
    };
    this.installations.set(i.id, installation);
    return installation;
  }

  installation(id: number): Installation | undefined {
    return this.installations.get(id);
  }

  listInstallations(): Installation[] {
    return [...this.installations.values()]
      .filter((i) => !this.uninstalled.has(i.id))
      .sort((a, b) => a.id - b.id);
  }

  /**
   * The app was uninstalled from the installation: GitHub no longer lists it (REST "List installations for
   * the authenticated app"). Its id still mints tokens here, so a test can still send the deliveries that
   * were under way when it was removed.
   */
  uninstall(id: number): void {
    this.uninstalled.add(id);
  }

  /** @throws StandInStateError when the installation is unknown. */
  addRepository(input: AddRepositoryInput): Repository {
    const r = AddRepositoryInput.parse(input);
    if (!this.installations.has(r.installationId)) {
      throw new StandInStateError(
        `addRepository: unknown installation ${r.installationId}; addInstallation first`,
      );
    }
    this.userId(r.owner);
    const repo: Repository = {
      id: r.id ?? this.newId(),
      owner: r.owner,
      name: r.name,
      installationId: r.installationId,
      private: r.private,
      defaultBranch: r.defaultBranch,
      files: new Map(Object.entries(r.files).map(([ref, files]) => [ref, new Map(Object.entries(files))])),
      branches: new Map(),
    };
    this.repos.set(key(r.owner, r.name), {
      repo,
      pulls: new Map(),
      checkRuns: [],
      reviews: [],
      reviewComments: [],
      issueComments: [],
      reactions: [],
      threads: [],
      permissions: new Map(),
      mergeGroups: [],
      sarifUploads: [],
      codeScanningAlerts: [],
    });
    return repo;
  }

  repository(owner: string, repo: string): Repository | undefined {
    return this.repos.get(key(owner, repo))?.repo;
  }

  repositoriesOf(installationId: number): Repository[] {
    return [...this.repos.values()].map((d) => d.repo).filter((r) => r.installationId === installationId);
  }

  /**
   * The repository of installation `installationId` whose node id ({@link repoNodeId}) is `id`: read from the
   * id itself, one lookup whatever the number of repositories (the walk of an organization resolves 100 at a time).
   */
  repositoryByNodeId(installationId: number, id: string): Repository | undefined {
    if (!id.startsWith("R_")) return undefined;
    const full = Buffer.from(id.slice(2), "base64url").toString();
    const slash = full.indexOf("/");
    if (slash < 0) return undefined;
    const repo = this.repos.get(key(full.slice(0, slash), full.slice(slash + 1)))?.repo;
    return repo && repo.installationId === installationId && repoNodeId(repo) === id ? repo : undefined;
  }

  /** @throws StandInStateError when the repository is unknown. */
  private data(owner: string, repo: string): RepoData {
    const d = this.repos.get(key(owner, repo));
    if (d === undefined)
      throw new StandInStateError(`unknown repository ${owner}/${repo}; addRepository first`);
    return d;
  }

  /**
   * Points `branch` at `sha` (a push), or deletes it (`sha` undefined). List matching references shows it.
   * @throws StandInStateError for an unknown repository.
   */
  setBranchHead(owner: string, repo: string, branch: string, sha: string | undefined): void {
    const branches = this.data(owner, repo).repo.branches;
    if (sha === undefined) branches.delete(branch);
    else branches.set(branch, sha);
  }

  /**
   * The repository's branches as full refs (`refs/heads/<name>` → head commit), sorted by name: the branches
   * pushes set ({@link setBranchHead}), each open pull request's head branch and each merge group's
   * `gh-readonly-queue/…` branch until the group is destroyed.
   * @throws StandInStateError for an unknown repository.
   */
  refsOf(owner: string, repo: string): Array<[string, string]> {
    const refs = new Map<string, string>();
    for (const [branch, sha] of this.data(owner, repo).repo.branches) refs.set(`refs/heads/${branch}`, sha);
    for (const p of this.pullRequests(owner, repo))
      if (p.state === "open") refs.set(`refs/heads/${p.head.ref}`, p.head.sha);
    for (const g of this.mergeGroups(owner, repo))
      if (g.destroyed === undefined) refs.set(g.headRef, g.headSha);
    return [...refs].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }

  /** Sets a file at `ref` (branch name or sha). @throws StandInStateError for an unknown repository. */
  setFile(owner: string, repo: string, ref: string, path: string, content: string | Uint8Array): void {
    const files = this.data(owner, repo).repo.files;
    const atRef = files.get(ref) ?? new Map<string, string | Uint8Array>();
    atRef.set(path.replace(/^\/+/, ""), content);
    files.set(ref, atRef);
  }

  /** @throws StandInStateError when the repository is unknown. */
  addPullRequest(input: AddPullRequestInput): PullRequest {
    const p = AddPullRequestInput.parse(input);
    const d = this.data(p.owner, p.repo);
    const now = new Date().toISOString();
    const pr: PullRequest = {
      id: this.newId(),
      owner: d.repo.owner,
      repo: d.repo.name,
      number: p.number,
      title: p.title,
      body: p.body,
      head: p.head,
      base: p.base,
      mergeBaseSha: p.mergeBaseSha,
      user: { ...p.user, id: this.userId(p.user.login) },
      draft: p.draft,
      state: p.state,
      aheadBy: p.aheadBy,
      filesBySha: new Map([[p.head.sha, p.files]]),
      createdAt: now,
      updatedAt: now,
    };
    d.pulls.set(p.number, pr);
    return pr;
  }

  /** Moves a PR's head (a push); older heads stay valid `commit_id`s for reviews. @throws StandInStateError */
  updatePullRequestHead(input: UpdatePullRequestHeadInput): PullRequest {
    const u = UpdatePullRequestHeadInput.parse(input);
    const pr = this.pullRequest(u.owner, u.repo, u.number);
    if (pr === undefined)
      throw new StandInStateError(`unknown pull request ${u.owner}/${u.repo}#${u.number}`);
    const files = u.files ?? pr.filesBySha.get(pr.head.sha) ?? [];
    pr.head = { ...pr.head, sha: u.sha };
    pr.filesBySha.set(u.sha, files);
    if (u.mergeBaseSha !== undefined) pr.mergeBaseSha = u.mergeBaseSha;
    if (u.baseSha !== undefined) pr.base = { ...pr.base, sha: u.baseSha };
    pr.updatedAt = new Date().toISOString();
    return pr;
  }

  /**
   * Puts a pull request into the merge queue: a merge group on `headSha` whose parent is `baseSha`.
   * @throws StandInStateError for an unknown pull request; ZodError for a bad input.
   */
  addMergeGroup(input: AddMergeGroupInput): MergeGroup {
    const g = AddMergeGroupInput.parse(input);
    const pr = this.pullRequest(g.owner, g.repo, g.pullNumber);
    if (pr === undefined)
      throw new StandInStateError(`unknown pull request ${g.owner}/${g.repo}#${g.pullNumber}`);
    const base = g.baseRef ?? pr.base.ref;
    const branch = base.replace(/^refs\/heads\//, "");
    const group: MergeGroup = {
      owner: pr.owner,
      repo: pr.repo,
      pullNumber: pr.number,
      headSha: g.headSha,
      headRef: g.headRef ?? `refs/heads/gh-readonly-queue/${branch}/pr-${pr.number}-${pr.head.sha}`,
      baseSha: g.baseSha,
      baseRef: `refs/heads/${branch}`,
      files: g.files ?? pr.filesBySha.get(pr.head.sha) ?? [],
    };
    this.data(g.owner, g.repo).mergeGroups.push(group);
    return group;
  }

  /** The merge group on `headSha`, if any. */
  mergeGroup(owner: string, repo: string, headSha: string): MergeGroup | undefined {
    return this.repos.get(key(owner, repo))?.mergeGroups.find((g) => g.headSha === headSha);
  }

  /** The repository's merge groups, destroyed ones included, in the order they were added. */
  mergeGroups(owner: string, repo: string): MergeGroup[] {
    return [...(this.repos.get(key(owner, repo))?.mergeGroups ?? [])];
  }

  /** Marks a merge group destroyed. @throws StandInStateError when there is no such group. */
  destroyMergeGroup(
    owner: string,
    repo: string,
    headSha: string,
    reason: NonNullable<MergeGroup["destroyed"]>,
  ): MergeGroup {
    const g = this.mergeGroup(owner, repo, headSha);
    if (g === undefined) throw new StandInStateError(`no merge group on ${headSha} in ${owner}/${repo}`);
    g.destroyed = reason;
    return g;
  }

  pullRequest(owner: string, repo: string, number: number): PullRequest | undefined {
    return this.repos.get(key(owner, repo))?.pulls.get(number);
  }

  pullRequests(owner: string, repo: string): PullRequest[] {
    return [...(this.repos.get(key(owner, repo))?.pulls.values() ?? [])].sort((a, b) => a.number - b.number);
  }

  /** The files of a PR at its current head. */
  pullRequestFiles(pr: PullRequest, sha: string = pr.head.sha): PullRequestFile[] | undefined {
    return pr.filesBySha.get(sha);
  }

  /** Sets a collaborator's role. @throws StandInStateError for an unknown repository; ZodError for a bad role. */
  setPermission(owner: string, repo: string, login: string, permission: RoleName): void {
    this.userId(login);
    this.data(owner, repo).permissions.set(login.toLowerCase(), RoleName.parse(permission));
  }

  /** The role of `login` on a repository: seeded role, else `admin` for the owner, else `undefined`. */
  permission(owner: string, repo: string, login: string): RoleName | undefined {
    const d = this.repos.get(key(owner, repo));
    if (d === undefined) return undefined;
    return (
      d.permissions.get(login.toLowerCase()) ??
      (login.toLowerCase() === d.repo.owner.toLowerCase() ? "admin" : undefined)
    );
  }

  /** Issues an installation token (`ghs_…`, 1 hour). */
  issueToken(installationId: number, now: number = Date.now()): { token: string; expiresAt: number } {
    const token = `ghs_${randomBytes(27).toString("base64url").replace(/[-_]/g, "x")}`;
    const expiresAt = now + 3_600_000;
    this.tokens.set(token, { installationId, expiresAt });
    return { token, expiresAt };
  }

  /** The installation an unexpired token belongs to, or `undefined`. */
  tokenInstallation(token: string, now: number = Date.now()): number | undefined {
    const t = this.tokens.get(token);
    return t !== undefined && t.expiresAt > now ? t.installationId : undefined;
  }

  /** Counts one accepted write (POST/PATCH/PUT/DELETE) for an installation. */
  countWrite(installationId: number): void {
    this.writeCounts.set(installationId, (this.writeCounts.get(installationId) ?? 0) + 1);
  }

  /** Writes accepted so far for an installation. */
  writes(installationId: number): number {
    return this.writeCounts.get(installationId) ?? 0;
  }

  /** The bot user of the app behind an installation (`<slug>[bot]`). */
  botUser(installationId: number): Account & { id: number } {
    const slug = this.installations.get(installationId)?.appSlug ?? "diffward";
    const login = `${slug}[bot]`;
    return { login, type: "Bot", id: this.userId(login) };
  }

  // ---- mutable collections used by the routes (and read helpers for assertions) ----

  /** Check runs of a repository, in creation order (live objects). */
  checkRuns(owner: string, repo: string): CheckRun[] {
    return this.repos.get(key(owner, repo))?.checkRuns ?? [];
  }
  /** Reviews of a repository, optionally of one PR. */
  reviews(owner: string, repo: string, pullNumber?: number): Review[] {
    const all = this.repos.get(key(owner, repo))?.reviews ?? [];
    return pullNumber === undefined ? all : all.filter((r) => r.pullNumber === pullNumber);
  }
  /** Review comments (inline comments and replies), optionally of one PR, in id order. */
  reviewComments(owner: string, repo: string, pullNumber?: number): ReviewComment[] {
    const all = this.repos.get(key(owner, repo))?.reviewComments ?? [];
    return pullNumber === undefined ? all : all.filter((c) => c.pullNumber === pullNumber);
  }
  /** Issue (conversation) comments, optionally of one PR/issue. */
  issueComments(owner: string, repo: string, issueNumber?: number): IssueComment[] {
    const all = this.repos.get(key(owner, repo))?.issueComments ?? [];
    return issueNumber === undefined ? all : all.filter((c) => c.issueNumber === issueNumber);
  }
  /** Reactions on review comments and issue comments. */
  reactions(owner: string, repo: string): Reaction[] {
    return this.repos.get(key(owner, repo))?.reactions ?? [];
  }
  /** Review threads (one per root review comment), optionally of one PR. */
  threads(owner: string, repo: string, pullNumber?: number): ReviewThread[] {
    const all = this.repos.get(key(owner, repo))?.threads ?? [];
    return pullNumber === undefined ? all : all.filter((t) => t.pullNumber === pullNumber);
  }
  /** SARIF uploads of a repository, in arrival order (live objects). */
  sarifUploads(owner: string, repo: string): SarifUploadRecord[] {
    return this.repos.get(key(owner, repo))?.sarifUploads ?? [];
  }
  /**
   * Turns code scanning off (or on again) for a repository: while off, SARIF uploads and the alert endpoints
   * answer 403 as GitHub does without GitHub Code Security. @throws StandInStateError for an unknown repository.
   */
  setCodeScanningEnabled(owner: string, repo: string, enabled: boolean): void {
    this.data(owner, repo).codeScanningDisabled = !enabled;
  }
  /** Whether code scanning is available on a repository (on by default). */
  codeScanningEnabled(owner: string, repo: string): boolean {
    return this.repos.get(key(owner, repo))?.codeScanningDisabled !== true;
  }
  /** Code scanning alerts of a repository, by number (live objects). */
  codeScanningAlerts(owner: string, repo: string): CodeScanningAlertRecord[] {
    return this.repos.get(key(owner, repo))?.codeScanningAlerts ?? [];
  }
  /** The thread with a GraphQL node id, across repositories. */
  threadById(id: string): ReviewThread | undefined {
    for (const d of this.repos.values()) {
      const t = d.threads.find((x) => x.id === id);
      if (t !== undefined) return t;
    }
    return undefined;
  }
}
