import { z } from "zod";

/** The guidance file's change in this pull request, in lines (GitHub "List pull requests files": its entry). */
export const GuidanceChange = z.object({
  additions: z.number(),
  deletions: z.number(),
  /** the file entry's `status` (`added`, `modified`, `removed`, …) */
  status: z.string(),
});
export type GuidanceChange = z.infer<typeof GuidanceChange>;

/** The outcome of the spend and safety gates before any credit is reserved. */
export type Gate =
  | { kind: "scan"; guidanceChange?: GuidanceChange }
  | { kind: "skip"; reason: "authors-skip" | "paths-ignore" | "fork-skip"; detail: string }
  | {
      kind: "approval";
      reason: "guidance-changed" | "fork";
      detail: string;
      guidanceChange?: GuidanceChange;
    };
