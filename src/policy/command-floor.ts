/**
 * Who may run a slash command (pure): the permission floor of a verb from the repository's config
 * (`commands.minPermission`, `commands.publishPermission`) and the repository's visibility.
 */
import { permissionAtLeast, type MinPermission, type RepoConfig } from "../config/repo-config.js";

/** The floor of a verb that changes something, or why the verb is off. */
export type CommandFloor =
  | { kind: "floor"; floor: MinPermission; setting: "commands.minPermission" | "commands.publishPermission" }
  | { kind: "off"; reason: "publish-off-on-public-repository" };

/**
 * The permission floor of a verb:
 * - `command`: `commands.minPermission` (default `write`);
 * - `publish`: `commands.publishPermission`, never below `commands.minPermission`; when it is not set,
 *   `admin` on a private repository and off on a public one (a published finding is public and cannot be
 *   withdrawn, and `read` on a public repository means anyone).
 *
 * @param repoPrivate - `repository.private` of the webhook.
 */
export function commandFloor(
  permission: "command" | "publish",
  config: RepoConfig | undefined,
  repoPrivate: boolean,
): CommandFloor {
  const min: MinPermission = config?.commands.minPermission ?? "write";
  if (permission === "command") return { kind: "floor", floor: min, setting: "commands.minPermission" };
  const explicit = config?.commands.publishPermission;
  if (explicit === undefined && !repoPrivate)
    return { kind: "off", reason: "publish-off-on-public-repository" };
  const publish: MinPermission = explicit ?? "admin";
  return {
    kind: "floor",
    floor: permissionAtLeast(min, publish) ? min : publish,
    setting:
      permissionAtLeast(min, publish) && min !== publish
        ? "commands.minPermission"
        : "commands.publishPermission",
  };
}
