/** The lines of a unified-diff `patch` (as GitHub sends it in `pulls/files`) a review comment may target. */
export interface PatchLines {
  /** New-file line numbers present in the patch (added or context lines): `side: "RIGHT"`. */
  readonly right: ReadonlySet<number>;
  /** Old-file line numbers present in the patch (deleted or context lines): `side: "LEFT"`. */
  readonly left: ReadonlySet<number>;
  /** Diff `position` (1 = the line below the first `@@` header) to the line it designates. */
  readonly positions: ReadonlyMap<number, { side: "LEFT" | "RIGHT"; line: number }>;
  /** Lines added (`+`) and deleted (`-`). */
  readonly additions: number;
  readonly deletions: number;
}

const HUNK = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/;

/**
 * Parses a GitHub file `patch` into the lines a review comment may target. GitHub accepts a review
 * comment only on a line that appears in the diff: `side: "RIGHT"` for added/context lines of the new file,
 * `"LEFT"` for deleted/context lines of the old one ("Pull request review thread line must be part of the
 * diff"; docs: REST "Create a review for a pull request", `comments[].line` / `side`). `position` counts
 * lines from the first hunk header, hunk headers after the first included.
 */
export function parsePatch(patch: string): PatchLines {
  const right = new Set<number>();
  const left = new Set<number>();
  const positions = new Map<number, { side: "LEFT" | "RIGHT"; line: number }>();
  let oldLine = 0;
  let newLine = 0;
  let position = 0;
  let started = false;
  let additions = 0;
  let deletions = 0;
  for (const line of patch.replace(/\n$/, "").split("\n")) {
    const hunk = HUNK.exec(line);
    if (hunk !== null) {
      if (started) position += 1;
      started = true;
      oldLine = Number(hunk[1]);
      newLine = Number(hunk[2]);
      continue;
    }
    if (!started || line.startsWith("\\")) continue;
    position += 1;
    if (line.startsWith("+")) {
      right.add(newLine);
      positions.set(position, { side: "RIGHT", line: newLine });
      newLine += 1;
      additions += 1;
    } else if (line.startsWith("-")) {
      left.add(oldLine);
      positions.set(position, { side: "LEFT", line: oldLine });
      oldLine += 1;
      deletions += 1;
    } else {
      right.add(newLine);
      left.add(oldLine);
      positions.set(position, { side: "RIGHT", line: newLine });
      newLine += 1;
      oldLine += 1;
    }
  }
  return { right, left, positions, additions, deletions };
}
