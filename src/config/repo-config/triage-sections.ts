/**
 * The sections of `.github/diffward.yml` about acting on findings from the pull request: `commands` (who
 * may run slash commands) and `triage` (two-person dismissals, acceptances and their expiry).
 */
import { z } from "zod";
import { SeverityLevel, section } from "./fields.js";
import { MinPermission } from "./permissions.js";

export const CommandsConfig = section("Slash commands in pull request comments.", {
  minPermission: MinPermission.default("write").describe(
    "Least repository role (read, triage, write, maintain, admin) needed to run slash commands that change something; /help and /diffward status are open to everyone.",
  ),
  publishPermission: MinPermission.optional().describe(
    "Least repository role needed to publish a finding (`/publish`, an irreversible public artifact); never below `minPermission`. When omitted: `admin` on private repositories, and publishing is off on public repositories.",
  ),
});

/**
 * `triage.approval`: two-person dismissals. A dismissal (any resolution that stops a finding from blocking:
 * `RESOLVED`, `MITIGATED`, `WONT_FIX`, `FALSE_POSITIVE`, `DUPLICATE`; src/domain/dismissal-approval.ts) of a finding at
 * or above `minSeverity` by a user below `approvers` is held as a request until a different user at or above
 * `approvers` approves it; the pattern of GitHub's delegated alert dismissal
 * (https://docs.github.com/en/code-security/code-scanning/managing-your-code-scanning-configuration/enabling-delegated-alert-dismissal-for-code-scanning).
 * With `codeowners`, the approver must also own the finding's file in CODEOWNERS
 * (https://docs.github.com/en/repositories/managing-your-repositorys-settings-and-features/customizing-your-repository/about-code-owners).
 */
export const ApprovalConfig = section("Two-person dismissals; off when absent.", {
  minSeverity: SeverityLevel.default("high").describe(
    "Dismissals (resolved, mitigated, won't fix, false positive, duplicate: every resolution that stops a finding from blocking) of findings at or above this severity need a second person's `/approve`.",
  ),
  approvers: MinPermission.default("maintain").describe(
    "Least repository role (read, triage, write, maintain, admin) of the approver; a user at or above it dismisses without approval.",
  ),
  codeowners: z
    .boolean()
    .default(false)
    .describe(
      "An approver must also be a code owner of the finding's file (CODEOWNERS of the pull request's base branch, read as GitHub reads it; a team owner counts its active members). A file without a code owner, an invalid CODEOWNERS, one over GitHub's 3 MB, or team membership the app may not read (`members: read`) leaves the role rule alone, and the held message says why.",
    ),
  notify: z
    .boolean()
    .default(false)
    .describe(
      "With `codeowners`, @-mention the code owners of the finding's file once, in the message that holds the dismissal; otherwise they are named without a mention.",
    ),
});
export type ApprovalConfig = z.infer<typeof ApprovalConfig>;

/** The resolution statuses that accept a finding's risk and may carry an expiry (`/wontfix`, `/mitigate`). */
export const ACCEPTANCE_STATUSES = ["WONT_FIX", "MITIGATED"] as const;
export type AcceptanceStatus = (typeof ACCEPTANCE_STATUSES)[number];

export const TriageConfig = section("Triage from the pull request.", {
  approval: ApprovalConfig.optional(),
  maxAcceptanceDays: z
    .number()
    .int()
    .min(1)
    .max(3650)
    .default(365)
    .describe(
      "Longest expiry, in days from the command, of an acceptance (`/wontfix … until <date>` or `for <N>d`, also `/mitigate`); a later date is refused with this rule.",
    ),
  requireExpiry: z
    .array(z.enum(ACCEPTANCE_STATUSES))
    .default([])
    .describe(
      "Resolution statuses (`WONT_FIX`, `MITIGATED`) whose acceptance must carry an expiry (`until <date>` or `for <N>d`); one without it is refused.",
    ),
});
