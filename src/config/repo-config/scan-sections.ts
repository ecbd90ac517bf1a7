/**
 * The sections of `.github/diffward.yml` that decide whether a pull request is scanned and what scans may
 * spend: `guidance`, `paths`, `authors`, `creditCap`.
 */
import { z } from "zod";
import { section } from "./fields.js";

/** A GitHub login (a letter or digit, then letters, digits and hyphens), a bot's with its `[bot]` suffix. */
const GITHUB_LOGIN = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:\[bot\])?$/;

export const GuidanceConfig = section("The scanning guidance file committed in the repository.", {
  onChange: z
    .enum(["warn", "require-approval"])
    .default("warn")
    .describe(
      'When a pull request edits the guidance file (the PR\'s own guidance steers its scan): `warn` flags it prominently in the check run; `require-approval` holds the scan (check run `action_required`) until a user at or above `commands.minPermission` clicks "Scan anyway".',
    ),
});

export const PathsConfig = section("Paths that need no scan.", {
  ignore: z
    .array(z.string().min(1).max(500))
    .max(200)
    .default([])
    .describe(
      "Glob patterns (picomatch syntax), e.g. `docs/**`: a pull request whose changed files all match is not scanned and concludes `neutral` saying why.",
    ),
});

export const AuthorsConfig = section("Pull request authors.", {
  skip: z
    .array(z.string().regex(GITHUB_LOGIN, "must be a GitHub login"))
    .max(200)
    .default([])
    .describe("GitHub logins whose pull requests are not scanned, e.g. `dependabot[bot]`."),
});

export const CreditCapConfig = section("Spending caps, in credits.", {
  monthly: z
    .int()
    .min(1)
    .optional()
    .describe(
      "Most credits diffward launches may spend on this repository per calendar month (UTC); no cap when omitted.",
    ),
});
