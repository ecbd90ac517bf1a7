import { randomBytes } from "node:crypto";
import { createServer, get as httpGet, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { parseSetCookie } from "cookie";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGitHubStandIn, type GitHubStandIn } from "../../dev/github-standin/index.js";
import {
  STANDIN_CLIENT,
  STANDIN_SESSION_SECRET,
  cookieHeader,
  hop,
  seedSignIn,
  signInOverHttp,
} from "../../dev/harness/sign-in.js";
import { createLogger } from "../../src/runtime/logger.js";
import type { PageAccess } from "../../src/web/access.js";
import { orgPageRoutes, type PageRoutes, type SectionKey } from "../../src/web/routes.js";
import { SESSION_COOKIE, SESSION_TTL_SECONDS, STATE_COOKIE, SessionStore } from "../../src/web/session.js";

/**
 * The page's routes over HTTP against the GitHub stand-in's web flow and `/user` routes: sign-in, the cookie
 * flags, the `state` checks, sign-out, and who sees what. The page's data is what the loader was asked for
 * (the installation and the viewer's access), so each answer shows the authorization it was given.
 */

const redis = new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
const prefix = `{dwt-${randomBytes(4).toString("hex")}}`;
const logLines: string[] = [];
const log = createLogger(
  { level: "debug" },
  new Writable({ write: (chunk, _e, done) => (logLines.push(String(chunk)), done()) }),
);
let github: GitHubStandIn;
let server: Server;
let web = "";

type EchoPage = Record<SectionKey, unknown> & { installationId: number; repositories: string[] | "all" };
const BROKEN = 44;
const loadPage = async (installationId: number, access: PageAccess): Promise<EchoPage> => {
  if (installationId === BROKEN) throw new Error("Redis went away");
  return echoPage(installationId, access);
};
const echoPage = (installationId: number, access: PageAccess): EchoPage => ({
  installationId,
  repositories: access.repositories === "all" ? "all" : [...access.repositories].sort(),
  credits: access.orgWide ? { balance: 1200 } : null,
  spend: { orgWide: access.orgWide },
  inFlight: [],
  reports: [],
  approvals: [],
  expiring: [],
  problems: [],
});

beforeAll(async () => {
  github = await startGitHubStandIn();
  const s = github.state;
  s.addInstallation({ id: 11, account: { login: "octo-org", type: "Organization" } });
  s.addInstallation({ id: 22, account: { login: "other-org", type: "Organization" } });
  s.addInstallation({ id: 33, account: { login: "solo", type: "User" } });
  s.addInstallation({ id: BROKEN, account: { login: "solo-too", type: "User" } });
  for (const [owner, name, id] of [
    ["octo-org", "api", 11],
    ["octo-org", "web", 11],
    ["other-org", "vault", 22],
    ["solo", "dots", 33],
  ] as const)
    s.addRepository({ owner, name, installationId: id, private: true });
  seedSignIn(github, [
    { login: "octo-owner", installations: { "11": "all" }, orgs: { "octo-org": "admin" } },
    { login: "octo-dev", installations: { "11": ["api"] }, orgs: { "octo-org": "member" } },
    { login: "vault-owner", installations: { "22": "all" }, orgs: { "other-org": "admin" } },
    { login: "solo", installations: { "33": "all", [BROKEN]: "all" } },
  ]);
  // the page's public URL is its server's own address, known once it listens
  let routes: PageRoutes = async () => false;
  server = createServer((req, res) => {
    void routes(req, res).then((mine) => mine || res.writeHead(404).end("not the page's"));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  web = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  routes = orgPageRoutes({
    sessions: new SessionStore(redis, prefix, STANDIN_SESSION_SECRET, { secure: false }),
    client: { ...STANDIN_CLIENT, apiBaseUrl: github.url },
    publicUrl: web,
    log,
    loadPage,
    renderPage: (page, o) =>
      `<!doctype html><p>${o.user}</p><pre>${JSON.stringify(page)}</pre><input name="csrf" value="${o.csrf}">`,
    renderList: (items, user) =>
      `<!doctype html><p>${user}</p>${items.map((i) => `<a href="/installations/${i.id}">${i.account}</a>`).join("")}`,
  });
});

afterAll(async () => {
  await new Promise((r) => server.close(r));
  await github.close();
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

const getJson = async (path: string, cookie: string) => {
  const res = await fetch(`${web}${path}`, {
    headers: { cookie, accept: "application/json" },
    redirect: "manual",
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

/**
 * `GET url` sending `Host: host` (fetch always sends the URL's own host), without following redirects.
 */
function getWithHost(url: string, host: string, cookie = "") {
  return new Promise<{ status: number; location: string | undefined; setCookies: string[] }>(
    (resolve, reject) => {
      const req = httpGet(url, { headers: { host, ...(cookie ? { cookie } : {}) } }, (res) => {
        res.resume();
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            location: res.headers.location,
            setCookies: res.headers["set-cookie"] ?? [],
          }),
        );
      });
      req.on("error", reject);
    },
  );
}

describe("sign-in", () => {
  it("sends GitHub the configured public URL as redirect_uri whatever Host the request forges, and signs in", async () => {
    for (const host of ["evil.example", "evil.example:8443", "[::1]:9"]) {
      const first = await getWithHost(`${web}/installations/11`, host);
      expect(first.status, host).toBe(302);
      const authorize = new URL(first.location!);
      expect(authorize.searchParams.get("redirect_uri"), host).toBe(`${web}/login/callback`);
    }
    // the whole sign-in under a forged Host: GitHub comes back to the configured URL, whose code exchanges
    const first = await getWithHost(`${web}/installations/11`, "evil.example");
    const authorize = new URL(first.location!);
    authorize.searchParams.set("login", "octo-owner");
    const fromGitHub = await hop(authorize.toString());
    expect(fromGitHub.location!.startsWith(`${web}/login/callback?`)).toBe(true);
    const callback = await getWithHost(fromGitHub.location!, "evil.example", cookieHeader(first.setCookies));
    expect(callback.status).toBe(302);
    expect(callback.location).toBe("/installations/11");
    expect((await getJson("/installations/11", cookieHeader(callback.setCookies))).status).toBe(200);
  });

  it("sends a visitor without a session to GitHub's authorize page with client_id, redirect_uri and a state", async () => {
    const first = await hop(`${web}/installations/11`);
    expect(first.status).toBe(302);
    const to = new URL(first.location!);
    expect(`${to.origin}${to.pathname}`).toBe(`${github.url}/login/oauth/authorize`);
    expect(to.searchParams.get("client_id")).toBe(STANDIN_CLIENT.clientId);
    expect(to.searchParams.get("redirect_uri")).toBe(`${web}/login/callback`);
    const state = to.searchParams.get("state")!;
    const cookie = parseSetCookie(first.setCookies[0]!);
    expect(cookie).toMatchObject({
      name: STATE_COOKIE,
      value: state,
      httpOnly: true,
      sameSite: "lax",
      path: "/",
    });
    expect((await getJson("/installations/11", "")).status).toBe(401);
  });

  it("comes back to the page first asked for with a signed, HttpOnly, SameSite=Lax session cookie that expires", async () => {
    const { hops } = await signInOverHttp(web, "octo-owner", "/installations/11/spend?x=1");
    const callback = hops[2]!;
    expect(callback.location).toBe(`${web}/installations/11/spend?x=1`);
    const session = callback.setCookies.map((c) => parseSetCookie(c)).find((c) => c.name === SESSION_COOKIE)!;
    expect(session).toMatchObject({
      httpOnly: true,
      sameSite: "lax",
      path: "/",
      maxAge: SESSION_TTL_SECONDS,
    });
    expect(session.secure).toBeFalsy(); // plain HTTP here; production sets Secure (SessionStore's test)
    expect(session.value).toMatch(/^[\w-]{43}\.[\w-]{43}$/);
    // the state cookie is cleared
    expect(
      callback.setCookies.map((c) => parseSetCookie(c)).find((c) => c.name === STATE_COOKIE)?.maxAge,
    ).toBe(0);
  });

  it("refuses a callback whose state another browser started, a replayed one and a missing one", async () => {
    const mine = await hop(`${web}/installations/`);
    const theirs = await hop(`${web}/installations/`);
    const code = async (h: typeof mine) => {
      const at = new URL(h.location!);
      at.searchParams.set("login", "octo-owner");
      return (await hop(at.toString())).location!;
    };
    // their callback URL (their state) with my state cookie: login CSRF
    const crossed = await hop(await code(theirs), cookieHeader(mine.setCookies));
    expect(crossed.status).toBe(400);
    expect(
      crossed.setCookies.some(
        (c) => c.startsWith(`${SESSION_COOKIE}=`) && !c.startsWith(`${SESSION_COOKIE}=;`),
      ),
    ).toBe(false);
    const callbackUrl = await code(mine);
    expect((await hop(callbackUrl, cookieHeader(mine.setCookies))).status).toBe(302);
    expect((await hop(callbackUrl, cookieHeader(mine.setCookies))).status).toBe(400);
    const noState = new URL(callbackUrl);
    noState.searchParams.delete("state");
    expect((await hop(noState.toString(), cookieHeader(mine.setCookies))).status).toBe(400);
  });

  it("says GitHub did not sign the user in when the authorization was denied", async () => {
    const first = await hop(`${web}/installations/`);
    const state = new URL(first.location!).searchParams.get("state")!;
    const denied = await hop(
      `${web}/login/callback?error=access_denied&error_description=denied&state=${state}`,
      cookieHeader(first.setCookies),
    );
    expect(denied.status).toBe(403);
  });

  it("treats a tampered session cookie as no session", async () => {
    const { cookie } = await signInOverHttp(web, "octo-owner");
    const [name, value] = cookie.split("=") as [string, string];
    const tampered = `${name}=${value.slice(0, 10)}${value[10] === "a" ? "b" : "a"}${value.slice(11)}`;
    expect((await hop(`${web}/installations/11`, tampered)).status).toBe(302);
    expect((await getJson("/installations/11", tampered)).status).toBe(401);
    expect((await getJson("/installations/11", cookie)).status).toBe(200);
  });

  it("never keeps nor logs the user's GitHub token", async () => {
    await signInOverHttp(web, "octo-dev");
    const tokens = github.state.oauth.issuedTokens();
    expect(tokens.length).toBeGreaterThan(0);
    const keys = await redis.keys(`${prefix}:*`);
    const values = await Promise.all(keys.map((k) => redis.get(k)));
    for (const token of tokens) {
      for (const v of values) expect(v ?? "").not.toContain(token);
      for (const line of logLines) expect(line).not.toContain(token);
      for (const line of logLines) expect(line).not.toContain(STANDIN_CLIENT.clientSecret);
    }
    expect(logLines.some((l) => l.includes('"msg":"signed in"'))).toBe(true);
  });
});

describe("authorization, as GitHub's own", () => {
  it("shows an organization owner the whole installation with organization-wide figures", async () => {
    const { cookie } = await signInOverHttp(web, "octo-owner");
    const page = await getJson("/installations/11", cookie);
    expect(page).toMatchObject({
      status: 200,
      body: { installationId: 11, repositories: "all", credits: { balance: 1200 } },
    });
    expect(await getJson("/installations/11/credits", cookie)).toEqual({
      status: 200,
      body: { balance: 1200 },
    });
    expect((await hop(`${web}/`, cookie)).location).toBe(`${web}/installations/`);
    const html = await fetch(`${web}/installations/11`, { headers: { cookie } });
    expect(html.headers.get("x-frame-options")).toBe("DENY");
    expect(html.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(html.headers.get("cache-control")).toBe("no-store");
    expect(await html.text()).toContain(`<input name="csrf" value="`);
    expect(await getJson("/installations/", cookie)).toEqual({
      status: 200,
      body: { user: "octo-owner", installations: [{ id: 11, account: "octo-org", kind: "Organization" }] },
    });
  });

  it("shows a member only their repositories and no organization-wide figures", async () => {
    const { cookie } = await signInOverHttp(web, "octo-dev");
    const page = await getJson("/installations/11", cookie);
    expect(page.body).toMatchObject({
      repositories: ["octo-org/api"],
      credits: null,
      spend: { orgWide: false },
    });
  });

  it("gives the account of a user installation its organization-wide figures", async () => {
    const { cookie } = await signInOverHttp(web, "solo");
    expect((await getJson("/installations/33", cookie)).body).toMatchObject({
      repositories: "all",
      credits: { balance: 1200 },
    });
  });

  it("answers 404 for another organization's page, its JSON and each of its sections", async () => {
    const { cookie } = await signInOverHttp(web, "vault-owner");
    const html = await fetch(`${web}/installations/11`, { headers: { cookie } });
    expect(html.status).toBe(404);
    expect(await html.text()).not.toContain("octo-org");
    expect((await getJson("/installations/11", cookie)).status).toBe(404);
    for (const section of ["credits", "spend", "in-flight", "reports", "approvals", "expiring", "problems"])
      expect((await getJson(`/installations/11/${section}`, cookie)).status, section).toBe(404);
    expect((await getJson("/installations/22", cookie)).status).toBe(200);
    const list = await fetch(`${web}/`, { headers: { cookie } });
    expect(await list.text()).not.toContain("octo-org");
  });

  it("answers a page whose data cannot be read with a 500 page, logged, and goes on serving", async () => {
    const { cookie } = await signInOverHttp(web, "solo");
    const broken = await fetch(`${web}/installations/${BROKEN}`, { headers: { cookie } });
    expect(broken.status).toBe(500);
    expect(await broken.text()).toContain("Something went wrong");
    expect(
      logLines.some((l) => l.includes("Redis went away") && l.includes("organization page request failed")),
    ).toBe(true);
    expect((await getJson("/installations/33", cookie)).status).toBe(200);
  });

  it("answers malformed requests without failing", async () => {
    const { cookie } = await signInOverHttp(web, "octo-owner");
    for (const path of [
      "/installations/abc",
      "/installations/11/nope",
      "/installations/99999999999999999999",
      "/installations/-1",
      "/installations/11/%E0%A4%A",
    ])
      expect((await getJson(path, cookie)).status, path).toBe(404);
    expect((await fetch(`${web}/installations/11`, { method: "POST", headers: { cookie } })).status).toBe(
      405,
    );
    expect((await hop(`${web}/login/callback?state=x.y.z&code=1`, cookie)).status).toBe(400);
    expect(
      (await hop(`${web}/installations/11`, `${SESSION_COOKIE}=%%%; ${STATE_COOKIE}="unterminated; =;;`))
        .status,
    ).toBe(302);
    expect((await getJson("/installations/11", cookie)).status).toBe(200);
  });
});

describe("sign-out", () => {
  it("needs the session's CSRF token in a POST, then ends the session and clears its cookie", async () => {
    const { cookie } = await signInOverHttp(web, "octo-owner");
    const form = await (await fetch(`${web}/logout`, { headers: { cookie } })).text();
    const csrf = /name="csrf" value="([^"]+)"/.exec(form)![1]!;
    const post = (body: string) =>
      fetch(`${web}/logout`, {
        method: "POST",
        redirect: "manual",
        headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
        body,
      });
    expect((await post("csrf=forged")).status).toBe(403);
    expect((await getJson("/installations/11", cookie)).status).toBe(200);
    const out = await post(`csrf=${encodeURIComponent(csrf)}`);
    expect(out.status).toBe(303);
    expect(parseSetCookie(out.headers.getSetCookie()[0]!)).toMatchObject({
      name: SESSION_COOKIE,
      value: "",
      maxAge: 0,
    });
    expect((await getJson("/installations/11", cookie)).status).toBe(401);
    expect((await hop(`${web}/installations/11`, cookie)).status).toBe(302);
  });

  it("sent every request to GitHub as GitHub's OpenAPI description allows", () => {
    expect(github.violations()).toEqual([]);
  });
});
