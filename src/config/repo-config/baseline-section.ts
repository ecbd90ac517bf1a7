/**
 * The `baseline` section of `.github/diffward.yml`.
 */
import { z } from "zod";
import { SCHEDULE_PATTERN, scheduleProblem } from "../schedule.js";
import { CreditBudget, ServiceRef, section } from "./fields.js";

/**
 * `baseline`: scans of the default branch's commits with a whole-repository (non-diff) preset, reported
 * on the commit and, with `codeScanning.upload`, uploaded for `refs/heads/<default branch>` so GitHub can
 * compare pull requests with the base branch. `preset` is required unless `on: off`; whether it is a diff
 * preset is checked against the service when a baseline starts (spec §Scan preset (scan type)).
 */
const SCHEDULE_REGEX = new RegExp(SCHEDULE_PATTERN);

export const BaselineConfig = section("Default-branch baseline scans; off when absent.", {
  on: z
    .enum(["push", "schedule", "off"])
    .default("off")
    .describe(
      "When the default branch gets a baseline scan: `push` (each push to it, debounced by `debounceSeconds`; a newer push cancels the running baseline of an older commit), `schedule` (by `baseline.schedule`, skipped when the branch head already has one), or `off`.",
    ),
  schedule: z
    .string()
    .regex(SCHEDULE_REGEX, "must be daily, weekly or a 5-field cron expression")
    .default("weekly")
    .describe(
      "With `on: schedule`: `daily`, `weekly` (each at a time picked per repository) or a 5-field cron expression (minute hour day-of-month month day-of-week), all in UTC.",
    ),
  // a diff preset needs `baseCommit`, which a baseline has not
  preset: ServiceRef.optional().describe(
    "Scan preset ref of baseline scans: a whole-repository (non-diff) preset from the service's presets list. Required unless `on: off`.",
  ),
  creditBudget: CreditBudget.optional().describe(
    "Most credits one baseline scan may spend. When omitted the service picks its recommended budget.",
  ),
})
  .superRefine((b, ctx) => {
    if (b.on !== "off" && b.preset === undefined)
      ctx.addIssue({
        code: "custom",
        path: ["preset"],
        message: `is required with \`on: ${b.on}\` (a whole-repository preset ref from the service's presets list)`,
      });
    // a schedule of the wrong shape already has its issue (the pattern): the ranges are checked on the rest
    const problem = SCHEDULE_REGEX.test(b.schedule) ? scheduleProblem(b.schedule) : undefined;
    if (problem) ctx.addIssue({ code: "custom", path: ["schedule"], message: problem });
  })
  // the same rule for editors: `preset` is required unless `on: off`
  .meta({
    if: { properties: { on: { enum: ["push", "schedule"] } }, required: ["on"] },
    then: { required: ["preset"] },
  });
export type BaselineConfig = z.infer<typeof BaselineConfig>;
