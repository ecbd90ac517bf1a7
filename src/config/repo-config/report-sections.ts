/**
 * The sections of `.github/diffward.yml` that decide where a scan's findings are posted besides the check
 * run: `comments` (inline review comments) and `codeScanning` (GitHub code scanning alerts).
 */
import { z } from "zod";
import { SeverityLevel, section } from "./fields.js";

export const CommentsConfig = section("Inline review comments.", {
  maxInline: z
    .int()
    .min(0)
    .max(100)
    .default(20)
    .describe(
      "Most inline review comments per scan (0 to 100); further findings appear in the check run only.",
    ),
  // default `low`: INFO findings stay out of the diff so they do not crowd it
  minSeverity: SeverityLevel.default("low").describe(
    "Least severe finding that gets an inline review comment; `info` means every finding. INFO findings are in the check run either way.",
  ),
});

export const CodeScanningConfig = section("GitHub code scanning.", {
  // never with disclosure `summary`: code scanning alerts are visible to everyone with read access
  upload: z
    .boolean()
    .default(false)
    .describe(
      "Upload each completed report's open findings to GitHub code scanning (SARIF, tool `diffward`), where dismissals and reopenings stay in step with the finding's resolution. Needs the app's `security_events` permission; nothing is uploaded when the effective `disclosure` is `summary`.",
    ),
});
