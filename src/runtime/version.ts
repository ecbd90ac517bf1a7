import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";

/**
 * The `version` of diffward's own `package.json`, the nearest one named `diffward` above this file: the
 * project root in a checkout (`src/runtime/` through tsx, `dist/src/runtime/` when built) and `/app` in the
 * image, which copies `package.json` beside `dist/`. `"unknown"` when none is found (never throws). Shown by
 * `diffward --version`, in `/healthz` and as the `version` label of `diffward_build_info`.
 */
export const VERSION: string = readVersion(import.meta.dirname);

function readVersion(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
        name?: unknown;
        version?: unknown;
      };
      if (pkg.name === "diffward" && typeof pkg.version === "string") return pkg.version;
    } catch {
      // no package.json here, or not JSON: look further up
    }
    if (dirname(dir) === dir) return "unknown";
  }
}
