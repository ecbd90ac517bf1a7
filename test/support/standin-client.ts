/**
 * Octokit clients of the GitHub stand-in for its own tests: an installation's client (a token issued for the
 * App's JWT, as Probot gets one) and the refusal a call must end with.
 */
import { Octokit } from "@octokit/rest";
import { expect } from "vitest";
import type { GitHubStandIn } from "../../dev/github-standin/index.js";

/** A JWT the stand-in accepts (it checks the form, not the signature). */
export const FAKE_JWT = "eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOjF9.c2lnbmF0dXJl";
export const quiet = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

/** An Octokit authenticated as installation `installationId` of the stand-in. */
export async function installationOctokit(
  standIn: GitHubStandIn,
  installationId: number,
  baseUrl = standIn.url,
): Promise<Octokit> {
  const app = new Octokit({ baseUrl, auth: FAKE_JWT, log: quiet });
  const { data } = await app.apps.createInstallationAccessToken({ installation_id: installationId });
  return new Octokit({ baseUrl, auth: data.token, log: quiet });
}

/** The parts of Octokit's `RequestError` the tests read. */
export interface Refusal {
  status: number;
  message: string;
  response?: { headers: Record<string, string | number | undefined> };
}

/** Awaits a call that must fail with an HTTP error, and returns the error. */
export async function refused(p: Promise<unknown>): Promise<Refusal> {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(Error);
  expect(typeof (error as Refusal).status).toBe("number");
  return error as Refusal;
}
