import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { z } from "zod";

/**
 * What GitHub accepts in an App manifest's `default_events`, with the repository permission (`default_permissions`
 * key) that must be granted at least `read` for GitHub to accept the subscription. Source: GitHub Docs, "Webhook
 * events and payloads" (each event's "Availability" and "To subscribe to this event, a GitHub App must have at
 * least read-level access for the … permission") and "Choosing permissions for a GitHub App". Events that need
 * one of several permissions list them all.
 */
const ACCEPTED_EVENTS: Record<string, readonly string[]> = {
  check_run: ["checks"],
  check_suite: ["checks"],
  code_scanning_alert: ["security_events"], // "Code scanning alerts"
  commit_comment: ["contents"],
  create: ["contents"],
  delete: ["contents"],
  issue_comment: ["issues"],
  issues: ["issues"],
  label: ["metadata"],
  merge_group: ["merge_queues"], // "Merge queues"
  pull_request: ["pull_requests"],
  pull_request_review: ["pull_requests"],
  pull_request_review_comment: ["pull_requests"],
  pull_request_review_thread: ["pull_requests"],
  push: ["contents"],
  repository: ["metadata"],
  status: ["statuses"],
  workflow_run: ["actions"],
};

/**
 * Sent to every GitHub App whatever its subscriptions, and refused in `default_events` by the manifest flow
 * ("Default events unsupported: installation", GitHub Docs "About webhooks for GitHub Apps").
 */
const NEVER_IN_MANIFEST = ["installation", "installation_repositories", "github_app_authorization", "ping"];

/**
 * Repository permissions (and the one organization permission diffward asks for) a manifest may request, and
 * their levels (GitHub Docs, "Choosing permissions").
 */
const ACCEPTED_PERMISSIONS: Record<string, readonly string[]> = {
  actions: ["read", "write"],
  checks: ["read", "write"],
  contents: ["read", "write"],
  issues: ["read", "write"],
  members: ["read", "write"], // organization permission "Members"
  merge_queues: ["read", "write"],
  metadata: ["read"],
  pull_requests: ["read", "write"],
  security_events: ["read", "write"], // "Code scanning alerts"
  statuses: ["read", "write"],
};

const Manifest = z
  .object({
    name: z.string().min(1).max(34), // GitHub: "The name of the GitHub App … 34 characters or less"
    url: z.url(),
    description: z.string().optional(),
    public: z.boolean(),
    default_events: z.array(z.string()).min(1),
    default_permissions: z.record(z.string(), z.enum(["read", "write"])),
    hook_attributes: z.object({ url: z.url(), active: z.boolean().optional() }).optional(),
  })
  .strict();

const manifest = Manifest.parse(parse(readFileSync("app.yml", "utf8")));
const require = createRequire(import.meta.url);

/** The `app.events` enum of GitHub's webhook OpenAPI description (@octokit/openapi-webhooks-types). */
function openApiAppEvents(): Set<string> {
  const text = readFileSync(require.resolve("@octokit/openapi-webhooks-types/types.d.ts"), "utf8");
  const m = /The list of events for the GitHub app \*\/\s*events\?: \(([\s\S]*?)\)\[\]/.exec(text);
  return new Set([...(m?.[1] ?? "").matchAll(/"([a-z_]+)"/g)].map((x) => x[1]!));
}

/** The `app-permissions` schema of GitHub's REST OpenAPI description (@octokit/openapi-types). */
function openApiAppPermissions(): Map<string, string[]> {
  const text = readFileSync(require.resolve("@octokit/openapi-types/types.d.ts"), "utf8");
  const start = text.indexOf('"app-permissions": {');
  const block = text.slice(start, text.indexOf("\n    };", start));
  return new Map(
    [...block.matchAll(/^\s+([a-z_]+)\?: ((?:"[a-z]+"(?: \| )?)+);/gm)].map((x) => [
      x[1]!,
      [...x[2]!.matchAll(/"([a-z]+)"/g)].map((y) => y[1]!),
    ]),
  );
}

describe("app.yml, the manifest of Probot's setup flow", () => {
  it("subscribes only to events GitHub accepts, each with the permission that enables it", () => {
    for (const event of manifest.default_events) {
      expect(NEVER_IN_MANIFEST, `${event} is sent to every App and refused in a manifest`).not.toContain(
        event,
      );
      expect(Object.keys(ACCEPTED_EVENTS), `${event} is not an event GitHub accepts in a manifest`).toContain(
        event,
      );
      const granted = ACCEPTED_EVENTS[event]!.filter((p) => manifest.default_permissions[p] !== undefined);
      expect(
        granted,
        `${event} needs one of ${ACCEPTED_EVENTS[event]!.join(", ")} (read or write)`,
      ).not.toEqual([]);
    }
    expect(new Set(manifest.default_events).size).toBe(manifest.default_events.length);
  });

  it("requests only permissions and levels GitHub accepts, metadata read included", () => {
    for (const [permission, level] of Object.entries(manifest.default_permissions)) {
      expect(Object.keys(ACCEPTED_PERMISSIONS), `unknown permission ${permission}`).toContain(permission);
      expect(ACCEPTED_PERMISSIONS[permission], `${permission}: ${level}`).toContain(level);
    }
    expect(manifest.default_permissions.metadata).toBe("read");
  });

  it("leaves the webhook URL to Probot (WEBHOOK_PROXY_URL or the setup host): no placeholder URL", () => {
    expect(manifest.hook_attributes).toBeUndefined();
  });

  it("agrees with GitHub's OpenAPI descriptions: every listed event and permission level exists there", () => {
    const events = openApiAppEvents();
    expect(events.size).toBeGreaterThan(30);
    for (const e of NEVER_IN_MANIFEST) expect(events.has(e), e).toBe(false);
    for (const e of Object.keys(ACCEPTED_EVENTS))
      expect(events.has(e), `${e} in GitHub's App events`).toBe(true);
    const permissions = openApiAppPermissions();
    for (const [p, levels] of Object.entries(ACCEPTED_PERMISSIONS))
      for (const l of levels) expect(permissions.get(p), `${p}: ${l} in app-permissions`).toContain(l);
  });
});
