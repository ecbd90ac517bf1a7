import type { ProbotOctokit } from "probot";

/**
 * diffward's own bot login, `<app slug>[bot]`: the author GitHub gives every comment and review an App
 * installation writes (GitHub Docs "About authentication with a GitHub App": an app acting as an
 * installation acts as its bot user). Read from `GET /app` (GitHub REST "Get the authenticated app"; needs
 * the app's JWT, so `appOctokit` must be Probot's `auth()` without an installation id).
 * @throws Octokit's `RequestError` when GitHub refuses the call, and an `Error` when the answer has no slug.
 */
export async function readBotLogin(appOctokit: ProbotOctokit): Promise<string> {
  const { data } = await appOctokit.rest.apps.getAuthenticated();
  const slug = data?.slug;
  if (!slug) throw new Error("GET /app answered without a slug: diffward cannot tell its own comments");
  return `${slug}[bot]`;
}

/**
 * Caches {@link readBotLogin} for the process: one `GET /app` while it succeeds; a failure is not cached, so
 * the next caller asks again.
 */
export function botLoginOnce(appOctokit: () => Promise<ProbotOctokit>): () => Promise<string> {
  let pending: Promise<string> | undefined;
  return () =>
    (pending ??= appOctokit()
      .then(readBotLogin)
      .catch((error: unknown) => {
        pending = undefined;
        throw error;
      }));
}

/**
 * Whether a comment was written by diffward itself (its author is `botLogin`; GitHub logins compare without
 * case). Only such comments' hidden finding markers are trusted: anyone can paste a marker
 * into a comment, and any other bot can post one.
 */
export function isOwnComment(c: { userLogin?: string | undefined }, botLogin: string): boolean {
  return c.userLogin !== undefined && c.userLogin.toLowerCase() === botLogin.toLowerCase();
}
