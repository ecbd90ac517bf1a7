import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { parseSetCookie } from "cookie";
import { afterAll, describe, expect, it } from "vitest";
import {
  SESSION_COOKIE,
  SESSION_TTL_SECONDS,
  STATE_COOKIE,
  SessionStore,
  safeReturnPath,
  type SessionData,
} from "../../src/web/session.js";

const redis = new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
const prefix = `{dwt-${randomBytes(4).toString("hex")}}`;
afterAll(async () => {
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

const SECRET = "k".repeat(40);
const data: SessionData = {
  login: "octo-owner",
  userId: 7,
  installations: [{ id: 1, account: "octo-org", kind: "Organization", orgWide: true, repositories: "all" }],
};
const cookieOf = (setCookie: string) => {
  const c = parseSetCookie(setCookie);
  return `${c.name}=${c.value}`;
};

describe("SessionStore sessions", () => {
  const store = new SessionStore(redis, prefix, SECRET, { secure: true });

  it("sets a signed, HttpOnly, SameSite=Lax, Secure cookie that expires, and reads the session back", async () => {
    const { cookie } = await store.create(data);
    const c = parseSetCookie(cookie);
    expect(c).toMatchObject({
      name: SESSION_COOKIE,
      httpOnly: true,
      sameSite: "lax",
      secure: true,
      path: "/",
    });
    expect(c.maxAge).toBe(SESSION_TTL_SECONDS);
    expect(c.value).toMatch(/^[\w-]{43}\.[\w-]{43}$/);
    expect(await store.read(cookieOf(cookie))).toMatchObject(data);
    // Redis holds the session under a hash of its id, with the session's TTL, and no token
    const [key] = await redis.keys(`${prefix}:session:*`);
    expect(key).not.toContain(c.value!.split(".")[0]);
    expect(await redis.ttl(key!)).toBeGreaterThan(SESSION_TTL_SECONDS - 5);
  });

  it("refuses a tampered cookie, one signed with another secret, and a missing one", async () => {
    const { cookie } = await store.create(data);
    const value = parseSetCookie(cookie).value!;
    const [id, mac] = value.split(".") as [string, string];
    const flipped = `${id.slice(0, -1)}${id.endsWith("A") ? "B" : "A"}.${mac}`;
    expect(await store.read(`${SESSION_COOKIE}=${flipped}`)).toBeUndefined();
    const other = new SessionStore(redis, prefix, "o".repeat(40), { secure: true });
    expect(await other.read(cookieOf(cookie))).toBeUndefined();
    expect(await store.read(undefined)).toBeUndefined();
    expect(await store.read(`${SESSION_COOKIE}=garbage`)).toBeUndefined();
  });

  it("ends a session for good and clears its cookie", async () => {
    const { cookie } = await store.create(data);
    const cleared = parseSetCookie(await store.end(cookieOf(cookie)));
    expect(cleared).toMatchObject({ name: SESSION_COOKIE, value: "", maxAge: 0 });
    expect(await store.read(cookieOf(cookie))).toBeUndefined();
  });

  it("gives each session its own CSRF token and accepts only it", async () => {
    const a = await store.read(cookieOf((await store.create(data)).cookie));
    const b = await store.read(cookieOf((await store.create(data)).cookie));
    const token = store.csrfToken(a!);
    expect(store.checkCsrf(a!, token)).toBe(true);
    expect(store.checkCsrf(b!, token)).toBe(false);
    expect(store.checkCsrf(a!, undefined)).toBe(false);
    expect(store.checkCsrf(a!, `${token}x`)).toBe(false);
  });

  it("leaves Secure off outside production (plain HTTP on a laptop)", async () => {
    const plain = new SessionStore(redis, prefix, SECRET, { secure: false });
    expect(parseSetCookie((await plain.create(data)).cookie).secure).toBeFalsy();
  });
});

describe("SessionStore sign-in state", () => {
  let now = Date.UTC(2026, 10, 26, 1, 0, 0);
  const store = new SessionStore(redis, prefix, SECRET, { secure: true }, () => now);

  it("accepts the state once, from the browser that started the sign-in, with its return path", async () => {
    const { state, cookie } = store.startSignIn("/installations/5?x=1");
    expect(parseSetCookie(cookie)).toMatchObject({ name: STATE_COOKIE, httpOnly: true, sameSite: "lax" });
    expect(await store.finishSignIn(state, cookieOf(cookie))).toMatchObject({
      returnTo: "/installations/5?x=1",
    });
    expect(await store.finishSignIn(state, cookieOf(cookie))).toBeUndefined();
  });

  it("refuses a state from another browser, a tampered one, a missing one and an expired one", async () => {
    const first = store.startSignIn("/");
    const second = store.startSignIn("/");
    expect(await store.finishSignIn(first.state, cookieOf(second.cookie))).toBeUndefined();
    expect(await store.finishSignIn(undefined, cookieOf(first.cookie))).toBeUndefined();
    const forged = first.state.replace(/\.\d+\./, ".99999999999.");
    expect(await store.finishSignIn(forged, `${STATE_COOKIE}=${forged}`)).toBeUndefined();
    const late = store.startSignIn("/");
    now += 11 * 60_000;
    expect(await store.finishSignIn(late.state, cookieOf(late.cookie))).toBeUndefined();
  });

  it("never returns to another site", () => {
    for (const bad of ["//evil.example", "/\\evil.example", "https://evil.example", "evil", "/a b"])
      expect(safeReturnPath(bad), bad).toBe("/");
    expect(safeReturnPath("/installations/3/spend")).toBe("/installations/3/spend");
  });
});
