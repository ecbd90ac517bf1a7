/**
 * Small pure helpers of diffward's HTML pages (the organization's page): escaping of every text that is not
 * diffward's own, the page's document with its inline stylesheet, and human forms of instants and durations.
 * HTML5 "Serializing HTML fragments" (https://html.spec.whatwg.org/multipage/parsing.html#escapingString):
 * `&`, `<`, `>` and both quotes escaped make text safe in element content and in quoted attribute values.
 */

const ENTITIES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** Text (a login, a repository, a service message) made safe in HTML content and quoted attributes. */
export function escapeHtml(text: string | number): string {
  return String(text).replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

/** An instant (ms since the epoch) as `YYYY-MM-DD HH:MM UTC`; an em dash when absent. */
export function formatInstant(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms) || ms <= 0) return "—";
  return `${new Date(ms).toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

/** A duration (ms) in its two largest units: `45 s`, `3 min 5 s`, `2 h 10 min`, `3 d 4 h`. */
export function formatDuration(ms: number): string {
  let rest = Math.max(0, Math.round(ms / 1000));
  const parts = DURATION_UNITS.map(([name, size]) => {
    const n = Math.floor(rest / size);
    rest -= n * size;
    return { name, n };
  });
  const i = parts.findIndex((p) => p.n > 0);
  if (i < 0) return "0 s";
  const next = parts[i + 1];
  return `${parts[i]!.n} ${parts[i]!.name}${next && next.n > 0 ? ` ${next.n} ${next.name}` : ""}`;
}

const DURATION_UNITS: ReadonlyArray<readonly [string, number]> = [
  ["d", 86_400],
  ["h", 3_600],
  ["min", 60],
  ["s", 1],
];

/** A whole number with thousands separators (`12,345`). */
export function formatCredits(n: number): string {
  return Math.round(n).toLocaleString("en-US");
}

/**
 * GitHub-like styling (Primer's colours and system font stack), inline: the page loads nothing from
 * elsewhere. Narrow screens (phones) stack the cards and scroll wide tables sideways.
 */
const STYLE = `
*{box-sizing:border-box}
body{margin:0;font:14px/1.5 -apple-system,BlinkMacSystemFont,"Segoe UI","Noto Sans",Helvetica,Arial,sans-serif;color:#1f2328;background:#f6f8fa}
a{color:#0969da;text-decoration:none}a:hover{text-decoration:underline}
header{background:#24292f;color:#fff;padding:12px 24px;display:flex;flex-wrap:wrap;gap:12px;align-items:center;justify-content:space-between}
header a,header .who{color:#fff}header h1{font-size:16px;margin:0}
header form{display:inline;margin:0}
button{font:inherit;padding:4px 12px;border:1px solid #d0d7de;border-radius:6px;background:#f6f8fa;color:#1f2328;cursor:pointer}
main{max-width:1280px;margin:0 auto;padding:16px 24px}
nav.toc{display:flex;flex-wrap:wrap;gap:4px 16px;margin:0 0 16px}
section{background:#fff;border:1px solid #d0d7de;border-radius:6px;margin:0 0 16px;padding:16px}
h2{font-size:20px;margin:0 0 12px;padding-bottom:8px;border-bottom:1px solid #d8dee4}
h3{font-size:16px;margin:16px 0 8px}
.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(180px,1fr));gap:12px}
.card{border:1px solid #d0d7de;border-radius:6px;padding:12px}
.card .n{font-size:24px;font-weight:600}.muted{color:#59636e}
.scroll{overflow-x:auto}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:6px 8px;border-bottom:1px solid #d8dee4;vertical-align:top;white-space:nowrap}
td.wrap{white-space:normal;min-width:200px}
th{background:#f6f8fa;font-weight:600}td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
.chart{display:flex;flex-wrap:wrap;gap:16px;align-items:flex-start}.chart svg{max-width:100%;height:auto}
.chart .scroll{flex:1 1 420px}
.label{display:inline-block;padding:0 7px;border-radius:2em;font-size:12px;font-weight:500;border:1px solid transparent}
.success{background:#dafbe1;color:#1a7f37}.failure{background:#ffebe9;color:#d1242f}.other{background:#eaeef2;color:#59636e}
.warn{color:#9a6700}.bad{color:#d1242f}.good{color:#1a7f37}
details{margin:4px 0}summary{cursor:pointer}
code{font:12px ui-monospace,SFMono-Regular,Menlo,monospace;background:#eff2f5;padding:1px 4px;border-radius:4px}
@media (max-width:640px){main{padding:8px}section{padding:12px}header{padding:8px 12px}h2{font-size:18px}}
`;

/** A whole HTML document: UTF-8, a viewport for phones, the inline stylesheet, `title` escaped. */
export function htmlDocument(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
${body}
</body>
</html>
`;
}
