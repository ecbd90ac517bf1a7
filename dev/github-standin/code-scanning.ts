import { randomUUID } from "node:crypto";
import { z } from "zod";
import { HttpError, notFound, paginate, type RouteContext, type RouteReply } from "./http.js";
import { bot, intParam, now, repoOf, userJson } from "./routes.js";
import { decodeSarifUpload, SARIF_UPLOAD_MAXIMUMS, sarifSchemaErrors } from "./sarif.js";
import type { CodeScanningAlertRecord, Repository } from "./state.js";

type Handler = (ctx: RouteContext) => RouteReply;

// Bodies reach these handlers after ajv accepted them against GitHub's OpenAPI schema; these type them.
const UploadBody = z.looseObject({
  commit_sha: z.string(),
  ref: z.string(),
  sarif: z.string(),
  tool_name: z.string().optional(),
});
const UpdateBody = z.looseObject({
  state: z.enum(["open", "dismissed"]).optional(),
  dismissed_reason: z.string().nullable().optional(),
  dismissed_comment: z.string().nullable().optional(),
});

// The parts of a SARIF log the stand-in reads (after the official schema accepted it).
const SarifLog = z.looseObject({
  runs: z.array(
    z.looseObject({
      tool: z.looseObject({
        driver: z.looseObject({
          name: z.string(),
          version: z.string().optional(),
          rules: z
            .array(
              z.looseObject({
                id: z.string(),
                shortDescription: z.looseObject({ text: z.string() }).optional(),
                defaultConfiguration: z.looseObject({ level: z.string().optional() }).optional(),
                properties: z.looseObject({ tags: z.array(z.string()).optional() }).optional(),
              }),
            )
            .optional(),
        }),
      }),
      results: z
        .array(
          z.looseObject({
            ruleId: z.string().optional(),
            level: z.string().optional(),
            message: z.looseObject({ text: z.string().optional() }),
            locations: z
              .array(
                z.looseObject({
                  physicalLocation: z
                    .looseObject({
                      artifactLocation: z.looseObject({ uri: z.string() }).optional(),
                      region: z
                        .looseObject({ startLine: z.number().optional(), endLine: z.number().optional() })
                        .optional(),
                    })
                    .optional(),
                }),
              )
              .optional(),
            partialFingerprints: z.record(z.string(), z.string()).optional(),
          }),
        )
        .optional(),
    }),
  ),
});
type SarifRun = z.infer<typeof SarifLog>["runs"][number];

function securityLevel(score: unknown): CodeScanningAlertRecord["securitySeverityLevel"] {
  const n = typeof score === "string" ? Number(score) : NaN;
  if (!Number.isFinite(n) || n <= 0) return null;
  return n >= 9 ? "critical" : n >= 7 ? "high" : n >= 4 ? "medium" : "low";
}

function ruleLevel(level: string | undefined): CodeScanningAlertRecord["ruleSeverity"] {
  return level === "error" || level === "note" || level === "none" ? level : "warning";
}

/** Checks GitHub's maximums; returns the first one exceeded. */
function overMaximum(runs: SarifRun[]): string | undefined {
  const m = SARIF_UPLOAD_MAXIMUMS;
  if (runs.length > m.runsPerFile) return `${runs.length} runs (maximum ${m.runsPerFile})`;
  for (const run of runs) {
    const results = run.results ?? [];
    if (results.length > m.resultsPerRun) return `${results.length} results (maximum ${m.resultsPerRun})`;
    const rules = run.tool.driver.rules ?? [];
    if (rules.length > m.rulesPerRun) return `${rules.length} rules (maximum ${m.rulesPerRun})`;
    for (const r of rules)
      if ((r.properties?.tags?.length ?? 0) > m.tagsPerRule) return `rule ${r.id} has too many tags`;
    for (const r of results)
      if ((r.locations?.length ?? 0) > m.locationsPerResult) return "a result has too many locations";
  }
  return undefined;
}

/**
 * Turns an accepted analysis into alerts, as code scanning does: a result matches the alert of the same
 * tool, rule and `partialFingerprints` (else the same location); a matched alert gets a new most recent
 * instance and keeps its state (a dismissal survives new pushes); an unmatched result opens a new alert;
 * an open alert of this tool on this ref that the analysis no longer reports becomes `fixed`.
 * GitHub requires a location per result: a result without one is an error.
 */
function toAlerts(
  repo: Repository,
  alerts: CodeScanningAlertRecord[],
  runs: SarifRun[],
  ref: string,
  sha: string,
): string[] {
  // GitHub requires a location per result: check them all before anything changes.
  for (const run of runs)
    for (const result of run.results ?? [])
      if (!result.locations?.[0]?.physicalLocation?.artifactLocation?.uri)
        return ["expected at least one location with a file path per result"];
  const problems: string[] = [];
  const seen = new Set<CodeScanningAlertRecord>();
  const at = now();
  for (const run of runs) {
    const driver = run.tool.driver;
    const rules = new Map((driver.rules ?? []).map((r) => [r.id, r]));
    for (const result of run.results ?? []) {
      const loc = result.locations?.[0]?.physicalLocation;
      const path = loc?.artifactLocation?.uri;
      if (!path) {
        problems.push("expected at least one location with a file path per result");
        continue;
      }
      const ruleId = result.ruleId ?? "(none)";
      const rule = rules.get(ruleId);
      const fp = result.partialFingerprints;
      const identity = JSON.stringify([
        driver.name,
        ruleId,
        fp && Object.keys(fp).length > 0 ? fp : [path, loc?.region?.startLine ?? null],
      ]);
      const instance = {
        ref,
        commitSha: sha,
        message: result.message.text ?? "",
        path: decodeURIComponent(path),
        startLine: loc?.region?.startLine ?? null,
        endLine: loc?.region?.endLine ?? loc?.region?.startLine ?? null,
      };
      let alert = alerts.find((a) => a.identity === identity);
      if (alert) {
        alert.mostRecent = instance;
        alert.refs.add(ref);
        alert.updatedAt = at;
        if (alert.state === "fixed") {
          alert.state = "open";
          alert.fixedAt = null;
        }
      } else {
        alert = {
          number: alerts.length + 1,
          toolName: driver.name,
          toolVersion: driver.version ?? null,
          ruleId,
          ruleSeverity: ruleLevel(result.level ?? rule?.defaultConfiguration?.level),
          securitySeverityLevel: securityLevel(rule?.properties?.["security-severity"]),
          ruleDescription: rule?.shortDescription?.text ?? ruleId,
          identity,
          state: "open",
          dismissedBy: null,
          dismissedAt: null,
          dismissedReason: null,
          dismissedComment: null,
          createdAt: at,
          updatedAt: at,
          fixedAt: null,
          refs: new Set([ref]),
          mostRecent: instance,
        };
        alerts.push(alert);
      }
      seen.add(alert);
    }
    for (const a of alerts) {
      if (a.toolName === driver.name && a.refs.has(ref) && a.state === "open" && !seen.has(a)) {
        a.state = "fixed";
        a.fixedAt = at;
        a.updatedAt = at;
      }
    }
  }
  void repo;
  return problems;
}

function alertJson(ctx: RouteContext, repo: Repository, a: CodeScanningAlertRecord) {
  const base = `${ctx.apiBase}/repos/${repo.owner}/${repo.name}/code-scanning/alerts/${a.number}`;
  return {
    number: a.number,
    created_at: a.createdAt,
    updated_at: a.updatedAt,
    url: base,
    html_url: `${ctx.origin}/${repo.owner}/${repo.name}/security/code-scanning/${a.number}`,
    instances_url: `${base}/instances`,
    state: a.state,
    fixed_at: a.fixedAt,
    dismissed_by: a.dismissedBy ? userJson(ctx, a.dismissedBy) : null,
    dismissed_at: a.dismissedAt,
    dismissed_reason: a.dismissedReason,
    dismissed_comment: a.dismissedComment,
    rule: {
      id: a.ruleId,
      severity: a.ruleSeverity,
      security_severity_level: a.securitySeverityLevel,
      description: a.ruleDescription,
      name: a.ruleId,
      tags: ["security"],
    },
    tool: { name: a.toolName, guid: null, version: a.toolVersion },
    most_recent_instance: {
      ref: a.mostRecent.ref,
      analysis_key: `${a.toolName}/sarif-upload`,
      environment: "{}",
      category: `${a.toolName}/`,
      state: a.state,
      commit_sha: a.mostRecent.commitSha,
      message: { text: a.mostRecent.message },
      location: {
        path: a.mostRecent.path,
        ...(a.mostRecent.startLine !== null ? { start_line: a.mostRecent.startLine } : {}),
        ...(a.mostRecent.endLine !== null ? { end_line: a.mostRecent.endLine } : {}),
      },
      classifications: [],
    },
  };
}

/** The repository of the route, with code scanning available. @throws HttpError 403 as GitHub answers without it. */
function scanningRepo(ctx: RouteContext): Repository {
  const repo = repoOf(ctx);
  if (!ctx.state.codeScanningEnabled(repo.owner, repo.name))
    throw new HttpError(403, "Code Security must be enabled for this repository to use code scanning.");
  return repo;
}

function alertOf(ctx: RouteContext, repo: Repository): CodeScanningAlertRecord {
  const n = intParam(ctx, "alert_number");
  const a = ctx.state.codeScanningAlerts(repo.owner, repo.name).find((x) => x.number === n);
  if (a === undefined) throw notFound();
  return a;
}

/**
 * Code scanning routes of the stand-in: SARIF uploads (decoded, validated against the official SARIF
 * 2.1.0 schema and GitHub's maximums, then turned into alerts) and the alert endpoints (list, get, update).
 * An upload GitHub would refuse answers 400/413/422 and is recorded as a violation (`openapiErrors`).
 */
export const CODE_SCANNING_ROUTES: Readonly<Record<string, Handler>> = {
  "code-scanning/upload-sarif": (ctx) => {
    const repo = scanningRepo(ctx);
    const b = UploadBody.parse(ctx.body);
    const decoded = decodeSarifUpload(b.sarif);
    if (!decoded.ok) throw new HttpError(422, `Invalid request.\n\n${decoded.error}`, [decoded.error]);
    if (decoded.gzipBytes > SARIF_UPLOAD_MAXIMUMS.gzipBytes)
      throw new HttpError(413, "SARIF file is too large", ["gzip-compressed size over 10 MB"]);
    const errors = sarifSchemaErrors(decoded.log);
    if (errors.length > 0) throw new HttpError(422, "Invalid SARIF (schema sarif-schema-2.1.0)", errors);
    const log = SarifLog.parse(decoded.log);
    const over = overMaximum(log.runs);
    if (over) throw new HttpError(422, `SARIF upload rejected: ${over}`, [over]);
    const alerts = ctx.state.codeScanningAlerts(repo.owner, repo.name);
    const problems = toAlerts(repo, alerts, log.runs, b.ref, b.commit_sha);
    if (problems.length > 0) throw new HttpError(422, "SARIF upload rejected", problems);
    const id = randomUUID();
    ctx.state.sarifUploads(repo.owner, repo.name).push({
      id,
      commitSha: b.commit_sha,
      ref: b.ref,
      toolName: b.tool_name ?? null,
      log: decoded.log,
      gzipBytes: decoded.gzipBytes,
      receivedAt: now(),
    });
    return {
      status: 202,
      body: { id, url: `${ctx.apiBase}/repos/${repo.owner}/${repo.name}/code-scanning/sarifs/${id}` },
    };
  },

  "code-scanning/list-alerts-for-repo": (ctx) => {
    const repo = scanningRepo(ctx);
    const { tool_name: tool, ref, state } = ctx.query;
    const all = ctx.state
      .codeScanningAlerts(repo.owner, repo.name)
      .filter(
        (a) =>
          (tool === undefined || a.toolName === tool) &&
          (ref === undefined || a.refs.has(ref)) &&
          (state === undefined || a.state === state),
      )
      .sort((a, b) => b.number - a.number);
    const page = paginate(ctx, all);
    return { status: 200, headers: page.headers, body: page.items.map((a) => alertJson(ctx, repo, a)) };
  },

  "code-scanning/get-alert": (ctx) => {
    const repo = scanningRepo(ctx);
    return { status: 200, body: alertJson(ctx, repo, alertOf(ctx, repo)) };
  },

  "code-scanning/update-alert": (ctx) => {
    const repo = scanningRepo(ctx);
    const a = alertOf(ctx, repo);
    const b = UpdateBody.parse(ctx.body);
    if (b.state === "dismissed") {
      if (!b.dismissed_reason)
        throw new HttpError(422, "dismissed_reason is required when the state is dismissed", [
          "dismissed_reason missing",
        ]);
      if (a.state === "fixed") throw new HttpError(400, "Alert is already fixed");
      a.state = "dismissed";
      a.dismissedReason = b.dismissed_reason;
      a.dismissedComment = b.dismissed_comment ?? null;
      a.dismissedBy = ctx.installationId !== undefined ? bot(ctx) : null;
      a.dismissedAt = now();
    } else if (b.state === "open") {
      if (a.state === "fixed") throw new HttpError(400, "Alert is already fixed");
      a.state = "open";
      a.dismissedReason = null;
      a.dismissedComment = null;
      a.dismissedBy = null;
      a.dismissedAt = null;
    }
    a.updatedAt = now();
    return { status: 200, body: alertJson(ctx, repo, a) };
  },
};
