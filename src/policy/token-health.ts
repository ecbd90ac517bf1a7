import type { Token } from "../scanner/schemas.js";

/** Scopes diffward's features need (the table of spec §Authentication). */
export const REQUIRED_SCOPES = ["read", "scans:launch", "findings:write", "publish"] as const;

/** Days before `expiresAt` from which diffward warns. */
export const EXPIRY_WARNING_DAYS = 14;

/**
 * What is wrong with the scanner token for a repository, as user-facing sentences (empty when nothing):
 * missing scopes that features need, an expiry within 14 days, a repository allowlist that excludes the
 * configured `repositoryId` (spec §Token: empty `repositoryIds` means every repository). Pure.
 */
export function tokenProblems(token: Token, opts: { repositoryId?: string; now?: number }): string[] {
  const now = opts.now ?? Date.now();
  const problems: string[] = [];
  const missing = REQUIRED_SCOPES.filter((s) => !token.scopes.includes(s));
  if (missing.length > 0) {
    problems.push(
      `The scanner token \`${token.name}\` lacks the scope${missing.length === 1 ? "" : "s"} ${missing.map((s) => `\`${s}\``).join(", ")}: ` +
        "ask the organization admin for a token with them (`scans:launch` to scan, `findings:write` for triage commands, `publish` for /publish).",
    );
  }
  if (token.expiresAt) {
    const days = (Date.parse(token.expiresAt) - now) / 86_400_000;
    if (days < EXPIRY_WARNING_DAYS) {
      problems.push(
        days <= 0
          ? `The scanner token \`${token.name}\` expired on ${token.expiresAt.slice(0, 10)}: replace it in the app's settings.`
          : `The scanner token \`${token.name}\` expires on ${token.expiresAt.slice(0, 10)} (in ${Math.ceil(days)} day${Math.ceil(days) === 1 ? "" : "s"}): replace it before then.`,
      );
    }
  }
  if (
    opts.repositoryId &&
    token.repositoryIds.length > 0 &&
    !token.repositoryIds.includes(opts.repositoryId)
  ) {
    problems.push(
      `The scanner token \`${token.name}\` is restricted to other repositories and cannot scan \`${opts.repositoryId}\`: add it to the token's allowlist, or fix \`repositoryId\` in .github/diffward.yml.`,
    );
  }
  return problems;
}
