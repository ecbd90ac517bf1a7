/** The guidance file's change in this pull request, in lines. */
export interface GuidanceChange {
  additions: number;
  deletions: number;
  status: string;
}

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
