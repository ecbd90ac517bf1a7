import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "pino";
import { pageAccess, resolveAccess, type PageAccess } from "./access.js";
import { hasBearer } from "./bearer.js";
import { readBody } from "./body.js";
import { problemPage, signedOutPage, signOutPage } from "./pages.js";
import type { Session, SessionData, SessionStore } from "./session.js";
import { authorizeUrl, exchangeCode, gitHubOctokit, SignInError, type OAuthClient } from "./sign-in.js";

/** The sections of an installation's page: the path segment of each, and its property in the page. */
export const SECTION_PATHS = {
  credits: "credits",
  spend: "spend",
  "in-flight": "inFlight",
  reports: "reports",
  approvals: "approvals",
  expiring: "expiring",
  problems: "problems",
} as const;
/** A section's property in the page (`page[section]` is its JSON). */
export type SectionKey = (typeof SECTION_PATHS)[keyof typeof SECTION_PATHS];

/** One line of the list of a user's installations. */
export interface InstallationListItem {
  id: number;
  account: string;
  kind: "Organization" | "User";
}

/** The signed-in viewer of a page, and its sign-out form (posted to `logoutPath` with `csrf`). */
export interface PageViewer {
  user: string;
  logoutPath: string;
  csrf?: string;
}

/** Routes tried before the webhook middleware: `true` when the request was theirs (and answered). */
export type PageRoutes = (req: IncomingMessage, res: ServerResponse) => Promise<boolean>;

/** Options of {@link orgPageRoutes}: sign-in, and how the page is loaded and drawn. */
export interface OrgPageRoutesOptions<P extends Record<SectionKey, unknown>> {
  sessions: SessionStore;
  client: OAuthClient;
  /**
   * the page's public origin (`DIFFWARD_PUBLIC_URL`, e.g. `https://diffward.example.com`): the callback URL
   * sent to GitHub is `<publicUrl>/login/callback`, never built from a request's `Host` header
   */
  publicUrl: string;
  /**
   * the admin bearer (`DIFFWARD_ADMIN_TOKEN`): a page request that also carries `Authorization: Bearer
   * <token>` gets the whole deployment's figures (`PageAccess.deployment`); unset, nobody does
   */
  adminToken?: string;
  log: Logger;
  /** the page of an installation as `access` may see it (`installation`: the session's entry, its account) */
  loadPage(installationId: number, access: PageAccess, installation: InstallationListItem): Promise<P>;
  renderPage(page: P, viewer: PageViewer): string;
  renderList(items: InstallationListItem[], user: string, viewer: Omit<PageViewer, "user">): string;
  /** what a user may see, read with their token (default {@link resolveAccess} on `client`'s GitHub) */
  resolve?: (token: string) => Promise<SessionData>;
}

type Route =
  | { kind: "home" | "list" | "login" | "callback" | "logout" }
  | { kind: "page"; id: number }
  | { kind: "section"; id: number; section: SectionKey | undefined };

/**
 * The page route of a path, or `undefined` when the path is not the page's: `/`, `/installations/`, `/login`,
 * `/login/callback`, `/logout`, `/installations/<id>` and `/installations/<id>/<section>`.
 */
export function matchPageRoute(path: string): Route | undefined {
  if (path === "/") return { kind: "home" };
  if (path === "/installations" || path === "/installations/") return { kind: "list" };
  if (path === "/login") return { kind: "login" };
  if (path === "/login/callback") return { kind: "callback" };
  if (path === "/logout") return { kind: "logout" };
  const m = /^\/installations\/([^/]+)(?:\/([^/]+))?\/?$/.exec(path);
  if (!m) return undefined;
  // Not a whole number: an id no user has (404), never an error.
  const id = /^\d{1,15}$/.test(m[1]!) ? Number(m[1]) : -1;
  if (m[2] === undefined) return { kind: "page", id };
  const section = Object.hasOwn(SECTION_PATHS, m[2])
    ? SECTION_PATHS[m[2] as keyof typeof SECTION_PATHS]
    : undefined;
  return { kind: "section", id, section };
}

/** What one request's handler needs. */
interface Call {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  session: Session | undefined;
}

/**
 * Headers of every page: never cached (it is one user's), never framed (the sign-out button cannot be
 * clickjacked), and nothing loaded or run but the page's own inline style (the page has no script and no
 * external resource), forms posting only here.
 */
const HTML = {
  "content-type": "text/html; charset=utf-8",
  "cache-control": "no-store",
  "content-security-policy":
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "same-origin",
};
const JSON_TYPE = { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" };

function html(
  res: ServerResponse,
  status: number,
  body: string,
  headers: Record<string, string | string[]> = {},
) {
  res.writeHead(status, { ...HTML, ...headers }).end(body);
}

function json(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, JSON_TYPE).end(JSON.stringify(body));
}

/** Whether the client asked for JSON rather than a page (`Accept: application/json` without `text/html`). */
export function wantsJson(req: IncomingMessage): boolean {
  const accept = String(req.headers.accept ?? "");
  return /\bapplication\/json\b/i.test(accept) && !/\btext\/html\b/i.test(accept);
}

const NOT_FOUND = "Not found";

/**
 * The organization's page on the web process, behind sign-in with GitHub:
 * - `GET /login` sends the browser to GitHub's `/login/oauth/authorize` (`client_id`, `redirect_uri`
 *   `<publicUrl>/login/callback`, a signed single-use `state` bound to the browser by a cookie); `GET /login/callback` checks `state`, exchanges the
 *   code, reads what the user may see with their token (then dropped) and starts a session (signed cookie,
 *   `HttpOnly`, `SameSite=Lax`, `Secure` over HTTPS, 15 minutes);
 * - `GET /logout` shows a sign-out form; `POST /logout` with the session's CSRF token ends the session (a GET
 *   never does: any page could embed it);
 * - `GET /installations/` lists the user's installations (`/` redirects there); `GET /installations/<id>` is an installation's page (HTML, or JSON
 *   with `Accept: application/json`), `GET /installations/<id>/<section>` one section's JSON.
 * Without a session a page request is sent to sign in (JSON: 401). An installation the user cannot access,
 * or a malformed id, is 404 like one that does not exist (GitHub's own answer for what one may not see).
 * A signed-in request that also carries the admin bearer (`opts.adminToken`) sees the deployment-wide figures.
 * Every failure is answered and logged, never thrown to the server.
 */
export function orgPageRoutes<P extends Record<SectionKey, unknown>>(
  opts: OrgPageRoutesOptions<P>,
): PageRoutes {
  const flow = signInFlow(opts);
  const handlers: Record<Route["kind"], (call: Call, route: Route) => Promise<void>> = {
    login: async (call) => flow.redirectToGitHub(call, "/installations/"),
    // the list's links are relative to `/installations/`
    home: async ({ res }) => void res.writeHead(302, { location: "/installations/" }).end(),
    callback: (call) => flow.callback(call),
    logout: (call) => flow.logout(call),
    list: async (call) => {
      const session = flow.required(call);
      if (!session) return;
      const items = session.installations.map(({ id, account, kind }) => ({ id, account, kind }));
      if (wantsJson(call.req)) return json(call.res, 200, { user: session.login, installations: items });
      const viewer = { logoutPath: "/logout", csrf: opts.sessions.csrfToken(session) };
      html(call.res, 200, opts.renderList(items, session.login, viewer));
    },
    page: (call, route) => installationPage(opts, flow, call, route),
    section: (call, route) => installationPage(opts, flow, call, route),
  };
  return async (req, res) => {
    const url = URL.canParse(req.url ?? "", "http://page")
      ? new URL(req.url ?? "", "http://page")
      : undefined;
    const route = url && matchPageRoute(url.pathname);
    if (!route) return false;
    const allowed = route.kind === "logout" ? ["GET", "POST"] : ["GET"];
    if (!allowed.includes(req.method ?? "")) {
      req.resume();
      res.writeHead(405, { allow: allowed.join(", "), ...JSON_TYPE }).end('{"error":"method not allowed"}');
      return true;
    }
    try {
      const session = await opts.sessions.read(req.headers.cookie);
      await handlers[route.kind]({ req, res, url, session }, route);
    } catch (error) {
      opts.log.error({ err: error, path: url.pathname }, "organization page request failed");
      if (!res.headersSent)
        html(
          res,
          500,
          problemPage("Something went wrong", "The page could not be shown. Try again in a moment."),
        );
      else res.destroy();
    }
    return true;
  };
}

/** An installation's whole page or one section, for a user allowed to see it (404 otherwise). */
async function installationPage<P extends Record<SectionKey, unknown>>(
  opts: OrgPageRoutesOptions<P>,
  flow: SignInFlow,
  call: Call,
  route: Route,
): Promise<void> {
  const session = flow.required(call);
  if (!session || (route.kind !== "page" && route.kind !== "section")) return;
  const access = pageAccess(session, route.id);
  const asJson = route.kind === "section" || wantsJson(call.req);
  if (!access || (route.kind === "section" && route.section === undefined)) {
    if (asJson) return json(call.res, 404, { error: NOT_FOUND });
    return html(
      call.res,
      404,
      problemPage(NOT_FOUND, "There is no such page, or your GitHub account cannot see it."),
    );
  }
  const { id, account, kind } = session.installations.find((i) => i.id === route.id)!;
  const deployment = opts.adminToken !== undefined && hasBearer(call.req, opts.adminToken);
  const page = await opts.loadPage(route.id, { ...access, deployment }, { id, account, kind });
  if (route.kind === "section") return json(call.res, 200, page[route.section!]);
  if (asJson) return json(call.res, 200, page);
  const csrf = opts.sessions.csrfToken(session);
  html(call.res, 200, opts.renderPage(page, { user: session.login, logoutPath: "/logout", csrf }));
}

type SignInFlow = ReturnType<typeof signInFlow>;
type SignInOptions = Pick<
  OrgPageRoutesOptions<Record<SectionKey, unknown>>,
  "sessions" | "client" | "publicUrl" | "log" | "resolve"
>;

/** Sign-in, its callback, the session check of every page and sign-out. */
function signInFlow(opts: SignInOptions) {
  const { sessions, client } = opts;
  const resolve = opts.resolve ?? ((token: string) => resolveAccess(gitHubOctokit(client, token)));
  // GitHub sends the user (and the code) back to this URL: a request's Host header is the client's to forge
  const callbackUrl = `${opts.publicUrl.replace(/\/+$/, "")}/login/callback`;
  const redirectToGitHub = ({ res }: Call, returnTo: string): void => {
    const { state, cookie } = sessions.startSignIn(returnTo);
    res
      .writeHead(302, {
        location: authorizeUrl(client, callbackUrl, state),
        "set-cookie": cookie,
        "cache-control": "no-store",
      })
      .end();
  };
  return {
    redirectToGitHub,
    /** the call's session; without one, a page is sent to sign in (coming back to it) and JSON gets 401 */
    required(call: Call): Session | undefined {
      if (call.session) return call.session;
      if (wantsJson(call.req)) json(call.res, 401, { error: "sign in first: open /login in a browser" });
      else redirectToGitHub(call, `${call.url.pathname}${call.url.search}`);
      return undefined;
    },
    callback: (call: Call) => finishSignIn(opts, resolve, callbackUrl, call),
    logout: (call: Call) => signOut(sessions, call),
  };
}

/** `GET /login/callback`: state checked first, then GitHub's answer; a session on success. */
async function finishSignIn(
  opts: SignInOptions,
  resolve: (token: string) => Promise<SessionData>,
  redirectUrl: string,
  { req, res, url }: Call,
): Promise<void> {
  const q = url.searchParams;
  const state = await opts.sessions.finishSignIn(q.get("state") ?? undefined, req.headers.cookie);
  const clear = { "set-cookie": opts.sessions.clearSignIn() };
  if (!state)
    return html(
      res,
      400,
      problemPage(
        "Sign-in failed",
        "This sign-in did not start in this browser, took longer than 10 minutes, or was already used. Sign in again.",
      ),
      clear,
    );
  const code = q.get("code");
  if (q.get("error") || !code) {
    const why = q.get("error_description") ?? q.get("error") ?? "no code came back";
    return html(res, 403, problemPage("Not signed in", `GitHub did not sign you in: ${why}.`), clear);
  }
  let data: SessionData;
  try {
    data = await resolve(await exchangeCode(opts.client, code, redirectUrl));
  } catch (error) {
    const err =
      error instanceof SignInError
        ? error
        : new SignInError(
            (error as { status?: number }).status ?? 0,
            "GitHub refused a read of what the user may see",
          );
    opts.log.warn({ err }, "sign-in failed");
    return html(
      res,
      502,
      problemPage("Sign-in failed", "GitHub did not complete the sign-in. Sign in again."),
      clear,
    );
  }
  const created = await opts.sessions.create(data);
  opts.log.info({ login: data.login, installations: data.installations.length }, "signed in");
  res
    .writeHead(302, {
      location: state.returnTo,
      "set-cookie": [created.cookie, clear["set-cookie"]],
      "cache-control": "no-store",
    })
    .end();
}

/**
 * `/logout`: GET shows the sign-out form (or "signed out" without a session); POST with the session's CSRF
 * token (form field `csrf`) ends the session and clears its cookie, then shows "signed out" (303 to GET).
 */
async function signOut(sessions: SessionStore, { req, res, session }: Call): Promise<void> {
  if (req.method === "GET") {
    if (session) return html(res, 200, signOutPage(session.login, sessions.csrfToken(session)));
    return html(res, 200, signedOutPage());
  }
  const body = await readBody(req, 4096);
  const csrf = new URLSearchParams(body?.toString("utf8") ?? "").get("csrf") ?? undefined;
  if (session && !sessions.checkCsrf(session, csrf))
    return html(
      res,
      403,
      problemPage(
        "Not signed out",
        "The sign-out form was stale or came from another site. Open /logout and sign out again.",
      ),
    );
  const cleared = await sessions.end(req.headers.cookie);
  res.writeHead(303, { location: "/logout", "set-cookie": cleared, "cache-control": "no-store" }).end();
}
