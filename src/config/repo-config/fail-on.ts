/**
 * `failOn`: the threshold of open findings that makes the check run fail, as a severity alone or in full
 * with the findings it applies to. One blocking rule reads it (src/domain/verdict.ts).
 */
import { z } from "zod";
import { section } from "./fields.js";

/** Severity thresholds: the service's levels (spec §Finding (list item)) in lower case, plus `none`. */
export const FailOn = z.enum(["critical", "high", "medium", "low", "info", "none"]);
export type FailOn = z.infer<typeof FailOn>;

/**
 * `failOn` written in full: the threshold and which findings it applies to. `only: new` leaves out the
 * findings already open on the base branch's last completed baseline (the same fingerprint,
 * src/domain/baseline.ts); with no such baseline every finding counts, as with `only: all`.
 */
export const FailOnRule = section("The threshold and which findings it applies to.", {
  severity: FailOn.default("high").describe(
    "Least severe open finding that makes the check run fail; `none` never fails it.",
  ),
  only: z
    .enum(["all", "new"])
    .default("all")
    .describe(
      "`all`: every open finding counts; `new`: only findings not already open on the base branch's last completed baseline (`baseline:`) count, pre-existing ones are listed but do not fail the check. Without a completed baseline of the base branch every finding counts.",
    ),
});
export type FailOnRule = z.infer<typeof FailOnRule>;

/** `failOn` as written: a threshold alone (`high`, every finding counts) or a {@link FailOnRule}. */
export const FailOnSetting = z.union([FailOn, FailOnRule]);
export type FailOnSetting = z.infer<typeof FailOnSetting>;
