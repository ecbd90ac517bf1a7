/**
 * The building blocks of environment variables: parsers from a variable's text to a typed value, and the
 * documentation each variable carries ({@link EnvMeta}, zod 4 `.meta()`). `env.ts` builds the process's
 * variables from them and `settings.ts` the variables of its runtime settings.
 */
import { z } from "zod";

/** The unit a duration is written in (a setting's default and variable; `settings.ts` converts to ms). */
export type DurationUnit = "ms" | "seconds" | "minutes" | "hours" | "days";

/**
 * What each variable's `.meta()` says; the one place a variable is documented. `.env.example`, the README
 * table (`ENV_VARIABLES` in `env.ts`), the required-in-production checks of `loadEnv` and the masking of
 * `describeEnv` all read it.
 */
export interface EnvMeta {
  /** one or two sentences for `.env.example` and the README */
  description: string;
  /** one sample value (JSON Schema `examples`), shown commented out in `.env.example` */
  examples?: readonly [string];
  /** the unit of a duration's value and default, shown after the default */
  unit?: DurationUnit;
  /**
   * Required unless Probot's setup flow runs (always in production): `message` is the problem reported
   * when it is missing, and the variable also counts as set when `or` (another variable) is set.
   */
  requiredInProduction?: { message: string; or?: string };
  /** the value is never logged nor quoted in an error */
  secret?: true;
}

/** Attaches a variable's documentation to its schema (zod 4 `.meta()`, stored in `z.globalRegistry`). */
export const documented = <T extends z.ZodType>(schema: T, meta: EnvMeta): T => schema.meta({ ...meta });

/** Empty strings count as unset (`FOO=` in a .env file). */
export const opt = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (typeof v === "string" && v.trim() === "" ? undefined : v), schema.optional());

/** A whole number from `min` to `max`, written in decimal. */
export const intIn = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, `must be a whole number from ${min} to ${max}`)
    .transform(Number)
    .pipe(z.int().min(min, `must be from ${min} to ${max}`).max(max, `must be from ${min} to ${max}`));

/** An http(s) URL. */
export const httpUrl = z
  .string()
  .refine((s) => URL.canParse(s) && /^https?:$/.test(new URL(s).protocol), "must be an http(s) URL");

/** A token: no whitespace (a pasted newline would break the `Authorization` header). */
export const token = z.string().refine((s) => !/\s/.test(s), "must not contain spaces or newlines");
