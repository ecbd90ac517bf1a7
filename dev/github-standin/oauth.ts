import { randomBytes } from "node:crypto";
import { z } from "zod";
import type { OAuthUser } from "./oauth-users.js";
import { HttpError, notFound, paginate, type RouteContext, type RouteReply } from "./http.js";
import { installationJson, intParam, repositoriesReply, userJson } from "./routes.js";
import type { Repository } from "./state.js";

const esc = (s: string) =>
  s.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]!);

/**
 * `GET /login/oauth/authorize`: with `login` naming a user (GitHub's own parameter, "suggests a specific
 * account to use for signing in"), redirects to `redirect_uri` with `code` and `state`, as GitHub does once
 * the user has authorized the App; without it, a page to pick the user (GitHub's sign-in page).
 */
function authorize(ctx: RouteContext): RouteReply {
  const oauth = ctx.state.oauth;
  const clientId = ctx.query["client_id"] ?? "";
  if (oauth.client?.clientId !== clientId) throw notFound();
  const redirectUri = ctx.query["redirect_uri"];
  const login = ctx.query["login"];
  const user = login === undefined ? undefined : oauth.user(login);
  if (user === undefined) {
    const links = oauth.logins().map((l) => {
      const q = new URLSearchParams({ ...ctx.query, login: l });
      return `<li><a href="/login/oauth/authorize?${esc(q.toString())}">Sign in as ${esc(l)}</a></li>`;
    });
    const html = `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>Sign in to GitHub (stand-in)</title></head><body><h1>Sign in to GitHub (stand-in)</h1><ul>${links.join("")}</ul></body></html>`;
    return { status: 200, raw: html, contentType: "text/html; charset=utf-8" };
  }
  if (redirectUri === undefined || !URL.canParse(redirectUri))
    throw new HttpError(422, "redirect_uri is required");
  const target = new URL(redirectUri);
  target.searchParams.set("code", oauth.issueCode(user.login, clientId, redirectUri));
  if (ctx.query["state"] !== undefined) target.searchParams.set("state", ctx.query["state"]);
  return { status: 302, headers: { location: target.toString() }, raw: "" };
}

const TokenRequest = z.looseObject({
  client_id: z.string(),
  client_secret: z.string(),
  code: z.string(),
  redirect_uri: z.string().optional(),
});

/**
 * `POST /login/oauth/access_token`: GitHub answers 200 with an `error` field for a bad client, code or
 * redirect URL (Docs: "Troubleshooting authorization request errors" and "…OAuth app access token request
 * errors"), and a user access token with its refresh token otherwise.
 */
function accessToken(ctx: RouteContext): RouteReply {
  const oauth = ctx.state.oauth;
  const body = TokenRequest.parse(ctx.body);
  const fail = (error: string, description: string): RouteReply => ({
    status: 200,
    body: { error, error_description: description, error_uri: "https://docs.github.com/apps" },
  });
  if (oauth.client?.clientId !== body.client_id || oauth.client.clientSecret !== body.client_secret)
    return fail("incorrect_client_credentials", "The client_id and/or client_secret passed are incorrect.");
  const grant = oauth.takeCode(body.code);
  if (grant === undefined || grant.clientId !== body.client_id)
    return fail("bad_verification_code", "The code passed is incorrect or expired.");
  if (
    body.redirect_uri !== undefined &&
    grant.redirectUri !== undefined &&
    body.redirect_uri !== grant.redirectUri
  )
    return fail(
      "redirect_uri_mismatch",
      "The redirect_uri MUST match the registered callback URL for this application.",
    );
  return {
    status: 200,
    body: {
      access_token: oauth.issueToken(grant.login),
      token_type: "bearer",
      scope: "",
      expires_in: 28_800,
      refresh_token: `ghr_${randomBytes(30).toString("hex")}`,
      refresh_token_expires_in: 15_811_200,
    },
  };
}

/** The signed-in user of a `/user` route. @throws HttpError 401 without a user access token */
function userOf(ctx: RouteContext): OAuthUser {
  const user = ctx.user === undefined ? undefined : ctx.state.oauth.user(ctx.user);
  if (user === undefined) throw new HttpError(401, "Requires authentication");
  return user;
}

/** The repositories of an installation the user can access (GitHub hides the rest). */
function userRepositories(
  ctx: RouteContext,
  user: OAuthUser,
  installationId: number,
): Repository[] | undefined {
  const access = user.installations[String(installationId)];
  if (access === undefined || ctx.state.installation(installationId) === undefined) return undefined;
  const all = ctx.state.repositoriesOf(installationId);
  return access === "all"
    ? all
    : all.filter((r) => access.some((n) => n.toLowerCase() === r.name.toLowerCase()));
}

/** The web flow's two endpoints and the `/user` routes of a user access token, by operation id. */
export const OAUTH_ROUTES: Readonly<Record<string, (ctx: RouteContext) => RouteReply>> = {
  "oauth/authorize": authorize,
  "oauth/create-access-token": accessToken,
  "users/get-authenticated": (ctx) => {
    const user = userOf(ctx);
    const id = ctx.state.userId(user.login);
    return {
      status: 200,
      body: { ...userJson(ctx, { login: user.login, type: "User", id }), name: user.name ?? null },
    };
  },
  "apps/list-installations-for-authenticated-user": (ctx) => {
    const user = userOf(ctx);
    const visible = ctx.state
      .listInstallations()
      .filter((i) => user.installations[String(i.id)] !== undefined);
    const page = paginate(ctx, visible);
    return {
      status: 200,
      headers: page.headers,
      body: { total_count: visible.length, installations: page.items.map((i) => installationJson(ctx, i)) },
    };
  },
  "apps/list-installation-repos-for-authenticated-user": (ctx) => {
    const repos = userRepositories(ctx, userOf(ctx), intParam(ctx, "installation_id"));
    if (repos === undefined) throw notFound();
    return repositoriesReply(ctx, repos);
  },
  "orgs/get-membership-for-authenticated-user": (ctx) => {
    const user = userOf(ctx);
    const org = ctx.params["org"] ?? "";
    const role = Object.entries(user.orgs).find(([o]) => o.toLowerCase() === org.toLowerCase())?.[1];
    if (role === undefined) throw notFound();
    const orgId = ctx.state.userId(org);
    return {
      status: 200,
      body: {
        url: `${ctx.apiBase}/orgs/${org}/memberships/${user.login}`,
        state: "active",
        role,
        organization_url: `${ctx.apiBase}/orgs/${org}`,
        organization: { login: org, id: orgId, node_id: `O_${orgId}`, url: `${ctx.apiBase}/orgs/${org}` },
        user: userJson(ctx, { login: user.login, type: "User", id: ctx.state.userId(user.login) }),
      },
    };
  },
};
