import { randomBytes } from "node:crypto";
import type { Logger } from "pino";
import {
  createOrgPageDeps,
  loadInstallationPage,
  renderInstallationList,
  renderInstallationPage,
  type OrgPageDeps,
} from "../org-page/index.js";
import { orgPageRoutes, type PageRoutes } from "./routes.js";
import { SessionStore } from "./session.js";
import type { OAuthClient } from "./sign-in.js";

/**
 * How the organization's page signs users in (`GITHUB_CLIENT_ID`, `GITHUB_CLIENT_SECRET`,
 * `DIFFWARD_SESSION_SECRET`, `DIFFWARD_PUBLIC_URL`).
 */
export interface SignInConfig extends OAuthClient {
  /**
   * the key of the sessions' signatures (at least 32 characters); unset outside production: one made for
   * this process (sessions end when it restarts)
   */
  sessionSecret: string | undefined;
  /** GitHub's web address for links: `https://github.com`, or `<GHE_PROTOCOL>://<GHE_HOST>` */
  githubUrl: string;
  /** served over HTTPS (production): cookies are `Secure` */
  secure: boolean;
  /**
   * the page's public origin (`DIFFWARD_PUBLIC_URL`): sign-in's callback URL is `<publicUrl>/login/callback`,
   * the one registered in the App's settings
   */
  publicUrl: string;
  /** `DIFFWARD_ADMIN_TOKEN`: its bearer also sees the whole deployment's queue depths on a page */
  adminToken?: string;
}

/**
 * The organization's page of the web process: sign-in ({@link orgPageRoutes}), sessions in the runtime's Redis
 * under its state prefix, and each page loaded by `loadInstallationPage` (`src/org-page/`) and drawn by
 * `renderInstallationPage` (`src/org-page/render-page.ts`). The installation's account comes from the session
 * (GitHub's answer at sign-in), so the page needs no call as the App to name it.
 */
export function orgPageFor(rt: OrgPageDeps["rt"], config: SignInConfig, log: Logger = rt.log): PageRoutes {
  let secret = config.sessionSecret;
  if (secret === undefined) {
    secret = randomBytes(32).toString("hex");
    log.warn("DIFFWARD_SESSION_SECRET is unset: sessions are signed with a key made for this process");
  }
  const accounts = new Map<number, string>();
  const deps = createOrgPageDeps(rt, {
    accountOf: async (id) => accounts.get(id),
    githubUrl: config.githubUrl,
  });
  return orgPageRoutes({
    sessions: new SessionStore(rt.redis, rt.stores.prefix, secret, { secure: config.secure }),
    client: { clientId: config.clientId, clientSecret: config.clientSecret, apiBaseUrl: config.apiBaseUrl },
    publicUrl: config.publicUrl,
    ...(config.adminToken !== undefined ? { adminToken: config.adminToken } : {}),
    log,
    loadPage: (id, access, installation) => {
      accounts.set(id, installation.account);
      return loadInstallationPage(deps, id, access);
    },
    renderPage: renderInstallationPage,
    renderList: renderInstallationList,
  });
}
