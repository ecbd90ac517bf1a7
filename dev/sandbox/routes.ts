/**
 * The sandbox's API routes under `/api/v1`, one handler per spec endpoint. Each handler gets a parsed request
 * and returns `{status, body, headers}`; errors are thrown as {@link SandboxApiError}.
 */
import { z } from "zod";
import { SandboxApiError, badRequest, conflict, notFound } from "./errors.js";
import { fakeSha } from "./random.js";
import {
  CreateAuditAreaBody,
  CreateNoteBody,
  LaunchScanBody,
  PageQuery,
  PublishFindingBody,
  PublishScanBody,
  PutGuidanceBody,
  ResolutionBody,
  SeverityBody,
  SummaryQuery,
  UsageQuery,
  type Scope,
} from "./schemas.js";
import {
  sameCommit,
  monthBounds,
  type FindingRecord,
  type SandboxState,
  type ScanRecord,
  type TokenRecord,
} from "./state.js";
import { checkReason, type ResolutionStatus } from "../../src/scanner/catalog.js";

/** What a handler receives. */
export interface RouteContext {
  state: SandboxState;
  token: TokenRecord;
  params: Record<string, string>;
  query: URLSearchParams;
  /** Parsed JSON body, or undefined when there was none. */
  body: unknown;
}
/** What a handler returns. */
export interface RouteResult {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}
/** One row of the route table. `scope` null means any valid token (spec §Authentication rule 7). */
export interface Route {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  pattern: string;
  scope: Scope | null;
  handle: (ctx: RouteContext) => RouteResult;
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/** Parses `input` with `schema`; a failure is 400 `bad_request` naming each problem. */
export function parseInput<T extends z.ZodType>(schema: T, input: unknown, what: string): z.infer<T> {
  const r = schema.safeParse(input);
  if (!r.success) throw badRequest(`invalid ${what}: ${z.prettifyError(r.error).replace(/\n/g, "; ")}`);
  return r.data;
}

const queryObject = (q: URLSearchParams): Record<string, string> => Object.fromEntries(q.entries());

function ownProject(ctx: RouteContext): void {
  const id = ctx.params["projectId"];
  if (id !== ctx.token.projectId) throw notFound(`project ${id ?? ""}`);
}

function visibleRepo(ctx: RouteContext): string {
  ownProject(ctx);
  const id = ctx.params["repositoryId"] ?? "";
  if (!ctx.state.canSee(ctx.token, id)) throw notFound(`repository ${id}`);
  return id;
}

function scanListItem(state: SandboxState, s: ScanRecord): Record<string, unknown> {
  return {
    id: s.id,
    status: state.statusOf(s),
    repositoryId: s.repositoryId,
    commitHash: s.commitHash,
    baseCommit: s.baseCommit,
    commitMessage: s.commitMessage,
    presetName: s.presetName,
    createdAt: iso(s.createdAtMs),
    startedAt: iso(s.final ? s.startedAtMs : state.statusOf(s) === "QUEUED" ? null : state.startAt(s)),
    completedAt: iso(s.final ? s.final.atMs : null),
    progress: state.progressOf(s),
  };
}

function scanDetail(state: SandboxState, s: ScanRecord): Record<string, unknown> {
  const detail: Record<string, unknown> = {
    ...scanListItem(state, s),
    branch: s.branch,
    creditBudget: s.creditBudget,
  };
  if (s.final) {
    const bySeverity: Record<string, number> = { CRITICAL: 0, HIGH: 0, MEDIUM: 0, LOW: 0, INFO: 0 };
    for (const id of s.findingIds) {
      const f = state.findings.get(id);
      if (f) bySeverity[state.effectiveSeverity(f)] = (bySeverity[state.effectiveSeverity(f)] ?? 0) + 1;
    }
    detail["findingsSummary"] = { total: s.findingIds.length, bySeverity };
  }
  return detail;
}

function findingListItem(state: SandboxState, f: FindingRecord): Record<string, unknown> {
  return {
    id: f.id,
    displayId: f.displayId,
    title: f.title,
    location: f.location,
    severity: state.effectiveSeverity(f),
    category: f.category,
    triageStatus: f.triageStatus,
    confirmationEvidence: f.confirmationEvidence,
    resolutionStatus: f.resolutionStatus,
    notesCount: f.notes.length,
  };
}

function findingDetail(state: SandboxState, f: FindingRecord): Record<string, unknown> {
  const repo = state.repo(f.repositoryId);
  const org = state.organizationOf(f.projectId);
  return {
    ...findingListItem(state, f),
    description: f.description,
    pocReport: f.pocReport,
    recommendedFix: f.recommendedFix,
    scanId: f.scanId,
    commitHash: f.commitHash,
    repo: { owner: org.slug, name: repo.name, url: `https://git.sandbox.invalid/${org.slug}/${repo.name}` },
    createdAt: iso(f.createdAtMs),
    notes: f.notes.map((n) => ({ id: n.id, body: n.body, createdAt: iso(n.createdAtMs), author: n.author })),
  };
}

function addNote(ctx: RouteContext, f: FindingRecord, body: string): string {
  const id = ctx.state.rng.id("note", 12);
  f.notes.push({
    id,
    body,
    createdAtMs: ctx.state.now(),
    author: { id: ctx.token.id, name: ctx.token.name, email: `${ctx.token.id}@tokens.sandbox.invalid` },
  });
  return id;
}

function page<T>(
  items: T[],
  q: { page: number; limit: number },
): { items: T[]; page: number; limit: number; total: number } {
  return {
    items: items.slice((q.page - 1) * q.limit, q.page * q.limit),
    page: q.page,
    limit: q.limit,
    total: items.length,
  };
}

function resolveBase(state: SandboxState, base: string, commit: string): { mergeBase: string } {
  if (/^[0-9a-fA-F]{7,40}$/.test(base)) return { mergeBase: base.toLowerCase() };
  const head = state.branches.get(base);
  if (!head) {
    throw new SandboxApiError(
      400,
      "diff_base_invalid",
      `baseCommit "${base}" is neither a 7-40 hex commit id nor a known branch or tag`,
    );
  }
  return { mergeBase: sameCommit(head, commit) ? commit : fakeSha(`merge-base:${head}:${commit}`) };
}

/**
 * Launch (spec §Scans, `POST …/scans`, launch rules 1–8). Checks in this order: body validation →
 * preset/budget floor → repository (404, inactive 400) → readiness (409) → audit areas (rule 2, 400) →
 * diff rules (rule 6) → `diff_empty` (rule 7, 422) → token spend limit (rule 5, 429) → credits (rule 3, 402).
 */
function launchScan(ctx: RouteContext): RouteResult {
  ownProject(ctx);
  const { state, token } = ctx;
  const body = parseInput(LaunchScanBody, ctx.body ?? {}, "launch body");
  const preset = body.presetRef === undefined ? state.presets[0] : state.presetByRef(body.presetRef);
  if (!preset) {
    throw badRequest(
      `unknown presetRef "${body.presetRef}"; valid: ${state.presets.map((p) => p.ref).join(", ")}`,
    );
  }
  if (body.creditBudget !== undefined && preset.minCredits > 0 && body.creditBudget < preset.minCredits) {
    throw badRequest(
      `creditBudget ${body.creditBudget} is below the ${preset.ref} floor of ${preset.minCredits} credits`,
    );
  }
  if (!state.canSee(token, body.repositoryId)) throw notFound(`repository ${body.repositoryId}`);
  const repo = state.repo(body.repositoryId);
  if (!repo.active) throw badRequest(`repository ${repo.id} is inactive and cannot be scanned`);
  if (state.readiness(repo) === "analyzing") {
    throw new SandboxApiError(
      409,
      "repository_initializing",
      `repository ${repo.id} is in its one-time analysis pass; retry once readiness is ready`,
    );
  }
  const branch = body.commitHash ? (body.branch ?? null) : (body.branch ?? repo.defaultBranch);
  let commit: string;
  if (body.commitHash) commit = body.commitHash.toLowerCase();
  else {
    const head = state.branches.get(branch ?? repo.defaultBranch);
    if (!head) throw badRequest(`unknown branch "${branch}"`);
    commit = head;
  }
  const keys = body.auditAreaKeys ?? [];
  if (keys.length > 0) {
    const map = repo.maps.get(branch ?? repo.defaultBranch) ?? repo.maps.get(repo.defaultBranch);
    const named = new Set(map?.map((e) => e.key) ?? []);
    const refused = keys.filter((k) => {
      const area = repo.areas.get(k);
      return !area || (area.source === "discovered" && !named.has(k));
    });
    if (refused.length > 0) {
      throw badRequest(`auditAreaKeys not named by the repository's current map: ${refused.join(", ")}`);
    }
  }
  const base = body.baseCommit ?? null;
  let mergeBase: string | null = null;
  if (preset.diff && base === null)
    throw new SandboxApiError(
      400,
      "diff_base_required",
      `preset ${preset.ref} is a diff preset and needs baseCommit`,
    );
  if (!preset.diff && base !== null)
    throw new SandboxApiError(
      400,
      "diff_base_not_allowed",
      `preset ${preset.ref} is not a diff preset; omit baseCommit`,
    );
  if (base !== null) {
    mergeBase = resolveBase(state, base, commit).mergeBase;
    if (sameCommit(mergeBase, commit) || state.noChangeCommits.has(commit)) {
      throw new SandboxApiError(
        422,
        "diff_empty",
        `no change between ${base} and ${commit}; nothing to audit`,
      );
    }
  }
  const budget = body.creditBudget ?? state.recommendedBudget(repo.id, preset, keys);
  if (token.spendLimitCredits !== null) {
    const used = state.tokenSpendInPeriod(token, state.now());
    if (used >= token.spendLimitCredits || used + budget > token.spendLimitCredits)
      throw state.spendLimitError(token);
  }
  const org = state.organizationOf(repo.projectId);
  const available = state.balanceOf(org.id) - state.reservedOf(org.id);
  if (available < budget) {
    throw new SandboxApiError(
      402,
      "insufficient_credits",
      `budget of ${budget} credits exceeds the ${available} credits available`,
    );
  }
  const scan = state.createScan({
    projectId: repo.projectId,
    repositoryId: repo.id,
    tokenId: token.id,
    presetRef: preset.ref,
    presetName: preset.name,
    branch,
    commitHash: commit,
    baseCommit: mergeBase,
    commitMessage: body.commitMessage ?? null,
    auditAreaKeys: keys,
    guidance: body.guidance === "" ? null : body.guidance,
    creditBudget: budget,
  });
  return { status: 202, body: { scanId: scan.id, queued: true, creditBudget: budget } };
}

/**
 * Read one scan. Non-terminal: `Retry-After` header (integer seconds); reading again before it passed
 * (per scan, per token) answers 429 `rate_limited` with the remaining wait.
 */
function getScan(ctx: RouteContext): RouteResult {
  ownProject(ctx);
  const { state, token } = ctx;
  const scan = state.visibleScan(token, ctx.params["scanId"] ?? "");
  const t = state.now();
  const deadline = scan.pollDeadlines.get(token.id);
  if (deadline !== undefined && t < deadline) {
    state.stats.earlyPoll429s += 1;
    throw new SandboxApiError(
      429,
      "rate_limited",
      `polled scan ${scan.id} too early; wait for Retry-After`,
      Math.max(1, Math.ceil((deadline - t) / 1000)),
    );
  }
  scan.polls += 1;
  const body = { scan: scanDetail(state, scan) };
  if (["COMPLETED", "FAILED", "CANCELLED"].includes(String(body.scan["status"]))) scan.endRead = true;
  if (scan.final) {
    scan.pollDeadlines.delete(token.id);
    return { status: 200, body };
  }
  const wait = state.retryAfterSeconds;
  scan.pollDeadlines.set(token.id, t + wait * 1000);
  return { status: 200, body, headers: { "Retry-After": String(wait) } };
}

function resolveFinding(ctx: RouteContext): FindingRecord {
  ownProject(ctx);
  return ctx.state.visibleFinding(ctx.token, ctx.params["findingId"] ?? "");
}

/** Resolution (spec §Findings, resolution rules 1–4). */
function setResolution(ctx: RouteContext): RouteResult {
  const f = resolveFinding(ctx);
  const body = parseInput(ResolutionBody, ctx.body ?? {}, "resolution body");
  const status: ResolutionStatus = body.resolutionStatus;
  const takesNote = status !== "NOT_STARTED" && status !== "IN_PROGRESS";
  let noteId: string | null = null;
  if (takesNote && body.note) {
    if ("existingNoteId" in body.note) {
      const wanted = body.note.existingNoteId;
      const existing = f.notes.find((n) => n.id === wanted);
      if (!existing) throw notFound(`note ${wanted} on finding ${f.id}`);
      noteId = existing.id;
    } else {
      noteId = addNote(ctx, f, body.note.content);
    }
  } else if (takesNote && body.reason !== undefined) {
    const check = checkReason(status, body.reason);
    if (!check.ok) {
      throw badRequest(
        `reason "${body.reason}" is not valid for ${status}; valid reasons: ${check.validCodes.join(", ")}`,
      );
    }
    noteId = addNote(ctx, f, `Resolution reason: \`${body.reason}\` (${status})`);
  }
  f.resolutionStatus = status;
  if (noteId) f.resolutionNoteId = noteId;
  return { status: 200, body: { findingId: f.id, resolutionStatus: f.resolutionStatus, noteId } };
}

function publish(
  ctx: RouteContext,
  kind: "scan" | "finding",
  targetId: string,
  withPassword: boolean,
): RouteResult {
  const { state } = ctx;
  const rec = {
    artifactId: state.rng.id("art"),
    publicId: state.rng.chars(12),
    accessPassword: withPassword ? state.rng.chars(20) : null,
    kind,
    targetId,
  };
  state.published.push(rec);
  return {
    status: 200,
    body: { artifactId: rec.artifactId, publicId: rec.publicId, accessPassword: rec.accessPassword },
  };
}

function listAreas(ctx: RouteContext): RouteResult {
  const repo = ctx.state.repo(visibleRepo(ctx));
  const branch = ctx.query.get("branch") || repo.defaultBranch;
  const map = repo.maps.get(branch);
  const inMap = new Map((map ?? []).map((e, i) => [e.key, { ...e, order: i }]));
  const areas = [...repo.areas.values()].map((a) => {
    const entry = inMap.get(a.key);
    const custom = a.source === "custom" && map !== undefined;
    // A custom area is resolved against any stored map by its name; the sandbox gives it a fixed size.
    const named = entry !== undefined || custom;
    return {
      key: a.key,
      name: a.name,
      description: a.description,
      source: a.source,
      inCurrentMap: named,
      files: entry ? entry.files : custom ? 1 : null,
      lines: entry ? entry.lines : custom ? 50 : null,
      order: entry ? entry.order : named ? 1e6 : 2e6,
    };
  });
  areas.sort((a, b) => a.order - b.order);
  return {
    status: 200,
    body: {
      repositoryId: repo.id,
      branch,
      hasMap: map !== undefined,
      areas: areas.map(({ order: _o, ...rest }) => rest),
    },
  };
}

function slugify(name: string): string {
  return (
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 60) || "area"
  );
}

function usage(ctx: RouteContext): RouteResult {
  ownProject(ctx);
  const q = parseInput(UsageQuery, queryObject(ctx.query), "usage query");
  const to = q.to ? Date.parse(q.to) : ctx.state.now();
  const from = q.from ? Date.parse(q.from) : to - 30 * 24 * 3600 * 1000;
  if (from > to) throw badRequest("from must not be after to");
  const events = ctx.state.ledger
    .filter((e) => e.projectId === ctx.token.projectId && e.atMs >= from && e.atMs <= to)
    .sort((a, b) => b.atMs - a.atMs)
    .slice(0, q.limit)
    .map((e) => ({
      id: e.id,
      at: iso(e.atMs),
      type: e.type,
      credits: e.credits,
      scanId: e.scanId,
      description: e.description,
    }));
  return { status: 200, body: { from: iso(from), to: iso(to), events } };
}

function summary(ctx: RouteContext): RouteResult {
  ownProject(ctx);
  const q = parseInput(SummaryQuery, queryObject(ctx.query), "summary query");
  const { state } = ctx;
  const months: { month: string; spentCredits: number; purchasedCredits: number }[] = [];
  let { start, end } = monthBounds(state.now());
  for (let i = 0; i < q.months; i += 1) {
    let spent = 0;
    let purchased = 0;
    for (const e of state.ledger) {
      if (e.projectId !== ctx.token.projectId || e.atMs < start || e.atMs >= end) continue;
      if (e.type === "SCAN_DEDUCTION" || e.type === "SCAN_REFUND") spent -= e.credits;
      if (e.type === "PURCHASE" || e.type === "PAYMENT_REFUND") purchased += e.credits;
    }
    months.push({
      month: new Date(start).toISOString().slice(0, 7),
      spentCredits: spent,
      purchasedCredits: purchased,
    });
    end = start;
    start = monthBounds(start - 1).start;
  }
  return { status: 200, body: { organization: pickOrg(state, ctx.token.projectId), months } };
}

function pickOrg(state: SandboxState, projectId: string): { id: string; slug: string; name: string } {
  const o = state.organizationOf(projectId);
  return { id: o.id, slug: o.slug, name: o.name };
}

/** The route table. Paths are relative to `/api/v1`. */
export const ROUTES: readonly Route[] = [
  {
    method: "GET",
    pattern: "/token",
    scope: null,
    handle: ({ state, token }) => {
      const project = state.project(token.projectId);
      return {
        status: 200,
        body: {
          id: token.id,
          name: token.name,
          scopes: token.scopes,
          repositoryIds: token.repositoryIds,
          expiresAt: iso(token.expiresAtMs),
          spendLimitCredits: token.spendLimitCredits,
          project: {
            id: project.id,
            slug: project.slug,
            name: project.name,
            organization: pickOrg(state, project.id),
          },
        },
      };
    },
  },
  {
    method: "GET",
    pattern: "/projects/:projectId/repositories",
    scope: "read",
    handle: (ctx) => {
      ownProject(ctx);
      const items = [...ctx.state.repositories.values()]
        .filter((r) => ctx.state.canSee(ctx.token, r.id))
        .map((r) => ({
          id: r.id,
          name: r.name,
          readiness: ctx.state.readiness(r),
          active: r.active,
          defaultBranch: r.defaultBranch,
        }));
      return { status: 200, body: { items } };
    },
  },
  {
    method: "GET",
    pattern: "/projects/:projectId/repositories/:repositoryId/guidance",
    scope: "read",
    handle: (ctx) => {
      const repo = ctx.state.repo(visibleRepo(ctx));
      const last = repo.guidanceRevisions.at(-1);
      return {
        status: 200,
        body: {
          repositoryId: repo.id,
          content: repo.guidance,
          revisionId: last?.id ?? null,
          updatedAt: iso(last?.atMs ?? null),
        },
      };
    },
  },
  {
    method: "PUT",
    pattern: "/projects/:projectId/repositories/:repositoryId/guidance",
    scope: "guidance:write",
    handle: (ctx) => {
      const repo = ctx.state.repo(visibleRepo(ctx));
      const body = parseInput(PutGuidanceBody, ctx.body ?? {}, "guidance body");
      if (body.expectedContent !== undefined && body.expectedContent !== repo.guidance) {
        throw conflict(
          "guidance changed since it was read (expectedContent does not match); read it again and retry",
        );
      }
      const next = body.content === "" ? null : body.content;
      if (next === repo.guidance)
        return { status: 200, body: { repositoryId: repo.id, revisionId: null, unchanged: true } };
      const rev = {
        id: ctx.state.rng.id("rev", 12),
        content: next,
        atMs: ctx.state.now(),
        tokenId: ctx.token.id,
      };
      repo.guidanceRevisions.push(rev);
      repo.guidance = next;
      return { status: 200, body: { repositoryId: repo.id, revisionId: rev.id, unchanged: false } };
    },
  },
  {
    method: "GET",
    pattern: "/projects/:projectId/repositories/:repositoryId/audit-areas",
    scope: "read",
    handle: listAreas,
  },
  {
    method: "POST",
    pattern: "/projects/:projectId/repositories/:repositoryId/audit-areas",
    scope: "guidance:write",
    handle: (ctx) => {
      const repo = ctx.state.repo(visibleRepo(ctx));
      const body = parseInput(CreateAuditAreaBody, ctx.body ?? {}, "audit area body");
      const base = slugify(body.name);
      let key = base;
      for (let n = 2; repo.areas.has(key); n += 1) key = `${base}-${n}`;
      const area = { key, name: body.name, description: body.description, source: "custom" as const };
      repo.areas.set(key, area);
      return { status: 201, body: { repositoryId: repo.id, ...area } };
    },
  },
  {
    method: "DELETE",
    pattern: "/projects/:projectId/repositories/:repositoryId/audit-areas/:areaKey",
    scope: "guidance:write",
    handle: (ctx) => {
      const repo = ctx.state.repo(visibleRepo(ctx));
      const key = ctx.params["areaKey"] ?? "";
      const area = repo.areas.get(key);
      if (!area) throw notFound(`audit area ${key}`);
      if (area.source === "discovered")
        throw conflict(`audit area ${key} was discovered by the map; only custom areas can be deleted`);
      repo.areas.delete(key);
      return { status: 200, body: { repositoryId: repo.id, key, deleted: true } };
    },
  },
  {
    method: "GET",
    pattern: "/projects/:projectId/scans",
    scope: "read",
    handle: (ctx) => {
      ownProject(ctx);
      const q = parseInput(PageQuery, queryObject(ctx.query), "query");
      const scans = [...ctx.state.scans.values()]
        .filter((s) => s.projectId === ctx.token.projectId && ctx.state.canSee(ctx.token, s.repositoryId))
        .sort((a, b) => b.createdAtMs - a.createdAtMs || b.seq - a.seq);
      const p = page(scans, q);
      return { status: 200, body: { ...p, items: p.items.map((s) => scanListItem(ctx.state, s)) } };
    },
  },
  { method: "POST", pattern: "/projects/:projectId/scans", scope: "scans:launch", handle: launchScan },
  { method: "GET", pattern: "/projects/:projectId/scans/:scanId", scope: "read", handle: getScan },
  {
    method: "POST",
    pattern: "/projects/:projectId/scans/:scanId/cancel",
    scope: "scans:launch",
    handle: (ctx) => {
      ownProject(ctx);
      const scan = ctx.state.visibleScan(ctx.token, ctx.params["scanId"] ?? "");
      const cancelledJobs = ctx.state.cancel(scan);
      return { status: 200, body: { scanId: scan.id, status: "CANCELLED", cancelledJobs } };
    },
  },
  {
    method: "POST",
    pattern: "/projects/:projectId/scans/:scanId/publish",
    scope: "publish",
    handle: (ctx) => {
      ownProject(ctx);
      const scan = ctx.state.visibleScan(ctx.token, ctx.params["scanId"] ?? "");
      const body = parseInput(PublishScanBody, ctx.body ?? {}, "publish body");
      const status = ctx.state.statusOf(scan);
      if (status !== "COMPLETED")
        throw conflict(`scan ${scan.id} is ${status}; only a COMPLETED scan can be published`);
      return publish(ctx, "scan", scan.id, body.withPassword === true);
    },
  },
  {
    method: "GET",
    pattern: "/projects/:projectId/scan-presets",
    scope: "read",
    handle: (ctx) => {
      ownProject(ctx);
      const presets = ctx.state.presets.map(({ ref, name, description, minCredits, modelTier }) => ({
        ref,
        name,
        description,
        minCredits,
        modelTier,
      }));
      return { status: 200, body: { presets } };
    },
  },
  {
    method: "GET",
    pattern: "/projects/:projectId/findings",
    scope: "read",
    handle: (ctx) => {
      ownProject(ctx);
      const q = parseInput(
        PageQuery.extend({ scanId: z.string().min(1).optional() }),
        queryObject(ctx.query),
        "query",
      );
      const items = [...ctx.state.findings.values()]
        .filter(
          (f) =>
            f.projectId === ctx.token.projectId &&
            ctx.state.canSee(ctx.token, f.repositoryId) &&
            (q.scanId === undefined || f.scanId === q.scanId),
        )
        .sort(ctx.state.compareFindings);
      const p = page(items, q);
      return { status: 200, body: { ...p, items: p.items.map((f) => findingListItem(ctx.state, f)) } };
    },
  },
  {
    method: "GET",
    pattern: "/projects/:projectId/findings/:findingId",
    scope: "read",
    handle: (ctx) => ({ status: 200, body: { finding: findingDetail(ctx.state, resolveFinding(ctx)) } }),
  },
  {
    method: "POST",
    pattern: "/projects/:projectId/findings/:findingId/notes",
    scope: "findings:write",
    handle: (ctx) => {
      const f = resolveFinding(ctx);
      const body = parseInput(CreateNoteBody, ctx.body ?? {}, "note body");
      return { status: 201, body: { noteId: addNote(ctx, f, body.content), findingId: f.id } };
    },
  },
  {
    method: "PATCH",
    pattern: "/projects/:projectId/findings/:findingId/severity",
    scope: "findings:write",
    handle: (ctx) => {
      const f = resolveFinding(ctx);
      const body = parseInput(SeverityBody, ctx.body ?? {}, "severity body");
      f.severityOverride = body.severity;
      return {
        status: 200,
        body: {
          findingId: f.id,
          severity: ctx.state.effectiveSeverity(f),
          severityOverride: f.severityOverride,
        },
      };
    },
  },
  {
    method: "PATCH",
    pattern: "/projects/:projectId/findings/:findingId/resolution",
    scope: "findings:write",
    handle: setResolution,
  },
  {
    method: "POST",
    pattern: "/projects/:projectId/findings/:findingId/publish",
    scope: "publish",
    handle: (ctx) => {
      const f = resolveFinding(ctx);
      const body = parseInput(PublishFindingBody, ctx.body ?? {}, "publish body");
      if (body.noteId !== undefined && !f.notes.some((n) => n.id === body.noteId)) {
        throw badRequest(`note ${body.noteId} is not a note on finding ${f.id}`);
      }
      if (body.noteId !== undefined) f.resolutionNoteId = body.noteId;
      return publish(ctx, "finding", f.id, body.withPassword === true);
    },
  },
  {
    method: "GET",
    pattern: "/projects/:projectId/billing/balance",
    scope: "read",
    handle: (ctx) => {
      ownProject(ctx);
      const org = pickOrg(ctx.state, ctx.token.projectId);
      const reserved = ctx.state.reservedOf(org.id);
      const balance = ctx.state.balanceOf(org.id);
      return {
        status: 200,
        body: {
          organization: org,
          balanceCredits: balance,
          availableCredits: balance - reserved,
          reservedCredits: reserved,
        },
      };
    },
  },
  { method: "GET", pattern: "/projects/:projectId/billing/usage", scope: "read", handle: usage },
  { method: "GET", pattern: "/projects/:projectId/billing/summary", scope: "read", handle: summary },
];

/** A compiled route: its regex and parameter names. */
export interface CompiledRoute extends Route {
  regex: RegExp;
  names: string[];
}

/** Compiles `:name` patterns to regular expressions (one path segment per parameter). */
export function compileRoutes(routes: readonly Route[]): CompiledRoute[] {
  return routes.map((r) => {
    const names: string[] = [];
    const source = r.pattern.replace(/:([A-Za-z]+)/g, (_m, name: string) => {
      names.push(name);
      return "([^/]+)";
    });
    return { ...r, regex: new RegExp(`^${source}$`), names };
  });
}
