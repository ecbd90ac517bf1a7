/**
 * The organizations' teams in the stand-in: who is in which team and in which state (GitHub REST "Get team
 * membership for a user"), and which installations lack the App's `members: read` permission.
 */
import { z } from "zod";

/** A membership's state: `pending` until the user accepts the organization's invitation. */
export const TeamMembershipState = z.enum(["active", "pending"]);
export type TeamMembershipState = z.infer<typeof TeamMembershipState>;

/** A membership's role in its team. */
export const TeamRole = z.enum(["member", "maintainer"]);
export type TeamRole = z.infer<typeof TeamRole>;

interface Membership {
  role: TeamRole;
  state: TeamMembershipState;
}

const memberKey = (org: string, slug: string, login: string) => `${org}/${slug}/${login}`.toLowerCase();

/**
 * The organizations' team memberships, and the installations that lack `members: read` (their team
 * membership reads are refused with 403, as GitHub refuses an App without the permission). Seed with
 * {@link setMembership}; names compare case-insensitively, like GitHub.
 */
export class OrgTeams {
  private readonly memberships = new Map<string, Membership>();
  private readonly withoutMembersRead = new Set<number>();

  /** Puts `login` in team `org/slug` (default: an `active` `member`). @throws ZodError on a bad state or role. */
  setMembership(
    org: string,
    slug: string,
    login: string,
    state: TeamMembershipState = "active",
    role: TeamRole = "member",
  ): void {
    this.memberships.set(memberKey(org, slug, login), {
      state: TeamMembershipState.parse(state),
      role: TeamRole.parse(role),
    });
  }

  /** Takes `login` out of team `org/slug`. */
  removeMembership(org: string, slug: string, login: string): void {
    this.memberships.delete(memberKey(org, slug, login));
  }

  /** The membership of `login` in `org/slug`, if any. */
  membership(org: string, slug: string, login: string): Membership | undefined {
    return this.memberships.get(memberKey(org, slug, login));
  }

  /** Grants (`true`, the default) or withdraws the installation's `members: read` permission. */
  setMembersRead(installationId: number, granted: boolean): void {
    if (granted) this.withoutMembersRead.delete(installationId);
    else this.withoutMembersRead.add(installationId);
  }

  /** Whether the installation may read team memberships. */
  mayReadMembers(installationId: number | undefined): boolean {
    return installationId === undefined || !this.withoutMembersRead.has(installationId);
  }
}
