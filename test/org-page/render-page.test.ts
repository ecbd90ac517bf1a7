import { describe, expect, it } from "vitest";
import { forecastCapDay } from "../../src/domain/cap-forecast.js";
import {
  PAGE_SECTIONS,
  forecastText,
  renderInstallationList,
  renderInstallationPage,
} from "../../src/org-page/render-page.js";
import { escapeHtml, formatDuration } from "../../src/render/html.js";
import { PAGE_NOW, orgPage } from "../support/org-page.js";

const viewer = { user: "alice", logoutPath: "/logout", csrf: "tok123" };
const HOSTILE = `<script>alert("x")</script>`;

/**
 * Every resource the document would load from elsewhere (scripts, stylesheets, images, frames, `src`
 * attributes, CSS `url()` and `@import`), and every link that leads anywhere but the page itself, a relative
 * path, or GitHub (`https://github.com/…`).
 */
function externalResources(html: string): string[] {
  const tags = html.match(/<[a-zA-Z][^>]*>/g) ?? [];
  const style = html.slice(html.indexOf("<style>"), html.indexOf("</style>"));
  return [
    ...tags.filter((t) => /^<(script|link|img|iframe|object|embed|image|use|base)\b/i.test(t)),
    ...tags.filter((t) => /\s(src|srcset|xlink:href|background)\s*=/i.test(t)),
    ...(style.match(/url\(|@import/gi) ?? []),
    ...tags
      .flatMap((t) => [...t.matchAll(/\shref="([^"]*)"/g)].map((m) => m[1]!))
      .filter((href) => !/^(#|https:\/\/github\.com\/|[\w./-]+$)/.test(href) || href.startsWith("//")),
  ];
}

describe("renderInstallationPage", () => {
  it("is a whole document with every section, in order, and loads nothing from elsewhere", () => {
    const html = renderInstallationPage(orgPage(), viewer);
    expect(html.startsWith("<!doctype html>")).toBe(true);
    expect(html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    const at = PAGE_SECTIONS.map(([id]) => html.indexOf(`<section id="${id}"`));
    expect(at.every((i) => i > 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    expect(externalResources(html)).toEqual([]);
    expect(html).toContain(
      '<form method="post" action="/logout"><input type="hidden" name="csrf" value="tok123">',
    );
  });

  it("shows the credits, this month's spend, the cap and its forecast", () => {
    const html = renderInstallationPage(orgPage(), viewer);
    expect(html).toMatch(/Balance<\/div><div class="n">9,000</);
    expect(html).toMatch(/Reserved by scans running<\/div><div class="n">500</);
    expect(html).toMatch(/Spent in 2026-11<\/div><div class="n">420</);
    // 400 of 500 by the 20th at noon: 100 more at 20.5 a day ≈ 4.9 days → 25 November
    expect(html).toContain("reached around 2026-11-25 at this month's pace");
    expect(html).toMatch(/<td class="num">400<\/td><td class="num">500<\/td><td class="num">80%<\/td>/);
  });

  it("draws the per-repository spend as an inline SVG with a table beside it, each figure linking to its pull requests", () => {
    const html = renderInstallationPage(orgPage(), viewer);
    const svg = html.slice(
      html.indexOf("<svg viewBox"),
      html.indexOf("</svg>", html.indexOf("<svg viewBox")),
    );
    expect(svg).toContain('role="img"');
    expect(svg).toContain(
      '<title id="spend-chart-title">Credits spent per repository and month, 2026-06 to 2026-11',
    );
    // one segment per repository and month with spend: acme/web 5, acme/api 2
    expect(svg.match(/<rect /g)).toHaveLength(7);
    expect(svg).toContain('<a href="#spend-r0-2026-11"><rect');
    expect(html).toContain('<th scope="row">acme/web</th>');
    expect(html).toContain('<td class="num"><a href="#spend-r0-2026-11">400</a></td>');
    const details = html.slice(html.indexOf('<details id="spend-r0-2026-11">'));
    expect(details).toMatch(
      /^<details id="spend-r0-2026-11"><summary>acme\/web, 2026-11: 400 credits<\/summary><ul><li><a href="https:\/\/github.com\/acme\/web\/pull\/15">acme\/web#15<\/a>: 400 credits <span class="muted">\(budget, not settled yet\)<\/span>/,
    );
  });

  it("lists the scans in flight, the reports, the held approvals with their thread, and the problems", () => {
    const html = renderInstallationPage(orgPage(), viewer);
    expect(html).toContain('<a href="https://github.com/acme/web/pull/12">acme/web#12</a>');
    expect(html).toContain('<td>PROCESSING</td><td class="num">40%</td>');
    expect(html).toContain("(2 min)");
    expect(html).toContain(
      '<span class="label failure">failure</span><td class="num">1</td><td class="num">2</td>'.replace(
        "</span><td",
        "</span></td><td",
      ),
    );
    expect(html).toContain("<td>1 min 35 s</td>");
    expect(html).toContain(
      '<a href="https://github.com/acme/web/pull/11#discussion_r555">fnd_1</a></td><td>HIGH</td><td>FALSE_POSITIVE</td><td>bob</td><td>2026-11-19 10:00 UTC</td><td>@dana, @acme/payments</td>',
    );
    const fallback = {
      ...orgPage().approvals[0]!,
      owners: [],
      ownersNote: "GitHub lists 1 error in `CODEOWNERS`",
    };
    expect(renderInstallationPage(orgPage({ approvals: [fallback] }), viewer)).toContain(
      '<td><span class="muted">role rule alone: GitHub lists 1 error in CODEOWNERS</span></td>',
    );
    expect(html).toContain("failOn: expected one of critical, high");
    expect(html).toContain(
      '<a href="https://github.com/acme/web/pull/11#discussion_r556">fnd_2</a></td><td>WONT_FIX</td><td>carol</td><td>2026-11-25 12:00 UTC</td>',
    );
    const unreadable = renderInstallationPage(orgPage({ expiring: { available: false, items: [] } }), viewer);
    expect(unreadable).toContain("The acceptance expiries could not be read.");
    expect(html).toContain("<td>diffward-scans</td>");
  });

  it("escapes every text that is not diffward's own", () => {
    const page = orgPage({
      account: HOSTILE,
      approvals: [{ ...orgPage().approvals[0]!, requestedBy: HOSTILE, findingId: `"><img src=x>` }],
      problems: {
        ...orgPage().problems,
        invalidConfigs: [{ repository: `acme/${HOSTILE}`, problem: HOSTILE, seenAt: PAGE_NOW }],
        service: { state: "unreachable", detail: HOSTILE },
      },
    });
    const html = renderInstallationPage(page, { ...viewer, user: HOSTILE });
    expect(html).not.toContain("<script");
    expect(html).not.toContain("<img");
    expect(html).toContain(escapeHtml(HOSTILE));
    expect(externalResources(html)).toEqual([]);
  });

  it("shows a viewer without organization-wide access no balance, month total, caps, token or queues", () => {
    const page = orgPage({
      orgWide: false,
      credits: null,
      spend: { ...orgPage().spend, monthSpent: null, caps: [] },
      problems: { ...orgPage().problems, missingToken: null, queues: null },
    });
    const html = renderInstallationPage(page, viewer);
    expect(html).toContain("The balance is shown to the organization's owners.");
    expect(html).not.toContain("Spent in 2026-11");
    expect(html).not.toContain("creditCap.monthly");
    expect(html).not.toContain("Service token");
    expect(html).not.toContain("<h3>Queues");
  });

  it("shows the installation's own jobs per queue, and the whole deployment's only when the page has them (admin)", () => {
    const own = renderInstallationPage(orgPage(), viewer);
    expect(own).toContain("<h3>Queues: this installation's jobs</h3>");
    expect(own).not.toContain("the whole deployment");
    const deploymentQueues = [{ queue: "diffward-events", waiting: 40, active: 3, delayed: 2, failed: 1 }];
    const admin = renderInstallationPage(
      orgPage({ problems: { ...orgPage().problems, deploymentQueues } }),
      viewer,
    );
    expect(admin).toContain("<h3>Queues: the whole deployment (admin)</h3>");
    expect(admin).toContain('<td>diffward-events</td><td class="num">40</td>');
  });

  it("says so when a section is empty", () => {
    const empty = orgPage({
      inFlight: [],
      reports: [],
      approvals: [],
      expiring: { available: true, items: [] },
    });
    const html = renderInstallationPage({ ...empty, spend: { ...empty.spend, repositories: [] } }, viewer);
    expect(html).toContain("No scan in flight.");
    expect(html).toContain("No report yet.");
    expect(html).toContain("No dismissal waits for approval.");
    expect(html).toContain("No acceptance expires in the next 30 days.");
    expect(html).toContain("No spend recorded in the last 6 months.");
    expect(html).not.toContain("<svg viewBox");
  });
});

describe("forecastText", () => {
  it("words each forecast", () => {
    expect(forecastText(forecastCapDay(0, 100, PAGE_NOW))).toBe("nothing spent yet this month");
    expect(forecastText(forecastCapDay(100, 100, PAGE_NOW))).toContain("cap reached");
    expect(forecastText(forecastCapDay(1, 10_000, PAGE_NOW))).toContain("not reached this month");
    expect(forecastText({ kind: "no-cap" })).toBe("no cap");
  });
});

describe("formatDuration", () => {
  it("gives the two largest units", () => {
    expect([0, 45_000, 95_000, 3_600_000, 7_260_000, 90_000_000].map(formatDuration)).toEqual([
      "0 s",
      "45 s",
      "1 min 35 s",
      "1 h",
      "2 h 1 min",
      "1 d 1 h",
    ]);
  });
});

describe("renderInstallationList", () => {
  it("links each installation, escapes account names and says when there is none", () => {
    const html = renderInstallationList(
      [
        { id: 7, account: "acme", kind: "Organization" },
        { id: 8, account: HOSTILE, kind: "User" },
      ],
      "alice",
    );
    expect(html).toContain('<a href="7">acme</a></td><td>organization</td>');
    expect(html).toContain(`${escapeHtml(HOSTILE)}</a></td><td>user</td>`);
    expect(html).not.toContain("<script");
    expect(externalResources(html)).toEqual([]);
    expect(renderInstallationList([], "alice")).toContain(
      "No installation of diffward that your GitHub account can access.",
    );
  });
});
