/**
 * The process environment: one zod schema, one loader, one error that lists every problem by variable
 * name. Secret values (private key, webhook secret, scanner token) never appear in an error message.
 */
import { existsSync, readFileSync } from "node:fs";
import { z } from "zod";
import { documented, httpUrl, intIn, opt, token, type EnvMeta } from "./env-parsers.js";
import { SETTING_VARIABLES, settingsFromEnv, type Settings } from "./settings.js";

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

const LOG_LEVELS = ["trace", "debug", "info", "warn", "error", "fatal", "silent"] as const;
const PEM = /^-----BEGIN ([A-Z ]*PRIVATE KEY)-----\r?\n[\s\S]+\r?\n-----END \1-----\s*$/;

/**
 * An origin as browsers reach it: `http(s)://host[:port]`, nothing after it (a trailing `/` is dropped), so
 * `<origin>/login/callback` is exactly the callback URL registered in the GitHub App's settings.
 */
const publicOrigin = httpUrl
  .refine((s) => {
    const u = new URL(s);
    return !u.username && !u.password && u.pathname === "/" && !/[?#]/.test(s);
  }, "must be a scheme and host (and port) only, e.g. https://diffward.example.com: no path, query or user")
  .transform((s) => new URL(s).origin);

/**
 * Every variable diffward reads, in the order `.env.example` and the README list them: its parser
 * (strings in, typed values out), its default and its documentation ({@link EnvMeta}). The process's own
 * variables are written here; the runtime settings' variables come last, from the settings table
 * (`SETTING_VARIABLES`, `settings.ts`). Cross-variable rules (one of PRIVATE_KEY / PRIVATE_KEY_PATH, setup
 * mode) are applied by {@link loadEnv}.
 */
export const ProcessEnv = z.object({
  APP_ID: documented(opt(z.string().regex(/^\d{1,12}$/, "must be the numeric GitHub App id")), {
    description: "GitHub App id. Leave unset in development to run Probot's setup flow.",
    examples: ["123456"],
    requiredInProduction: { message: "is required in production (the numeric GitHub App id)" },
  }),
  PRIVATE_KEY: documented(opt(z.string()), {
    description:
      "GitHub App private key, PEM text (newlines may be written as \\n). Or set PRIVATE_KEY_PATH.",
    requiredInProduction: {
      message: "is required: set PRIVATE_KEY (PEM text) or PRIVATE_KEY_PATH (a PEM file)",
      or: "PRIVATE_KEY_PATH",
    },
    secret: true,
  }),
  PRIVATE_KEY_PATH: documented(opt(z.string()), {
    description: "Path of the PEM private key file, instead of PRIVATE_KEY.",
    examples: ["./diffward.private-key.pem"],
  }),
  WEBHOOK_SECRET: documented(opt(z.string()), {
    description: "GitHub App webhook secret.",
    requiredInProduction: { message: "is required (the GitHub App's webhook secret)" },
    secret: true,
  }),
  // 0 picks a free port (tests)
  PORT: documented(opt(intIn(0, 65535)).default(3000), { description: "HTTP port of the web role." }),
  // unset: Probot's default
  HOST: documented(opt(z.string()), {
    description: "Address the web role listens on.",
    examples: ["0.0.0.0"],
  }),
  LOG_LEVEL: documented(opt(z.enum(LOG_LEVELS)).default("info"), {
    description: `Log level: ${LOG_LEVELS.join(", ")}.`,
  }),
  DIFFWARD_ROLE: documented(opt(z.enum(["web", "worker", "all"])).default("all"), {
    description: "Which part this process runs: web, worker or all.",
  }),
  NODE_ENV: documented(opt(z.string()), {
    description: "production makes the App and scanner settings required.",
    examples: ["production"],
  }),
  WORKER_CONCURRENCY: documented(opt(intIn(1, 1000)).default(50), {
    description: "Jobs each worker runs at once (1 to 1000).",
  }),
  GHE_HOST: documented(
    opt(
      z
        .string()
        .regex(
          /^[A-Za-z0-9.-]+(:\d+)?$/,
          "must be a host name without scheme or path, e.g. github.example.com",
        ),
    ),
    {
      description: "GitHub Enterprise Server host name; unset for github.com.",
      examples: ["github.example.com"],
    },
  ),
  GHE_PROTOCOL: documented(opt(z.enum(["https", "http"])).default("https"), {
    description: "Protocol of GHE_HOST: https or http.",
  }),
  REDIS_URL: documented(
    opt(
      z
        .string()
        .refine(
          (s) => URL.canParse(s) && /^rediss?:$/.test(new URL(s).protocol),
          "must be a redis:// or rediss:// URL",
        ),
    ).default("redis://127.0.0.1:6379"),
    {
      description:
        "Redis for the job queues and diffward's state: redis:// or rediss:// (TLS), with user and password in the URL for a managed Redis (redis://user:password@host:port/db).",
    },
  ),
  REDIS_CLUSTER_NODES: documented(
    opt(
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
    {
      description:
        "Redis Cluster seed nodes, host:port separated by commas (a redis:// or rediss:// URL among them gives the user, password and TLS of every node). When set, REDIS_URL is ignored.",
      examples: ["redis-1:6379,redis-2:6379,redis-3:6379"],
    },
  ),
  METRICS_TOKEN: documented(opt(token), {
    description:
      "Bearer token for GET /metrics (Authorization: Bearer <token>). Secret. In production /metrics is served only with it or on METRICS_PORT.",
    secret: true,
  }),
  METRICS_PORT: documented(opt(intIn(0, 65535)), {
    description:
      "Operations port: /metrics on a port of its own instead of the webhook port, with the probes /healthz and /readyz (the only HTTP port of a worker process).",
    examples: ["9464"],
  }),
  // Probot's convention; its setup flow writes the variable to `.env`
  WEBHOOK_PROXY_URL: documented(opt(httpUrl), {
    description:
      "Development only: smee.io channel that forwards GitHub's webhooks to this machine (npm run proxy). Written by Probot's setup flow.",
    examples: ["https://smee.io/your-channel"],
  }),
  // Probot's setup flow writes both from the App's manifest conversion (the App's OAuth client)
  GITHUB_CLIENT_ID: documented(opt(z.string().regex(/^[\w.-]{1,100}$/, "must be the App's client id")), {
    description:
      "The GitHub App's client id (App settings, \"Client ID\"). With GITHUB_CLIENT_SECRET it turns on the organization's page: sign in with GitHub, callback URL <DIFFWARD_PUBLIC_URL>/login/callback in the App's settings. Written by Probot's setup flow.",
    examples: ["Iv23liexample0123456"],
  }),
  GITHUB_CLIENT_SECRET: documented(opt(token), {
    description:
      "The GitHub App's client secret (App settings, \"Client secrets\"), for the organization's page sign-in. Secret. Written by Probot's setup flow.",
    secret: true,
  }),
  DIFFWARD_SESSION_SECRET: documented(opt(z.string().min(32, "must be at least 32 characters")), {
    description:
      "Key that signs the organization's page sessions and sign-in state (HMAC-SHA256), at least 32 characters (openssl rand -hex 32). Required in production when GITHUB_CLIENT_ID and GITHUB_CLIENT_SECRET are set; unset in development, each process makes one (sessions end when it restarts). Secret.",
    secret: true,
  }),
  // GitHub sends the user back to the redirect_uri sign-in names: built from this, never from a request's Host
  DIFFWARD_PUBLIC_URL: documented(opt(publicOrigin), {
    description:
      "The organization's page's public address as browsers reach it: scheme, host and port, no path. Sign-in sends GitHub <url>/login/callback as redirect_uri (the App's Callback URL, App settings); never built from a request's Host header. Required when GITHUB_CLIENT_ID and GITHUB_CLIENT_SECRET are set; https in production (the session cookie is Secure).",
    examples: ["https://diffward.example.com"],
  }),
  DIFFWARD_ADMIN_TOKEN: documented(opt(token), {
    description:
      "Bearer token for GET /audit, the audit trail of triage decisions as JSON Lines (Authorization: Bearer <token>), and for the whole deployment's queue depths on the organization's page (a signed-in page request that also sends it). Secret. Unset: /audit answers 404 and no page shows the deployment's figures.",
    secret: true,
  }),
  // spec §Versioning: the version segment `/api/v1` ends the base path
  SCANNER_API_URL: documented(
    opt(
      httpUrl
        .transform((s) => s.replace(/\/+$/, ""))
        .refine(
          (s) => new URL(s).pathname.endsWith("/api/v1"),
          "must end in /api/v1, e.g. https://scanner.example.com/api/v1",
        ),
    ),
    {
      description: "Base URL of the scanning service; must end in /api/v1.",
      examples: ["https://scanner.example.com/api/v1"],
      requiredInProduction: { message: "is required (the service's base URL ending in /api/v1)" },
    },
  ),
  // spec §Authentication: a bearer token
  SCANNER_TOKEN: documented(opt(token), {
    description: "Bearer token of the scanning service (or SCANNER_TOKENS_FILE). Secret.",
    requiredInProduction: {
      message: "is required: set SCANNER_TOKEN or SCANNER_TOKENS_FILE",
      or: "SCANNER_TOKENS_FILE",
    },
    secret: true,
  }),
  SCANNER_TOKENS_FILE: documented(opt(z.string()), {
    description: "File of per-installation scanner tokens, instead of or besides SCANNER_TOKEN.",
    examples: ["./scanner-tokens.json"],
  }),
  ...SETTING_VARIABLES,
});
export type ProcessEnv = z.infer<typeof ProcessEnv>;

/** The name of an environment variable diffward reads. */
export type EnvName = Extract<keyof ProcessEnv, string>;

/** Where {@link loadEnv}'s result names a variable other than by its camelCase name. */
const RENAMED = { DIFFWARD_ROLE: "role" } as const satisfies Partial<Record<EnvName, string>>;

/** `SCANNER_API_URL` → `scannerApiUrl`. */
type CamelCase<S extends string> = S extends `${infer Head}_${infer Tail}`
  ? `${Lowercase<Head>}${Capitalize<CamelCase<Tail>>}`
  : Lowercase<S>;

/** The key of a variable in {@link AppEnv}: camelCase, or its entry in `RENAMED`. */
export type EnvKey<N extends EnvName> = N extends keyof typeof RENAMED ? (typeof RENAMED)[N] : CamelCase<N>;

/** {@link EnvKey} at run time. */
export function envKey<N extends EnvName>(name: N): EnvKey<N> {
  const renamed = (RENAMED as Partial<Record<EnvName, string>>)[name];
  return (renamed ?? name.toLowerCase().replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())) as EnvKey<N>;
}

/**
 * The variables whose presence decides between {@link ReadyEnv} and {@link SetupEnv}: {@link loadEnv}
 * returns them itself (APP_ID as a number, the key read from either variable), not under {@link EnvKey}.
 */
const APP_VARIABLES = [
  "APP_ID",
  "PRIVATE_KEY",
  "PRIVATE_KEY_PATH",
  "WEBHOOK_SECRET",
  "SCANNER_API_URL",
] as const satisfies readonly EnvName[];
type AppVariable = (typeof APP_VARIABLES)[number];

/** The variables of the runtime settings: {@link loadEnv} returns them as `settings`, not under {@link EnvKey}. */
type SettingVariable = Extract<keyof typeof SETTING_VARIABLES, EnvName>;

/**
 * Every variable of the process (neither an App variable nor a setting's) parsed, under its {@link EnvKey};
 * `undefined` when unset without default.
 */
type ProcessValues = { [N in Exclude<EnvName, AppVariable | SettingVariable> as EnvKey<N>]: ProcessEnv[N] };

/** Fields every loaded environment has. */
interface EnvCommon extends ProcessValues {
  isProduction: boolean;
  /** the runtime settings the variables give (`settingsFromEnv`, `settings.ts`): durations in ms */
  settings: Settings;
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

/** One documented variable of {@link ENV_VARIABLES}. */
export interface EnvVariable extends EnvMeta {
  name: EnvName;
  /** the default as text (in `unit` for a duration), or undefined when there is none */
  default?: string;
}

/**
 * Every variable with its {@link EnvMeta} and default, in schema order, read from the JSON Schema of
 * {@link ProcessEnv}'s output (zod 4 `z.toJSONSchema` copies `.meta()` into each property).
 */
export const ENV_VARIABLES: readonly EnvVariable[] = (() => {
  const json = z.toJSONSchema(ProcessEnv, { io: "output", unrepresentable: "any" }) as {
    properties: Record<EnvName, EnvMeta & { default?: unknown }>;
  };
  return (Object.keys(ProcessEnv.shape) as EnvName[]).map((name) => {
    const { description, examples, unit, requiredInProduction, secret, default: def } = json.properties[name];
    return {
      name,
      description,
      ...(examples ? { examples } : {}),
      ...(unit ? { unit } : {}),
      ...(requiredInProduction ? { requiredInProduction } : {}),
      ...(secret ? { secret } : {}),
      ...(def !== undefined ? { default: String(def) } : {}),
    };
  });
})();

/** Variables whose values are secret: never echoed in errors or logs. */
export const SECRET_VARIABLES: readonly EnvName[] = ENV_VARIABLES.filter((v) => v.secret).map((v) => v.name);

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

  const privateKey = readPrivateKey(e, options, problems);
  problems.push(...signInProblems(e, isProduction, bad));

  if (!setupMode) {
    const raw = e as Partial<Record<EnvName, unknown>>;
    for (const { name, requiredInProduction: required } of ENV_VARIABLES) {
      const present =
        raw[name] !== undefined || (required?.or !== undefined && raw[required.or as EnvName] !== undefined);
      if (required && !present && !bad.has(name))
        problems.push({ variable: name, message: required.message });
    }
  }
  if (problems.length > 0 || !parsed.success)
    throw new EnvError(problems, envReferenceHint(options.exampleExists ?? existsSync(ENV_EXAMPLE_PATH)));

  const d = parsed.data;
  const own = (name: EnvName) =>
    !(APP_VARIABLES as readonly EnvName[]).includes(name) && !(name in SETTING_VARIABLES);
  const common = {
    ...(Object.fromEntries(
      (Object.keys(ProcessEnv.shape) as EnvName[]).filter(own).map((name) => [envKey(name), d[name]]),
    ) as unknown as ProcessValues),
    settings: settingsFromEnv(d),
  };
  if (setupMode) {
    return {
      ...common,
      isProduction,
      setupMode: true,
      appId: undefined,
      privateKey,
      webhookSecret: d.WEBHOOK_SECRET,
      scannerApiUrl: d.SCANNER_API_URL,
    };
  }
  return {
    ...common,
    isProduction,
    setupMode: false,
    appId: Number(d.APP_ID),
    privateKey: privateKey!,
    webhookSecret: d.WEBHOOK_SECRET!,
    scannerApiUrl: d.SCANNER_API_URL!,
  };
}

/**
 * The organization's page sign-in: on when both `GITHUB_CLIENT_ID` and `GITHUB_CLIENT_SECRET` are set (the
 * App's OAuth client), never half-configured. It then needs `DIFFWARD_PUBLIC_URL`, the origin of the callback
 * URL sent to GitHub (a request's `Host` header is the client's to choose), `https` in production; and in
 * production `DIFFWARD_SESSION_SECRET`, the key of its signed cookies (a key made per process would sign out
 * everyone at each restart and differ between web processes).
 */
function signInProblems(
  e: Partial<
    Record<
      "GITHUB_CLIENT_ID" | "GITHUB_CLIENT_SECRET" | "DIFFWARD_SESSION_SECRET" | "DIFFWARD_PUBLIC_URL",
      unknown
    >
  >,
  isProduction: boolean,
  bad: ReadonlySet<string>,
): EnvProblem[] {
  const id = e.GITHUB_CLIENT_ID !== undefined || bad.has("GITHUB_CLIENT_ID");
  const secret = e.GITHUB_CLIENT_SECRET !== undefined || bad.has("GITHUB_CLIENT_SECRET");
  if (id !== secret)
    return [
      {
        variable: id ? "GITHUB_CLIENT_SECRET" : "GITHUB_CLIENT_ID",
        message:
          "set both GITHUB_CLIENT_ID and GITHUB_CLIENT_SECRET (the App's OAuth client) to turn the organization's page on, or neither",
      },
    ];
  if (!id) return [];
  const problems: EnvProblem[] = [];
  const url = e.DIFFWARD_PUBLIC_URL;
  if (url === undefined && !bad.has("DIFFWARD_PUBLIC_URL"))
    problems.push({
      variable: "DIFFWARD_PUBLIC_URL",
      message:
        "is required when GITHUB_CLIENT_ID and GITHUB_CLIENT_SECRET are set: the organization's page's public address (e.g. https://diffward.example.com), from which sign-in builds its callback URL <url>/login/callback (register the same in the App's settings)",
    });
  else if (isProduction && typeof url === "string" && !url.startsWith("https:"))
    problems.push({
      variable: "DIFFWARD_PUBLIC_URL",
      message: "must be an https URL in production (the organization's page's session cookie is Secure)",
    });
  if (isProduction && e.DIFFWARD_SESSION_SECRET === undefined && !bad.has("DIFFWARD_SESSION_SECRET"))
    problems.push({
      variable: "DIFFWARD_SESSION_SECRET",
      message:
        "is required in production when GITHUB_CLIENT_ID and GITHUB_CLIENT_SECRET are set (the key of the organization's page sessions): at least 32 random characters, e.g. openssl rand -hex 32",
    });
  return problems;
}

/**
 * The app's private key: PRIVATE_KEY (with `\\n` for newlines) or the file at PRIVATE_KEY_PATH (read
 * synchronously, at startup), never both; it must be PEM text. Each problem is pushed to `problems` by
 * variable, and the key is then `undefined`. The value is never quoted.
 */
function readPrivateKey(
  e: { PRIVATE_KEY?: string | undefined; PRIVATE_KEY_PATH?: string | undefined },
  options: LoadEnvOptions,
  problems: EnvProblem[],
): string | undefined {
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
  return privateKey;
}

/**
 * The environment as safe log metadata: secrets replaced by `"[set]"` (or `undefined` when unset), so
 * startup can log where each setting came from without leaking a token.
 */
export function describeEnv(env: AppEnv): Record<string, unknown> {
  const out: Record<string, unknown> = { ...env };
  for (const name of SECRET_VARIABLES) {
    const key = envKey(name);
    out[key] = out[key] === undefined ? undefined : "[set]";
  }
  out.redisUrl = redactUrlPassword(env.redisUrl);
  out.redisClusterNodes = env.redisClusterNodes?.map(redactUrlPassword);
  if (env.scannerApiUrl) out.scannerApiUrl = redactUrlPassword(env.scannerApiUrl);
  if (env.settings.publicUrl)
    out.settings = { ...env.settings, publicUrl: redactUrlPassword(env.settings.publicUrl) };
  return out;
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
