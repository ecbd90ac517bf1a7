/**
 * The sandbox's in-memory state: organizations, projects, tokens, repositories, scans, findings and the
 * credits ledger, plus the helpers tests use to shape it. Scan progress is computed lazily from the clock:
 * no timer per scan, so thousands of scans in flight cost nothing until someone reads them.
 */
import { randomInt } from "node:crypto";
import { SandboxApiError, badRequest, conflict, notFound } from "./errors.js";
import { generateFindings, loadScenario } from "./findings-source.js";
import { SeededRandom, fakeSha } from "./random.js";
import type { Scenario, ScenarioFinding, ScenarioInput, Scope, Severity } from "./schemas.js";
import { SCOPES } from "./schemas.js";
import type { ScanStatus, TriageStatus, ResolutionStatus } from "../../src/scanner/catalog.js";
import { SEVERITIES } from "../../src/scanner/catalog.js";
import { DEFAULT_LABEL_PREFIX, LABEL_LENGTH } from "../../src/scanner/labels.js";

/** Recommended budget (credits) for a first scan with a preset whose `minCredits` is 0 ("default floor"). */
export const DEFAULT_FLOOR_CREDITS = 20;
/** Share of a scan's duration spent `QUEUED` before it turns `PROCESSING`. */
export const QUEUED_SHARE = 0.1;

export interface OrganizationRecord {
  id: string;
  slug: string;
  name: string;
}
export interface ProjectRecord {
  id: string;
  slug: string;
  name: string;
  organizationId: string;
}
export interface TokenRecord {
  /** The bearer secret. */
  secret: string;
  id: string;
  name: string;
  projectId: string;
  scopes: Scope[];
  repositoryIds: string[];
  /** Epoch ms, or null for no expiry. */
  expiresAtMs: number | null;
  /** Credits per calendar month (UTC), or null for no limit. */
  spendLimitCredits: number | null;
  revoked: boolean;
}
export interface PresetRecord {
  ref: string;
  name: string;
  description: string | null;
  minCredits: number;
  modelTier: string;
  /** A diff preset requires `baseCommit` (launch rule 6). */
  diff: boolean;
  /** Phase plan: share of processing time and share of budget (weight) per phase. */
  phases: { name: string; timeShare: number; weight: number }[];
}
export interface AuditAreaRecord {
  key: string;
  name: string;
  description: string;
  source: "discovered" | "custom";
}
export interface MapEntry {
  key: string;
  files: number;
  lines: number;
}
export interface GuidanceRevision {
  id: string;
  content: string | null;
  atMs: number;
  tokenId: string;
}
export interface RepositoryRecord {
  id: string;
  projectId: string;
  name: string;
  defaultBranch: string;
  active: boolean;
  addedAtMs: number;
  /** How long the one-time pass lasts, ms; `Infinity` until {@link SandboxState.setReadiness}. */
  analyzingMs: number;
  guidance: string | null;
  guidanceRevisions: GuidanceRevision[];
  areas: Map<string, AuditAreaRecord>;
  /** Latest map per branch: areas in audit order with their sizes. */
  maps: Map<string, MapEntry[]>;
}
export interface ProgressValue {
  phasesCompleted: number;
  phasesTotal: number;
  percent: number;
}
export interface ScanRecord {
  id: string;
  seq: number;
  projectId: string;
  repositoryId: string;
  tokenId: string;
  presetRef: string;
  presetName: string;
  branch: string | null;
  commitHash: string;
  baseCommit: string | null;
  commitMessage: string | null;
  auditAreaKeys: string[];
  /** `undefined`: stored guidance applies; null: no stored layer; string: per-scan guidance. */
  guidance: string | null | undefined;
  creditBudget: number;
  /** Credits the scan would use with an unlimited budget. */
  needCredits: number;
  createdAtMs: number;
  durationMs: number;
  forcedOutcome: "FAILED" | null;
  final: { status: "COMPLETED" | "FAILED" | "CANCELLED"; atMs: number; progress: ProgressValue } | null;
  startedAtMs: number | null;
  spentCredits: number | null;
  ranShort: boolean;
  settled: boolean;
  refundedCredits: number;
  findingIds: string[];
  /** Per token id: epoch ms before which a new read is "too early" (429). */
  pollDeadlines: Map<string, number>;
  polls: number;
  /** Cancel requests received for this scan, whatever their answer (a terminal scan's cancel answers 400). */
  cancelRequests: number;
  /** A `GET` of the scan answered a terminal status (the client could know the scan had ended). */
  endRead: boolean;
  /** Cancel requests received after a `GET` answered a terminal status ({@link endRead}). */
  cancelsAfterEndRead: number;
}
export interface NoteRecord {
  id: string;
  body: string;
  createdAtMs: number;
  author: { id: string; name: string | null; email: string };
}
export interface FindingRecord {
  id: string;
  displayId: number;
  projectId: string;
  repositoryId: string;
  scanId: string;
  commitHash: string;
  title: string;
  location: string;
  severity: Severity;
  severityOverride: Severity | null;
  category: string;
  triageStatus: TriageStatus;
  confirmationEvidence: "POC" | "ANALYSIS" | null;
  resolutionStatus: ResolutionStatus;
  resolutionNoteId: string | null;
  description: string;
  pocReport: string | null;
  recommendedFix: string | null;
  createdAtMs: number;
  notes: NoteRecord[];
}
export type LedgerType =
  "SCAN_DEDUCTION" | "SCAN_REFUND" | "PURCHASE" | "PAYMENT_REFUND" | "ADMIN_ADJUSTMENT";
export interface LedgerEvent {
  id: string;
  atMs: number;
  type: LedgerType;
  /** Signed delta in credits. */
  credits: number;
  scanId: string | null;
  description: string;
  organizationId: string;
  /** Null for organization-wide movements (top-ups), which project usage excludes. */
  projectId: string | null;
}
export interface PublishedRecord {
  artifactId: string;
  publicId: string;
  accessPassword: string | null;
  kind: "scan" | "finding";
  targetId: string;
}

/** Fault-injection knobs (see README "Fault injection"). */
export interface Faults {
  errors: { remaining: number; statuses: (500 | 502 | 503)[]; route: RegExp | null; served: number } | null;
  latencyMs: number;
  /** the next `remaining` requests matching `route` wait `ms` before they are handled */
  delays: { remaining: number; ms: number; route: RegExp | null } | null;
  rateLimits: { remaining: number; retryAfterSeconds: number; route: RegExp | null } | null;
  /** the next `remaining` matching requests are carried out, then answered `status`; `served` so far */
  lostAnswers: {
    remaining: number;
    status: 500 | 502 | 503 | 504;
    route: RegExp | null;
    served: number;
  } | null;
  /** every API request answers `status` until `untilMs` (the state's clock); `requests` answered so */
  outage: { untilMs: number; status: 500 | 502 | 503; retryAfterSeconds?: number; requests: number } | null;
}

/** Request counters for `GET /_sandbox/stats`. */
export interface Stats {
  /** `"METHOD /route/pattern"` → status → count. */
  requests: Record<string, Record<string, number>>;
  /** 429s answered because a scan was read before its last `Retry-After` had passed. */
  earlyPoll429s: number;
}

/** Options of {@link SandboxState} (a subset of `SandboxOptions`). */
export interface StateOptions {
  seed?: number;
  retryAfterSeconds?: number;
  scanDurationMs?: number | ((scan: Readonly<ScanRecord>) => number);
  analyzingMs?: number;
  scenario?: string | ScenarioInput;
  labelPrefix?: string;
  now?: () => number;
  settlementDelayMs?: number;
  /** Credits a scan would use with an unlimited budget; default: the scenario's or a seeded draw. */
  scanCost?: number | ((scan: Readonly<ScanRecord>) => number);
}

/** Options of {@link SandboxState.createToken}. */
export interface CreateTokenInput {
  scopes: Scope[];
  repositoryIds?: string[];
  /** Epoch ms, a `Date` or an ISO string; null/omitted for no expiry. */
  expiresAt?: number | Date | string | null;
  spendLimitCredits?: number | null;
  name?: string;
  /** Project the token belongs to; default `prj_demo`. */
  projectId?: string;
  /** The bearer secret; default a fresh random one. */
  secret?: string;
}

/** Options of {@link SandboxState.addRepository}. */
export interface AddRepositoryInput {
  id: string;
  name?: string;
  projectId?: string;
  readiness?: "analyzing" | "ready";
  /** How long the one-time pass lasts (ms); default the sandbox's `analyzingMs`. */
  analyzingMs?: number;
  active?: boolean;
  defaultBranch?: string;
}

const DIFF_PHASES = [
  { name: "diff-map", timeShare: 0.5, weight: 10 },
  { name: "diff-analysis", timeShare: 0.3, weight: 60 },
  { name: "verify", timeShare: 0.2, weight: 30 },
];
const FULL_PHASES = [
  { name: "map", timeShare: 0.4, weight: 10 },
  { name: "static", timeShare: 0.2, weight: 15 },
  { name: "deep-analysis", timeShare: 0.2, weight: 45 },
  { name: "verify", timeShare: 0.2, weight: 30 },
];
const DEEP_PHASES = [
  ...FULL_PHASES.slice(0, 3),
  { name: "exploit", timeShare: 0.1, weight: 20 },
  { name: "verify", timeShare: 0.1, weight: 10 },
];

/** The presets every project gets (spec §Scan preset (scan type)); the first is the launch default. */
export const DEFAULT_PRESETS: readonly PresetRecord[] = [
  {
    ref: "full-standard",
    name: "Full scan",
    description: "Whole repository at the scanned commit.",
    minCredits: 50,
    modelTier: "standard",
    diff: false,
    phases: FULL_PHASES,
  },
  {
    ref: "diff-standard",
    name: "Diff scan",
    description: "Only the change from a base commit to the scanned commit; requires baseCommit.",
    minCredits: 10,
    modelTier: "standard",
    diff: true,
    phases: DIFF_PHASES,
  },
  {
    ref: "full-deep",
    name: "Deep scan",
    description: "Whole repository with the deep model and exploit attempts.",
    minCredits: 200,
    modelTier: "deep",
    diff: false,
    phases: DEEP_PHASES,
  },
  {
    ref: "quick",
    name: "Quick scan",
    description: "Fast pattern pass; the default floor applies.",
    minCredits: 0,
    modelTier: "fast",
    diff: false,
    phases: [
      { name: "patterns", timeShare: 0.7, weight: 40 },
      { name: "triage", timeShare: 0.3, weight: 60 },
    ],
  },
];

const SEVERITY_RANK: Record<string, number> = Object.fromEntries(SEVERITIES.map((s, i) => [s, i]));

/** Start of the calendar month (UTC) holding `ms`, and of the next one; the token spend-limit period. */
export function monthBounds(ms: number): { start: number; end: number } {
  const d = new Date(ms);
  return {
    start: Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1),
    end: Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1),
  };
}

/** Two commit ids name the same commit when one is a prefix of the other (ids of 7–40 hex). */
export function sameCommit(a: string, b: string): boolean {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  return x.startsWith(y) || y.startsWith(x);
}

/**
 * All of the sandbox's data and the rules that need more than one request to express (lifecycle, ledger,
 * recommended budgets). HTTP handlers live in `routes.ts`.
 */
export class SandboxState {
  readonly options: StateOptions;
  readonly now: () => number;
  readonly labelPrefix: string;
  retryAfterSeconds: number;
  /** The scenario findings come from; null means the seeded generator. */
  scenario: Scenario | null;
  rng!: SeededRandom;
  organizations!: Map<string, OrganizationRecord>;
  projects!: Map<string, ProjectRecord>;
  /** Keyed by bearer secret. */
  tokens!: Map<string, TokenRecord>;
  repositories!: Map<string, RepositoryRecord>;
  presets!: PresetRecord[];
  /** Branch or tag name → 40-hex head commit; shared by every repository. */
  branches!: Map<string, string>;
  /** Commits registered as "no change" for diff scans (launch rule 7). */
  noChangeCommits!: Set<string>;
  published!: PublishedRecord[];
  faults!: Faults;
  stats!: Stats;
  private scanMap!: Map<string, ScanRecord>;
  private findingMap!: Map<string, FindingRecord>;
  private ledgerEvents!: LedgerEvent[];
  /** Scans not yet settled (in flight, or terminal awaiting settlement). */
  private open!: Set<ScanRecord>;
  /** Min-heap of (epoch ms of the next state change, scan); stale entries are skipped when popped. */
  private due!: { at: number; scan: ScanRecord }[];
  /** Credits held by unsettled scans, per organization id. */
  private reserved!: Map<string, number>;
  private seq!: number;
  private displayIds!: Map<string, number>;
  /** Per repository: fingerprints of findings created so far (RECURRING detection). */
  private fingerprints!: Map<string, Set<string>>;

  constructor(options: StateOptions = {}) {
    this.options = options;
    this.now = options.now ?? Date.now;
    this.labelPrefix = options.labelPrefix ?? DEFAULT_LABEL_PREFIX;
    this.retryAfterSeconds = options.retryAfterSeconds ?? 2;
    this.scenario = options.scenario === undefined ? null : loadScenario(options.scenario);
    this.reset();
  }

  /** Drops everything and re-creates the default seed (README "Default seed"). Keeps options. */
  reset(): void {
    this.rng = new SeededRandom(this.options.seed ?? randomInt(0, 2 ** 31));
    this.organizations = new Map();
    this.projects = new Map();
    this.tokens = new Map();
    this.repositories = new Map();
    this.presets = DEFAULT_PRESETS.map((p) => ({ ...p }));
    this.branches = new Map([
      ["main", fakeSha("sandbox:branch:main")],
      ["develop", fakeSha("sandbox:branch:develop")],
      ["v1.0.0", fakeSha("sandbox:tag:v1.0.0")],
    ]);
    this.noChangeCommits = new Set();
    this.published = [];
    this.faults = { errors: null, latencyMs: 0, delays: null, rateLimits: null, lostAnswers: null, outage: null };
    this.stats = { requests: {}, earlyPoll429s: 0 };
    this.scanMap = new Map();
    this.findingMap = new Map();
    this.ledgerEvents = [];
    this.open = new Set();
    this.due = [];
    this.reserved = new Map();
    this.seq = 0;
    this.displayIds = new Map();
    this.fingerprints = new Map();

    const t = this.now();
    this.organizations.set("org_acme", { id: "org_acme", slug: "acme", name: "Acme" });
    this.projects.set("prj_demo", { id: "prj_demo", slug: "demo", name: "Demo", organizationId: "org_acme" });
    this.organizations.set("org_other", { id: "org_other", slug: "other-co", name: "Other Co" });
    this.projects.set("prj_other", {
      id: "prj_other",
      slug: "other",
      name: "Other",
      organizationId: "org_other",
    });
    for (const org of ["org_acme", "org_other"]) {
      this.pushEvent(org, null, "PURCHASE", 10_000, null, "Initial sandbox credits", t);
    }
    this.createToken({
      secret: "sandbox-token",
      name: "sandbox",
      scopes: [...SCOPES],
      projectId: "prj_demo",
    });
    this.createToken({
      secret: "sandbox-token-2",
      name: "sandbox-2",
      scopes: [...SCOPES],
      projectId: "prj_other",
    });
    this.addRepository({ id: "repo_demo", name: "demo", projectId: "prj_demo", readiness: "ready" });
    this.addRepository({ id: "repo_other", name: "other", projectId: "prj_other", readiness: "ready" });
    const demo = this.repo("repo_demo");
    for (const [key, name] of [
      ["authentication", "Authentication"],
      ["data-access", "Data access"],
      ["http-api", "HTTP API"],
      ["legacy-admin", "Legacy admin panel"],
    ] as const) {
      demo.areas.set(key, {
        key,
        name,
        description: `${name} (discovered by the map)`,
        source: "discovered",
      });
    }
    demo.maps.set("main", [
      { key: "http-api", files: 4, lines: 610 },
      { key: "authentication", files: 3, lines: 240 },
      { key: "data-access", files: 2, lines: 180 },
    ]);
  }

  // ---------------------------------------------------------------- helpers for tests and setup

  /** Creates a token and returns its bearer secret. Defaults: project `prj_demo`, name "token-N". */
  createToken(input: CreateTokenInput): string {
    const projectId = input.projectId ?? "prj_demo";
    if (!this.projects.has(projectId)) throw new Error(`unknown project ${projectId}`);
    const secret = input.secret ?? `sbx_${this.rng.chars(32)}`;
    const exp = input.expiresAt;
    const expiresAtMs =
      exp === undefined || exp === null ? null : typeof exp === "number" ? exp : new Date(exp).getTime();
    const id = this.rng.id("tok", 12);
    this.tokens.set(secret, {
      secret,
      id,
      name: input.name ?? `token-${this.tokens.size + 1}`,
      projectId,
      scopes: [...input.scopes],
      repositoryIds: [...(input.repositoryIds ?? [])],
      expiresAtMs,
      spendLimitCredits: input.spendLimitCredits ?? null,
      revoked: false,
    });
    return secret;
  }

  /** Revokes a token (its requests then answer 401 `unauthorized`). */
  revokeToken(secret: string): void {
    const token = this.tokens.get(secret);
    if (!token) throw new Error("unknown token");
    token.revoked = true;
  }

  /** Adds a repository to a project (default `prj_demo`), `ready` unless told otherwise. */
  addRepository(input: AddRepositoryInput): RepositoryRecord {
    const projectId = input.projectId ?? "prj_demo";
    if (!this.projects.has(projectId)) throw new Error(`unknown project ${projectId}`);
    const analyzingMs =
      input.readiness === "ready"
        ? 0
        : (input.analyzingMs ??
          (input.readiness === "analyzing" ? Infinity : (this.options.analyzingMs ?? 0)));
    const repo: RepositoryRecord = {
      id: input.id,
      projectId,
      name: input.name ?? input.id.replace(/^repo_/, ""),
      defaultBranch: input.defaultBranch ?? "main",
      active: input.active ?? true,
      addedAtMs: this.now(),
      analyzingMs,
      guidance: null,
      guidanceRevisions: [],
      areas: new Map(),
      maps: new Map(),
    };
    this.repositories.set(repo.id, repo);
    return repo;
  }

  /** Ends (`ready`) or restarts without end (`analyzing`) a repository's one-time pass. */
  setReadiness(repositoryId: string, readiness: "analyzing" | "ready"): void {
    const repo = this.repo(repositoryId);
    repo.addedAtMs = this.now();
    repo.analyzingMs = readiness === "ready" ? 0 : Infinity;
  }

  /** Sets the repository's active flag (inactive repositories cannot be scanned). */
  setActive(repositoryId: string, active: boolean): void {
    this.repo(repositoryId).active = active;
  }

  /** Readiness of a repository now: `analyzing` during the one-time pass, then `ready`. */
  readiness(repo: RepositoryRecord): "analyzing" | "ready" {
    return this.now() < repo.addedAtMs + repo.analyzingMs ? "analyzing" : "ready";
  }

  /** Registers (or moves) a branch or tag; `sha` must be 7–40 hex. */
  addBranch(name: string, sha: string): void {
    if (!/^[0-9a-fA-F]{7,40}$/.test(sha)) throw new Error(`branch head must be 7-40 hex, got ${sha}`);
    this.branches.set(name, sha.toLowerCase());
  }

  /** Makes diff scans of `commitHash` answer 422 `diff_empty` (launch rule 7). */
  markNoChange(commitHash: string): void {
    this.noChangeCommits.add(commitHash.toLowerCase());
  }

  /** Stores a map for `branch`: discovered areas in audit order; creates area records as needed. */
  setMap(repositoryId: string, branch: string, entries: (MapEntry & { name?: string })[]): void {
    const repo = this.repo(repositoryId);
    for (const e of entries) {
      if (!repo.areas.has(e.key)) {
        const name = e.name ?? e.key;
        repo.areas.set(e.key, {
          key: e.key,
          name,
          description: `${name} (discovered by the map)`,
          source: "discovered",
        });
      }
    }
    repo.maps.set(
      branch,
      entries.map(({ key, files, lines }) => ({ key, files, lines })),
    );
  }

  /**
   * Sets the organization's balance of the project's organization (default `prj_demo`) to `credits` by
   * recording an organization-wide `ADMIN_ADJUSTMENT` event, so the balance stays the sum of the ledger.
   */
  setBalance(credits: number, projectId = "prj_demo"): void {
    const orgId = this.project(projectId).organizationId;
    const delta = credits - this.balanceOf(orgId);
    if (delta !== 0) this.pushEvent(orgId, null, "ADMIN_ADJUSTMENT", delta, null, "Sandbox balance set");
  }

  /** Records a `PURCHASE` (positive) attributed to a project, or org-wide when `attributed` is false. */
  purchase(credits: number, projectId = "prj_demo", attributed = true): void {
    const orgId = this.project(projectId).organizationId;
    this.pushEvent(orgId, attributed ? projectId : null, "PURCHASE", credits, null, "Credit purchase");
  }

  /** Records a `PAYMENT_REFUND` clawback (negative) attributed to a project. */
  paymentRefund(credits: number, projectId = "prj_demo"): void {
    const orgId = this.project(projectId).organizationId;
    this.pushEvent(orgId, projectId, "PAYMENT_REFUND", -Math.abs(credits), null, "Payment refunded");
  }

  /** Forces a scan to end `FAILED` when it reaches its terminal time (or now, with {@link completeNow}). */
  forceScanOutcome(scanId: string, outcome: "FAILED" | "COMPLETED"): void {
    this.scan(scanId).forcedOutcome = outcome === "FAILED" ? "FAILED" : null;
  }

  /** Sets the credits a scan would use with an unlimited budget (≥ budget → it runs short). */
  forceScanSpend(scanId: string, credits: number): void {
    this.scan(scanId).needCredits = credits;
  }

  /**
   * Jumps a running scan to its terminal state now (`COMPLETED`, or `FAILED` when forced) and settles it.
   * A no-op on a terminal scan.
   */
  completeNow(scanId: string, outcome?: "COMPLETED" | "FAILED"): ScanRecord {
    const scan = this.scan(scanId);
    this.advance();
    if (outcome) this.forceScanOutcome(scanId, outcome);
    if (!scan.final) this.finish(scan, scan.forcedOutcome ?? "COMPLETED", this.now());
    this.advance();
    return scan;
  }

  /**
   * Refunds `credits` (default: everything the scan spent and was not yet refunded) with a `SCAN_REFUND`.
   * @throws Error when the scan is not settled yet.
   */
  refundScan(scanId: string, credits?: number): LedgerEvent {
    const scan = this.scan(scanId);
    this.advance();
    if (!scan.settled) throw new Error(`scan ${scanId} is not settled yet`);
    const amount = credits ?? (scan.spentCredits ?? 0) - scan.refundedCredits;
    scan.refundedCredits += amount;
    return this.pushEvent(
      this.project(scan.projectId).organizationId,
      scan.projectId,
      "SCAN_REFUND",
      amount,
      scan.id,
      `Refund for scan ${scan.id}`,
    );
  }

  /**
   * Adds a second finding whose id ends with the same eight characters as `findingId` (same project), so
   * its label answers 409 `conflict`. Returns the new finding's id.
   */
  makeLabelConflict(findingId: string): string {
    const base = this.findingMap.get(findingId);
    if (!base) throw new Error(`unknown finding ${findingId}`);
    const id = `${this.rng.chars(16)}${base.id.slice(-LABEL_LENGTH)}`;
    const copy: FindingRecord = {
      ...base,
      id,
      displayId: this.nextDisplayId(base.projectId),
      notes: [],
      title: `${base.title} (twin)`,
    };
    this.findingMap.set(id, copy);
    return id;
  }

  /** All scans, brought up to date with the clock. */
  get scans(): Map<string, ScanRecord> {
    this.advance();
    return this.scanMap;
  }
  /** All findings, brought up to date with the clock. */
  get findings(): Map<string, FindingRecord> {
    this.advance();
    return this.findingMap;
  }
  /** Every ledger event of every organization, oldest first, brought up to date with the clock. */
  get ledger(): readonly LedgerEvent[] {
    this.advance();
    return this.ledgerEvents;
  }

  // ---------------------------------------------------------------- lookups

  /** @throws Error for an unknown id (a test bug, not a request error). */
  repo(id: string): RepositoryRecord {
    const repo = this.repositories.get(id);
    if (!repo) throw new Error(`unknown repository ${id}`);
    return repo;
  }
  project(id: string): ProjectRecord {
    const p = this.projects.get(id);
    if (!p) throw new Error(`unknown project ${id}`);
    return p;
  }
  organizationOf(projectId: string): OrganizationRecord {
    const org = this.organizations.get(this.project(projectId).organizationId);
    if (!org) throw new Error(`project ${projectId} has no organization`);
    return org;
  }
  scan(id: string): ScanRecord {
    const s = this.scanMap.get(id);
    if (!s) throw new Error(`unknown scan ${id}`);
    return s;
  }

  /** True when the token may see the repository: same project and inside its allowlist (if any). */
  canSee(token: TokenRecord, repositoryId: string): boolean {
    const repo = this.repositories.get(repositoryId);
    if (!repo || repo.projectId !== token.projectId) return false;
    return token.repositoryIds.length === 0 || token.repositoryIds.includes(repositoryId);
  }

  /** The scan, if the token may see it; else 404 `not_found`. */
  visibleScan(token: TokenRecord, scanId: string): ScanRecord {
    this.advance();
    const scan = this.scanMap.get(scanId);
    if (!scan || scan.projectId !== token.projectId || !this.canSee(token, scan.repositoryId))
      throw notFound(`scan ${scanId}`);
    return scan;
  }

  /**
   * Resolves a `findingId` path parameter: a full id, or a label (eight characters, optionally preceded by
   * any two letters and a hyphen; spec §Finding label).
   * @throws SandboxApiError 404 `not_found` when nothing matches; 409 `conflict` when a label matches several.
   */
  visibleFinding(token: TokenRecord, ref: string): FindingRecord {
    this.advance();
    const visible = (f: FindingRecord): boolean =>
      f.projectId === token.projectId && this.canSee(token, f.repositoryId);
    const exact = this.findingMap.get(ref);
    if (exact && visible(exact)) return exact;
    const m = /^(?:[A-Za-z]{2}-)?([A-Za-z0-9_]{8})$/.exec(ref);
    if (!m || !m[1]) throw notFound(`finding ${ref}`);
    const short = m[1];
    // A label is unique per project: count every finding of the project, seen or not, for conflicts.
    const matches = [...this.findingMap.values()].filter(
      (f) => f.projectId === token.projectId && f.id.endsWith(short),
    );
    if (matches.length > 1) {
      throw conflict(
        `label ${ref} matches ${matches.length} findings in this project; use the full finding id`,
      );
    }
    const only = matches[0];
    if (!only || !visible(only)) throw notFound(`finding ${ref}`);
    return only;
  }

  // ---------------------------------------------------------------- ledger

  /** Sum of the organization's ledger events, in credits. */
  balanceOf(organizationId: string): number {
    let sum = 0;
    for (const e of this.ledgerEvents) if (e.organizationId === organizationId) sum += e.credits;
    return sum;
  }
  /** Credits held by the organization's unsettled scans. */
  reservedOf(organizationId: string): number {
    this.advance();
    return this.reserved.get(organizationId) ?? 0;
  }

  /**
   * Credits the token has used in the calendar month (UTC) holding `atMs`: settled scans count their net
   * spend, unsettled ones their whole budget.
   */
  tokenSpendInPeriod(token: TokenRecord, atMs: number): number {
    const { start, end } = monthBounds(atMs);
    let sum = 0;
    for (const s of this.scanMap.values()) {
      if (s.tokenId !== token.id || s.createdAtMs < start || s.createdAtMs >= end) continue;
      sum += s.settled ? (s.spentCredits ?? 0) - s.refundedCredits : s.creditBudget;
    }
    return sum;
  }

  private pushEvent(
    organizationId: string,
    projectId: string | null,
    type: LedgerType,
    credits: number,
    scanId: string | null,
    description: string,
    atMs = this.now(),
  ): LedgerEvent {
    const event: LedgerEvent = {
      id: this.rng.id("evt"),
      atMs,
      type,
      credits,
      scanId,
      description,
      organizationId,
      projectId,
    };
    this.ledgerEvents.push(event);
    return event;
  }

  // ---------------------------------------------------------------- scans

  /**
   * The recommended budget (launch rule 1), in credits: the preset's minimum (or {@link DEFAULT_FLOOR_CREDITS}
   * when it is 0) on the first scan of this repository with this preset and scope; after that, half again the
   * last budget when the last finished scan ran short, else 125% of what it spent, never below the floor.
   */
  recommendedBudget(repositoryId: string, preset: PresetRecord, auditAreaKeys: string[]): number {
    this.advance();
    const floor = preset.minCredits > 0 ? preset.minCredits : DEFAULT_FLOOR_CREDITS;
    const scope = [...auditAreaKeys].sort().join(",");
    let last: ScanRecord | undefined;
    for (const s of this.scanMap.values()) {
      if (s.repositoryId !== repositoryId || s.presetRef !== preset.ref || s.final?.status !== "COMPLETED")
        continue;
      if ([...s.auditAreaKeys].sort().join(",") !== scope) continue;
      if (!last || s.seq > last.seq) last = s;
    }
    if (!last) return floor;
    if (last.ranShort) return Math.max(floor, Math.ceil(last.creditBudget * 1.5));
    return Math.max(floor, Math.ceil((last.spentCredits ?? 0) * 1.25));
  }

  /** Records an accepted launch: a `QUEUED` scan with its budget reserved. Rules are checked by the caller. */
  createScan(
    input: Omit<
      ScanRecord,
      | "id"
      | "seq"
      | "needCredits"
      | "durationMs"
      | "createdAtMs"
      | "final"
      | "startedAtMs"
      | "spentCredits"
      | "ranShort"
      | "settled"
      | "refundedCredits"
      | "findingIds"
      | "pollDeadlines"
      | "polls"
      | "cancelRequests"
      | "endRead"
      | "cancelsAfterEndRead"
      | "forcedOutcome"
    >,
  ): ScanRecord {
    this.seq += 1;
    const scan: ScanRecord = {
      ...input,
      id: this.rng.id("scn"),
      seq: this.seq,
      needCredits: 0,
      durationMs: 0,
      createdAtMs: this.now(),
      forcedOutcome: this.scenario?.outcome === "FAILED" ? "FAILED" : null,
      final: null,
      startedAtMs: null,
      spentCredits: null,
      ranShort: false,
      settled: false,
      refundedCredits: 0,
      findingIds: [],
      pollDeadlines: new Map(),
      polls: 0,
      cancelRequests: 0,
      endRead: false,
      cancelsAfterEndRead: 0,
    };
    const d = this.options.scanDurationMs ?? 8000;
    scan.durationMs = Math.max(0, Math.round(typeof d === "function" ? d(scan) : d));
    const cost = this.options.scanCost ?? this.scenario?.spendCredits;
    const base = Math.max(this.presetByRef(scan.presetRef)?.minCredits ?? 0, DEFAULT_FLOOR_CREDITS);
    scan.needCredits =
      cost === undefined
        ? Math.round(base * (0.5 + this.rng.next()))
        : Math.round(typeof cost === "function" ? cost(scan) : cost);
    this.scanMap.set(scan.id, scan);
    this.open.add(scan);
    const orgId = this.project(scan.projectId).organizationId;
    this.reserved.set(orgId, (this.reserved.get(orgId) ?? 0) + scan.creditBudget);
    this.schedule(scan);
    return scan;
  }

  presetByRef(ref: string): PresetRecord | undefined {
    return this.presets.find((p) => p.ref === ref);
  }

  /** Epoch ms at which the scan turns `PROCESSING`. */
  startAt(scan: ScanRecord): number {
    return scan.createdAtMs + Math.round(scan.durationMs * QUEUED_SHARE);
  }

  /** Status now, without side effects (the terminal state is recorded by {@link advance}). */
  statusOf(scan: ScanRecord, t = this.now()): ScanStatus {
    if (scan.final) return scan.final.status;
    if (t >= scan.createdAtMs + scan.durationMs) return scan.forcedOutcome ?? "COMPLETED";
    return t >= this.startAt(scan) && scan.durationMs > 0 ? "PROCESSING" : "QUEUED";
  }

  /**
   * Weighted progress at `t`: each phase takes a share of processing time and counts by its share of the
   * budget (weight), so `percent` differs from `phasesCompleted / phasesTotal`. `phasesTotal` is 0 while
   * `QUEUED` (fixed when dispatched). `percent` stays below 100 until `COMPLETED`.
   */
  progressOf(scan: ScanRecord, t = this.now()): ProgressValue {
    if (scan.final) return scan.final.progress;
    const phases = this.presetByRef(scan.presetRef)?.phases ?? FULL_PHASES;
    const start = this.startAt(scan);
    if (t < start) return { phasesCompleted: 0, phasesTotal: 0, percent: 0 };
    const span = scan.createdAtMs + scan.durationMs - start;
    const f = span <= 0 ? 1 : Math.min(1, (t - start) / span);
    const totalWeight = phases.reduce((a, p) => a + p.weight, 0);
    let acc = 0;
    let done = 0;
    let weight = 0;
    for (const p of phases) {
      if (f >= acc + p.timeShare - 1e-9) {
        done += 1;
        weight += p.weight;
      } else if (f > acc) {
        weight += (p.weight * (f - acc)) / p.timeShare;
      }
      acc += p.timeShare;
    }
    return {
      phasesCompleted: done,
      phasesTotal: phases.length,
      percent: Math.min(99, Math.floor((weight / totalWeight) * 100)),
    };
  }

  /**
   * Brings every open scan up to date with the clock: records terminal states (and findings), settles due
   * scans. Cost is linear in open scans, with no timers.
   */
  advance(): void {
    const t = this.now();
    const delay = this.options.settlementDelayMs ?? 0;
    for (let top = this.due[0]; top !== undefined && top.at <= t; top = this.due[0]) {
      this.popDue();
      const scan = top.scan;
      if (scan.settled) continue;
      if (!scan.final) {
        const end = scan.createdAtMs + scan.durationMs;
        if (t < end) {
          this.schedule(scan);
          continue;
        }
        this.finish(scan, scan.forcedOutcome ?? "COMPLETED", end);
      }
      if (scan.final && t >= scan.final.atMs + delay) this.settle(scan);
    }
  }

  /** Epoch ms of the scan's next change: its end while running, its settlement once terminal. */
  private nextChangeAt(scan: ScanRecord): number {
    return scan.final
      ? scan.final.atMs + (this.options.settlementDelayMs ?? 0)
      : scan.createdAtMs + scan.durationMs;
  }

  private schedule(scan: ScanRecord): void {
    const heap = this.due;
    heap.push({ at: this.nextChangeAt(scan), scan });
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const a = heap[i];
      const b = heap[parent];
      if (!a || !b || b.at <= a.at) break;
      heap[i] = b;
      heap[parent] = a;
      i = parent;
    }
  }

  private popDue(): void {
    const heap = this.due;
    const last = heap.pop();
    if (last === undefined || heap.length === 0) return;
    heap[0] = last;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if ((heap[l]?.at ?? Infinity) < (heap[m]?.at ?? Infinity)) m = l;
      if ((heap[r]?.at ?? Infinity) < (heap[m]?.at ?? Infinity)) m = r;
      if (m === i) return;
      const a = heap[i];
      const b = heap[m];
      if (!a || !b) return;
      heap[i] = b;
      heap[m] = a;
      i = m;
    }
  }

  /**
   * Cancels a `QUEUED` or `PROCESSING` scan (spec §Scan status table): spend so far is settled, the rest
   * released. Returns the number of in-flight jobs signalled (phases not finished; 0 while queued).
   * @throws SandboxApiError 400 `bad_request` for a `COMPLETED` or `FAILED` scan.
   */
  cancel(scan: ScanRecord): number {
    scan.cancelRequests += 1;
    if (scan.endRead) scan.cancelsAfterEndRead += 1;
    this.advance();
    const status = this.statusOf(scan);
    if (status === "COMPLETED" || status === "FAILED") {
      throw badRequest(`scan ${scan.id} is ${status}; only QUEUED or PROCESSING scans can be cancelled`);
    }
    if (status === "CANCELLED") return 0;
    const progress = this.progressOf(scan);
    this.finish(scan, "CANCELLED", this.now());
    this.advance();
    return status === "PROCESSING" ? Math.max(1, progress.phasesTotal - progress.phasesCompleted) : 0;
  }

  private finish(scan: ScanRecord, status: "COMPLETED" | "FAILED" | "CANCELLED", atMs: number): void {
    const before = this.progressOf(scan, Math.min(atMs, scan.createdAtMs + scan.durationMs - 1));
    const phasesTotal = this.presetByRef(scan.presetRef)?.phases.length ?? 4;
    const processing = atMs >= this.startAt(scan) || status === "COMPLETED";
    scan.startedAtMs = processing ? Math.min(this.startAt(scan), atMs) : null;
    const cap = Math.min(scan.needCredits, scan.creditBudget);
    if (status === "COMPLETED") {
      scan.final = { status, atMs, progress: { phasesCompleted: phasesTotal, phasesTotal, percent: 100 } };
      scan.spentCredits = cap;
      scan.ranShort = scan.needCredits >= scan.creditBudget;
      this.createFindings(scan, atMs);
    } else if (status === "FAILED") {
      // The failing phase and every later one are terminal (failed or skipped).
      scan.final = {
        status,
        atMs,
        progress: { phasesCompleted: phasesTotal, phasesTotal, percent: before.percent },
      };
      scan.spentCredits = Math.floor((cap * before.percent) / 100);
    } else {
      scan.final = { status, atMs, progress: before };
      scan.spentCredits = Math.floor((cap * before.percent) / 100);
    }
    this.schedule(scan);
  }

  private settle(scan: ScanRecord): void {
    if (scan.settled || !scan.final) return;
    const orgId = this.project(scan.projectId).organizationId;
    const spent = scan.spentCredits ?? 0;
    const at = scan.final.atMs + (this.options.settlementDelayMs ?? 0);
    this.pushEvent(
      orgId,
      scan.projectId,
      "SCAN_DEDUCTION",
      -spent,
      scan.id,
      `Scan ${scan.id} (${scan.presetRef}, ${scan.final.status})`,
      at,
    );
    scan.settled = true;
    this.open.delete(scan);
    this.reserved.set(orgId, (this.reserved.get(orgId) ?? 0) - scan.creditBudget);
    if (scan.final.status === "FAILED" && spent > 0) {
      // A failure is the service's fault: what the failed scan spent comes back.
      scan.refundedCredits += spent;
      this.pushEvent(
        orgId,
        scan.projectId,
        "SCAN_REFUND",
        spent,
        scan.id,
        `Refund for failed scan ${scan.id}`,
        at,
      );
    }
  }

  private nextDisplayId(projectId: string): number {
    const n = (this.displayIds.get(projectId) ?? 0) + 1;
    this.displayIds.set(projectId, n);
    return n;
  }

  private createFindings(scan: ScanRecord, atMs: number): void {
    const source: ScenarioFinding[] = this.scenario ? this.scenario.findings : generateFindings(this.rng);
    // Identity for RECURRING: title, location and category seen in an earlier scan of the repository.
    let seen = this.fingerprints.get(scan.repositoryId);
    if (!seen) this.fingerprints.set(scan.repositoryId, (seen = new Set()));
    const fresh: string[] = [];
    for (const item of source) {
      const print = JSON.stringify([item.title, item.location, item.category]);
      const repeat = seen.has(print);
      fresh.push(print);
      const id = this.rng.chars(28);
      this.findingMap.set(id, {
        id,
        displayId: this.nextDisplayId(scan.projectId),
        projectId: scan.projectId,
        repositoryId: scan.repositoryId,
        scanId: scan.id,
        commitHash: scan.commitHash,
        title: item.title,
        location: item.location,
        severity: item.severity,
        severityOverride: null,
        category: item.category,
        triageStatus: repeat ? "RECURRING" : item.triageStatus,
        confirmationEvidence: !repeat && item.triageStatus === "CONFIRMED" ? item.confirmationEvidence : null,
        resolutionStatus: "NOT_STARTED",
        resolutionNoteId: null,
        description: item.description,
        pocReport: item.pocReport,
        recommendedFix: item.recommendedFix,
        createdAtMs: atMs,
        notes: [],
      });
      scan.findingIds.push(id);
    }
    for (const print of fresh) seen.add(print);
  }

  /** Effective severity: the override if set, else the service's own. */
  effectiveSeverity(f: FindingRecord): Severity {
    return f.severityOverride ?? f.severity;
  }

  /** Most severe first, then by `displayId`. */
  compareFindings = (a: FindingRecord, b: FindingRecord): number =>
    (SEVERITY_RANK[this.effectiveSeverity(a)] ?? 9) - (SEVERITY_RANK[this.effectiveSeverity(b)] ?? 9) ||
    a.displayId - b.displayId;

  /** 429 `rate_limited` with `Retry-After` seconds, for the token spend limit (launch rule 5). */
  spendLimitError(token: TokenRecord): SandboxApiError {
    const t = this.now();
    const wait = Math.max(1, Math.ceil((monthBounds(t).end - t) / 1000));
    return new SandboxApiError(
      429,
      "rate_limited",
      `token spend limit of ${token.spendLimitCredits} credits for this calendar month (UTC) is reached`,
      wait,
    );
  }
}
