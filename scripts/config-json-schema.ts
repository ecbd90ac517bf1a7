/**
 * `npm run schema:config`: writes the JSON Schema of `.github/diffward.yml` to
 * `schema/diffward.schema.json`, the environment template to `.env.example`, and the README's two
 * reference tables (`.github/diffward.yml` fields, environment variables), all derived from the zod
 * schemas in `src/config/`. With `--reference` it prints the config reference table instead.
 * `test/config/generated.test.ts` fails when any of them is stale.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { format, resolveConfig } from "prettier";
import {
  CONFIG_SCHEMA_PATH,
  renderConfigJsonSchema,
  renderConfigReference,
  withConfigReference,
} from "../src/config/json-schema.js";
import { ENV_EXAMPLE_PATH } from "../src/config/env.js";
import { renderEnvExample, withEnvReference } from "../src/config/env-docs.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

if (process.argv.includes("--reference")) {
  process.stdout.write(renderConfigReference());
} else {
  for (const [path, text] of [
    [CONFIG_SCHEMA_PATH, renderConfigJsonSchema()],
    [ENV_EXAMPLE_PATH, renderEnvExample()],
  ] as const) {
    const target = resolve(root, path);
    mkdirSync(dirname(target), { recursive: true });
    // formatted like the rest of the tree, so `npm run format` and this script never fight
    const formatted = path.endsWith(".json")
      ? await format(text, { ...(await resolveConfig(target)), filepath: target })
      : text;
    writeFileSync(target, formatted);
    console.log(`wrote ${path}`);
  }
  const readme = resolve(root, "README.md");
  writeFileSync(readme, withEnvReference(withConfigReference(readFileSync(readme, "utf8"))));
  console.log("wrote the configuration and environment references in README.md");
}
