/** The audit area verbs' plans (src/commands/verbs/areas.ts). */
import { describe, expect, it } from "vitest";
import { parseCommand, type VerbInput } from "../../../src/commands/index.js";
import { ScannerApiError } from "../../../src/scanner/errors.js";
import {
  areasRefusal,
  planAreasAdd,
  planAreasRemove,
  type AreasAddCommand,
  type AreasRemoveCommand,
} from "../../../src/commands/verbs/areas.js";
import { input, parsed } from "../../support/verbs.js";
import { repoConfig } from "../../support/jobs.js";

describe("audit area plans", () => {
  const tenant = (scopes: string[]) =>
    ({ projectId: "prj_1", token: { scopes }, client: {} }) as unknown as VerbInput<unknown>["tenant"];

  it("areas add: name before the colon, description after; refused without guidance:write", () => {
    const cmd = parsed("/diffward areas add Billing: invoices, refunds", "areas-add") as AreasAddCommand;
    expect(cmd).toMatchObject({ name: "Billing", description: "invoices, refunds" });
    const on = { config: repoConfig(), tenant: tenant(["read", "guidance:write"]) };
    expect(planAreasAdd(input(cmd, on))).toEqual({
      kind: "add",
      repositoryId: "repo_1",
      name: "Billing",
      description: "invoices, refunds",
    });
    const off = planAreasAdd(input(cmd, { config: repoConfig(), tenant: tenant(["read"]) }));
    expect(off).toMatchObject({ kind: "answer", answer: expect.stringContaining("`guidance:write` scope") });
    expect(parseCommand("/diffward areas add Billing", "conversation")).toMatchObject({
      kind: "error",
      code: "missing_argument",
    });
  });

  it("areas writes: a 403 names the missing scope, a discovered area's 409 is explained, a 5xx is left to the job", () => {
    const err = (status: number, code: string) =>
      new ScannerApiError({ status, code: code as never, message: "m", endpoint: "DELETE /x" });
    const remove = { kind: "remove", repositoryId: "repo_1", key: "legacy-admin" } as const;
    expect(areasRefusal(err(403, "forbidden"), remove)).toContain("does not have the `guidance:write` scope");
    expect(areasRefusal(err(409, "conflict"), remove)).toContain("was **discovered**");
    expect(areasRefusal(err(404, "not_found"), remove)).toContain("has no audit area `legacy-admin`");
    expect(areasRefusal(err(503, "internal"), remove)).toBeUndefined();
    expect(areasRefusal(new Error("network"), remove)).toBeUndefined();
  });

  it("areas remove: one key; refused without guidance:write", () => {
    const cmd = parsed("/diffward areas remove billing", "areas-remove") as AreasRemoveCommand;
    expect(planAreasRemove(input(cmd, { config: repoConfig(), tenant: tenant(["guidance:write"]) }))).toEqual(
      {
        kind: "remove",
        repositoryId: "repo_1",
        key: "billing",
      },
    );
    expect(planAreasRemove(input(cmd, { config: repoConfig(), tenant: tenant([]) }))).toMatchObject({
      kind: "answer",
    });
    expect(parseCommand("/diffward areas remove a b", "conversation").kind).toBe("error");
  });
});
