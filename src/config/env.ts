/**
 * The process environment: one zod schema, one loader, one error that lists every problem by variable
 * name. Secret values (private key, webhook secret, scanner token) never appear in an error message.
 */
import { existsSync, readFileSync } from "node:fs";
import { z } from "zod";

/** The file Probot's setup flow writes (`APP_ID`, `PRIVATE_KEY`, `WEBHOOK_SECRET`), in the working directory. */
export const DOTENV_PATH = ".env";

/**
 * Loads `.env` into `process.env` with Node's own parser (`process.loadEnvFile`, Node ≥ 20.12): variables
 * already set in the environment take precedence over the file (Node documents this for `--env-file`; an
 * exported empty value counts as set). Double-quoted values expand `\n`, the form in which Probot's setup
 * flow writes `PRIVATE_KEY`.
 * @returns whether a file was read; a missing file is not an error (a container passes real variables).
 * @throws the file's read or parse error otherwise (e.g. EACCES).
 */
export function loadDotEnv(path: string = DOTENV_PATH): boolean {
  try {
    process.loadEnvFile(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
}

/** Where the committed environment template lives, relative to the repository root. */
export const ENV_EXAMPLE_PATH = ".env.example";

/** Variables whose values are secret: never echoed in errors or logs. */
export const SECRET_VARIABLES = ["PRIVATE_KEY", "WEBHOOK_SECRET", "SCANNER_TOKEN", "METRICS_TOKEN"] as const;

const LOG_LEVELS = ["trace", "debug", "info", "warn", "error", "fatal", "silent"] as const;
const PEM = /^-----BEGIN ([A-Z ]*PRIVATE KEY)-----\r?\n[\s\S]+\r?\n-----END \1-----\s*$/;

/** Empty strings count as unset (`FOO=` in a .env file). */
const opt = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (typeof v === "string" && v.trim() === "" ? undefined : v), schema.optional());

const intIn = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, `must be a whole number from ${min} to ${max}`)
    .transform(Number)
    .pipe(z.int().min(min, `must be from ${min} to ${max}`).max(max, `must be from ${min} to ${max}`));

const httpUrl = z
  .string()
  .refine((s) => URL.canParse(s) && /^https?:$/.test(new URL(s).protocol), "must be an http(s) URL");

/**
 * The raw environment, variable by variable (strings in, typed values out). Cross-variable rules
 * (one of PRIVATE_KEY / PRIVATE_KEY_PATH, setup mode) are applied by {@link loadEnv}.
 */
export const ProcessEnv = z.object({
  /** GitHub App id (digits). Optional outside production: Probot's setup flow creates the app. */
  APP_ID: opt(z.string().regex(/^\d{1,12}$/, "must be the numeric GitHub App id")),
  /** The App's private key, PEM text; `\n` escapes are turned into newlines (one-line .env values). */
  PRIVATE_KEY: opt(z.string()),
  /** Path of a PEM file holding the private key; instead of PRIVATE_KEY. */
  PRIVATE_KEY_PATH: opt(z.string()),
  /** The App's webhook secret (GitHub signs deliveries with it). */
  WEBHOOK_SECRET: opt(z.string()),
  /** HTTP port of the web role. 0 picks a free port (tests). Default 3000. */
  PORT: opt(intIn(0, 65535)).default(3000),
  /** Address the web role listens on; Probot's default when unset. */
  HOST: opt(z.string()),
  /** pino log level. Default `info`. */
  LOG_LEVEL: opt(z.enum(LOG_LEVELS)).default("info"),
  /** GitHub Enterprise Server host name (no scheme), e.g. `github.example.com`. Unset = github.com. */
  GHE_HOST: opt(
    z
      .string()
      .regex(
        /^[A-Za-z0-9.-]+(:\d+)?$/,
        "must be a host name without scheme or path, e.g. github.example.com",
      ),
  ),
  /** Protocol of GHE_HOST. Default `https`. */
  GHE_PROTOCOL: opt(z.enum(["https", "http"])).default("https"),
  /** Redis for the job queues. Default `redis://127.0.0.1:6379`. */
  REDIS_URL: opt(
    z
      .string()
      .refine(
        (s) => URL.canParse(s) && /^rediss?:$/.test(new URL(s).protocol),
        "must be a redis:// or rediss:// URL",
      ),
  ).default("redis://127.0.0.1:6379"),
  /**
   * Redis Cluster seed nodes, `host:port` separated by commas (or `redis://` / `rediss://` URLs, whose user,
   * password and TLS then apply to every node). When set, diffward connects to that cluster and REDIS_URL
   * is ignored.
   */
  REDIS_CLUSTER_NODES: opt(
    z
      .string()
      .transform((s) =>
        s
          .split(",")
          .map((n) => n.trim())
          .filter(Boolean),
      )
      .pipe(
        z
          .array(
            z
              .string()
              .refine(
                (n) =>
                  /^rediss?:\/\//.test(n)
                    ? URL.canParse(n) && new URL(n).hostname !== ""
                    : /^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):\d{1,5}$/.test(n),
                "each node must be host:port or a redis:// / rediss:// URL",
              ),
          )
          .min(1, "must name at least one host:port"),
      ),
  ),
  /**
   * Bearer token required by `GET /metrics` (`Authorization: Bearer <token>`). Secret. In production,
   * `/metrics` is served only with this token or on METRICS_PORT.
   */
  METRICS_TOKEN: opt(z.string().refine((s) => !/\s/.test(s), "must not contain spaces or newlines")),
  /** Serve `/metrics` on this port of its own (not on the webhook port), e.g. for a scraper inside the network. */
  METRICS_PORT: opt(intIn(0, 65535)),
  /**
   * Development only: a webhook proxy channel (smee.io) that forwards GitHub's deliveries to this machine
   * (Probot's convention; the setup flow writes it to `.env`). Forward with `npm run proxy`.
   */
  WEBHOOK_PROXY_URL: opt(httpUrl),
  /** Base URL of the scanning service, ending in `/api/v1` (spec: "{base_url}, whose path ends in /api/v1"). */
  SCANNER_API_URL: opt(
    httpUrl
      .transform((s) => s.replace(/\/+$/, ""))
      .refine(
        (s) => new URL(s).pathname.endsWith("/api/v1"),
        "must end in /api/v1, e.g. https://scanner.example.com/api/v1",
      ),
  ),
  /** Bearer token of the service (spec "Authentication"). Secret. */
  SCANNER_TOKEN: opt(z.string().refine((s) => !/\s/.test(s), "must not contain spaces or newlines")),
  /** Path of a file of per-installation service tokens (read by the token store). */
  SCANNER_TOKENS_FILE: opt(z.string()),
  /** Preset ref for pull request scans when `.github/diffward.yml` names none. Default `diff-standard`. */
  SCANNER_DIFF_PRESET: opt(z.string().regex(/^\S{1,200}$/, "must be a preset ref without spaces")).default(
    "diff-standard",
  ),
  /**
   * Path (from the repository root) of the guidance file the service reads (spec "Guidance": named after
   * the service, `.md`). Default `SCANNER.md`: the spec does not give the service's name.
   */
  SCANNER_GUIDANCE_FILE: opt(
    z
      .string()
      .refine(
        (s) => !s.startsWith("/") && !s.split("/").includes("..") && s.toLowerCase().endsWith(".md"),
        "must be a relative path inside the repository ending in .md",
      ),
  ).default("SCANNER.md"),
  /** Base URL of the service's web interface, for links to findings. Optional. */
  SCANNER_PUBLIC_URL: opt(httpUrl.transform((s) => s.replace(/\/+$/, ""))),
  /** Two-letter prefix printed before finding labels (spec "Finding label"). Default `SC`. */
  SCANNER_LABEL_PREFIX: opt(
    z
      .string()
      .regex(/^[A-Za-z]{2}$/, "must be two letters")
      .transform((s) => s.toUpperCase()),
  ).default("SC"),
  /** Which part this process runs: `web` (webhooks), `worker` (queues) or `all`. Default `all`. */
  DIFFWARD_ROLE: opt(z.enum(["web", "worker", "all"])).default("all"),
  /** `production` makes APP_ID, the key, the secret, the service URL and a token required. */
  NODE_ENV: opt(z.string()),
  /** Jobs each worker runs at once. Default 50. */
  WORKER_CONCURRENCY: opt(intIn(1, 1000)).default(50),
});
export type ProcessEnv = z.infer<typeof ProcessEnv>;

/** Fields every loaded environment has. */
interface EnvCommon {
  isProduction: boolean;
  nodeEnv: string | undefined;
  /** TCP port of the web role */
  port: number;
  host: string | undefined;
  logLevel: (typeof LOG_LEVELS)[number];
  gheHost: string | undefined;
  gheProtocol: "https" | "http";
  redisUrl: string;
  /** Redis Cluster seed nodes (REDIS_CLUSTER_NODES); when set, `redisUrl` is not used */
  redisClusterNodes: string[] | undefined;
  metricsToken: string | undefined;
  metricsPort: number | undefined;
  webhookProxyUrl: string | undefined;
  scannerToken: string | undefined;
  scannerTokensFile: string | undefined;
  scannerDiffPreset: string;
  scannerGuidanceFile: string;
  scannerPublicUrl: string | undefined;
  scannerLabelPrefix: string;
  role: "web" | "worker" | "all";
  workerConcurrency: number;
}

/** A complete environment: the app can receive webhooks and call the service. */
export interface ReadyEnv extends EnvCommon {
  setupMode: false;
  appId: number;
  /** PEM text of the App's private key (from PRIVATE_KEY or the file at PRIVATE_KEY_PATH) */
  privateKey: string;
  webhookSecret: string;
  scannerApiUrl: string;
}

/** Outside production with no APP_ID: Probot's setup flow (the app is not registered yet). */
export interface SetupEnv extends EnvCommon {
  setupMode: true;
  appId: undefined;
  privateKey: string | undefined;
  webhookSecret: string | undefined;
  scannerApiUrl: string | undefined;
}

/** The typed environment returned by {@link loadEnv}. */
export type AppEnv = ReadyEnv | SetupEnv;

/** One bad or missing variable. */
export interface EnvProblem {
  variable: string;
  message: string;
}

/**
 * Where the message of {@link EnvError} sends the reader: the `.env.example` template when it is at hand
 * (a clone), else the README (a container image ships neither the template nor a clone).
 */
export function envReferenceHint(exampleExists: boolean): string {
  return exampleExists
    ? `See ${ENV_EXAMPLE_PATH} for every variable.`
    : `Every variable is described in diffward's README ("The outside contract" and "Deployment").`;
}

/** The environment is incomplete or invalid; `message` lists every problem, one per line. */
export class EnvError extends Error {
  override readonly name = "EnvError";
  constructor(
    readonly problems: readonly EnvProblem[],
    hint: string = envReferenceHint(true),
  ) {
    super(
      `The environment is not valid (${problems.length} problem${problems.length === 1 ? "" : "s"}):\n` +
        problems.map((p) => `- ${p.variable}: ${p.message}`).join("\n") +
        `\n${hint}`,
    );
  }
}

/** Options of {@link loadEnv}. */
export interface LoadEnvOptions {
  /** reads PRIVATE_KEY_PATH; default `fs.readFileSync(path, "utf8")` */
  readFile?: (path: string) => string;
  /** whether `.env.example` is in the working directory (names it in the error); default: checks the disk */
  exampleExists?: boolean;
}

/**
 * Validates the process environment and returns it typed, with defaults applied.
 *
 * - `NODE_ENV=production`: APP_ID, a private key (PRIVATE_KEY or PRIVATE_KEY_PATH, not both),
 *   WEBHOOK_SECRET, SCANNER_API_URL and one of SCANNER_TOKEN / SCANNER_TOKENS_FILE are required.
 * - Otherwise a missing APP_ID means Probot's setup flow: `setupMode: true` and the rest of those may be
 *   missing too (values that are present are still checked).
 * - PRIVATE_KEY_PATH is read (synchronously, at startup) and must hold PEM text.
 *
 * @throws {EnvError} listing every missing or bad variable by name. Secret values are never quoted.
 */
export function loadEnv(
  env: NodeJS.ProcessEnv | Record<string, string | undefined> = process.env,
  options: LoadEnvOptions = {},
): AppEnv {
  const problems: EnvProblem[] = [];
  const parsed = ProcessEnv.safeParse(env);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const variable = String(issue.path[0] ?? "(environment)");
      problems.push({ variable, message: messageOf(issue) });
    }
  }
  const bad = new Set(problems.map((p) => p.variable));
  const e = parsed.success ? parsed.data : partial(env);
  const isProduction = e.NODE_ENV === "production";
  const setupMode = !isProduction && e.APP_ID === undefined && !bad.has("APP_ID");
  const need = (variable: string, present: boolean, message: string) => {
    if (!present && !bad.has(variable)) problems.push({ variable, message });
  };

  let privateKey: string | undefined;
  if (e.PRIVATE_KEY !== undefined && e.PRIVATE_KEY_PATH !== undefined) {
    problems.push({
      variable: "PRIVATE_KEY_PATH",
      message: "set either PRIVATE_KEY or PRIVATE_KEY_PATH, not both",
    });
  } else if (e.PRIVATE_KEY !== undefined) {
    privateKey = e.PRIVATE_KEY.replace(/\\n/g, "\n");
    if (!PEM.test(privateKey)) {
      problems.push({
        variable: "PRIVATE_KEY",
        message:
          "must be PEM text (-----BEGIN … PRIVATE KEY----- … -----END … PRIVATE KEY-----); the value is not shown",
      });
      privateKey = undefined;
    }
  } else if (e.PRIVATE_KEY_PATH !== undefined) {
    try {
      privateKey = (options.readFile ?? ((p: string) => readFileSync(p, "utf8")))(e.PRIVATE_KEY_PATH);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      problems.push({
        variable: "PRIVATE_KEY_PATH",
        message: `cannot read "${e.PRIVATE_KEY_PATH}" (${code ?? "read error"})`,
      });
    }
    if (privateKey !== undefined && !PEM.test(privateKey)) {
      problems.push({
        variable: "PRIVATE_KEY_PATH",
        message: `"${e.PRIVATE_KEY_PATH}" does not hold a PEM private key`,
      });
      privateKey = undefined;
    }
  }

  if (!setupMode) {
    need("APP_ID", e.APP_ID !== undefined, "is required in production (the numeric GitHub App id)");
    if (e.PRIVATE_KEY === undefined && e.PRIVATE_KEY_PATH === undefined) {
      problems.push({
        variable: "PRIVATE_KEY",
        message: "is required: set PRIVATE_KEY (PEM text) or PRIVATE_KEY_PATH (a PEM file)",
      });
    }
    need("WEBHOOK_SECRET", e.WEBHOOK_SECRET !== undefined, "is required (the GitHub App's webhook secret)");
    need(
      "SCANNER_API_URL",
      e.SCANNER_API_URL !== undefined,
      "is required (the service's base URL ending in /api/v1)",
    );
    if (e.SCANNER_TOKEN === undefined && e.SCANNER_TOKENS_FILE === undefined && !bad.has("SCANNER_TOKEN")) {
      problems.push({
        variable: "SCANNER_TOKEN",
        message: "is required: set SCANNER_TOKEN or SCANNER_TOKENS_FILE",
      });
    }
  }
  if (problems.length > 0 || !parsed.success)
    throw new EnvError(problems, envReferenceHint(options.exampleExists ?? existsSync(ENV_EXAMPLE_PATH)));

  const d = parsed.data;
  const common: EnvCommon = {
    isProduction,
    nodeEnv: d.NODE_ENV,
    port: d.PORT,
    host: d.HOST,
    logLevel: d.LOG_LEVEL,
    gheHost: d.GHE_HOST,
    gheProtocol: d.GHE_PROTOCOL,
    redisUrl: d.REDIS_URL,
    redisClusterNodes: d.REDIS_CLUSTER_NODES,
    metricsToken: d.METRICS_TOKEN,
    metricsPort: d.METRICS_PORT,
    webhookProxyUrl: d.WEBHOOK_PROXY_URL,
    scannerToken: d.SCANNER_TOKEN,
    scannerTokensFile: d.SCANNER_TOKENS_FILE,
    scannerDiffPreset: d.SCANNER_DIFF_PRESET,
    scannerGuidanceFile: d.SCANNER_GUIDANCE_FILE,
    scannerPublicUrl: d.SCANNER_PUBLIC_URL,
    scannerLabelPrefix: d.SCANNER_LABEL_PREFIX,
    role: d.DIFFWARD_ROLE,
    workerConcurrency: d.WORKER_CONCURRENCY,
  };
  if (setupMode) {
    return {
      ...common,
      setupMode: true,
      appId: undefined,
      privateKey,
      webhookSecret: d.WEBHOOK_SECRET,
      scannerApiUrl: d.SCANNER_API_URL,
    };
  }
  return {
    ...common,
    setupMode: false,
    appId: Number(d.APP_ID),
    privateKey: privateKey!,
    webhookSecret: d.WEBHOOK_SECRET!,
    scannerApiUrl: d.SCANNER_API_URL!,
  };
}

/**
 * The environment as safe log metadata: secrets replaced by `"[set]"` (or `undefined` when unset), so
 * startup can log where each setting came from without leaking a token.
 */
export function describeEnv(env: AppEnv): Record<string, unknown> {
  const { privateKey, webhookSecret, scannerToken, metricsToken, redisUrl, redisClusterNodes, ...rest } = env;
  const mask = (v: string | undefined) => (v === undefined ? undefined : "[set]");
  return {
    ...rest,
    privateKey: mask(privateKey),
    webhookSecret: mask(webhookSecret),
    scannerToken: mask(scannerToken),
    metricsToken: mask(metricsToken),
    redisUrl: redactUrlPassword(redisUrl),
    redisClusterNodes: redisClusterNodes?.map(redactUrlPassword),
    ...(rest.scannerApiUrl ? { scannerApiUrl: redactUrlPassword(rest.scannerApiUrl) } : {}),
    ...(rest.scannerPublicUrl ? { scannerPublicUrl: redactUrlPassword(rest.scannerPublicUrl) } : {}),
  };
}

/**
 * A URL with its password replaced by `***` (and a user name given alone, which is then the credential, as in
 * `https://<token>@host`), for logs; other text is returned as is.
 */
export function redactUrlPassword(url: string): string {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(url) || !URL.canParse(url)) return url;
  const u = new URL(url);
  if (u.password) u.password = "***";
  else if (u.username) u.username = "***";
  return u.toString().replace(/\/$/, url.endsWith("/") ? "/" : "");
}

/** One documented variable of {@link ENV_VARIABLES}. */
export interface EnvVariable {
  name: keyof ProcessEnv;
  /** the default, or undefined when there is none */
  default?: string;
  /** example value for `.env.example` (commented out when optional) */
  example?: string;
  required: "always" | "production" | "optional";
  description: string;
}

/** Every variable diffward reads, in the order `.env.example` lists them. */
export const ENV_VARIABLES: readonly EnvVariable[] = [
  {
    name: "APP_ID",
    required: "production",
    example: "123456",
    description: "GitHub App id. Leave unset in development to run Probot's setup flow.",
  },
  {
    name: "PRIVATE_KEY",
    required: "production",
    description:
      "GitHub App private key, PEM text (newlines may be written as \\n). Or set PRIVATE_KEY_PATH.",
  },
  {
    name: "PRIVATE_KEY_PATH",
    required: "optional",
    example: "./diffward.private-key.pem",
    description: "Path of the PEM private key file, instead of PRIVATE_KEY.",
  },
  { name: "WEBHOOK_SECRET", required: "production", description: "GitHub App webhook secret." },
  { name: "PORT", required: "optional", default: "3000", description: "HTTP port of the web role." },
  { name: "HOST", required: "optional", example: "0.0.0.0", description: "Address the web role listens on." },
  {
    name: "LOG_LEVEL",
    required: "optional",
    default: "info",
    description: `Log level: ${LOG_LEVELS.join(", ")}.`,
  },
  {
    name: "GHE_HOST",
    required: "optional",
    example: "github.example.com",
    description: "GitHub Enterprise Server host name; unset for github.com.",
  },
  {
    name: "GHE_PROTOCOL",
    required: "optional",
    default: "https",
    description: "Protocol of GHE_HOST: https or http.",
  },
  {
    name: "REDIS_URL",
    required: "optional",
    default: "redis://127.0.0.1:6379",
    description:
      "Redis for the job queues and diffward's state: redis:// or rediss:// (TLS), with user and password in the URL for a managed Redis (redis://user:password@host:port/db).",
  },
  {
    name: "REDIS_CLUSTER_NODES",
    required: "optional",
    example: "redis-1:6379,redis-2:6379,redis-3:6379",
    description:
      "Redis Cluster seed nodes, host:port separated by commas (a redis:// or rediss:// URL among them gives the user, password and TLS of every node). When set, REDIS_URL is ignored.",
  },
  {
    name: "METRICS_TOKEN",
    required: "optional",
    description:
      "Bearer token for GET /metrics (Authorization: Bearer <token>). Secret. In production /metrics is served only with it or on METRICS_PORT.",
  },
  {
    name: "METRICS_PORT",
    required: "optional",
    example: "9464",
    description: "Serve /metrics on this port of its own instead of the webhook port.",
  },
  {
    name: "WEBHOOK_PROXY_URL",
    required: "optional",
    example: "https://smee.io/your-channel",
    description:
      "Development only: smee.io channel that forwards GitHub's webhooks to this machine (npm run proxy). Written by Probot's setup flow.",
  },
  {
    name: "SCANNER_API_URL",
    required: "production",
    example: "https://scanner.example.com/api/v1",
    description: "Base URL of the scanning service; must end in /api/v1.",
  },
  {
    name: "SCANNER_TOKEN",
    required: "production",
    description: "Bearer token of the scanning service (or SCANNER_TOKENS_FILE). Secret.",
  },
  {
    name: "SCANNER_TOKENS_FILE",
    required: "optional",
    example: "./scanner-tokens.json",
    description: "File of per-installation scanner tokens, instead of or besides SCANNER_TOKEN.",
  },
  {
    name: "SCANNER_DIFF_PRESET",
    required: "optional",
    default: "diff-standard",
    description: "Preset ref for pull request scans when .github/diffward.yml names none.",
  },
  {
    name: "SCANNER_GUIDANCE_FILE",
    required: "optional",
    default: "SCANNER.md",
    description: "Path of the guidance file the service reads from the repository (a .md file).",
  },
  {
    name: "SCANNER_PUBLIC_URL",
    required: "optional",
    example: "https://scanner.example.com",
    description:
      "Base URL of the service's web interface. The check run links each finding label to {url}/projects/{projectId}/findings/{findingId} and the scan to {url}/projects/{projectId}/scans/{scanId} (with disclosure: summary these links are the only way to a finding's details); links to it in finding text stay links. Unset: labels are shown without links.",
  },
  {
    name: "SCANNER_LABEL_PREFIX",
    required: "optional",
    default: "SC",
    description: "Two-letter prefix printed before finding labels.",
  },
  {
    name: "DIFFWARD_ROLE",
    required: "optional",
    default: "all",
    description: "Which part this process runs: web, worker or all.",
  },
  {
    name: "NODE_ENV",
    required: "optional",
    example: "production",
    description: "production makes the App and scanner settings required.",
  },
  {
    name: "WORKER_CONCURRENCY",
    required: "optional",
    default: "50",
    description: "Jobs each worker runs at once (1 to 1000).",
  },
];

/**
 * The content of `.env.example`: every variable of {@link ProcessEnv} with its description, whether it
 * is required, and its default. Secrets are left empty.
 */
export function renderEnvExample(): string {
  const lines = [
    "# diffward environment. Copy to .env and fill in. Generated by `npm run schema:config` from src/config/env.ts.",
    "# Empty values count as unset.",
  ];
  for (const v of ENV_VARIABLES) {
    const req =
      v.required === "production" ? " Required in production." : v.required === "always" ? " Required." : "";
    const def = v.default !== undefined ? ` Default: ${v.default}.` : "";
    const eg = v.required === "production" && v.example !== undefined ? ` Example: ${v.example}` : "";
    lines.push("", `# ${v.description}${req}${def}${eg}`);
    if (v.required === "production") lines.push(`${v.name}=`);
    else lines.push(`# ${v.name}=${v.default ?? v.example ?? ""}`);
  }
  return lines.join("\n") + "\n";
}

function messageOf(issue: z.core.$ZodIssue): string {
  if (issue.code === "invalid_value") return `must be one of ${issue.values.map(String).join(", ")}`;
  if (issue.code === "invalid_type") return `must be ${issue.expected}`;
  return issue.message;
}

/** Best-effort view of the raw variables when the schema failed, so cross-checks still run. */
function partial(
  env: Record<string, string | undefined>,
): Partial<Record<keyof ProcessEnv, string>> & { PRIVATE_KEY?: string } {
  const out: Record<string, string | undefined> = {};
  for (const key of Object.keys(ProcessEnv.shape)) {
    const v = env[key];
    out[key] = typeof v === "string" && v.trim() !== "" ? v : undefined;
  }
  return out;
}
