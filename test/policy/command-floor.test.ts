/** Who may run a command (src/policy/command-floor.ts). */
import { describe, expect, it } from "vitest";
import { commandFloor } from "../../src/policy/command-floor.js";
import { repoConfig } from "../support/jobs.js";

describe("who may run a command (policy/command-floor.ts)", () => {
  it("changing commands follow commands.minPermission", () => {
    expect(commandFloor("command", undefined, true)).toEqual({
      kind: "floor",
      floor: "write",
      setting: "commands.minPermission",
    });
    expect(
      commandFloor("command", repoConfig({ commands: { minPermission: "triage" } }), false),
    ).toMatchObject({
      floor: "triage",
    });
  });

  it("publishing: admin by default on private repositories, off on public ones unless set, never below minPermission", () => {
    expect(commandFloor("publish", repoConfig(), true)).toEqual({
      kind: "floor",
      floor: "admin",
      setting: "commands.publishPermission",
    });
    expect(commandFloor("publish", repoConfig(), false)).toEqual({
      kind: "off",
      reason: "publish-off-on-public-repository",
    });
    expect(commandFloor("publish", undefined, false)).toMatchObject({ kind: "off" });
    expect(commandFloor("publish", repoConfig({ commands: { publishPermission: "write" } }), false)).toEqual({
      kind: "floor",
      floor: "write",
      setting: "commands.publishPermission",
    });
    expect(
      commandFloor(
        "publish",
        repoConfig({ commands: { minPermission: "maintain", publishPermission: "write" } }),
        true,
      ),
    ).toEqual({ kind: "floor", floor: "maintain", setting: "commands.minPermission" });
  });
});
