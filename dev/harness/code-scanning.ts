/**
 * Helpers that play a person triaging diffward's code scanning alerts in GitHub's UI against the dev
 * harness (tests, demo): the alert is changed in the GitHub stand-in as GitHub would, and the real
 * `code_scanning_alert` payload from `@octokit/webhooks-examples` is returned, edited to describe it
 * (send it with `h.send("code_scanning_alert", payload)`).
 */
import { createRequire } from "node:module";
import type { CodeScanningAlertRecord } from "../github-standin/state.js";
import type { Harness } from "./harness.js";

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a raw webhook payload
type Payload = any;

const require = createRequire(import.meta.url);

/** Where the alert lives. */
export interface AlertTarget {
  owner: string;
  repo: string;
  alertNumber: number;
}

function example(action: "closed_by_user" | "reopened"): Payload {
  const groups = require("@octokit/webhooks-examples/api.github.com/index.json") as Array<{
    name: string;
    examples: Payload[];
  }>;
  const e = groups.find((g) => g.name === "code_scanning_alert")?.examples.find((x) => x.action === action);
  if (!e) throw new Error(`no code_scanning_alert.${action} example in @octokit/webhooks-examples`);
  return structuredClone(e);
}

function alertOf(h: Harness, at: AlertTarget): CodeScanningAlertRecord {
  const a = h.github.state.codeScanningAlerts(at.owner, at.repo).find((x) => x.number === at.alertNumber);
  if (!a) throw new Error(`no code scanning alert ${at.alertNumber} in ${at.owner}/${at.repo}`);
  return a;
}

/**
 * The payload of `code_scanning_alert.<action>` for an alert of the stand-in, built from GitHub's example:
 * as in GitHub's examples, the alert carries `instances`, not `most_recent_instance` (diffward reads the
 * message back with "Get a code scanning alert"). `installation` is added, as a GitHub App receives it.
 */
export function alertPayload(
  h: Harness,
  at: AlertTarget & { action: "closed_by_user" | "reopened_by_user"; login: string; type?: "User" | "Bot" },
): Payload {
  const a = alertOf(h, at);
  const repo = h.github.state.repository(at.owner, at.repo);
  if (!repo) throw new Error(`no repository ${at.owner}/${at.repo}`);
  const p = example(at.action === "closed_by_user" ? "closed_by_user" : "reopened");
  p.action = at.action;
  const user = { login: at.login, type: at.type ?? "User", id: h.github.state.userId(at.login) };
  Object.assign(p.repository, {
    name: repo.name,
    full_name: `${repo.owner}/${repo.name}`,
    private: repo.private,
    default_branch: repo.defaultBranch,
    html_url: `https://github.com/${repo.owner}/${repo.name}`,
  });
  p.repository.owner = { ...p.repository.owner, login: repo.owner };
  p.installation = {
    id: repo.installationId,
    node_id: `MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9u${repo.installationId}`,
  };
  p.ref = a.mostRecent.ref;
  p.commit_oid = a.mostRecent.commitSha;
  Object.assign(p.alert, {
    number: a.number,
    state: a.state,
    dismissed_by: a.dismissedBy ? { ...p.sender, ...a.dismissedBy } : null,
    dismissed_at: a.dismissedAt,
    dismissed_reason: a.dismissedReason,
    dismissed_comment: a.dismissedComment,
    rule: { ...p.alert.rule, id: a.ruleId, description: a.ruleDescription },
    tool: { name: a.toolName, guid: null, version: a.toolVersion },
    instances: [
      {
        ref: a.mostRecent.ref,
        analysis_key: `${a.toolName}/sarif-upload`,
        environment: "{}",
        state: a.state,
        commit_sha: a.mostRecent.commitSha,
        message: { text: "" },
        location: { path: a.mostRecent.path, start_line: a.mostRecent.startLine ?? 1 },
      },
    ],
  });
  p.sender = { ...p.sender, ...user };
  return p;
}

/** Dismisses an alert as `login` would in GitHub's UI and returns the `closed_by_user` payload. */
export function dismissAlertAs(
  h: Harness,
  at: AlertTarget & {
    login: string;
    reason: "false positive" | "won't fix" | "used in tests";
    comment?: string;
  },
): Payload {
  const a = alertOf(h, at);
  a.state = "dismissed";
  a.dismissedReason = at.reason;
  a.dismissedComment = at.comment ?? null;
  a.dismissedBy = { login: at.login, type: "User", id: h.github.state.userId(at.login) };
  a.dismissedAt = new Date().toISOString();
  return alertPayload(h, { ...at, action: "closed_by_user" });
}

/** Reopens an alert as `login` would in GitHub's UI and returns the `reopened_by_user` payload. */
export function reopenAlertAs(h: Harness, at: AlertTarget & { login: string }): Payload {
  const a = alertOf(h, at);
  Object.assign(a, {
    state: "open",
    dismissedReason: null,
    dismissedComment: null,
    dismissedBy: null,
    dismissedAt: null,
  });
  return alertPayload(h, { ...at, action: "reopened_by_user" });
}
