import { readFileSync, unwatchFile, watchFile } from "node:fs";
import type { Logger } from "pino";
import { parse } from "yaml";
import { z } from "zod";

/** The secrets file: a YAML (or JSON) map from GitHub organization or user login to a scanner token. */
export const TokensFile = z.record(z.string().min(1), z.string().min(1));
export type TokensFile = z.infer<typeof TokensFile>;

/**
 * Reads `SCANNER_TOKENS_FILE` and keeps it current: the file is re-read when it changes (polled every
 * `intervalMs`), without a restart. A file that does not parse keeps the last good map and logs the
 * problem (never the tokens).
 * @returns a getter of the current map and a `close()` that stops watching.
 * @throws Error when the file cannot be read or parsed at start.
 */
export function watchTokensFile(
  path: string,
  log: Logger,
  intervalMs = 2_000,
): { tokens: () => TokensFile; reload(): void; close(): void } {
  const read = (): TokensFile => {
    const parsed = TokensFile.safeParse(parse(readFileSync(path, "utf8")) ?? {});
    if (!parsed.success) {
      throw new Error(
        `${path}: expected a map from login to token (${parsed.error.issues.map((i) => i.path.join(".") || "(root)").join(", ")})`,
      );
    }
    return parsed.data;
  };
  let current = read();
  const reload = () => {
    try {
      current = read();
      log.info({ accounts: Object.keys(current).length }, "scanner tokens file reloaded");
    } catch (error) {
      log.error(
        { err: (error as Error).message },
        "scanner tokens file invalid: keeping the previous tokens",
      );
    }
  };
  watchFile(path, { interval: intervalMs }, reload);
  return { tokens: () => current, reload, close: () => unwatchFile(path, reload) };
}
