/**
 * The Markdown diffward answers slash commands with (pure). Every piece of user or service text goes
 * through `neutralize` or `inlineCode` (src/render/escape.ts); logins are shown in code spans so an
 * answer never pings anyone a second time.
 */
import { findingTitle, inlineCode, neutralize } from "./escape.js";
import { link } from "./markdown.js";
import { findingLabel } from "../scanner/labels.js";
import { publishedScanUrl } from "../scanner/links.js";
import type { Severity } from "../scanner/catalog.js";
import { severityName } from "./glossary.js";
import type { ScannerApiError } from "../scanner/errors.js";

/** The user diffward acts for, shown in a code span. */
export function who(login: string): string {
  return inlineCode(`@${login}`);
}

/**
 * Appends the attribution every note diffward writes carries (the service records diffward's token as
 * the author, so the note itself names the GitHub user): `— GitHub user @login via diffward (owner/repo#n)`.
 */
export function attributed(
  text: string | undefined,
  login: string,
  pull: { owner: string; repo: string; pullNumber: number },
): string {
  const line = `— GitHub user @${login} via diffward (${pull.owner}/${pull.repo}#${pull.pullNumber})`;
  return text?.trim() ? `${text.trim()}\n\n${line}` : line;
}

/** Below the command's floor (`setting`, default `commands.minPermission`): a polite refusal; nothing was changed. */
export function permissionRefusal(
  login: string,
  actual: string,
  floor: string,
  setting = "commands.minPermission",
): string {
  return (
    `Sorry ${who(login)}, this command needs at least the \`${floor}\` permission on this repository ` +
    `(you have \`${actual}\`), so nothing was changed. Ask a maintainer, or see \`${setting}\` ` +
    "in `.github/diffward.yml`."
  );
}

/** Publishing on a public repository without `commands.publishPermission`: off; nothing was published. */
export function publishOffAnswer(): string {
  return (
    "Publishing is off on this public repository: a published finding is a public artifact that cannot be " +
    "withdrawn, so nothing was published. An administrator can turn it on by setting " +
    "`commands.publishPermission` in `.github/diffward.yml`."
  );
}

/** A label matching several findings (409 `conflict`): the candidates diffward knows on this pull request. */
export function conflictAnswer(
  typed: string,
  candidates: ReadonlyArray<{ id: string; title: string; severity: string }>,
  labelPrefix: string,
): string {
  const head =
    `The label ${inlineCode(typed)} matches more than one finding of the project, so nothing was changed. ` +
    "Repeat the command with the full finding id.";
  if (candidates.length === 0)
    return `${head} diffward knows no finding with this label on this pull request.`;
  const lines = candidates.map(
    (c) =>
      `- ${inlineCode(c.id)} (${findingLabel(c.id, labelPrefix)}, ${severityName(c.severity as Severity)}): ${findingTitle(c.title)}`,
  );
  return [`${head} Findings of this pull request with that label:`, "", ...lines].join("\n");
}

/** A service refusal (4xx other than 429), as a user-facing answer: what happened and what to do. */
export function serviceRefusal(error: ScannerApiError, what: string): string {
  const said = neutralize(error.serviceMessage.slice(0, 1_000));
  switch (error.code) {
    case "bad_request":
      return `The scanning service refused to ${what}: ${said}. Nothing was changed.`;
    case "not_found":
      return `The scanning service does not know this finding (or diffward's token cannot see it), so nothing was changed. Check the label or id.`;
    case "conflict":
      return `The scanning service answered with a conflict: ${said}. Nothing was changed.`;
    case "forbidden":
      return `diffward's service token lacks the scope to ${what}; ask an administrator to grant it. Nothing was changed.`;
    case "unauthorized":
      return "diffward's service token was refused (missing, expired or revoked); ask an administrator to renew it. Nothing was changed.";
    default:
      return `The scanning service refused to ${what} (${error.status} \`${error.code}\`): ${said}. Nothing was changed.`;
  }
}

/** The service stayed unavailable (5xx, network) after every retry. */
export function unavailableAnswer(what: string): string {
  return `The scanning service is unavailable right now, so diffward could not ${what}. Please repeat the command in a few minutes.`;
}

/** The service kept answering 429 `rate_limited`. */
export function rateLimitedAnswer(what: string): string {
  return `The scanning service is rate limiting diffward, so it could not ${what} after several waits. Please repeat the command later.`;
}

/**
 * `/diffward publish scan` done: the public artifact and its public address (`SCANNER_PUBLIC_URL`), never
 * an access password (diffward publishes without one: it could only be shown in this public comment).
 */
export function publishedScanAnswer(
  scanId: string,
  headSha: string,
  publicId: string,
  publicUrl: string | undefined,
): string {
  const where = publicUrl
    ? ` ${link("Open the published scan", publishedScanUrl(publicUrl, publicId))}.`
    : " (diffward does not know the service's public address: `SCANNER_PUBLIC_URL` is not set).";
  return (
    `Published scan ${inlineCode(scanId)} (of ${inlineCode(headSha.slice(0, 7))}) as public artifact ${inlineCode(publicId)}: ` +
    `its whole report is now public.${where}\n\n` +
    "diffward never asks for an access password: it could only be shown in this public comment. " +
    "Publish from the scanning service itself if the artifact needs one."
  );
}

/** What a published finding answers (never an access password: diffward does not ask for one). */
export function publishedAnswer(label: string, publicId: string, publicUrl: string | undefined): string {
  const where = publicUrl
    ? ` ${link("Open the published finding", `${publicUrl}/public/findings/${encodeURIComponent(publicId)}`)}.`
    : "";
  return (
    `Published ${inlineCode(label)} as public artifact ${inlineCode(publicId)}.${where}\n\n` +
    "diffward never asks for an access password: it could only be shown in this public comment. " +
    "Publish from the scanning service itself if the artifact needs one."
  );
}
