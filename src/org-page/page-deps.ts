/**
 * What the organization's page reads through (`./page-data.ts`), built once per process: the runtime, the
 * installation's account, GitHub's web address, and the caches of the two outside answers.
 */
import type { CreditsSection, ExpiringAcceptance } from "./page-model.js";
import type { Runtime } from "../runtime/runtime.js";
import { TtlCache } from "../runtime/ttl-cache.js";

/** How long the balance and GitHub's answer are reused per installation, in ms (60 s). */
export const ORG_PAGE_CACHE_MS = 60_000;
/**
 * The longest the page waits for the service's balance or GitHub's answer, in ms (200): past it the page
 * says the answer is on its way, and the answer, cached when it lands, shows on the next load.
 */
export const OUTSIDE_BUDGET_MS = 200;
/** Months of spend shown per repository, the current one included. */
export const SPEND_MONTHS = 6;
/** Reports shown. */
export const REPORTS_SHOWN = 50;

/** What GitHub answered the installation (`GET /installation/repositories`), cached. */
export interface GitHubHealth {
  state: "ok" | "unreachable" | "checking";
  detail?: string;
}

/** What {@link loadInstallationPage} reads through, built once per process ({@link createOrgPageDeps}). */
export interface OrgPageDeps {
  rt: Pick<Runtime, "redis" | "stores" | "queues" | "scanner" | "octokit" | "now" | "log" | "serviceHealth">;
  /** the installation's account login (organization or user), as GitHub names it */
  accountOf(installationId: number): Promise<string | undefined>;
  /** GitHub's web address for links (`https://github.com`, or `<GHE_PROTOCOL>://<GHE_HOST>`) */
  githubUrl: string;
  /** the service's billing balance per installation, kept {@link ORG_PAGE_CACHE_MS} */
  balances: TtlCache<CreditsSection>;
  /** how long a load waits for an outside answer, in ms ({@link OUTSIDE_BUDGET_MS}) */
  outsideBudgetMs: number;
  /** GitHub's answer per installation, kept {@link ORG_PAGE_CACHE_MS} */
  githubHealth: TtlCache<GitHubHealth>;
  /**
   * the acceptances of the installation expiring within `withinMs`, when diffward records them; absent: the
   * section says it is not available
   */
  expiries?: (installationId: number, withinMs: number) => Promise<ExpiringAcceptance[]>;
}

/** Builds {@link OrgPageDeps} with fresh caches. */
export function createOrgPageDeps(
  rt: OrgPageDeps["rt"],
  opts: Pick<OrgPageDeps, "accountOf" | "githubUrl" | "expiries"> &
    Partial<Pick<OrgPageDeps, "outsideBudgetMs">>,
): OrgPageDeps {
  return {
    rt,
    outsideBudgetMs: OUTSIDE_BUDGET_MS,
    ...opts,
    balances: new TtlCache(ORG_PAGE_CACHE_MS, rt.now),
    githubHealth: new TtlCache(ORG_PAGE_CACHE_MS, rt.now),
  };
}

/**
 * GitHub's web address for the page's links: `https://github.com`, or `<GHE_PROTOCOL>://<GHE_HOST>` on GitHub
 * Enterprise Server (whose web pages are served at the host's root; its API under `/api/v3`).
 */
export function githubWebUrl(env: {
  GHE_HOST?: string | undefined;
  GHE_PROTOCOL?: string | undefined;
}): string {
  return env.GHE_HOST ? `${env.GHE_PROTOCOL ?? "https"}://${env.GHE_HOST}` : "https://github.com";
}
