/**
 * `.github/diffward.yml`: the per-repository configuration. One zod schema carries the types, the
 * defaults and the descriptions (each field's `.describe()`, its only documentation); the JSON Schema for
 * editors (`schema/diffward.schema.json`) and the README reference table are derived from it.
 */
import { z } from "zod";
import { parseDocument, LineCounter } from "yaml";
import { SCHEDULE_PATTERN, scheduleProblem } from "./schedule.js";

export const REPO_CONFIG_PATH = ".github/diffward.yml";
/** Largest configuration file diffward reads, in bytes (UTF-8). */
export const MAX_REPO_CONFIG_BYTES = 64 * 1024;

/** Severity thresholds: the service's levels (spec §Finding (list item)) in lower case, plus `none`. */
export const FailOn = z.enum(["critical", "high", "medium", "low", "info", "none"]);
export type FailOn = z.infer<typeof FailOn>;

/** A section of `.github/diffward.yml`: unknown keys are refused, and `description` is its JSON Schema text. */
function section<S extends z.ZodRawShape>(description: string, shape: S) {
  return z.strictObject(shape).describe(description);
}

/**
 * `failOn` written in full: the threshold and which findings it applies to. `only: new` leaves out the
 * findings already open on the base branch's last completed baseline (the same fingerprint,
 * src/domain/baseline.ts); with no such baseline every finding counts, as with `only: all`.
 */
export const FailOnRule = section("The threshold and which findings it applies to.", {
  severity: FailOn.default("high").describe(
    "Least severe open finding that makes the check run fail; `none` never fails it.",
  ),
  only: z
    .enum(["all", "new"])
    .default("all")
    .describe(
      "`all`: every open finding counts; `new`: only findings not already open on the base branch's last completed baseline (`baseline:`) count, pre-existing ones are listed but do not fail the check. Without a completed baseline of the base branch every finding counts.",
    ),
});
export type FailOnRule = z.infer<typeof FailOnRule>;

/** `failOn` as written: a threshold alone (`high`, every finding counts) or a {@link FailOnRule}. */
export const FailOnSetting = z.union([FailOn, FailOnRule]);
export type FailOnSetting = z.infer<typeof FailOnSetting>;

/** A lower-case severity level (spec §Finding (list item): CRITICAL, HIGH, MEDIUM, LOW, INFO). */
export const SeverityLevel = z.enum(["critical", "high", "medium", "low", "info"]);
export type SeverityLevel = z.infer<typeof SeverityLevel>;

/**
 * A repository role as GitHub reports it (`role_name` of "Get repository permissions for a user":
 * https://docs.github.com/en/rest/collaborators/collaborators#get-repository-permissions-for-a-user),
 * plus `none`. Ordered from least to most.
 */
export const RepoPermission = z.enum(["none", "read", "triage", "write", "maintain", "admin"]);
export type RepoPermission = z.infer<typeof RepoPermission>;

/** A permission floor a config may require (`none` is not a floor). */
export const MinPermission = z.enum(["read", "triage", "write", "maintain", "admin"]);
export type MinPermission = z.infer<typeof MinPermission>;

const GITHUB_LOGIN = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:\[bot\])?$/;

/**
 * A name the scanning service gives out, as the file quotes it: a repository id, a scan preset's `ref`
 * (spec §Scan preset (scan type)) or an audit area key (spec §Audit area); 1 to 200 characters.
 */
const ServiceRef = z.string().min(1).max(200);

/** A scan's most spend, in credits (spec §Scans, launch rule 1: when omitted the service picks a budget). */
const CreditBudget = z.int().min(1);

export const CommentsConfig = section("Inline review comments.", {
  maxInline: z
    .int()
    .min(0)
    .max(100)
    .default(20)
    .describe(
      "Most inline review comments per scan (0 to 100); further findings appear in the check run only.",
    ),
  // default `low`: INFO findings stay out of the diff so they do not crowd it
  minSeverity: SeverityLevel.default("low").describe(
    "Least severe finding that gets an inline review comment; `info` means every finding. INFO findings are in the check run either way.",
  ),
});

export const CommandsConfig = section("Slash commands in pull request comments.", {
  minPermission: MinPermission.default("write").describe(
    "Least repository role (read, triage, write, maintain, admin) needed to run slash commands that change something; /help and /diffward status are open to everyone.",
  ),
  publishPermission: MinPermission.optional().describe(
    "Least repository role needed to publish a finding (`/publish`, an irreversible public artifact); never below `minPermission`. When omitted: `admin` on private repositories, and publishing is off on public repositories.",
  ),
});

export const GuidanceConfig = section("The scanning guidance file committed in the repository.", {
  onChange: z
    .enum(["warn", "require-approval"])
    .default("warn")
    .describe(
      'When a pull request edits the guidance file (the PR\'s own guidance steers its scan): `warn` flags it prominently in the check run; `require-approval` holds the scan (check run `action_required`) until a user at or above `commands.minPermission` clicks "Scan anyway".',
    ),
});

/**
 * `triage.approval`: two-person dismissals. A dismissal (any resolution that stops a finding from blocking:
 * `RESOLVED`, `MITIGATED`, `WONT_FIX`, `FALSE_POSITIVE`, `DUPLICATE`; src/domain/approval.ts) of a finding at
 * or above `minSeverity` by a user below `approvers` is held as a request until a different user at or above
 * `approvers` approves it; the pattern of GitHub's delegated alert dismissal
 * (https://docs.github.com/en/code-security/code-scanning/managing-your-code-scanning-configuration/enabling-delegated-alert-dismissal-for-code-scanning).
 */
export const ApprovalConfig = section("Two-person dismissals; off when absent.", {
  minSeverity: SeverityLevel.default("high").describe(
    "Dismissals (resolved, mitigated, won't fix, false positive, duplicate: every resolution that stops a finding from blocking) of findings at or above this severity need a second person's `/approve`.",
  ),
  approvers: MinPermission.default("maintain").describe(
    "Least repository role (read, triage, write, maintain, admin) of the approver; a user at or above it dismisses without approval.",
  ),
});
export type ApprovalConfig = z.infer<typeof ApprovalConfig>;

/** The resolution statuses that accept a finding's risk and may carry an expiry (`/wontfix`, `/mitigate`). */
export const ACCEPTANCE_STATUSES = ["WONT_FIX", "MITIGATED"] as const;
export type AcceptanceStatus = (typeof ACCEPTANCE_STATUSES)[number];

export const TriageConfig = section("Triage from the pull request.", {
  approval: ApprovalConfig.optional(),
  maxAcceptanceDays: z
    .number()
    .int()
    .min(1)
    .max(3650)
    .default(365)
    .describe(
      "Longest expiry, in days from the command, of an acceptance (`/wontfix … until <date>` or `for <N>d`, also `/mitigate`); a later date is refused with this rule.",
    ),
  requireExpiry: z
    .array(z.enum(ACCEPTANCE_STATUSES))
    .default([])
    .describe(
      "Resolution statuses (`WONT_FIX`, `MITIGATED`) whose acceptance must carry an expiry (`until <date>` or `for <N>d`); one without it is refused.",
    ),
});

export const PathsConfig = section("Paths that need no scan.", {
  ignore: z
    .array(z.string().min(1).max(500))
    .max(200)
    .default([])
    .describe(
      "Glob patterns (picomatch syntax), e.g. `docs/**`: a pull request whose changed files all match is not scanned and concludes `neutral` saying why.",
    ),
});

export const AuthorsConfig = section("Pull request authors.", {
  skip: z
    .array(z.string().regex(GITHUB_LOGIN, "must be a GitHub login"))
    .max(200)
    .default([])
    .describe("GitHub logins whose pull requests are not scanned, e.g. `dependabot[bot]`."),
});

export const CreditCapConfig = section("Spending caps, in credits.", {
  monthly: z
    .int()
    .min(1)
    .optional()
    .describe(
      "Most credits diffward launches may spend on this repository per calendar month (UTC); no cap when omitted.",
    ),
});

export const CodeScanningConfig = section("GitHub code scanning.", {
  // never with disclosure `summary`: code scanning alerts are visible to everyone with read access
  upload: z
    .boolean()
    .default(false)
    .describe(
      "Upload each completed report's open findings to GitHub code scanning (SARIF, tool `diffward`), where dismissals and reopenings stay in step with the finding's resolution. Needs the app's `security_events` permission; nothing is uploaded when the effective `disclosure` is `summary`.",
    ),
});

/**
 * `baseline`: scans of the default branch's commits with a whole-repository (non-diff) preset, reported
 * on the commit and, with `codeScanning.upload`, uploaded for `refs/heads/<default branch>` so GitHub can
 * compare pull requests with the base branch. `preset` is required unless `on: off`; whether it is a diff
 * preset is checked against the service when a baseline starts (spec §Scan preset (scan type)).
 */
const SCHEDULE_REGEX = new RegExp(SCHEDULE_PATTERN);

export const BaselineConfig = section("Default-branch baseline scans; off when absent.", {
  on: z
    .enum(["push", "schedule", "off"])
    .default("off")
    .describe(
      "When the default branch gets a baseline scan: `push` (each push to it, debounced by `debounceSeconds`; a newer push cancels the running baseline of an older commit), `schedule` (by `baseline.schedule`, skipped when the branch head already has one), or `off`.",
    ),
  schedule: z
    .string()
    .regex(SCHEDULE_REGEX, "must be daily, weekly or a 5-field cron expression")
    .default("weekly")
    .describe(
      "With `on: schedule`: `daily`, `weekly` (each at a time picked per repository) or a 5-field cron expression (minute hour day-of-month month day-of-week), all in UTC.",
    ),
  // a diff preset needs `baseCommit`, which a baseline has not
  preset: ServiceRef.optional().describe(
    "Scan preset ref of baseline scans: a whole-repository (non-diff) preset from the service's presets list. Required unless `on: off`.",
  ),
  creditBudget: CreditBudget.optional().describe(
    "Most credits one baseline scan may spend. When omitted the service picks its recommended budget.",
  ),
})
  .superRefine((b, ctx) => {
    if (b.on !== "off" && b.preset === undefined)
      ctx.addIssue({
        code: "custom",
        path: ["preset"],
        message: `is required with \`on: ${b.on}\` (a whole-repository preset ref from the service's presets list)`,
      });
    // a schedule of the wrong shape already has its issue (the pattern): the ranges are checked on the rest
    const problem = SCHEDULE_REGEX.test(b.schedule) ? scheduleProblem(b.schedule) : undefined;
    if (problem) ctx.addIssue({ code: "custom", path: ["schedule"], message: problem });
  })
  // the same rule for editors: `preset` is required unless `on: off`
  .meta({
    if: { properties: { on: { enum: ["push", "schedule"] } }, required: ["on"] },
    then: { required: ["preset"] },
  });
export type BaselineConfig = z.infer<typeof BaselineConfig>;

/**
 * The whole `.github/diffward.yml`. Strict at every level: an unknown key is an error naming it, so a
 * typo never passes silently.
 */
export const RepoConfig = section("diffward configuration (.github/diffward.yml).", {
  // spec §Scans, `POST /projects/{projectId}/scans`: `repositoryId`
  repositoryId: ServiceRef.describe(
    "The scanning service's id of this repository (the `repositoryId` of scan launches). Required.",
  ),
  preset: ServiceRef.optional().describe(
    "Scan preset ref used for pull request scans; a diff preset. Defaults to the app's SCANNER_DIFF_PRESET.",
  ),
  creditBudget: CreditBudget.optional().describe(
    "Most credits one scan may spend. When omitted the service picks its recommended budget.",
  ),
  auditAreas: z
    .array(ServiceRef)
    .max(100)
    .optional()
    .describe("Audit area keys to scope scans to; omitted or empty scans the whole change."),
  failOn: FailOnSetting.default("high").describe(
    "Least severe open finding that makes the check run fail (`none` never fails it): a severity such as `high`, or `{severity: high, only: new}` so that only findings not already open on the base branch's last completed baseline count (pre-existing ones are listed but do not block; without a baseline every finding counts).",
  ),
  drafts: z.enum(["skip", "scan"]).default("skip").describe("Whether draft pull requests are scanned."),
  forks: z
    .enum(["scan", "approve", "skip"])
    .default("approve")
    .describe(
      'Pull requests from forks whose author is below `commands.minPermission`: `scan` at once, `approve` waits (check run `action_required`) until a permitted user clicks "Scan anyway", `skip` never scans them.',
    ),
  onServiceOutage: z
    .enum(["failure", "neutral"])
    .default("failure")
    .describe(
      "How the check run concludes when the scanning service stayed unavailable longer than the app waits (DIFFWARD_SERVICE_OUTAGE_MAX_WAIT, 60 minutes by default): `failure` (with the Re-run button) or `neutral`. Until then the check stays in progress and diffward retries on its own.",
    ),
  debounceSeconds: z
    .int()
    .min(0)
    .max(600)
    .default(10)
    .describe(
      "Seconds to wait after a push before launching a scan (0 to 600), so a burst of pushes costs one scan.",
    ),
  // no schema default: it depends on the repository's visibility (effectiveDisclosure)
  disclosure: z
    .enum(["full", "summary"])
    .optional()
    .describe(
      "How much finding detail is posted on GitHub: `full` or `summary`. Default: `summary` for public repositories, `full` for private ones.",
    ),
  comments: CommentsConfig.prefault({}),
  commands: CommandsConfig.prefault({}),
  triage: TriageConfig.prefault({}),
  guidance: GuidanceConfig.prefault({}),
  paths: PathsConfig.prefault({}),
  authors: AuthorsConfig.prefault({}),
  creditCap: CreditCapConfig.prefault({}),
  codeScanning: CodeScanningConfig.prefault({}),
  baseline: BaselineConfig.prefault({}),
  lowBalanceThreshold: z
    .int()
    .min(0)
    .optional()
    .describe("Warn in the check run when the organization's available credits fall below this number."),
  // GitHub's `merge_group` event, action `checks_requested`
  mergeQueue: z
    .enum(["reuse", "scan", "skip"])
    .default("reuse")
    .describe(
      "The `diffward` check on merge-queue groups: `reuse` concludes with the pull request's completed report when its current head was scanned (no new scan), else scans the group; `scan` always runs one diff scan of the group against its base; `skip` concludes `neutral` at once.",
    ),
  scanTimeoutMinutes: z
    .int()
    .min(1)
    .max(1440)
    .default(120)
    .describe("Minutes after which an unfinished scan is reported as timed out (1 to 1440)."),
});
export type RepoConfig = z.infer<typeof RepoConfig>;
/** The config as written, before defaults (what the JSON Schema describes). */
export type RepoConfigInput = z.input<typeof RepoConfig>;

export interface ConfigProblem {
  /** dotted path, e.g. `comments.maxInline`, `paths.ignore[2]`; "" for the whole file */
  path: string;
  /** 1-based line in the YAML file, when known */
  line?: number;
  /** 1-based column, for YAML syntax errors */
  column?: number;
  /** human message without the path */
  message: string;
}

export type RepoConfigResult =
  | { ok: true; config: RepoConfig }
  | {
      ok: false;
      /** one line per problem: `failOn: must be one of critical, high, medium, low, info, none (got "hgih")` */
      problems: string[];
      /** the same problems, structured (for check run annotations) */
      details: ConfigProblem[];
    };

/**
 * Validates an already-parsed config value against {@link RepoConfig}, applying defaults.
 * Never throws. Problems quote the path and what was found, e.g.
 * `failOn: must be one of critical, high, medium, low, info, none (got "hgih")`, and unknown keys are
 * named (`unknown key "failon" (did you mean "failOn"?)`).
 */
export function parseRepoConfig(raw: unknown): RepoConfigResult {
  if (raw === undefined || raw === null) {
    return failure([{ path: "", message: "the file is empty; at least `repositoryId` is required" }]);
  }
  const parsed = RepoConfig.safeParse(raw);
  if (parsed.success) return { ok: true, config: parsed.data };
  return failure(parsed.error.issues.flatMap((issue) => describeIssue(issue, raw)));
}

/**
 * Parses the text of `.github/diffward.yml` (YAML 1.2, the `yaml` package) and validates it.
 * YAML syntax errors and schema problems both come back as problems with 1-based line numbers, e.g.
 * `line 3, column 9: YAML syntax error: …` or `failOn (line 4): must be one of …`. Never throws.
 *
 * @param text - the file content; more than {@link MAX_REPO_CONFIG_BYTES} bytes is refused.
 */
export function parseRepoConfigYaml(text: string): RepoConfigResult {
  const bytes = Buffer.byteLength(text, "utf8");
  if (bytes > MAX_REPO_CONFIG_BYTES) {
    return failure([
      { path: "", message: `the file is ${bytes} bytes; the limit is ${MAX_REPO_CONFIG_BYTES}` },
    ]);
  }
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    return failure(
      doc.errors.map((e) => {
        const pos = lineCounter.linePos(e.pos[0]);
        const message = e.message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "");
        return { path: "", line: pos.line, column: pos.col, message: `YAML syntax error: ${message}` };
      }),
    );
  }
  let raw: unknown;
  try {
    raw = doc.toJS({ maxAliasCount: 100 });
  } catch (e) {
    return failure([{ path: "", message: `YAML could not be read: ${(e as Error).message}` }]);
  }
  const result = parseRepoConfig(raw);
  if (result.ok) return result;
  const details = result.details.map((d) => {
    const node = doc.getIn(pathSegments(d.path), true) as { range?: [number, number, number] } | undefined;
    const offset = node?.range?.[0];
    return offset === undefined ? d : { ...d, line: lineCounter.linePos(offset).line };
  });
  return failure(details.sort((a, b) => (a.line ?? 0) - (b.line ?? 0)));
}

/**
 * The disclosure level in force: the configured one, else `summary` for a public repository and
 * `full` for a private (or internal) one, so finding detail is never published on a public repository
 * by default.
 */
export function effectiveDisclosure(
  config: Pick<RepoConfig, "disclosure">,
  repo: { private: boolean },
): "full" | "summary" {
  return config.disclosure ?? (repo.private ? "full" : "summary");
}

/** `config` as a launch or poll job carries it: its disclosure made explicit ({@link effectiveDisclosure}). */
export function withEffectiveDisclosure(config: RepoConfig, repo: { private: boolean }): RepoConfig {
  return { ...config, disclosure: effectiveDisclosure(config, repo) };
}

/** The preset in force: the configured one, else the app-wide default (`SCANNER_DIFF_PRESET`). */
export function effectivePreset(config: Pick<RepoConfig, "preset">, appDefault: string): string {
  return config.preset ?? appDefault;
}

const PERMISSION_RANK: Record<RepoPermission, number> = {
  none: 0,
  read: 1,
  triage: 2,
  write: 3,
  maintain: 4,
  admin: 5,
};

/**
 * True when `actual` is at least `floor` in GitHub's order admin > maintain > write > triage > read > none
 * (https://docs.github.com/en/rest/collaborators/collaborators#get-repository-permissions-for-a-user;
 * roles: https://docs.github.com/en/organizations/managing-user-access-to-your-organizations-repositories/managing-repository-roles/repository-roles-for-an-organization).
 * Pass the response's `role_name`; a value that is not one of the five base roles (a custom role name)
 * or missing counts as `none`, so pass the response's `permission` (admin/write/read/none) instead in
 * that case. Case-insensitive. Never throws.
 */
export function permissionAtLeast(actual: string | null | undefined, floor: MinPermission): boolean {
  const parsed = RepoPermission.safeParse(typeof actual === "string" ? actual.toLowerCase() : actual);
  const rank = parsed.success ? PERMISSION_RANK[parsed.data] : 0;
  return rank >= PERMISSION_RANK[floor];
}

/**
 * The role to compare from a "Get repository permissions for a user" response: `role_name` when it is a
 * base role, else the legacy `permission` (custom roles inherit one of admin/write/read).
 */
export function collaboratorRole(response: {
  permission?: string | null;
  role_name?: string | null;
}): RepoPermission {
  const role = RepoPermission.safeParse(response.role_name?.toLowerCase());
  if (role.success) return role.data;
  const perm = RepoPermission.safeParse(response.permission?.toLowerCase());
  return perm.success ? perm.data : "none";
}

function failure(details: ConfigProblem[]): RepoConfigResult {
  return {
    ok: false,
    problems: details.map((d) => {
      const at =
        d.line === undefined
          ? ""
          : d.column === undefined
            ? `line ${d.line}`
            : `line ${d.line}, column ${d.column}`;
      const where = d.path ? (at ? `${d.path} (${at})` : d.path) : at;
      return where ? `${where}: ${d.message}` : d.message;
    }),
    details,
  };
}

function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const seg of path) {
    if (typeof seg === "number") out += `[${seg}]`;
    else out += out ? `.${String(seg)}` : String(seg);
  }
  return out;
}

function pathSegments(path: string): (string | number)[] {
  const segs: (string | number)[] = [];
  for (const m of path.matchAll(/([^.[\]]+)|\[(\d+)\]/g))
    segs.push(m[2] !== undefined ? Number(m[2]) : m[1]!);
  return segs;
}

function valueAt(raw: unknown, path: readonly PropertyKey[]): unknown {
  let cur: unknown = raw;
  for (const seg of path) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[seg as string];
  }
  return cur;
}

function show(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a mapping";
  const s = JSON.stringify(value) ?? String(value);
  return s.length > 60 ? `${s.slice(0, 60)}…` : s;
}

function typeName(expected: string): string {
  switch (expected) {
    case "object":
      return "a mapping";
    case "array":
      return "a list";
    case "int":
    case "number":
      return "a whole number";
    case "string":
      return "a string";
    case "boolean":
      return "true or false";
    default:
      return expected;
  }
}

function knownKeys(path: readonly PropertyKey[]): string[] {
  let schema: z.ZodType = RepoConfig;
  for (const seg of path) {
    const shape = shapeOf(schema);
    if (!shape || typeof seg !== "string" || !shape[seg]) return [];
    schema = shape[seg];
  }
  const shape = shapeOf(schema);
  return shape ? Object.keys(shape) : [];
}

/** The keys of an object schema, through defaults, optionals and a union's object alternative. */
function shapeOf(schema: z.ZodType): Record<string, z.ZodType> | undefined {
  let inner: unknown = schema;
  while (inner && typeof inner === "object" && "unwrap" in inner && typeof inner.unwrap === "function")
    inner = (inner as { unwrap(): unknown }).unwrap();
  const options = (inner as { options?: z.ZodType[] }).options;
  if (Array.isArray(options)) return options.map(shapeOf).find((s) => s !== undefined);
  return (inner as { shape?: Record<string, z.ZodType> }).shape;
}

/**
 * The issues of the union alternative the value was written as (`failOn: high` or `failOn: {severity: …}`):
 * a mapping is read as the object form, anything else as the scalar form.
 */
function unionIssues(issue: z.core.$ZodIssueInvalidUnion, got: unknown): z.core.$ZodIssue[] {
  const mapping = got !== null && typeof got === "object" && !Array.isArray(got);
  const fits = (errs: z.core.$ZodIssue[]) =>
    mapping
      ? errs.every((e) => e.path.length > 0 || e.code === "unrecognized_keys")
      : !errs.some((e) => e.code === "invalid_type" && e.expected === "object");
  const chosen = issue.errors.find(fits) ?? issue.errors[0] ?? [];
  return chosen.map((e) => ({ ...e, path: [...issue.path, ...e.path] }));
}

function describeIssue(issue: z.core.$ZodIssue, raw: unknown): ConfigProblem[] {
  return describeIssueAt(issue, raw).map((p) => (p.path ? p : { ...p, message: `the file ${p.message}` }));
}

function describeIssueAt(issue: z.core.$ZodIssue, raw: unknown): ConfigProblem[] {
  const path = formatPath(issue.path);
  const got = valueAt(raw, issue.path);
  switch (issue.code) {
    case "unrecognized_keys": {
      const known = knownKeys(issue.path);
      return issue.keys.map((key) => {
        const guess = suggest(key, known);
        return {
          path: formatPath([...issue.path, key]),
          message: `unknown key "${key}"${guess ? ` (did you mean "${guess}"?)` : ""}; known keys here: ${known.join(", ")}`,
        };
      });
    }
    case "invalid_union": {
      const inner = unionIssues(issue, got);
      if (inner.length > 0) return inner.flatMap((e) => describeIssueAt(e, raw));
      return [{ path, message: `${issue.message} (got ${show(got)})` }];
    }
    case "invalid_value":
      return [
        {
          path,
          message: `must be one of ${issue.values.map((v) => String(v)).join(", ")} (got ${show(got)})`,
        },
      ];
    case "invalid_type":
      if (got === undefined) return [{ path, message: "is required" }];
      return [{ path, message: `must be ${typeName(issue.expected)} (got ${show(got)})` }];
    case "too_small":
    case "too_big": {
      const bound = issue.code === "too_small" ? issue.minimum : issue.maximum;
      if (issue.code === "too_small" && issue.origin === "string" && Number(bound) === 1)
        return [{ path, message: `must not be empty (got ${show(got)})` }];
      const word = issue.code === "too_small" ? "at least" : "at most";
      const what =
        issue.origin === "string"
          ? `${bound} characters`
          : issue.origin === "array"
            ? `${bound} items`
            : String(bound);
      const subject =
        issue.origin === "string" ? "must have" : issue.origin === "array" ? "must have" : "must be";
      return [{ path, message: `${subject} ${word} ${what} (got ${show(got)})` }];
    }
    case "invalid_format":
      return [{ path, message: `${issue.message} (got ${show(got)})` }];
    case "custom":
      // a rule across fields (src/config/repo-config.ts refinements): a missing field has nothing to show
      return [{ path, message: got === undefined ? issue.message : `${issue.message} (got ${show(got)})` }];
    default:
      return [{ path, message: `${issue.message} (got ${show(got)})` }];
  }
}

/** The closest known key within edit distance 2 (case-insensitive), for typo hints. */
function suggest(key: string, known: string[]): string | undefined {
  let best: { k: string; d: number } | undefined;
  for (const k of known) {
    const d = distance(key.toLowerCase(), k.toLowerCase());
    if (d <= 2 && (!best || d < best.d)) best = { k, d };
  }
  return best?.k;
}

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return row[b.length]!;
}
