/**
 * The organization's page as HTML (pure): small section builders joined by {@link renderInstallationPage},
 * and the list of a viewer's installations ({@link renderInstallationList}). Server-rendered whole documents,
 * usable without JavaScript, one inline stylesheet and nothing loaded from elsewhere (`../render/html.ts`). Every
 * text that is not diffward's own (logins, repositories, service and GitHub messages) is escaped.
 */
import type { CapForecast } from "../domain/cap-forecast.js";
import type {
  CapRow,
  ExpiringAcceptance,
  FailedJobRow,
  HeldApproval,
  InFlightScan,
  InstallationPage,
  ProblemsSection,
  QueueDepth,
  RepoSpend,
  ReportRow,
  SpendSection,
} from "./page-model.js";
import { SEVERITIES } from "../scanner/catalog.js";
import { escapeHtml, formatCredits, formatDuration, formatInstant, htmlDocument } from "../render/html.js";
import { renderSpendChart, renderSpendLegend } from "./render-spend-chart.js";

/** The viewer and the sign-out form of a page. */
export interface PageViewer {
  /** the signed-in GitHub login */
  user: string;
  /** where the sign-out form posts */
  logoutPath: string;
  /** the session's CSRF token, sent back by the sign-out form */
  csrf?: string;
}

/** The sections of an installation's page, in order: anchor and heading. */
export const PAGE_SECTIONS = [
  ["credits", "Credits"],
  ["spend", "Spend"],
  ["in-flight", "Scans in flight"],
  ["reports", "Last reports"],
  ["approvals", "Held approvals"],
  ["expiring", "Expiring acceptances"],
  ["problems", "Problems"],
] as const;

/** One installation's page as a whole HTML document. */
export function renderInstallationPage(page: InstallationPage, viewer: PageViewer): string {
  const links = new Links(page.githubUrl);
  const sections = [
    creditsSection(page),
    spendSectionHtml(page.spend, links),
    inFlightSection(page, links),
    reportsSection(page, links),
    approvalsSection(page, links),
    expiringSection(page, links),
    problemsSection(page),
  ];
  const toc = PAGE_SECTIONS.map(([id, title]) => `<a href="#${id}">${title}</a>`).join("");
  const body = `${header(viewer, `diffward · ${page.account}`)}
<main>
<p class="muted"><a href="../render">All installations</a> · ${escapeHtml(page.account)} · installation ${page.installationId} · as of ${formatInstant(page.generatedAt)}</p>
<nav class="toc">${toc}</nav>
${sections.join("\n")}
</main>`;
  return htmlDocument(`diffward · ${page.account}`, body);
}

/** The installations a viewer may open, as a whole HTML document. */
export function renderInstallationList(
  items: ReadonlyArray<{ id: number; account: string; kind: "Organization" | "User" }>,
  user: string,
  viewer?: Omit<PageViewer, "user">,
): string {
  const rows = items
    .map(
      (i) =>
        `<tr><td><a href="${i.id}">${escapeHtml(i.account)}</a></td><td>${i.kind === "User" ? "user" : "organization"}</td><td class="num">${i.id}</td></tr>`,
    )
    .join("");
  const table = items.length
    ? `<div class="scroll"><table><thead><tr><th>Account</th><th>Kind</th><th class="num">Installation</th></tr></thead><tbody>${rows}</tbody></table></div>`
    : `<p>No installation of diffward that your GitHub account can access.</p>`;
  const body = `${header({ user, logoutPath: viewer?.logoutPath ?? "logout", ...(viewer?.csrf ? { csrf: viewer.csrf } : {}) }, "diffward")}
<main><section><h2>Installations</h2>${table}</section></main>`;
  return htmlDocument("diffward · installations", body);
}

/** The page's header: title, viewer, sign-out (a POST form: signing out is a change). */
function header(viewer: PageViewer, title: string): string {
  const csrf = viewer.csrf ? `<input type="hidden" name="csrf" value="${escapeHtml(viewer.csrf)}">` : "";
  return `<header><h1>${escapeHtml(title)}</h1><div><span class="who">Signed in as <strong>${escapeHtml(viewer.user)}</strong></span> <form method="post" action="${escapeHtml(viewer.logoutPath)}">${csrf}<button type="submit">Sign out</button></form></div></header>`;
}

/** Web addresses of GitHub pages. */
class Links {
  constructor(readonly base: string) {}
  repo(repository: string): string {
    return `${this.base}/${repository.split("/").map(encodeURIComponent).join("/")}`;
  }
  pull(repository: string, n: number): string {
    return `${this.repo(repository)}/pull/${n}`;
  }
  commit(repository: string, sha: string): string {
    return `${this.repo(repository)}/commit/${encodeURIComponent(sha)}`;
  }
  thread(repository: string, n: number, commentId: number | null): string {
    return `${this.pull(repository, n)}${commentId ? `#discussion_r${commentId}` : ""}`;
  }
  /** a pull request's link, or the repository's for a baseline (number 0) */
  pullOrRepo(repository: string, n: number): string {
    return n > 0
      ? `<a href="${escapeHtml(this.pull(repository, n))}">${escapeHtml(repository)}#${n}</a>`
      : `<a href="${escapeHtml(this.repo(repository))}">${escapeHtml(repository)}</a> (default branch)`;
  }
}

/** A section of the page, its heading from {@link PAGE_SECTIONS}. */
function section(id: (typeof PAGE_SECTIONS)[number][0], body: string): string {
  const title = PAGE_SECTIONS.find(([k]) => k === id)![1];
  return `<section id="${id}" aria-labelledby="${id}-h"><h2 id="${id}-h">${title}</h2>${body}</section>`;
}

/**
 * A column of a table: its heading (`#` first: a number, right-aligned), the cell's HTML of a row, and `wrap`
 * for long text that wraps instead of widening the table.
 */
type Column<T> = readonly [head: string, cell: (row: T) => string, kind?: "wrap"];

/** A table of `items`, one row each; `empty` when there is none. */
function tableOf<T>(items: readonly T[], columns: ReadonlyArray<Column<T>>, empty: string): string {
  if (items.length === 0) return `<p class="muted">${empty}</p>`;
  const cls = columns.map(([h, , kind]) =>
    h.startsWith("#") ? ' class="num"' : kind ? ` class="${kind}"` : "",
  );
  const th = columns
    .map(([h]) => (h.startsWith("#") ? `<th class="num">${h.slice(1)}</th>` : `<th>${h}</th>`))
    .join("");
  const rows = items
    .map((it) => `<tr>${columns.map(([, cell], i) => `<td${cls[i]}>${cell(it)}</td>`).join("")}</tr>`)
    .join("");
  return `<div class="scroll"><table><thead><tr>${th}</tr></thead><tbody>${rows}</tbody></table></div>`;
}

function num(n: number | null | undefined): string {
  return `<td class="num">${n === null || n === undefined ? "—" : formatCredits(n)}</td>`;
}

function creditsSection(page: InstallationPage): string {
  const c = page.credits;
  const body = !page.orgWide
    ? `<p class="muted">The balance is shown to the organization's owners.</p>`
    : !c
      ? `<p class="muted">Not read.</p>`
      : "error" in c
        ? `<p class="bad">${escapeHtml(c.error)}</p>`
        : `<div class="cards">${card("Balance", c.balance)}${card("Available", c.available)}${card("Reserved by scans running", c.reserved)}</div><p class="muted">The service's balance for the whole organization, read ${formatInstant(c.readAt)} (kept one minute).</p>`;
  return section("credits", body);
}

function card(label: string, n: number, extra = ""): string {
  return `<div class="card"><div class="muted">${escapeHtml(label)}</div><div class="n">${formatCredits(n)}</div>${extra}</div>`;
}

/** A cap's forecast in words. */
export function forecastText(f: CapForecast): string {
  switch (f.kind) {
    case "no-cap":
      return "no cap";
    case "no-spend":
      return "nothing spent yet this month";
    case "reached":
      return `<span class="bad">cap reached</span>`;
    case "this-month":
      return `<span class="warn">reached around ${f.date} at this month's pace</span>`;
    case "not-this-month":
      return `<span class="good">not reached this month</span> (about ${formatCredits(f.monthEndSpend)} by the month's end at this pace)`;
  }
}

/** The in-page anchor of a repository's figure in a month. */
const anchorOf = (i: number, month: string) => `spend-r${i}-${month}`;

function spendSectionHtml(spend: SpendSection, links: Links): string {
  const month =
    spend.monthSpent === null
      ? ""
      : `<div class="cards">${card(`Spent in ${spend.month}`, spend.monthSpent)}</div>`;
  const capColumns: Array<Column<CapRow>> = [
    [
      "Repository",
      (c) => `<a href="${escapeHtml(links.repo(c.repository))}">${escapeHtml(c.repository)}</a>`,
    ],
    ["#Spent", (c) => formatCredits(c.spent)],
    ["#Cap", (c) => formatCredits(c.cap)],
    ["#Used", (c) => `${Math.round((c.spent / c.cap) * 100)}%`],
    ["Forecast", (c) => forecastText(c.forecast), "wrap"],
  ];
  const caps =
    spend.monthSpent === null
      ? ""
      : `<h3>Monthly caps (<code>creditCap.monthly</code>)</h3>${tableOf(spend.caps, capColumns, "No repository has a monthly cap.")}`;
  const chart = spend.repositories.length
    ? `<h3>Per repository, last ${spend.months.length} months</h3><div class="chart"><div>${renderSpendChart(spend, anchorOf)}${renderSpendLegend(spend)}</div>${spendTable(spend)}</div>${spendPulls(spend, links)}`
    : `<p class="muted">No spend recorded in the last ${spend.months.length} months.</p>`;
  return section("spend", month + caps + chart);
}

/** The chart's numbers: one row per repository, each figure linking to the pull requests behind it. */
function spendTable(spend: SpendSection): string {
  const rows = spend.repositories.map((r, i) => {
    const cells = r.months
      .map((m) =>
        m.credits > 0
          ? `<td class="num"><a href="#${anchorOf(i, m.month)}">${formatCredits(m.credits)}</a></td>`
          : num(0),
      )
      .join("");
    return `<tr><th scope="row">${escapeHtml(r.repository)}</th>${cells}${num(r.total)}</tr>`;
  });
  const head = spend.months.map((m) => `<th scope="col" class="num">${m}</th>`).join("");
  return `<div class="scroll"><table><caption class="muted">Credits spent per repository and month (budgets of scans not settled yet included)</caption><thead><tr><th scope="col">Repository</th>${head}<th scope="col" class="num">Total</th></tr></thead><tbody>${rows.join("")}</tbody></table></div>`;
}

/** The pull requests behind each figure, one list per repository and month. */
function spendPulls(spend: SpendSection, links: Links): string {
  const blocks = spend.repositories.flatMap((r: RepoSpend, i) =>
    r.months
      .filter((m) => m.credits > 0)
      .map((m) => {
        const items = m.pulls
          .map(
            (p) =>
              `<li>${links.pullOrRepo(r.repository, p.pullNumber)}: ${formatCredits(p.credits)} credits${p.settled ? "" : ' <span class="muted">(budget, not settled yet)</span>'}</li>`,
          )
          .join("");
        return `<details id="${anchorOf(i, m.month)}"><summary>${escapeHtml(r.repository)}, ${m.month}: ${formatCredits(m.credits)} credits</summary><ul>${items}</ul></details>`;
      }),
  );
  return `<h3>Pull requests behind each figure</h3>${blocks.join("")}`;
}

const IN_FLIGHT_COLUMNS = (page: InstallationPage, links: Links): Array<Column<InFlightScan>> => [
  [
    "Pull request",
    (s) => links.pullOrRepo(s.repository, s.pullNumber) + (s.kind === "merge-group" ? " (merge group)" : ""),
  ],
  [
    "Head",
    (s) =>
      `<a href="${escapeHtml(links.commit(s.repository, s.headSha))}"><code>${escapeHtml(s.headSha.slice(0, 7))}</code></a>`,
  ],
  ["Status", (s) => escapeHtml(s.status)],
  ["#Progress", (s) => (s.percent === null ? "—" : `${s.percent}%`)],
  [
    "Waiting since",
    (s) =>
      s.since === null ? "—" : `${formatInstant(s.since)} (${formatDuration(page.generatedAt - s.since)})`,
  ],
  ["Next poll", (s) => formatInstant(s.nextPollAt)],
];

function inFlightSection(page: InstallationPage, links: Links): string {
  return section("in-flight", tableOf(page.inFlight, IN_FLIGHT_COLUMNS(page, links), "No scan in flight."));
}

function conclusionLabel(c: string): string {
  const cls = c === "success" ? "success" : c === "failure" || c === "timed_out" ? "failure" : "other";
  return `<span class="label ${cls}">${escapeHtml(c)}</span>`;
}

/** What "Push → report" measures, as its heading's tooltip and the note under the table say. */
export const PUSH_TO_REPORT_MEANING =
  "Push → report: from when diffward received the push (the delivery of the pull request's event, or the re-run) to the report; a commit's or pull request's own date is not used.";

const REPORT_COLUMNS = (links: Links): Array<Column<ReportRow>> => [
  ["Pull request", (r) => links.pullOrRepo(r.repository, r.pullNumber)],
  ["Conclusion", (r) => conclusionLabel(r.conclusion)],
  ...SEVERITIES.map((sev): Column<ReportRow> => [
    `#${sev.toLowerCase()}`,
    (r) => String(r.severities[sev] ?? 0),
  ]),
  ["#Credits", (r) => (r.credits === null ? "—" : `${formatCredits(r.credits)}${r.settled ? "" : "*"}`)],
  [
    `<span title="${escapeHtml(PUSH_TO_REPORT_MEANING)}">Push → report</span>`,
    (r) => (r.pushToReportMs === null ? "—" : formatDuration(r.pushToReportMs)),
  ],
  ["Reported", (r) => formatInstant(r.reportedAt)],
];

function reportsSection(page: InstallationPage, links: Links): string {
  return section(
    "reports",
    `${tableOf(page.reports, REPORT_COLUMNS(links), "No report yet.")}<p class="muted">Up to 50, newest first. * a budget: the spend is not settled yet. ${escapeHtml(PUSH_TO_REPORT_MEANING)}</p>`,
  );
}

/** The finding's link to its review thread (the pull request when the comment is not known). */
const findingThread =
  (links: Links) =>
  (x: { repository: string; pullNumber: number; commentId: number | null; findingId: string }) =>
    `<a href="${escapeHtml(links.thread(x.repository, x.pullNumber, x.commentId))}">${escapeHtml(x.findingId)}</a>`;

const APPROVAL_COLUMNS = (links: Links): Array<Column<HeldApproval>> => [
  ["Pull request", (a) => links.pullOrRepo(a.repository, a.pullNumber)],
  ["Finding (review thread)", findingThread(links)],
  ["Severity", (a) => escapeHtml(a.severity)],
  ["Dismissal", (a) => escapeHtml(a.resolutionStatus)],
  ["Asked by", (a) => escapeHtml(a.requestedBy)],
  ["Asked at", (a) => formatInstant(Date.parse(a.requestedAt))],
  ["Code owners", approvalOwners],
];

/** Who may approve beyond the role: the file's code owners, or why the role rule applies alone; "—" when not asked. */
function approvalOwners(a: HeldApproval): string {
  if (a.owners.length > 0) return escapeHtml(a.owners.join(", "));
  return a.ownersNote !== undefined
    ? `<span class="muted">role rule alone: ${escapeHtml(a.ownersNote.replaceAll("`", ""))}</span>`
    : "—";
}

function approvalsSection(page: InstallationPage, links: Links): string {
  return section(
    "approvals",
    tableOf(page.approvals, APPROVAL_COLUMNS(links), "No dismissal waits for approval."),
  );
}

function expiringSection(page: InstallationPage, links: Links): string {
  if (!page.expiring.available)
    return section("expiring", `<p class="bad">The acceptance expiries could not be read.</p>`);
  const columns: Array<Column<ExpiringAcceptance>> = [
    ["Pull request", (e) => links.pullOrRepo(e.repository, e.pullNumber)],
    ["Finding (review thread)", findingThread(links)],
    ["Accepted as", (e) => escapeHtml(e.resolutionStatus)],
    ["By", (e) => escapeHtml(e.by)],
    ["Expires", (e) => formatInstant(e.expiresAt)],
  ];
  return section(
    "expiring",
    `${tableOf(page.expiring.items, columns, "No acceptance expires in the next 30 days.")}<p class="muted">At its expiry a finding is open again.</p>`,
  );
}

const QUEUE_COLUMNS: Array<Column<QueueDepth>> = [
  ["Queue", (q) => escapeHtml(q.queue)],
  ["#Waiting", (q) => formatCredits(q.waiting)],
  ["#Active", (q) => formatCredits(q.active)],
  ["#Delayed", (q) => formatCredits(q.delayed)],
  ["#Failed", (q) => formatCredits(q.failed)],
];

const FAILED_COLUMNS: Array<Column<FailedJobRow>> = [
  ["Queue", (j) => escapeHtml(j.queue)],
  ["Job", (j) => escapeHtml(j.name)],
  [
    "Pull request",
    (j) => (j.repository ? escapeHtml(j.repository) + (j.pullNumber ? `#${j.pullNumber}` : "") : "—"),
  ],
  ["Reason", (j) => escapeHtml(j.reason), "wrap"],
  ["Failed at", (j) => formatInstant(j.at)],
];

const CONFIG_COLUMNS: Array<Column<ProblemsSection["invalidConfigs"][number]>> = [
  ["Repository", (c) => escapeHtml(c.repository)],
  ["First problem", (c) => escapeHtml(c.problem), "wrap"],
  ["Seen", (c) => formatInstant(c.seenAt)],
];

const POLICY_COLUMNS: Array<Column<ProblemsSection["policies"][number]>> = [
  ["Repository", (c) => escapeHtml(c.repository)],
  ["Mode", (c) => escapeHtml(c.mode)],
  ["failOn", (c) => escapeHtml(c.failOn)],
  [
    "Organization floor",
    (c) =>
      c.raised.length
        ? `raised: ${c.raised.map((k) => `<code>${escapeHtml(k)}</code>`).join(", ")}`
        : "not raised",
    "wrap",
  ],
  ["Seen", (c) => formatInstant(c.seenAt)],
];

function problemsSection(page: InstallationPage): string {
  const p = page.problems;
  const token =
    p.missingToken === null
      ? ""
      : `<li>Service token: ${p.missingToken ? `<span class="bad">none for ${escapeHtml(page.account)}</span>` : `<span class="good">present</span>`}</li>`;
  const health = `<ul><li>Scanning service: ${healthText(p.service)}</li><li>GitHub: ${healthText(p.github)}</li>${token}</ul>`;
  const queues = p.queues
    ? `<h3>Queues: this installation's jobs</h3>${tableOf(p.queues, QUEUE_COLUMNS, "No queue.")}`
    : "";
  const deployment = p.deploymentQueues
    ? `<h3>Queues: the whole deployment (admin)</h3>${tableOf(p.deploymentQueues, QUEUE_COLUMNS, "No queue.")}<p class="muted">Every installation's jobs, shown for the admin bearer (<code>DIFFWARD_ADMIN_TOKEN</code>) only.</p>`
    : "";
  return section(
    "problems",
    `${health}<h3>Invalid <code>.github/diffward.yml</code></h3>${tableOf(p.invalidConfigs, CONFIG_COLUMNS, "Every configuration read was valid.")}<h3>Effective policy</h3>${tableOf(p.policies, POLICY_COLUMNS, "No configuration read yet.")}${queues}${deployment}<h3>Failed jobs</h3>${tableOf(p.failedJobs, FAILED_COLUMNS, "No failed job.")}`,
  );
}

function healthText(h: { state: string; detail?: string }): string {
  const cls =
    h.state === "ok"
      ? "good"
      : ["not checked", "not-configured", "checking"].includes(h.state)
        ? "muted"
        : "bad";
  return `<span class="${cls}">${escapeHtml(h.state)}</span>${h.detail ? ` (${escapeHtml(h.detail)})` : ""}`;
}
