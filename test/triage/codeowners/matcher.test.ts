/**
 * The CODEOWNERS matcher against GitHub's documented behaviour, as tables:
 * - every pattern of the example files in GitHub's "About code owners" (sections "Example of a CODEOWNERS
 *   file", "Syntax exceptions", "CODEOWNERS and branch protection"),
 *   https://docs.github.com/en/repositories/managing-your-repositorys-settings-and-features/customizing-your-repository/about-code-owners
 *   (source: github/docs, content/repositories/managing-your-repositorys-settings-and-features/customizing-your-repository/about-code-owners.md),
 *   each with paths its comment says it owns and paths it must not;
 * - the published case table of hmarr/codeowners (a Go library written to GitHub's behaviour), testdata/patterns.json,
 *   https://github.com/hmarr/codeowners/blob/main/testdata/patterns.json, each pattern with every path it lists.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  matchesPattern,
  ownersOf,
  parseCodeowners,
  type CodeOwner,
} from "../../../src/triage/codeowners/index.js";
import { propertyOptions } from "../../support/property.js";

interface Case {
  pattern: string;
  /** what GitHub's text says about it */
  says: string;
  owns: string[];
  notOwns: string[];
}

/** GitHub's example file, pattern by pattern. */
const GITHUB_EXAMPLES: Case[] = [
  {
    pattern: "*",
    says: "the default owners for everything in the repo",
    owns: ["README.md", "src/index.js", ".github/workflows/ci.yml", "a/b/c/d/e.txt"],
    notOwns: [],
  },
  {
    pattern: "*.js",
    says: "a pull request that only modifies JS files",
    owns: ["index.js", "src/app/index.js", ".eslintrc.js"],
    notOwns: ["index.jsx", "index.JS", "src/js/README.md", "index.js.map"],
  },
  {
    pattern: "*.go",
    says: "e-mail owner of .go files",
    owns: ["main.go", "cmd/server/main.go"],
    notOwns: ["main.gox", "go/README.md", "main.Go"],
  },
  {
    pattern: "*.txt",
    says: "the octocats team in the octo-org organization owns all .txt files",
    owns: ["notes.txt", "docs/notes/todo.txt"],
    notOwns: ["notes.txt.bak", "txt", "notes.TXT"],
  },
  {
    pattern: "/build/logs/",
    says: "any files in the build/logs directory at the root of the repository and any of its subdirectories",
    owns: ["build/logs/error.log", "build/logs/2026/01/run.log"],
    notOwns: [
      "build/logs",
      "src/build/logs/error.log",
      "build/logsx/a.log",
      "Build/logs/a.log",
      "build/log.txt",
    ],
  },
  {
    pattern: "docs/*",
    says: "will match files like docs/getting-started.md but not further nested files like docs/build-app/troubleshooting.md",
    owns: ["docs/getting-started.md", "docs/README"],
    notOwns: ["docs/build-app/troubleshooting.md", "docs", "Docs/getting-started.md"],
  },
  {
    pattern: "apps/",
    says: "any file in an apps directory anywhere in your repository",
    owns: ["apps/web.js", "src/apps/web.js", "a/b/apps/c/d.js"],
    notOwns: ["apps", "myapps/web.js", "apps.js", "Apps/web.js", "src/apps"],
  },
  {
    pattern: "/docs/",
    says: "any file in the /docs directory in the root of your repository and any of its subdirectories",
    owns: ["docs/getting-started.md", "docs/build-app/troubleshooting.md"],
    notOwns: ["src/docs/a.md", "docs", "documentation/a.md"],
  },
  {
    pattern: "/scripts/",
    says: "any change inside the /scripts directory",
    owns: ["scripts/deploy.sh", "scripts/ci/check.sh"],
    notOwns: ["tools/scripts/deploy.sh", "scripts"],
  },
  {
    pattern: "**/logs",
    says: "any file in a /logs directory such as /build/logs, /scripts/logs, and /deeply/nested/logs",
    owns: ["build/logs/a.txt", "scripts/logs/a.txt", "deeply/nested/logs/x.txt", "logs/logs.txt", "logs"],
    notOwns: ["logsx/a.txt", "build/log/a.txt", "build/Logs/a.txt", "build/mylogs/a.txt"],
  },
  {
    pattern: "/apps/",
    says: "any file in the /apps directory in the root of your repository",
    owns: ["apps/github/x.js", "apps/web/index.html"],
    notOwns: ["src/apps/x.js", "apps"],
  },
  {
    pattern: "/apps/github",
    says: "the /apps/github subdirectory",
    owns: ["apps/github", "apps/github/proj/main.go"],
    notOwns: ["apps/githubber/x.js", "src/apps/github/x.js", "apps/GitHub/x.js"],
  },
];

/** hmarr/codeowners testdata/patterns.json: pattern → path → whether it matches. */
const PUBLISHED: Array<[name: string, pattern: string, paths: Record<string, boolean>]> = [
  [
    "single-segment pattern",
    "foo",
    {
      foo: true,
      "foo.txt": false,
      "foo/bar": true,
      "bar/foo": true,
      "bar/foo.txt": false,
      "bar/baz": false,
      "bar/foo/baz": true,
    },
  ],
  [
    "single-segment pattern with leading slash",
    "/foo",
    {
      foo: true,
      "fool.txt": false,
      "foo/bar": true,
      "bar/foo": false,
      "bar/baz": false,
      "foo/bar/baz": true,
      "bar/foo/baz": false,
    },
  ],
  [
    "single-segment pattern with trailing slash",
    "foo/",
    {
      foo: false,
      "foo/bar": true,
      "foo/bar/baz": true,
      "bar/foo": false,
      "bar/baz": false,
      "bar/foo/baz": true,
      "bar/foo/baz/qux": true,
    },
  ],
  [
    "single-segment pattern with leading and trailing slash",
    "/foo/",
    {
      foo: false,
      "foo/bar": true,
      "foo/bar/baz": true,
      "bar/foo": false,
      "bar/baz": false,
      "bar/foo/baz": false,
      "bar/foo/baz/qux": false,
    },
  ],
  [
    "multi-segment (implicitly left-anchored) pattern",
    "foo/bar",
    {
      "foo/bar": true,
      "foo/bart": false,
      "foo/bar/baz": true,
      "baz/foo/bar": false,
      "baz/foo/bar/qux": false,
    },
  ],
  [
    "multi-segment pattern with leading slash",
    "/foo/bar",
    {
      "foo/bar": true,
      "foo/bart": false,
      "foo/bar/baz": true,
      "baz/foo/bar": false,
      "baz/foo/bar/qux": false,
    },
  ],
  [
    "multi-segment pattern with trailing slash",
    "foo/bar/",
    {
      "foo/bar": false,
      "foo/bart": false,
      "foo/bar/baz": true,
      "baz/foo/bar": false,
      "baz/foo/bar/qux": false,
    },
  ],
  [
    "multi-segment pattern with leading and trailing slash",
    "/foo/bar/",
    {
      "foo/bar": false,
      "foo/bart": false,
      "foo/bar/baz": true,
      "foo/bar/baz/qux": true,
      "baz/foo/bar": false,
      "baz/foo/bar/qux": false,
    },
  ],
  [
    "single segment lone wildcard",
    "*",
    { foo: true, "foo/bar": true, "bar/foo": true, "bar/foo/baz": true, "bar/baz": true, xfoo: true },
  ],
  [
    "single segment pattern with wildcard",
    "f*",
    {
      foo: true,
      "foo/bar": true,
      "foo/bar/baz": true,
      "bar/foo": true,
      "bar/foo/baz": true,
      "bar/baz": false,
      xfoo: false,
    },
  ],
  [
    "single segment pattern with leading slash and lone wildcard",
    "/*",
    { foo: true, bar: true, "foo/bar": false, "foo/bar/baz": false },
  ],
  [
    "single segment pattern with leading slash and wildcard",
    "/f*",
    {
      foo: true,
      "foo/bar": true,
      "foo/bar/baz": true,
      "bar/foo": false,
      "bar/foo/baz": false,
      "bar/baz": false,
      xfoo: false,
    },
  ],
  [
    "single segment pattern with trailing slash and wildcard",
    "f*/",
    { foo: false, "foo/bar": true, "bar/foo": false, "bar/foo/baz": true, "bar/baz": false, xfoo: false },
  ],
  [
    "single segment pattern with leading and trailing slash and lone wildcard",
    "/*/",
    { foo: false, "foo/bar": true, "bar/foo": true, "bar/foo/baz": true },
  ],
  [
    "single segment pattern with leading and trailing slash and wildcard",
    "/f*/",
    { foo: false, "foo/bar": true, "bar/foo": false, "bar/foo/baz": false, "bar/baz": false, xfoo: false },
  ],
  ["single segment pattern with escaped wildcard", "f\\*o", { foo: false, "f*o": true }],
  [
    "pattern with trailing wildcard segment",
    "foo/*",
    {
      foo: false,
      "foo/bar": true,
      "foo/bar/baz": false,
      "bar/foo": false,
      "bar/foo/baz": false,
      "bar/baz": false,
      xfoo: false,
    },
  ],
  [
    "multi-segment pattern with wildcard",
    "foo/*.txt",
    {
      foo: false,
      "foo/bar.txt": true,
      "foo/bar/baz.txt": false,
      "qux/foo/bar.txt": false,
      "qux/foo/bar/baz.txt": false,
    },
  ],
  [
    "multi-segment pattern with lone wildcard",
    "foo/*/baz",
    { foo: false, "foo/bar": false, "foo/baz": false, "foo/bar/baz": true, "foo/bar/baz/qux": true },
  ],
  ["single segment pattern with single-character wildcard", "f?o", { foo: true, fo: false, fooo: false }],
  ["single segment pattern with escaped single-character wildcard", "f\\?o", { foo: false, "f?o": true }],
  [
    "leading double-asterisk wildcard",
    "**/foo/bar",
    {
      "foo/bar": true,
      "qux/foo/bar": true,
      "qux/foo/bar/baz": true,
      "foo/baz/bar": false,
      "qux/foo/baz/bar": false,
    },
  ],
  [
    "leading double-asterisk wildcard with regular wildcard",
    "**/*bar*",
    { bar: true, "foo/bar": true, "foo/rebar": true, "foo/barrio": true, "foo/qux/bar": true },
  ],
  [
    "trailing double-asterisk wildcard",
    "foo/bar/**",
    {
      "foo/bar": false,
      "foo/bar/baz": true,
      "foo/bar/baz/qux": true,
      "qux/foo/bar": false,
      "qux/foo/bar/baz": false,
    },
  ],
  [
    "middle double-asterisk wildcard",
    "foo/**/bar",
    {
      "foo/bar": true,
      "foo/bar/baz": true,
      "foo/qux/bar/baz": true,
      "foo/qux/quux/bar/baz": true,
      "foo/bar/baz/qux": true,
      "qux/foo/bar": false,
      "qux/foo/bar/baz": false,
    },
  ],
  [
    "middle double-asterisk wildcard with trailing slash",
    "foo/**/",
    { foo: false, "foo/bar": true, "foo/bar/": true, "foo/bar/baz": true },
  ],
  [
    "middle double-asterisk wildcard with trailing wildcard",
    "foo/**/bar/b*",
    {
      "foo/bar": false,
      "foo/bar/baz": true,
      "foo/bar/qux": false,
      "foo/qux/bar": false,
      "foo/qux/bar/baz": true,
      "foo/qux/bar/qux": false,
    },
  ],
];

describe("GitHub's example CODEOWNERS file, pattern by pattern", () => {
  for (const c of GITHUB_EXAMPLES) {
    it(`\`${c.pattern}\`: ${c.says}`, () => {
      for (const path of c.owns) expect([path, matchesPattern(c.pattern, path)]).toEqual([path, true]);
      for (const path of c.notOwns) expect([path, matchesPattern(c.pattern, path)]).toEqual([path, false]);
    });
  }
});

/** GitHub's example file as the docs print it (its inline comment on `*.js` included). */
const EXAMPLE_FILE = `# This is a comment.
# Each line is a file pattern followed by one or more owners.
*       @global-owner1 @global-owner2
*.js    @js-owner #This is an inline comment.
*.go docs@example.com
*.txt @octo-org/octocats
/build/logs/ @doctocat
docs/*  docs@example.com
apps/ @octocat
/docs/ @doctocat
/scripts/ @doctocat @octocat
**/logs @octocat
/apps/ @octocat
/apps/github
`;

const user = (login: string): CodeOwner => ({ kind: "user", login });

describe("ownersOf over GitHub's example file: the last matching pattern wins", () => {
  const file = parseCodeowners(EXAMPLE_FILE);

  it("reads every rule and its owners, with no errors", () => {
    expect(file.errors).toEqual([]);
    expect(file.rules.map((r) => [r.line, r.pattern, r.owners.length])).toEqual([
      [3, "*", 2],
      [4, "*.js", 1],
      [5, "*.go", 1],
      [6, "*.txt", 1],
      [7, "/build/logs/", 1],
      [8, "docs/*", 1],
      [9, "apps/", 1],
      [10, "/docs/", 1],
      [11, "/scripts/", 2],
      [12, "**/logs", 1],
      [13, "/apps/", 1],
      [14, "/apps/github", 0],
    ]);
    expect(file.rules[1]!.owners).toEqual([user("js-owner")]);
    expect(file.rules[2]!.owners).toEqual([{ kind: "email", email: "docs@example.com" }]);
    expect(file.rules[3]!.owners).toEqual([{ kind: "team", org: "octo-org", slug: "octocats" }]);
  });

  it.each([
    ["README.md", "*", ["global-owner1", "global-owner2"]],
    ["src/index.js", "*.js", ["js-owner"]],
    ["docs/getting-started.md", "/docs/", ["doctocat"]],
    ["src/docs/a.md", "*", ["global-owner1", "global-owner2"]],
    ["build/logs/a.txt", "**/logs", ["octocat"]],
    ["scripts/deploy.sh", "/scripts/", ["doctocat", "octocat"]],
    ["src/apps/web.txt", "apps/", ["octocat"]],
    ["apps/web/index.js", "/apps/", ["octocat"]],
    ["apps/github/index.js", "/apps/github", []],
  ])("%s is owned through `%s` by %j", (path, pattern, logins) => {
    const { owners, rule } = ownersOf(file, path);
    expect(rule?.pattern).toBe(pattern);
    expect(owners).toEqual(logins.map(user));
  });

  it("a later rule naming its own owner wins over the directory's (`/apps/github @doctocat`)", () => {
    const withOwner = parseCodeowners(`${EXAMPLE_FILE}/apps/ @octocat\n/apps/github @doctocat\n`);
    expect(ownersOf(withOwner, "apps/github/a.js").owners).toEqual([user("doctocat")]);
    expect(ownersOf(withOwner, "apps/web/a.js").owners).toEqual([user("octocat")]);
  });

  it("the branch protection example: the last `/apps/` line names the team", () => {
    const f = parseCodeowners(
      "/apps/ @doctocat\n/apps/ @doctocat @octocat\n/apps/ @example-org/content-team\n",
    );
    expect(ownersOf(f, "apps/x.js")).toEqual({
      owners: [{ kind: "team", org: "example-org", slug: "content-team" }],
      rule: {
        pattern: "/apps/",
        owners: [{ kind: "team", org: "example-org", slug: "content-team" }],
        line: 3,
      },
    });
  });

  it("a path no rule matches has no owners and no rule", () => {
    expect(ownersOf(parseCodeowners("/docs/ @doctocat\n"), "src/a.ts")).toEqual({ owners: [], rule: null });
  });
});

describe("GitHub's syntax exceptions (not gitignore's)", () => {
  it("`[ ]` is never a character range: escaped brackets match themselves, unescaped ones are GitHub's Invalid pattern", () => {
    // GitHub's message: "Invalid pattern on line …: both `[` and `]` must be escaped with a `\`"
    // (quoted in open-sauced/pizza-cli#100)
    const f = parseCodeowners("* @all\n/app/[param]/page.tsx @raw\n/app/\\[param\\]/page.tsx @escaped\n");
    expect(f.errors).toEqual([{ line: 2, message: expect.stringContaining("must be escaped with a `\\`") }]);
    expect(ownersOf(f, "app/[param]/page.tsx").owners).toEqual([user("escaped")]);
    expect(ownersOf(f, "app/p/page.tsx").owners).toEqual([user("all")]);
    expect(matchesPattern("/app/[param]/page.tsx", "app/[param]/page.tsx")).toBe(true);
    expect(matchesPattern("/app/[param]/page.tsx", "app/p/page.tsx")).toBe(false);
    expect(matchesPattern("[abc].js", "a.js")).toBe(false);
    expect(matchesPattern("[abc].js", "src/[abc].js")).toBe(true);
  });

  it("`!` does not negate and `\\#` does not escape a `#`: such lines are errors, not rules", () => {
    const f = parseCodeowners("* @a\n!docs/ @b\n\\#notes @c\n# a comment\n*.md @d\n");
    expect(f.rules.map((r) => r.pattern)).toEqual(["*", "*.md"]);
    expect(f.errors.map((e) => e.line)).toEqual([2, 3]);
    expect(f.errors[0]!.message).toMatch(/negate/);
    expect(f.errors[1]!.message).toMatch(/escape/);
    expect(ownersOf(f, "docs/a.txt").owners).toEqual([user("a")]);
  });

  it("paths are case-sensitive", () => {
    expect(matchesPattern("/Docs/", "docs/a.md")).toBe(false);
    expect(matchesPattern("*.MD", "a.md")).toBe(false);
    expect(matchesPattern("README", "readme")).toBe(false);
  });
});

describe("the published case table (hmarr/codeowners testdata/patterns.json)", () => {
  for (const [name, pattern, paths] of PUBLISHED) {
    it(`${name}: \`${pattern}\``, () => {
      const got = Object.fromEntries(Object.keys(paths).map((p) => [p, matchesPattern(pattern, p)]));
      expect(got).toEqual(paths);
    });
  }
});

describe("lines that are not rules", () => {
  it("an owner that is none of `@user`, `@org/team`, an e-mail is an error naming the line; the line is left out", () => {
    const f = parseCodeowners("*.js @ok\n*.ts not-an-owner\n\n  \n*.md @org/team extra@\n");
    expect(f.rules.map((r) => r.line)).toEqual([1]);
    expect(f.errors).toEqual([
      { line: 2, message: expect.stringContaining("`not-an-owner` is not an owner") },
      { line: 5, message: expect.stringContaining("`extra@` is not an owner") },
    ]);
  });

  it("three asterisks and a lone trailing backslash are errors; an escaped space belongs to the pattern", () => {
    const f = parseCodeowners("a/***/b @x\nfoo\\\nmy\\ file.txt @x\r\n");
    expect(f.errors.map((e) => e.line)).toEqual([1, 2]);
    expect(f.rules.map((r) => r.pattern)).toEqual(["my\\ file.txt"]);
    expect(ownersOf(f, "docs/my file.txt").owners).toEqual([user("x")]);
  });
});

describe("arbitrary input", () => {
  const LINE_CHARS = fc.constantFrom(..."ab/*?[]!#\\@. \t-_\r".split(""), "é", "😀", "\u0000");
  const line = fc.string({ unit: LINE_CHARS, maxLength: 40 });

  it("parseCodeowners never throws, and ownersOf never throws, on any text and any path", () => {
    fc.assert(
      fc.property(
        fc.array(line, { maxLength: 30 }),
        fc.string({ unit: LINE_CHARS, maxLength: 30 }),
        (lines, path) => {
          const f = parseCodeowners(lines.join("\n"));
          for (const r of f.rules) expect(r.line).toBeGreaterThan(0);
          const { owners, rule } = ownersOf(f, path);
          expect(owners).toEqual(rule?.owners ?? []);
        },
      ),
      propertyOptions(300),
    );
  });

  it("a root-anchored literal path owns itself and what is under it, and not a differently cased one", () => {
    const seg = fc.stringMatching(/^[a-z0-9._-]{1,8}$/).filter((s) => s !== "**" && s !== "*");
    fc.assert(
      fc.property(fc.array(seg, { minLength: 1, maxLength: 5 }), (segs) => {
        const path = segs.join("/");
        expect(matchesPattern(`/${path}`, path)).toBe(true);
        expect(matchesPattern(`/${path}`, `${path}/x.txt`)).toBe(true);
        expect(matchesPattern(`/${path}/`, path)).toBe(false);
        if (/[a-z]/.test(path)) expect(matchesPattern(`/${path.toUpperCase()}`, path)).toBe(false);
      }),
      propertyOptions(200),
    );
  });

  it("stars against a long path end (no exponential backtracking)", () => {
    const stars = `${"*a".repeat(30)}*b`;
    expect(matchesPattern(stars, "a".repeat(20_000))).toBe(false);
    expect(matchesPattern(`${"**/a/".repeat(20)}b`, `${"a/".repeat(2_000)}c`)).toBe(false);
  });

  it("a 100,000-line file parses and matches", () => {
    const lines = Array.from(
      { length: 100_000 },
      (_, i) => `/src/module-${i}/** @team-${i % 50} @org/t${i % 7}`,
    );
    const f = parseCodeowners(lines.join("\n"));
    expect(f.rules).toHaveLength(100_000);
    expect(ownersOf(f, "src/module-3/a.ts").owners).toEqual([
      user("team-3"),
      { kind: "team", org: "org", slug: "t3" },
    ]);
  });
});
