import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // a Redis for the run: REDIS_URL when it answers, else a private redis-server (test/support/redis-global.ts)
    globalSetup: ["test/support/redis-global.ts"],
    // The outer bound of a case and of a hook (a harness starting: Redis, the sandbox, the stand-in, workers). The
    // waits a case is about carry their own, tighter bounds (`h.waitFor(…, ms)`); this one only has to hold when
    // four files share the two cores, where a child worker process alone can take 10 s to start.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Files run four at a time, each in its own process: most of a file's time is waiting on real time (scan
    // durations, Retry-After, polls), not on the CPU, so four files at once keep two cores busy where one file
    // leaves them mostly idle. Queue tests share one Redis; each test file uses its own key prefix.
    pool: "forks",
    maxWorkers: 4,
    reporters: process.env.CI ? ["default", ["json", { outputFile: "out/vitest.json" }]] : ["default"],
  },
});
