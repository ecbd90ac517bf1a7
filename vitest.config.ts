import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // a Redis for the run: REDIS_URL when it answers, else a private redis-server (test/support/redis-global.ts)
    globalSetup: ["test/support/redis-global.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Queue tests share one Redis; each test file uses its own key prefix, so files may run in parallel.
    pool: "forks",
    reporters: process.env.CI ? ["default", ["json", { outputFile: "out/vitest.json" }]] : ["default"],
  },
});
