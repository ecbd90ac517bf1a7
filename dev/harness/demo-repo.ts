/**
 * The demo pull request's files: a small web app touching `src/server.js`, `src/db.js` and `README.md`
 * (the sandbox's `demo` scenario reports findings on those lines), plus `.github/diffward.yml` on the
 * default branch. Patches are unified diffs as GitHub's pull request files API returns them.
 */

/** A unified-diff hunk that adds `count` lines starting at line 1 (a new file). */
export function addedFilePatch(count: number, line: (n: number) => string = (n) => `line ${n}`): string {
  const body = Array.from({ length: count }, (_, i) => `+${line(i + 1)}`).join("\n");
  return `@@ -0,0 +1,${count} @@\n${body}`;
}

/** A hunk that modifies a file around `from..to` (context before and after, new lines in between). */
export function modifiedFilePatch(from: number, to: number): string {
  const ctx = 3;
  const start = Math.max(1, from - ctx);
  const oldLen = from - start + ctx;
  const newLen = to - start + 1 + ctx;
  const lines: string[] = [];
  for (let n = start; n < from; n++) lines.push(` context line ${n}`);
  for (let n = from; n <= to; n++) lines.push(`+added line ${n}`);
  for (let n = 0; n < ctx; n++) lines.push(` context line ${to + 1 + n}`);
  return `@@ -${start},${oldLen} +${start},${newLen} @@\n${lines.join("\n")}`;
}

/** The demo pull request's files, with patches covering the demo scenario's locations. */
export function demoPullFiles() {
  return [
    { filename: "src/server.js", status: "added" as const, patch: addedFilePatch(40) },
    { filename: "src/db.js", status: "added" as const, patch: addedFilePatch(30) },
    { filename: "README.md", status: "modified" as const, patch: modifiedFilePatch(12, 16) },
  ];
}

/** The demo repository's `.github/diffward.yml`. */
export function demoConfig(extra = ""): string {
  return [
    "# yaml-language-server: $schema=../schema/diffward.schema.json",
    "repositoryId: repo_demo",
    "failOn: high",
    "debounceSeconds: 0",
    "disclosure: full",
    extra,
  ].join("\n");
}
