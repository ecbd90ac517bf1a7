/**
 * The week of `npm run bench -- --week` as data: one organization's pull requests, pushes, reviews, commands,
 * merges through the queue, closes and reopens, default-branch pushes, an uninstall and reinstall, service
 * faults, worker kills and one Redis restart, each at a moment of the wall time the week is compressed into.
 * Pure: the same options give the same events (a seeded PRNG, `seeded` of bench/lib.ts).
 */
import { seeded } from "./lib.js";

/** One week, in ms (the simulated time the events are spread over before compression). */
export const WEEK_MS = 7 * 24 * 3_600_000;

/**
 * Every verb the bench writes (src/commands/table.ts): finding verbs as replies in a finding's thread, the others in
 * the conversation, where a command starts with `/diffward` (src/commands/parse.ts).
 */
export const THREAD_VERBS = [
  "/resolve fixed upstream",
  "/mitigate behind a flag",
  "/wontfix risk_accepted",
  "/fp not_reachable",
  "/duplicate SC-1",
  "/in-progress on it",
  "/reopen",
  "/approve",
  "/reject",
  "/severity low",
  "/note looked at it",
  "/publish",
] as const;
export const CONVERSATION_VERBS = [
  "/diffward rescan",
  "/diffward cancel",
  "/diffward status",
  "/diffward credits",
  "/diffward publish scan",
  "/diffward guidance",
  "/diffward areas",
  "/diffward areas add payments: the payment flow",
  "/diffward areas remove payments",
  "/diffward help",
] as const;

/** One event of the week; `at` is ms from the start of the wall time. */
export type WeekEvent = { at: number } & WeekAction;
/** An event without its moment. */
export type WeekAction =
  | { kind: "open"; repo: string; pull: number }
  | { kind: "push"; repo: string; pull: number; force: boolean }
  | { kind: "review"; repo: string; pull: number }
  | { kind: "command"; repo: string; pull: number; body: string; where: "thread" | "conversation" }
  /** `/wontfix risk_accepted until <at + expiresInMs>` in a finding's thread */
  | { kind: "accept"; repo: string; pull: number; expiresInMs: number }
  | { kind: "merge"; repo: string; pull: number }
  | { kind: "close"; repo: string; pull: number }
  | { kind: "reopen"; repo: string; pull: number }
  | { kind: "baseline"; repo: string }
  | { kind: "uninstall" }
  | { kind: "reinstall" }
  | { kind: "errors"; count: number }
  | { kind: "outage"; durationMs: number }
  | { kind: "kill-worker" }
  | { kind: "redis-restart" };
export type WeekEventKind = WeekEvent["kind"];

/** Options of {@link weekScenario}. */
export interface WeekOptions {
  seed: number;
  /** the wall time the week is compressed into, ms */
  wallMs: number;
  /** repositories of the organization (default 3) */
  repositories?: number;
  /** pull requests opened over the week (default 30) */
  pulls?: number;
}

/**
 * The week's events sorted by `at`. Working days carry the traffic (Saturday and Sunday get a fifth); the
 * last 10 % of the wall time is left quiet so the last scans can end. Fixed shares of the wall time: the
 * outage lasts 5/60 of it (5 minutes of an hour) at 55 %, the uninstall at 30 % for 2 % of it, the Redis
 * restart at 65 %, a worker killed every 1/12 of it (every 5 minutes of an hour).
 */
export function weekScenario(o: WeekOptions): WeekEvent[] {
  const rng = seeded(o.seed);
  const repos = Array.from({ length: o.repositories ?? 3 }, (_, i) => `service-${i + 1}`);
  const active = 0.9 * o.wallMs;
  const out: WeekEvent[] = [];
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rng.next() * xs.length)]!;
  /** A moment of the busy part, weekdays five times as likely as weekend days. */
  const moment = (from = 0): number => {
    for (;;) {
      const t = from + rng.next() * (active - from);
      const day = Math.floor((t / active) * 7);
      if (day < 5 || rng.next() < 0.2) return Math.round(t);
    }
  };
  const uninstallAt = Math.round(0.3 * o.wallMs);
  const reinstallAt = Math.round(0.32 * o.wallMs);
  const uninstalled = (t: number) => t >= uninstallAt && t < reinstallAt;
  const step = (t: number) => Math.min(active, t + Math.round((0.002 + rng.next() * 0.01) * o.wallMs));
  const n = o.pulls ?? 30;
  for (let pull = 1; pull <= n; pull++) {
    const repo = pick(repos);
    // a pull request is never opened while the app is away: its later events would name an unknown one
    let t = moment(0);
    if (uninstalled(t)) t = reinstallAt;
    const at = (e: WeekAction) => {
      if (!uninstalled(t)) out.push({ ...e, at: t });
    };
    at({ kind: "open", repo, pull });
    const steps = 3 + Math.floor(rng.next() * 6);
    let open = true;
    for (let s = 0; s < steps && t < active; s++) {
      t = step(t);
      const r = rng.next();
      if (!open) {
        at({ kind: "reopen", repo, pull });
        open = true;
      } else if (r < 0.3) {
        // a burst: 2–4 pushes a second apart, the last one sometimes forced
        const burst = 2 + Math.floor(rng.next() * 3);
        for (let b = 0; b < burst; b++, t += 1000)
          at({ kind: "push", repo, pull, force: b === burst - 1 && rng.next() < 0.5 });
      } else if (r < 0.45) at({ kind: "review", repo, pull });
      else if (r < 0.65) at({ kind: "command", repo, pull, body: pick(THREAD_VERBS), where: "thread" });
      else if (r < 0.8)
        at({ kind: "command", repo, pull, body: pick(CONVERSATION_VERBS), where: "conversation" });
      else if (r < 0.87)
        at({ kind: "accept", repo, pull, expiresInMs: Math.round((0.01 + rng.next() * 0.03) * o.wallMs) });
      else if (r < 0.93) {
        at({ kind: "close", repo, pull });
        open = false;
      } else at({ kind: "push", repo, pull, force: true });
    }
    t = step(t);
    if (open && t < active && rng.next() < 0.5) at({ kind: "merge", repo, pull });
  }
  for (let i = 0; i < 10; i++) {
    const t = moment();
    if (!uninstalled(t)) out.push({ kind: "baseline", repo: pick(repos), at: t });
  }
  for (let i = 0; i < 4; i++)
    out.push({ kind: "errors", count: 3 + Math.floor(rng.next() * 8), at: moment() });
  out.push({ kind: "uninstall", at: uninstallAt }, { kind: "reinstall", at: reinstallAt });
  out.push({ kind: "outage", durationMs: Math.round((5 / 60) * o.wallMs), at: Math.round(0.55 * o.wallMs) });
  out.push({ kind: "redis-restart", at: Math.round(0.65 * o.wallMs) });
  for (let k = 1; k < 12; k++) out.push({ kind: "kill-worker", at: Math.round((k * o.wallMs) / 12) });
  return out.sort((a, b) => a.at - b.at);
}

/** How many events of each kind a week has. */
export function countKinds(events: readonly WeekEvent[]): Partial<Record<WeekEventKind, number>> {
  const out: Partial<Record<WeekEventKind, number>> = {};
  for (const e of events) out[e.kind] = (out[e.kind] ?? 0) + 1;
  return out;
}
