/**
 * GitHub's ladder of repository roles: the floors a config may require (`commands.minPermission`,
 * `triage.approval.approvers`, …) and how a user's role is compared with one.
 */
import { z } from "zod";

/**
 * A repository role as GitHub reports it (`role_name` of "Get repository permissions for a user":
 * https://docs.github.com/en/rest/collaborators/collaborators#get-repository-permissions-for-a-user),
 * plus `none`. Ordered from least to most.
 */
export const RepoPermission = z.enum(["none", "read", "triage", "write", "maintain", "admin"]);
export type RepoPermission = z.infer<typeof RepoPermission>;

/** A permission floor a config may require (`none` is not a floor). */
export const MinPermission = z.enum(["read", "triage", "write", "maintain", "admin"]);
export type MinPermission = z.infer<typeof MinPermission>;

const PERMISSION_RANK: Record<RepoPermission, number> = {
  none: 0,
  read: 1,
  triage: 2,
  write: 3,
  maintain: 4,
  admin: 5,
};

/**
 * True when `actual` is at least `floor` in GitHub's order admin > maintain > write > triage > read > none
 * (https://docs.github.com/en/rest/collaborators/collaborators#get-repository-permissions-for-a-user;
 * roles: https://docs.github.com/en/organizations/managing-user-access-to-your-organizations-repositories/managing-repository-roles/repository-roles-for-an-organization).
 * Pass the response's `role_name`; a value that is not one of the five base roles (a custom role name)
 * or missing counts as `none`, so pass the response's `permission` (admin/write/read/none) instead in
 * that case. Case-insensitive. Never throws.
 */
export function permissionAtLeast(actual: string | null | undefined, floor: MinPermission): boolean {
  const parsed = RepoPermission.safeParse(typeof actual === "string" ? actual.toLowerCase() : actual);
  const rank = parsed.success ? PERMISSION_RANK[parsed.data] : 0;
  return rank >= PERMISSION_RANK[floor];
}

/**
 * The role to compare from a "Get repository permissions for a user" response: `role_name` when it is a
 * base role, else the legacy `permission` (custom roles inherit one of admin/write/read).
 */
export function collaboratorRole(response: {
  permission?: string | null;
  role_name?: string | null;
}): RepoPermission {
  const role = RepoPermission.safeParse(response.role_name?.toLowerCase());
  if (role.success) return role.data;
  const perm = RepoPermission.safeParse(response.permission?.toLowerCase());
  return perm.success ? perm.data : "none";
}
