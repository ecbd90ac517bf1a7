/**
 * The check run's output for a scan that could not be launched or did not finish: one catalogue of kinds
 * ({@link LAUNCH_ERRORS}), each saying what happened, why, and what to do next.
 *
 * GitHub doc: "Update a check run" (`output.title`, `output.summary`, `output.text`, each summary
 * and text at most 65,535 bytes): https://docs.github.com/en/rest/checks/runs#update-a-check-run
 */

import type { CheckRunOutput } from "../github/check-runs.js";
import { DomainInputError } from "../domain/finding-types.js";
import { codeBlock, inlineCode } from "./escape.js";
import { creditFigures, shortSha } from "./format.js";
import { plural } from "./glossary.js";
import { link } from "./markdown.js";
import { whatWhyNext } from "./what-why-next.js";

/**
 * One launch or scan error kind: the details it takes (`D`), those it cannot be explained without (checked
 * at run time too), and its output.
 */
interface LaunchErrorEntry<D extends object> {
  required?: readonly (keyof D & string)[];
  render: (details: D) => CheckRunOutput;
}

function entry<D extends object>(
  render: (details: D) => CheckRunOutput,
  required?: readonly (keyof D & string)[],
): LaunchErrorEntry<D> {
  return required ? { render, required } : { render };
}

/**
 * Why diffward cancelled a scan, when it made the cancel (a stop or `/diffward cancel`): the check run says so
 * in diffward's words. Absent when the cancel came from elsewhere (the scanning service's own interface).
 */
export type ScanCancelCause =
  { kind: "closed" } | { kind: "uninstalled" } | { kind: "command"; login: string };

function cancelWhy(cause: ScanCancelCause | undefined): string {
  switch (cause?.kind) {
    case "closed":
      return "The pull request was closed, so diffward cancelled the scan; reserved credits were released.";
    case "uninstalled":
      return "diffward was uninstalled from this account, so it cancelled the scan; reserved credits were released.";
    case "command":
      return `${inlineCode(`@${cause.login}`)} cancelled it with \`/diffward cancel\`; reserved credits were released.`;
    default:
      return "Someone cancelled it in the scanning service or with `/diffward cancel`; reserved credits were released.";
  }
}

function cancelNext(cause: ScanCancelCause | undefined): string {
  if (cause?.kind === "closed") return "Reopen the pull request to scan it again.";
  if (cause?.kind === "uninstalled") return "Install diffward again on this account to scan again.";
  return "Comment `/diffward rescan` or push again to run a new scan.";
}

function quoted(message: string | undefined, from = "The service said"): string | undefined {
  return message ? `${from}:\n\n${codeBlock(message)}` : undefined;
}

function seconds(s: number | undefined): string {
  if (s === undefined || !Number.isFinite(s) || s < 0) return "shortly";
  const whole = Math.ceil(s);
  if (whole < 120) return `in ${plural(whole, "second")}`;
  const minutes = Math.ceil(whole / 60);
  return minutes < 120 ? `in ${plural(minutes, "minute")}` : `in ${plural(Math.ceil(minutes / 60), "hour")}`;
}

function attempt(d: { attempt?: number; maxAttempts?: number }): string {
  return d.attempt !== undefined && d.maxAttempts !== undefined
    ? ` (attempt ${d.attempt} of ${d.maxAttempts})`
    : "";
}

/** Details of the launch refusals of spec §Scans, launch rule 6 (base commit) and of a plain 400. */
interface RefusedLaunch {
  message?: string;
  presetName?: string;
  baseCommit?: string;
}

/** A 400 refusal (`diff_base_*`, `bad_request`): the kind, why it was refused, and what to fix. */
function refusedLaunch(kind: string, why: string, x: RefusedLaunch): CheckRunOutput {
  return {
    title: kind === "bad_request" ? "Scan request refused" : "Scan refused: base commit problem",
    summary: whatWhyNext(
      `The scanning service refused to launch the scan (${inlineCode(kind)}).`,
      why,
      kind === "diff_base_invalid"
        ? "Make sure the base branch is pushed, then comment `/diffward rescan` or push again."
        : "Check the scan type (`preset`) in `.github/diffward.yml`: pull requests need a diff-scan preset. Then push again.",
      quoted(x.message),
    ),
  };
}

/** Details of a 5xx or of no answer; diffward retries. */
interface Unavailable {
  message?: string;
  retryInSeconds?: number;
  attempt?: number;
  maxAttempts?: number;
}

function unavailable(kind: "internal" | "network", x: Unavailable): CheckRunOutput {
  return {
    title: "Scanning service unavailable, retrying",
    summary: whatWhyNext(
      kind === "internal"
        ? "The scanning service answered with a server error."
        : "diffward could not reach the scanning service.",
      "This is usually temporary.",
      `Nothing to do: diffward retries ${seconds(x.retryInSeconds)}${attempt(x)}.`,
      quoted(x.message, kind === "internal" ? "The service said" : "The error was"),
    ),
  };
}

function presetPart(x: RefusedLaunch): string {
  return x.presetName ? ` ${inlineCode(x.presetName)}` : "";
}

/**
 * Every launch or scan error diffward explains on a check run, by kind; the kinds are this catalogue's keys.
 * Each output says what happened, why, and what to do next. Spec sections (the table of spec §Errors, the
 * launch rules of spec §Scans):
 *
 * - `repository_initializing`: launch rule 4, 409; diffward retries.
 * - `rate_limited`: launch rule 5 / request rate, 429 with `Retry-After` (seconds).
 * - `insufficient_credits`: launch rule 3, 402; balances in credits.
 * - `diff_empty`: launch rule 7, 422.
 * - `diff_base_*`: launch rule 6, 400; `bad_request`: 400 with the service's message.
 * - `unauthorized` / `forbidden` / `not_found`: spec §Authentication rules 4 to 6.
 * - `internal` / `network`: 5xx or no answer; diffward retries.
 * - `service_unavailable`: 5xx, timeout or no answer (spec §Errors, `internal`): the launch waits for the
 *   service's circuit breaker; `service_outage`: it waited longer than `DIFFWARD_SERVICE_OUTAGE_MAX_WAIT`;
 *   `launch_unconfirmed`: the launch's own answer was lost, so the scan may exist (spec §Scans: the service
 *   offers no idempotency key; diffward reads its scan list once the service answers).
 * - `superseded`: a newer push replaced this scan; `timed_out`: diffward stopped waiting.
 * - `scan_failed` / `scan_cancelled`: spec §Scan status, terminal states.
 * - `config_invalid`: `.github/diffward.yml` problems, quoted exactly.
 * - `not_onboarded` / `no_token`: the repository is not set up for diffward.
 *
 * Service messages are untrusted: quoted in a code block, never interpreted as Markdown.
 */
const LAUNCH_ERRORS = {
  repository_initializing: entry((x: { retryInSeconds?: number }) => ({
    title: "Repository is being analyzed for the first time",
    summary: whatWhyNext(
      "The scanning service refused the scan because it is still analyzing this repository for the first time.",
      "A newly added repository gets a one-time analysis pass (free of credits); scans are refused until it ends.",
      `Nothing to do: diffward retries ${seconds(x.retryInSeconds)} and this check updates when the scan starts.`,
    ),
  })),
  rate_limited: entry((x: { retryAfterSeconds?: number; message?: string }) => ({
    title: "Rate limited by the scanning service",
    summary: whatWhyNext(
      "The scanning service asked diffward to wait before launching or polling again.",
      "The service token reached its spend limit for the current period, or sent too many requests.",
      `diffward retries ${seconds(x.retryAfterSeconds)}${x.retryAfterSeconds !== undefined ? ` (the service's \`Retry-After\` was ${Math.ceil(x.retryAfterSeconds)} s)` : ""}. If this keeps happening, raise the token's spend limit in the service.`,
      quoted(x.message),
    ),
  })),
  insufficient_credits: entry(
    (x: {
      availableCredits?: number;
      balanceCredits?: number;
      requiredCredits?: number;
      message?: string;
      billingUrl?: string;
    }) => {
      const facts = creditFigures(x, "budget needed");
      return {
        title: "Not enough credits to scan",
        summary: whatWhyNext(
          "The scanning service refused the scan: the prepaid credits cannot cover its budget.",
          `Credits are held by the organization and shared by all its projects; scans in flight hold part of the balance.${facts.length ? ` (${facts.join(", ")})` : ""}`,
          `Buy credits${x.billingUrl ? ` (${link("billing", x.billingUrl)})` : ""} or lower the credit budget in \`.github/diffward.yml\`, then comment \`/diffward rescan\` or push again.`,
          quoted(x.message),
        ),
      };
    },
  ),
  diff_empty: entry((x: { baseCommit?: string; headSha?: string }) => {
    const range =
      x.baseCommit && x.headSha ? ` between ${shortSha(x.baseCommit)} and ${shortSha(x.headSha)}` : "";
    return {
      title: "Nothing to audit",
      summary: whatWhyNext(
        `The scanning service found no change${range} to audit.`,
        "A diff scan audits only the change from the merge base to the head commit, and this one is empty.",
        "Nothing to do. Push a change and diffward scans again.",
      ),
    };
  }),
  diff_base_required: entry((x: { message?: string; presetName?: string }) =>
    refusedLaunch(
      "diff_base_required",
      `The scan type${presetPart(x)} is a diff scan and needs a base commit.`,
      x,
    ),
  ),
  diff_base_not_allowed: entry((x: { message?: string; presetName?: string }) =>
    refusedLaunch(
      "diff_base_not_allowed",
      `The scan type${presetPart(x)} scans whole commits and refuses a base commit.`,
      x,
    ),
  ),
  diff_base_invalid: entry((x: { message?: string; baseCommit?: string }) =>
    refusedLaunch(
      "diff_base_invalid",
      `The base commit${x.baseCommit ? ` ${inlineCode(x.baseCommit)}` : ""} is malformed or unknown to the service (is it pushed?).`,
      x,
    ),
  ),
  bad_request: entry(
    (x: { message: string }) =>
      refusedLaunch("bad_request", "The service found the launch request invalid.", x),
    ["message"],
  ),
  unauthorized: entry((x: { message?: string }) => ({
    title: "Scanning service token refused",
    summary: whatWhyNext(
      "The scanning service did not accept diffward's token.",
      "The token is missing, malformed, expired or revoked.",
      "Ask an administrator of this installation to create a new token in the scanning service and update the token diffward uses for this repository.",
      quoted(x.message),
    ),
  })),
  forbidden: entry((x: { message?: string; scope?: string }) => ({
    title: "Scanning service token lacks a scope",
    summary: whatWhyNext(
      "The scanning service refused the request: diffward's token lacks a required scope.",
      `This operation needs the ${x.scope ? inlineCode(x.scope) : "`scans:launch`"} scope (diffward uses \`read\`, \`scans:launch\` and \`findings:write\`).`,
      "Give the token the missing scope in the scanning service, or issue a new one with it, then push again.",
      quoted(x.message),
    ),
  })),
  not_found: entry((x: { message?: string; repositoryId?: string }) => ({
    title: "Repository not found in the scanning service",
    summary: whatWhyNext(
      `The scanning service does not know this repository${x.repositoryId ? ` (${inlineCode(x.repositoryId)})` : ""} for diffward's token.`,
      "The repository is not in the token's project, or the token is restricted to other repositories.",
      "Add the repository to the project in the scanning service, or add it to the token's repository allowlist, and check the repository id diffward is configured with.",
      quoted(x.message),
    ),
  })),
  internal: entry((x: Unavailable) => unavailable("internal", x)),
  service_unavailable: entry((x: { maxWaitMinutes?: number }) => ({
    title: "Scanning service unavailable",
    summary: whatWhyNext(
      "The scanning service is unavailable; diffward retries and resumes on its own.",
      "The service answered with a server error, timed out or could not be reached. diffward waits for it with one shared retry for all pull requests, then launches each waiting scan once; nothing was launched or spent yet.",
      `Nothing to do: this check updates when the scan starts.${x.maxWaitMinutes !== undefined ? ` If the service is still unavailable after ${plural(x.maxWaitMinutes, "minute")}, the check concludes by \`onServiceOutage\` in \`.github/diffward.yml\`.` : ""}`,
    ),
  })),
  service_outage: entry(
    (x: { waitedMinutes: number }) => ({
      title: "Scanning service unavailable: not scanned",
      summary: whatWhyNext(
        `The scanning service stayed unavailable for ${plural(x.waitedMinutes, "minute")}, so diffward stopped waiting; no scan was launched and nothing was spent.`,
        "The service answered with server errors, timed out or could not be reached for longer than diffward waits (`DIFFWARD_SERVICE_OUTAGE_MAX_WAIT`); `onServiceOutage` in `.github/diffward.yml` sets how this check concludes.",
        "Once the service is back, press **Re-run** on this check, comment `/diffward rescan` or push again.",
      ),
    }),
    ["waitedMinutes"],
  ),
  launch_unconfirmed: entry(() => ({
    title: "Scanning service unavailable: launch not confirmed",
    summary: whatWhyNext(
      "diffward sent this scan to the scanning service, but its answer was lost (a server error, a timeout or no answer) and the service is unavailable.",
      "The service may have started the scan, which then runs and spends credits, so diffward neither launches it again nor concludes this check before it knows; what it holds under `creditCap.monthly` stays held meanwhile.",
      "Nothing to do: as soon as the service answers, diffward looks the scan up in the service's scan list and reports it here, or launches it once if it never reached the service.",
    ),
  })),
  network: entry((x: Unavailable) => unavailable("network", x)),
  superseded: entry(
    /** `sameHead`: a new explicit request (Re-run, Scan anyway, rescan) of the same commit replaced it */
    (x: { bySha: string; sameHead?: boolean }) =>
      x.sameHead
        ? {
            title: "Replaced by a new scan of this commit",
            summary: whatWhyNext(
              "diffward stopped following this scan.",
              "A new scan of this commit was requested (Re-run, Scan anyway or `/diffward rescan`); it runs in a new `diffward` check run.",
              "See the newest `diffward` check run on this commit.",
            ),
          }
        : {
            title: `Superseded by ${x.bySha.slice(0, 7)}`,
            summary: whatWhyNext(
              "diffward stopped following this scan.",
              `A newer commit ${shortSha(x.bySha)} was pushed to the pull request; its scan replaces this one.`,
              "See the check run on the newer commit.",
            ),
          },
    ["bySha"],
  ),
  timed_out: entry(
    (x: { waitedSeconds: number; scanId?: string; lastPercent?: number }) => ({
      title: "Scan timed out",
      summary: whatWhyNext(
        `diffward stopped waiting for scan${x.scanId ? ` ${inlineCode(x.scanId)}` : ""} after ${seconds(x.waitedSeconds).replace(/^in /, "")}${x.lastPercent !== undefined ? `, at ${x.lastPercent}%` : ""}.`,
        "The scan did not reach a final state in the time diffward allows.",
        "Comment `/diffward rescan` to try again, or raise the timeout in `.github/diffward.yml`. The scan may still finish in the service.",
      ),
    }),
    ["waitedSeconds"],
  ),
  scan_failed: entry(
    (x: { scanId: string; message?: string }) => ({
      title: "Scan failed",
      summary: whatWhyNext(
        `Scan ${inlineCode(x.scanId)} stopped on an error in the scanning service (status \`FAILED\`).`,
        "The service did not say why beyond what is quoted below.",
        "Comment `/diffward rescan` or push again to retry. Unused credits return to the balance.",
        quoted(x.message),
      ),
    }),
    ["scanId"],
  ),
  scan_cancelled: entry(
    (x: { scanId: string; message?: string; cause?: ScanCancelCause }) => ({
      title: "Scan cancelled",
      summary: whatWhyNext(
        `Scan ${inlineCode(x.scanId)} was cancelled (status \`CANCELLED\`).`,
        cancelWhy(x.cause),
        cancelNext(x.cause),
        quoted(x.message),
      ),
    }),
    ["scanId"],
  ),
  config_invalid: entry(
    (x: { path: string; problems: readonly string[] }) => {
      const problems = x.problems?.length ? x.problems : ["(no detail)"];
      return {
        title: `Invalid ${x.path}`,
        summary: whatWhyNext(
          `diffward did not scan: ${inlineCode(x.path)} is invalid.`,
          `It has ${plural(problems.length, "problem")}:\n\n${codeBlock(problems.join("\n"))}`,
          `Fix ${inlineCode(x.path)} in this pull request; diffward scans again on the next push.`,
        ),
      };
    },
    ["path", "problems"],
  ),
  not_onboarded: entry((x: { message?: string; setupUrl?: string }) => ({
    title: "Repository not set up for scanning",
    summary: whatWhyNext(
      "diffward did not scan this pull request.",
      "This repository is not connected to a project in the scanning service yet.",
      `Connect it${x.setupUrl ? ` (${link("setup", x.setupUrl)})` : ""}: add the repository to a project in the scanning service and give diffward a token for it.`,
      quoted(x.message),
    ),
  })),
  no_token: entry((x: { setupUrl?: string }) => ({
    title: "No scanning service token",
    summary: whatWhyNext(
      "diffward did not scan this pull request.",
      "No scanning service token is configured for this installation or repository.",
      `Create a token with the \`read\`, \`scans:launch\` and \`findings:write\` scopes in the scanning service and register it with diffward${x.setupUrl ? ` (${link("setup", x.setupUrl)})` : ""}.`,
    ),
  })),
};

/** A launch or scan error diffward explains on a check run: a key of the catalogue above. */
export type LaunchErrorKind = keyof typeof LAUNCH_ERRORS;

/** Details each launch or scan error kind accepts (the catalogue's parameter types). */
export type LaunchErrorDetails = {
  [K in LaunchErrorKind]: Parameters<(typeof LAUNCH_ERRORS)[K]["render"]>[0];
};

/** Every kind {@link renderLaunchError} renders, in the catalogue's order. */
export const LAUNCH_ERROR_KINDS = Object.keys(LAUNCH_ERRORS) as readonly LaunchErrorKind[];

type DetailsArg<K extends LaunchErrorKind> =
  Record<string, never> extends LaunchErrorDetails[K]
    ? [details?: LaunchErrorDetails[K]]
    : [details: LaunchErrorDetails[K]];

/**
 * Output for a scan that could not be launched or did not finish, one per {@link LaunchErrorKind}, from the
 * catalogue of kinds above (what happened, why, what next, and the spec section of each).
 *
 * @throws DomainInputError for an unknown kind, or when a required detail (e.g. `bySha` of
 *   `superseded`, `problems` of `config_invalid`) is missing.
 */
export function renderLaunchError<K extends LaunchErrorKind>(
  kind: K,
  ...args: DetailsArg<K>
): CheckRunOutput {
  if (!Object.hasOwn(LAUNCH_ERRORS, kind)) {
    throw new DomainInputError(`unknown launch error kind ${JSON.stringify(kind)}`, [
      `expected one of ${LAUNCH_ERROR_KINDS.join(", ")}`,
    ]);
  }
  const known = LAUNCH_ERRORS[kind] as LaunchErrorEntry<Record<string, unknown>>;
  const details = (args[0] ?? {}) as Record<string, unknown>;
  const missing = (known.required ?? []).filter((field) => details[field] === undefined);
  if (missing.length > 0) {
    throw new DomainInputError(
      `missing details for launch error ${kind}`,
      missing.map((field) => `${field}: required`),
    );
  }
  return known.render(details);
}
