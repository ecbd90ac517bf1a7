import { readFileSync, unwatchFile, watchFile } from "node:fs";
import type { Logger } from "pino";
import { parse, YAMLError } from "yaml";
import { z } from "zod";

/** The secrets file: a YAML (or JSON) map from GitHub organization or user login to a scanner token. */
export const TokensFile = z.record(z.string().min(1), z.string().min(1));
export type TokensFile = z.infer<typeof TokensFile>;

/** Why a tokens file was not taken (the label of `diffward_tokens_file_rejected_total`). */
export type TokensFileRejection = "invalid" | "empty";

/**
 * A tokens file that cannot be used. The message names the file, and for a syntax error the YAML error
 * code, line and column, never the text of the line: it holds a token, and tokens never reach logs or errors.
 */
export class TokensFileError extends Error {
  constructor(
    message: string,
    readonly reason: TokensFileRejection,
  ) {
    super(message);
    this.name = "TokensFileError";
  }
}

/**
 * Reads and checks a tokens file. YAML (a superset of JSON) is parsed with `yaml`; its errors quote the
 * offending line, so only their code and position are kept.
 * @throws TokensFileError `invalid` when the file is not YAML or not a map from login to a non-empty token
 *   (the message lists the logins whose entries are wrong), `empty` when it names no account.
 * @throws the `fs` error when the file cannot be read (its message names the path only).
 */
export function readTokensFile(path: string): TokensFile {
  const text = readFileSync(path, "utf8");
  let raw: unknown;
  try {
    raw = parse(text, { prettyErrors: false });
  } catch (error) {
    if (error instanceof YAMLError) {
      const offset = error.pos[0];
      const before = text.slice(0, offset).split("\n");
      throw new TokensFileError(
        `${path}: not valid YAML (${error.code} at line ${before.length}, column ${before.at(-1)!.length + 1})`,
        "invalid",
      );
    }
    throw new TokensFileError(`${path}: not valid YAML`, "invalid");
  }
  const parsed = TokensFile.safeParse(raw ?? {});
  if (!parsed.success) {
    throw new TokensFileError(
      `${path}: expected a map from login to token (${parsed.error.issues.map((i) => i.path.join(".") || "(root)").join(", ")})`,
      "invalid",
    );
  }
  if (Object.keys(parsed.data).length === 0)
    throw new TokensFileError(`${path}: names no account (empty or truncated)`, "empty");
  return parsed.data;
}

/**
 * Reads `SCANNER_TOKENS_FILE` and keeps it current: the file is re-read when it changes (polled every
 * `intervalMs`), without a restart. On a reload, a file that is not valid, or names no account (emptied or
 * truncated while being rewritten), keeps the last good map: a warning says so (with the reason, never a
 * token or a line of the file) and `onRejected` is called (the entry bumps a metric).
 * @returns a getter of the current map and a `close()` that stops watching.
 * @throws TokensFileError `invalid` when the file is invalid at start (an empty one is accepted at start,
 *   with a warning: there is no earlier map to keep), or the `fs` error when it cannot be read.
 */
export function watchTokensFile(
  path: string,
  log: Logger,
  intervalMs = 2_000,
  onRejected: (reason: TokensFileRejection) => void = () => undefined,
): { tokens: () => TokensFile; reload(): void; close(): void } {
  let current: TokensFile;
  try {
    current = readTokensFile(path);
  } catch (error) {
    if (!(error instanceof TokensFileError) || error.reason !== "empty") throw error;
    log.warn({ err: error }, "scanner tokens file names no account: no installation has a token");
    current = {};
  }
  const reload = () => {
    try {
      current = readTokensFile(path);
      log.info({ accounts: Object.keys(current).length }, "scanner tokens file reloaded");
    } catch (error) {
      const reason = error instanceof TokensFileError ? error.reason : "invalid";
      onRejected(reason);
      log.warn(
        { err: error, reason, accounts: Object.keys(current).length },
        "scanner tokens file not usable: keeping the last good tokens",
      );
    }
  };
  watchFile(path, { interval: intervalMs }, reload);
  return { tokens: () => current, reload, close: () => unwatchFile(path, reload) };
}
