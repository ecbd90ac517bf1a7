/**
 * diffward's runtime settings, the values jobs read as `rt.settings`: one table, {@link SETTINGS}. A row gives
 * what the setting means, the unit of a duration, its default in that unit, the schema of its value and, for
 * the settings an operator may change, its environment variable. From the table derive:
 * - the {@link Settings} type and {@link DEFAULT_SETTINGS};
 * - {@link SETTING_VARIABLES}, the settings' part of the environment schema (`env.ts`), and from it the
 *   `.env.example` and README rows (`env-docs.ts`);
 * - {@link settingsFromEnv}, the settings a parsed environment gives (the boot mapping).
 *
 * Units: a row's default and its variable are written in the row's `unit`; in {@link Settings} every duration
 * is in milliseconds (its key ends in `Ms`), converted in one place ({@link inSettingsUnit}).
 */
import { z } from "zod";
import { documented, httpUrl, intIn, opt, type DurationUnit } from "./env-parsers.js";

/** One row of {@link SETTINGS}. */
export interface SettingRow {
  /** what the setting means: the variable's description in `.env.example` and the README */
  description: string;
  /** the unit `default` and the variable are written in, for a duration (`Settings` holds it in ms) */
  unit?: DurationUnit;
  /** the default, in `unit`; `undefined`: unset unless configured (what it enables is off) */
  default: unknown;
  /** the value, in `unit`: for a row with a variable, the parser of the variable's text */
  schema: z.ZodType;
  /** the environment variable that sets it; none: only code sets it (tests shorten waits) */
  env?: { name: string; examples?: readonly [string] };
}

const count = z.int().min(0);

/** Every runtime setting; rows with a variable first, in the order `.env.example` and the README list them. */
export const SETTINGS = {
  defaultPreset: {
    description: "Preset ref for pull request scans when .github/diffward.yml names none.",
    default: "diff-standard",
    schema: z.string().regex(/^\S{1,200}$/, "must be a preset ref without spaces"),
    env: { name: "SCANNER_DIFF_PRESET" },
  },
  // spec §Guidance: a file named after the service, `.md`; the spec does not give the service's name
  guidanceFile: {
    description: "Path of the guidance file the service reads from the repository (a .md file).",
    default: "SCANNER.md",
    schema: z
      .string()
      .refine(
        (s) => !s.startsWith("/") && !s.split("/").includes("..") && s.toLowerCase().endsWith(".md"),
        "must be a relative path inside the repository ending in .md",
      ),
    env: { name: "SCANNER_GUIDANCE_FILE" },
  },
  publicUrl: {
    description:
      "Base URL of the service's web interface. The check run links each finding label to {url}/projects/{projectId}/findings/{findingId} and the scan to {url}/projects/{projectId}/scans/{scanId} (with disclosure: summary these links are the only way to a finding's details); links to it in finding text stay links. Unset: labels are shown without links.",
    default: undefined,
    schema: httpUrl.transform((s) => s.replace(/\/+$/, "")),
    env: { name: "SCANNER_PUBLIC_URL", examples: ["https://scanner.example.com"] },
  },
  // spec §Finding label
  labelPrefix: {
    description: "Two-letter prefix printed before finding labels.",
    default: "SC",
    schema: z
      .string()
      .regex(/^[A-Za-z]{2}$/, "must be two letters")
      .transform((s) => s.toUpperCase()),
    env: { name: "SCANNER_LABEL_PREFIX" },
  },
  // GitHub never redelivers a failed delivery on its own (docs: "Handling failed webhook deliveries")
  redeliveryIntervalMs: {
    description:
      "How often workers check the App's webhook deliveries for events diffward missed (down, restarting) and ask GitHub to redeliver them; also once at start-up. 0 turns the recovery off.",
    unit: "seconds",
    default: 300,
    schema: intIn(0, 86_400),
    env: { name: "DIFFWARD_REDELIVERY_INTERVAL_SECONDS" },
  },
  // GitHub redelivers deliveries of the past 3 days only (docs: "Redelivering webhooks")
  redeliveryWindowMs: {
    description:
      "How far back missed deliveries are looked for and redelivered (at most 72 hours, GitHub's redelivery window).",
    unit: "hours",
    default: 72,
    schema: intIn(1, 72),
    env: { name: "DIFFWARD_REDELIVERY_WINDOW_HOURS" },
  },
  redeliveryMaxPerRun: {
    description:
      "Redeliveries one check asks GitHub for at most (one a second); the rest wait for the next check.",
    default: 50,
    schema: intIn(1, 1000),
    env: { name: "DIFFWARD_REDELIVERY_MAX_PER_RUN" },
  },
  redeliveryMaxPages: {
    description:
      "Pages of 100 deliveries one check lists at most (GitHub API requests as the App); the next check goes on where it stopped.",
    default: 20,
    schema: intIn(1, 1000),
    env: { name: "DIFFWARD_REDELIVERY_MAX_PAGES" },
  },
  serviceOutageMaxWaitMs: {
    description:
      "How long a pull request's check waits for an unavailable scanning service (5xx, timeout, no answer); past it the check concludes by the repository's onServiceOutage (failure or neutral).",
    unit: "minutes",
    default: 60,
    schema: intIn(1, 10_080),
    env: { name: "DIFFWARD_SERVICE_OUTAGE_MAX_WAIT" },
  },
  // `src/stores/audit-log.ts` trims older entries at each append
  auditRetentionMs: {
    description:
      "How long the audit trail of triage decisions keeps an entry; older entries are trimmed as new ones are appended.",
    unit: "days",
    default: 400,
    schema: intIn(1, 36_500),
    env: { name: "DIFFWARD_AUDIT_RETENTION_DAYS" },
  },
  pollMarginMs: {
    description: "Added to every `Retry-After` wait for clock differences (at most 250 ms).",
    unit: "ms",
    default: 200,
    schema: z.int().min(0).max(250),
  },
  progressIntervalMs: {
    description: "The least time between two progress updates of one check run.",
    unit: "seconds",
    default: 10,
    schema: count,
  },
  firstPollDelayMs: {
    description:
      "Wait before the first poll of a freshly launched scan when no `Retry-After` is known (at least 1 second).",
    unit: "ms",
    default: 1_000,
    schema: count,
  },
  // spec §Scans, `GET /projects/{projectId}/scans/{scanId}`: `Retry-After` is whole seconds
  pollFloorMs: {
    description:
      "The least wait between two reads of one running scan, so a `Retry-After` of 0 or none waits this floor. Only tests lower it (with the sandbox's `retryAfterSeconds: 0`), to run many lifecycles quickly.",
    unit: "ms",
    default: 1_000,
    schema: count,
  },
  initializingWindowMs: {
    description: "How long a launch keeps retrying `repository_initializing`.",
    unit: "minutes",
    default: 30,
    schema: count,
  },
  initializingBaseDelayMs: {
    description: "First wait after `repository_initializing`; it doubles per try, at most 5 minutes.",
    unit: "seconds",
    default: 15,
    schema: count,
  },
  settleDelayMs: {
    description: "Wait between two looks at the ledger for a reported scan's settlement.",
    unit: "seconds",
    default: 30,
    schema: count,
  },
  reportAttempts: {
    description: "Attempts of one report job before its check run is concluded `failure`.",
    default: 10,
    schema: z.int().min(1),
  },
  reportBackoffMs: {
    description:
      "First wait between report attempts, doubling each time (1 second: 10 attempts span about 17 minutes).",
    unit: "ms",
    default: 1_000,
    schema: count,
  },
  tokenGapWaitMs: {
    description:
      "How long a poll or report job waits for its account's scanner token to come back (a tokens file being rewritten, an entry removed for a moment) before it concludes the check run.",
    unit: "minutes",
    default: 10,
    schema: count,
  },
  redeliveryAttempts: {
    description: "Redeliveries of one event before diffward gives up on it.",
    default: 3,
    schema: z.int().min(1),
  },
  redeliveryPendingMs: {
    description:
      "How long after a redelivery was asked for a listing of the deliveries must begin to tell whether it succeeded: the event is not redelivered again until such a listing has ended.",
    unit: "minutes",
    default: 10,
    schema: count,
  },
  // GitHub's pace for mutative requests: docs "Best practices for using the REST API"
  redeliveryPaceMs: {
    description: "The least time between two redelivery requests.",
    unit: "ms",
    default: 1_000,
    schema: count,
  },
  // `src/runtime/apply-writes.ts`
  writeRetryDelaysMs: {
    description:
      "Waits before sending again a check-run update, review-comment update or SARIF upload GitHub answered with a 5xx after Octokit's own retries.",
    unit: "seconds",
    default: [5, 20, 60],
    schema: z.array(count).readonly(),
  },
} as const satisfies Record<string, SettingRow>;

type Table = typeof SETTINGS;

/** The name of a runtime setting. */
export type SettingKey = keyof Table;

/** Each setting's value as {@link Settings} holds it (a duration in ms: same type, converted value). */
type Values = { [K in SettingKey]: z.output<Table[K]["schema"]> };

/** The settings whose row has no default. */
type Unset = { [K in SettingKey]: Table[K]["default"] extends undefined ? K : never }[SettingKey];

/**
 * App-wide settings the jobs read (`rt.settings`), one field per row of {@link SETTINGS}: durations in ms, a
 * setting without default optional.
 */
export type Settings = Pick<Values, Exclude<SettingKey, Unset>> & Partial<Pick<Values, Unset>>;

const MS_PER: Readonly<Record<DurationUnit, number>> = {
  ms: 1,
  seconds: 1_000,
  minutes: 60_000,
  hours: 3_600_000,
  days: 86_400_000,
};

/** A row's value, written in its `unit`, as {@link Settings} holds it: a duration (or each of a list) in ms. */
function inSettingsUnit(value: unknown, unit: DurationUnit | undefined): unknown {
  if (unit === undefined) return value;
  const ms = MS_PER[unit];
  return Array.isArray(value) ? value.map((v: number) => v * ms) : (value as number) * ms;
}

/**
 * The settings a parsed environment gives, keyed by variable name (`ProcessEnv`'s output): each row's variable
 * when set, else its default, in {@link Settings}' units. A row without a variable takes its default.
 */
export function settingsFromEnv(env: Readonly<Record<string, unknown>>): Settings {
  const rows = Object.entries(SETTINGS) as [SettingKey, SettingRow][];
  return Object.fromEntries(
    rows.flatMap(([key, row]) => {
      const value = (row.env ? env[row.env.name] : undefined) ?? row.default;
      return value === undefined ? [] : [[key, inSettingsUnit(value, row.unit)]];
    }),
  ) as Settings;
}

/** Every setting at its default (rows in their unit, converted). */
export const DEFAULT_SETTINGS: Settings = settingsFromEnv({});

type EnvKeyOf<K extends SettingKey> = Table[K] extends { env: { name: infer N extends string } } ? N : never;

/** The variables of {@link SETTINGS}: each a schema from the variable's text to its value, in its unit. */
export type SettingVariables = {
  [K in SettingKey as EnvKeyOf<K>]: z.ZodType<
    Table[K]["default"] extends undefined ? Values[K] | undefined : Values[K]
  >;
};

/**
 * The settings' part of the environment schema, in table order: each variable parsed by its row's schema
 * (empty counts as unset), with the row's default, description, example and unit as `.meta()`.
 */
export const SETTING_VARIABLES: SettingVariables = Object.fromEntries(
  (Object.values(SETTINGS) as SettingRow[]).flatMap(({ env, schema, description, unit, default: def }) => {
    if (!env) return [];
    const parsed = opt(schema);
    const variable = def === undefined ? parsed : parsed.default(def as never);
    return [
      [
        env.name,
        documented(variable, {
          description,
          ...(env.examples ? { examples: env.examples } : {}),
          ...(unit ? { unit } : {}),
        }),
      ],
    ];
  }),
  // Object.fromEntries loses the keys; the entries are exactly the rows with a variable
) as unknown as SettingVariables;
