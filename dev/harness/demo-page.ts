import { marked } from "marked";
import { escapeHtml } from "../../src/render/html.js";
import type { GitHubStandIn } from "../github-standin/index.js";

/** What the demo shows: one pull request's check runs, review and comments as diffward posted them. */
export interface DemoPageInput {
  title: string;
  owner: string;
  repo: string;
  pullNumber: number;
  github: GitHubStandIn;
  /** lines of the run's story, shown at the top */
  story: string[];
  /** pages written beside this one, linked under the story (relative addresses) */
  links?: Array<{ href: string; text: string }>;
}

const CSS = `
body{font-family:-apple-system,BlinkMacSystemFont,"Segoe UI","Noto Sans",Helvetica,Arial,sans-serif;background:#f6f8fa;color:#1f2328;margin:0}
main{max-width:1012px;margin:24px auto;padding:0 16px}
h1{font-size:26px;font-weight:400} h1 .num{color:#59636e}
.box{background:#fff;border:1px solid #d1d9e0;border-radius:6px;margin:16px 0}
.box>header{background:#f6f8fa;border-bottom:1px solid #d1d9e0;padding:8px 16px;border-radius:6px 6px 0 0;font-size:14px}
.box>.body{padding:16px;font-size:14px;line-height:1.5;overflow-x:auto}
.pill{display:inline-block;border-radius:2em;padding:0 10px;font-size:12px;font-weight:600;line-height:22px;color:#fff}
.success{background:#1f883d}.failure{background:#d1242f}.cancelled,.neutral,.skipped{background:#59636e}.action_required,.timed_out{background:#9a6700}.pending{background:#bf8700}
table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #d1d9e0;padding:4px 10px}th{background:#f6f8fa}
code{background:rgba(175,184,193,.2);padding:.1em .3em;border-radius:6px;font-size:85%}
pre{background:#f6f8fa;padding:12px;border-radius:6px;overflow:auto}pre code{background:none;padding:0;border-radius:0;font-size:85%}
.ann .msg{white-space:pre-wrap}
.replaced{color:#59636e;font-size:12px}
.ann{border-left:4px solid #9a6700;padding:4px 12px;margin:8px 0;background:#fff8c5}.ann.failure{border-color:#d1242f;background:#ffebe9}.ann.notice{border-color:#0969da;background:#ddf4ff}
.path{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:12px;color:#59636e}
.reply{margin-left:32px;border-left:2px solid #d1d9e0;padding-left:12px}
ul.story{font-size:14px}
`;

/** An annotation's place as diffward writes locations: `path:line` or `path:start-end`. */
function annotationPlace(a: Record<string, unknown>): string {
  const start = String(a.start_line);
  const end = String(a.end_line ?? a.start_line);
  return `${String(a.path)}:${start === end ? start : `${start}-${end}`}`;
}

function md(s: string | null | undefined): string {
  return marked.parse(s ?? "", { async: false, gfm: true });
}

/**
 * Renders an HTML page styled like GitHub's pull request view from what the GitHub stand-in recorded,
 * and the same content as Markdown. Check runs newest last; review comments grouped with their replies.
 */
export function renderDemoPage(input: DemoPageInput): { html: string; markdown: string } {
  const { github, owner, repo, pullNumber } = input;
  const runs = [...github.state.checkRuns(owner, repo)].sort((a, b) => a.id - b.id);
  const comments = github.state.reviewComments(owner, repo, pullNumber);
  const issueComments = github.state.issueComments(owner, repo, pullNumber);
  const reviews = github.state.reviews(owner, repo, pullNumber);
  const html: string[] = [];
  const mdOut: string[] = [`# ${input.title}`, "", ...input.story.map((s) => `- ${s}`), ""];
  html.push(
    `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(input.title)}</title><style>${CSS}</style></head><body><main>`,
  );
  html.push(
    `<h1>${escapeHtml(input.title)} <span class="num">${escapeHtml(owner)}/${escapeHtml(repo)}#${pullNumber}</span></h1>`,
  );
  html.push(`<ul class="story">${input.story.map((s) => `<li>${escapeHtml(s)}</li>`).join("")}</ul>`);
  for (const l of input.links ?? []) {
    html.push(`<p class="story"><a href="${escapeHtml(l.href)}">${escapeHtml(l.text)}</a></p>`);
    mdOut.push(`[${l.text}](${l.href})`, "");
  }
  for (const run of runs) {
    const state = run.conclusion ?? run.status;
    // GitHub shows only the newest check run of a name on a head: a triage that changes the annotations
    // posts a fresh one, and the older one drops out of the pull request's checks.
    const newer = runs.find((r) => r.id > run.id && r.name === run.name && r.headSha === run.headSha);
    const replaced = newer
      ? ` <span class="replaced">(replaced by the newer check run #${newer.id} on the same commit; GitHub shows only that one)</span>`
      : "";
    html.push(
      `<section class="box"><header><span class="pill ${escapeHtml(state)}">${escapeHtml(state)}</span> <b>${escapeHtml(run.name)}</b> #${run.id} on <code>${escapeHtml(run.headSha.slice(0, 7))}</code> — ${escapeHtml(run.output.title ?? "")}${run.externalId ? ` · scan <code>${escapeHtml(run.externalId)}</code>` : ""}${replaced}</header><div class="body">`,
    );
    html.push(md(run.output.summary));
    if (run.output.text) html.push(md(run.output.text));
    for (const a of run.annotations) {
      const level = String(a.annotation_level ?? "warning");
      html.push(
        `<div class="ann ${escapeHtml(level)}"><div class="path">${escapeHtml(annotationPlace(a))} · ${escapeHtml(level)}</div><b>${escapeHtml(String(a.title ?? ""))}</b><div class="msg">${escapeHtml(String(a.message ?? ""))}</div></div>`,
      );
    }
    html.push(`</div></section>`);
    mdOut.push(
      `## Check run \`${run.name}\` #${run.id} on ${run.headSha.slice(0, 7)}: ${state}${newer ? ` (replaced by #${newer.id})` : ""}`,
      "",
      `**${run.output.title ?? ""}**`,
      "",
      run.output.summary ?? "",
      "",
      run.output.text ?? "",
    );
    if (run.annotations.length) {
      mdOut.push(
        "",
        "### Annotations",
        "",
        ...run.annotations.map(
          (a) => `- \`${annotationPlace(a)}\` (${String(a.annotation_level)}): ${String(a.title ?? "")}`,
        ),
      );
    }
    mdOut.push("");
  }
  for (const review of reviews) {
    html.push(
      `<section class="box"><header><b>${escapeHtml(review.user.login)}</b> reviewed (${escapeHtml(review.state)})</header><div class="body">${md(review.body)}</div></section>`,
    );
    mdOut.push(`## Review by ${review.user.login} (${review.state})`, "", review.body, "");
  }
  for (const c of comments.filter((x) => x.inReplyToId === null)) {
    html.push(
      `<section class="box"><header><span class="path">${escapeHtml(c.path)}:${c.line ?? ""}</span> · <b>${escapeHtml(c.user.login)}</b></header><div class="body">${md(c.body)}`,
    );
    mdOut.push(`### Review comment on \`${c.path}:${c.line ?? ""}\``, "", c.body, "");
    for (const r of comments.filter((x) => x.inReplyToId === c.id)) {
      html.push(`<div class="reply"><b>${escapeHtml(r.user.login)}</b>${md(r.body)}</div>`);
      mdOut.push(`> **${r.user.login}** replied:`, "", ...r.body.split("\n").map((l) => `> ${l}`), "");
    }
    html.push(`</div></section>`);
  }
  for (const c of issueComments) {
    html.push(
      `<section class="box"><header><b>${escapeHtml(c.user.login)}</b> commented</header><div class="body">${md(c.body)}</div></section>`,
    );
    mdOut.push(`### Comment by ${c.user.login}`, "", c.body, "");
  }
  html.push(`</main></body></html>`);
  return { html: html.join("\n"), markdown: mdOut.join("\n") };
}
