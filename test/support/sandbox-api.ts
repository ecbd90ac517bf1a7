/** Shared helpers for the sandbox tests: a sandbox on a real port with a hand-driven clock, and plain fetch. */
import { startSandbox, type Sandbox, type SandboxOptions } from "../../dev/sandbox/index.js";

export interface ApiResponse {
  status: number;
  headers: Headers;
  // The tests read loosely typed JSON on purpose: they check the wire format, not a client's types.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

export interface Harness {
  sb: Sandbox;
  clock: { t: number };
  /** Moves the sandbox clock forward by `ms`. */
  tick(ms: number): void;
  api(method: string, path: string, body?: unknown, token?: string | null): Promise<ApiResponse>;
  /** Launches a scan on `repo_demo` of `prj_demo` with the given extra body fields. */
  launch(body?: Record<string, unknown>, token?: string): Promise<ApiResponse>;
}

/** 15 June 2026, 12:00 UTC: mid-month, so period boundaries are far away unless a test moves there. */
export const T0 = Date.UTC(2026, 5, 15, 12, 0, 0);

/** Starts a sandbox (seed 7, 10 s scans, Retry-After 2 s, fake clock at {@link T0}). Close it in afterEach. */
export async function boot(options: SandboxOptions = {}): Promise<Harness> {
  const clock = { t: T0 };
  const sb = await startSandbox({
    seed: 7,
    scanDurationMs: 10_000,
    retryAfterSeconds: 2,
    now: () => clock.t,
    ...options,
  });
  const api = async (
    method: string,
    path: string,
    body?: unknown,
    token: string | null = "sandbox-token",
  ) => {
    const headers: Record<string, string> = { "Content-Type": "application/json" };
    if (token !== null) headers["Authorization"] = `Bearer ${token}`;
    const res = await fetch(`${sb.url}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, headers: res.headers, body: await res.json() };
  };
  return {
    sb,
    clock,
    tick: (ms) => {
      clock.t += ms;
    },
    api,
    launch: (body = {}, token = "sandbox-token") =>
      api("POST", "/projects/prj_demo/scans", { repositoryId: "repo_demo", ...body }, token),
  };
}

/** Asserts nothing; returns `[status, code]` of an error response for compact expectations. */
export function errorOf(r: ApiResponse): [number, string | undefined] {
  return [r.status, r.body?.error?.code];
}
