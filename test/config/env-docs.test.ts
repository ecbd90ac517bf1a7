import { describe, expect, it } from "vitest";
import { ENV_VARIABLES } from "../../src/config/env.js";
import { renderEnvExample, renderEnvReference, withEnvReference } from "../../src/config/env-docs.js";

describe("renderEnvExample", () => {
  const text = renderEnvExample();

  it("leaves the variables required in production empty and uncommented, with their example", () => {
    expect(text).toContain(
      "# GitHub App id. Leave unset in development to run Probot's setup flow. Required in production. Example: 123456\nAPP_ID=\n",
    );
    expect(text).toMatch(/^WEBHOOK_SECRET=$/m);
    expect(text).not.toMatch(/^PORT=/m);
  });

  it("comments out every other variable with its default (and unit), else its example", () => {
    expect(text).toContain("# HTTP port of the web role. Default: 3000.\n# PORT=3000\n");
    expect(text).toContain("# HOST=0.0.0.0\n");
    expect(text).toContain("# METRICS_TOKEN=\n");
    expect(text).toMatch(/ Default: 300 seconds\.\n# DIFFWARD_REDELIVERY_INTERVAL_SECONDS=300\n/);
    const uncommented = text.split("\n").filter((l) => /^[A-Z_]+=/.test(l));
    expect(uncommented.map((l) => l.slice(0, -1))).toEqual(
      ENV_VARIABLES.filter((v) => v.requiredInProduction).map((v) => v.name),
    );
  });
});

describe("renderEnvReference", () => {
  const table = renderEnvReference();
  const rows = table.trim().split("\n");

  it("has a header and one row per variable, in schema order", () => {
    expect(rows[0]).toBe("| Variable | Required | Default | Unit | Example | Description |");
    expect(rows.slice(2).map((r) => r.split(" | ")[0])).toEqual(ENV_VARIABLES.map((v) => `| \`${v.name}\``));
  });

  it("says when a variable is required, its default, its unit and its example", () => {
    expect(table).toContain(
      "| `PRIVATE_KEY` | in production (or `PRIVATE_KEY_PATH`) |  |  |  | GitHub App private key",
    );
    expect(table).toContain("| `APP_ID` | in production |  |  | `123456` |");
    expect(table).toContain("| `REDIS_URL` | no | `redis://127.0.0.1:6379` |  |  |");
    expect(table).toContain("| `DIFFWARD_SERVICE_OUTAGE_MAX_WAIT` | no | `60` | minutes |  |");
  });

  it("escapes what GitHub would read as HTML or as a cell border", () => {
    expect(table).toContain("Authorization: Bearer &lt;token>");
    for (const row of rows) expect(row.split(/(?<!\\)\|/).length, row).toBe(8);
  });
});

describe("withEnvReference", () => {
  const markers = (body: string) =>
    `intro\n<!-- env-reference:start (generated) -->\n${body}<!-- env-reference:end -->\noutro\n`;

  it("replaces only the text between the markers", () => {
    expect(withEnvReference(markers("stale\n"))).toBe(markers(renderEnvReference()));
  });

  it("throws when the README has no markers", () => {
    expect(() => withEnvReference("no table here\n")).toThrow("README.md has no env-reference markers");
  });
});
