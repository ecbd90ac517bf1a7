import { describe, expect, it } from "vitest";
import { OpenApiValidator, loadOpenApiSubset, parsePatch } from "../../dev/github-standin/index.js";
import { OPERATIONS, SYNTHETIC_OPERATIONS } from "../../scripts/extract-openapi.js";

const validator = new OpenApiValidator();

describe("OpenAPI subset", () => {
  it("holds every operation diffward uses, self-contained, with its package version", () => {
    const subset = loadOpenApiSubset();
    expect(subset.source.package).toBe("@octokit/openapi");
    expect(subset.source.version).toMatch(/^\d+\.\d+\.\d+/);
    // every operation of the extraction list, plus the synthetic ones (POST /graphql, the App's web flow)
    expect(subset.operations).toHaveLength(OPERATIONS.length + SYNTHETIC_OPERATIONS.length);
    expect(subset.operations.filter((o) => o.synthetic).map((o) => o.operationId)).toEqual([
      "graphql",
      "oauth/authorize",
      "oauth/create-access-token",
    ]);
    expect(JSON.stringify(subset)).not.toContain("$ref");
    const ids = subset.operations.map((o) => o.operationId);
    expect(ids).toContain("checks/update");
    expect(ids).toContain("pulls/create-reply-for-review-comment");
    expect(ids).toEqual(
      expect.arrayContaining([
        "code-scanning/upload-sarif",
        "code-scanning/list-alerts-for-repo",
        "code-scanning/get-alert",
        "code-scanning/update-alert",
      ]),
    );
  });

  it("matches the most literal template and decodes parameters", () => {
    expect(validator.match("GET", "/repos/o/r/pulls/comments/12")?.compiled.op.operationId).toBe(
      "pulls/get-review-comment",
    );
    expect(validator.match("GET", "/repos/o/r/pulls/12/comments")?.compiled.op.operationId).toBe(
      "pulls/list-review-comments",
    );
    const contents = validator.match("GET", "/repos/o/r/contents/.github%2Fdiffward.yml");
    expect(contents?.params["path"]).toBe(".github/diffward.yml");
    expect(validator.match("GET", "/repos/o/r/contents/a/b/c.ts")?.params["path"]).toBe("a/b/c.ts");
    expect(validator.match("DELETE", "/repos/o/r")).toBeUndefined();
  });

  it("validates bodies and coerced query parameters", () => {
    const create = validator.match("POST", "/repos/o/r/check-runs")!;
    expect(validator.validateBody(create.compiled, { name: "n", head_sha: "abc" })).toEqual([]);
    expect(validator.validateBody(create.compiled, { name: "n" }).join()).toMatch(/head_sha/);
    expect(validator.validateBody(create.compiled, undefined)).toEqual(["body is required"]);
    const list = validator.match("GET", "/repos/o/r/commits/abc/check-runs")!;
    expect(
      validator.validateParameters(list.compiled, list.params, { per_page: "50", status: "completed" }),
    ).toEqual([]);
    expect(validator.validateParameters(list.compiled, list.params, { status: "done" }).join()).toMatch(
      /status/,
    );
    expect(validator.validateParameters(list.compiled, list.params, { per_page: "many" }).join()).toMatch(
      /per_page/,
    );
  });
});

describe("parsePatch", () => {
  it("maps RIGHT/LEFT lines and positions across hunks", () => {
    const patch = ["@@ -1,2 +1,3 @@", " a", "-b", "+B", "+C", "@@ -10,1 +11,2 @@", " x", "+y"].join("\n");
    const lines = parsePatch(patch);
    expect([...lines.right]).toEqual([1, 2, 3, 11, 12]);
    expect([...lines.left]).toEqual([1, 2, 10]);
    expect(lines.positions.get(3)).toEqual({ side: "RIGHT", line: 2 });
    expect(lines.positions.get(6)).toEqual({ side: "RIGHT", line: 11 });
    expect([lines.additions, lines.deletions]).toEqual([3, 1]);
  });
});
