import { describe, expect, expectTypeOf, it } from "vitest";
import { ENV_VARIABLES, ProcessEnv, loadEnv } from "../../src/config/env.js";
import {
  DEFAULT_SETTINGS,
  SETTINGS,
  SETTING_VARIABLES,
  settingsFromEnv,
  type SettingRow,
  type Settings,
} from "../../src/config/settings.js";

const rows = Object.entries(SETTINGS) as [keyof Settings, SettingRow][];

describe("the settings table", () => {
  it("gives every default, durations in ms", () => {
    expect(DEFAULT_SETTINGS).toEqual({
      defaultPreset: "diff-standard",
      labelPrefix: "SC",
      guidanceFile: "SCANNER.md",
      pollMarginMs: 200,
      progressIntervalMs: 10_000,
      firstPollDelayMs: 1_000,
      pollFloorMs: 1_000,
      initializingWindowMs: 30 * 60_000,
      initializingBaseDelayMs: 15_000,
      settleDelayMs: 30_000,
      reportAttempts: 10,
      reportBackoffMs: 1_000,
      tokenGapWaitMs: 10 * 60_000,
      redeliveryIntervalMs: 5 * 60_000,
      redeliveryWindowMs: 72 * 3_600_000,
      redeliveryMaxPerRun: 50,
      redeliveryMaxPages: 20,
      redeliveryAttempts: 3,
      redeliveryPendingMs: 10 * 60_000,
      redeliveryPaceMs: 1_000,
      serviceOutageMaxWaitMs: 60 * 60_000,
      writeRetryDelaysMs: [5_000, 20_000, 60_000],
      auditRetentionMs: 400 * 86_400_000,
    });
    expect(DEFAULT_SETTINGS).not.toHaveProperty("publicUrl");
  });

  it("states a unit exactly for the durations (the keys ending in Ms)", () => {
    for (const [key, row] of rows) expect(row.unit !== undefined, key).toBe(key.endsWith("Ms"));
  });

  it("each default is a value of its row's schema", () => {
    for (const [key, row] of rows) {
      if (row.default === undefined) continue;
      const text = row.env ? String(row.default) : row.default;
      expect(row.schema.safeParse(text).success, key).toBe(true);
    }
  });

  it("types a setting without default as optional, a list of durations as read-only", () => {
    expectTypeOf<Settings["publicUrl"]>().toEqualTypeOf<string | undefined>();
    expectTypeOf<Settings["writeRetryDelaysMs"]>().toEqualTypeOf<readonly number[]>();
    expectTypeOf<Settings["labelPrefix"]>().toEqualTypeOf<string>();
  });
});

describe("the settings' variables", () => {
  const withVariable = rows.filter(([, row]) => row.env);

  it("are in the environment schema, documented by their row: description, default and unit", () => {
    expect(withVariable.length).toBeGreaterThanOrEqual(10);
    for (const [key, row] of withVariable) {
      const name = row.env!.name;
      expect(ProcessEnv.shape, key).toHaveProperty([name]);
      expect(Object.keys(SETTING_VARIABLES)).toContain(name);
      const v = ENV_VARIABLES.find((e) => e.name === name)!;
      expect(v, name).toMatchObject({
        description: row.description,
        ...(row.default === undefined ? {} : { default: String(row.default) }),
      });
      expect(v.unit, name).toBe(row.unit);
      expect(v.examples, name).toEqual(row.env!.examples);
    }
  });

  it("are converted from their unit once: loadEnv gives the settings in ms", () => {
    const env = loadEnv({
      DIFFWARD_REDELIVERY_INTERVAL_SECONDS: "7",
      DIFFWARD_SERVICE_OUTAGE_MAX_WAIT: "5",
      DIFFWARD_AUDIT_RETENTION_DAYS: "3",
      DIFFWARD_REDELIVERY_MAX_PAGES: "4",
      SCANNER_PUBLIC_URL: "https://scanner.example.com/",
    });
    expect(env.settings).toEqual({
      ...DEFAULT_SETTINGS,
      redeliveryIntervalMs: 7_000,
      serviceOutageMaxWaitMs: 5 * 60_000,
      auditRetentionMs: 3 * 86_400_000,
      redeliveryMaxPages: 4,
      publicUrl: "https://scanner.example.com",
    });
  });

  it("unset, give the defaults", () => {
    expect(settingsFromEnv({})).toEqual(DEFAULT_SETTINGS);
    expect(settingsFromEnv(ProcessEnv.parse({}))).toEqual(DEFAULT_SETTINGS);
  });
});
