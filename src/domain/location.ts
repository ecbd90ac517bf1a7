/**
 * Finding locations (spec §Finding (list item): `location` is a required string whose format the
 * spec does not fix). diffward understands the common shapes and leaves anything else unplaced.
 */
import type { Location } from "./finding-types.js";

const LINE_SUFFIXES: readonly RegExp[] = [
  // path:12:5 (a column is read and dropped: review comments and annotations are per line)
  /^(?<path>.+?):(?<start>\d+):\d+$/,
  // path#L12-L20, path#L12-20, path#L12
  /^(?<path>.+?)#L(?<start>\d+)(?:-L?(?<end>\d+))?$/,
  // path:12-20, path:12
  /^(?<path>.+?):(?<start>\d+)(?:-(?<end>\d+))?$/,
];

const EXTENSION = /\.[A-Za-z0-9_+-]+$/;

/**
 * Parses a finding location into a repository-relative path and an optional line range.
 *
 * Accepted shapes (whitespace around the whole text is trimmed):
 * - `path:12` and `path:12-20`; `path:12:5` (the column is dropped)
 * - `path#L12`, `path#L12-L20` (GitHub blob anchors; `path#L12-20` too)
 * - a bare `path`
 *
 * The path must contain no whitespace, no `://` (a URL is not a location), no `..` segment, no
 * control character, and must contain a `/` or end in a file extension (`src/app.ts`, `setup.py`;
 * `Dockerfile` alone is not recognised; `docker/Dockerfile` is). A leading `./` or `/` is stripped.
 *
 * Lines are 1-based positive safe integers. A reversed range (`path:20-12`) is **swapped** to
 * `12-20`: it names the same lines and a reviewer gains nothing from losing it. When only one line
 * is given, `startLine === endLine`. A line of `0` or beyond `Number.MAX_SAFE_INTEGER` makes the
 * whole location unparseable.
 *
 * @returns the parsed location, or `undefined` for anything else (`module Foo`, a URL, empty text).
 * Never throws.
 */
export function parseLocation(location: string): Location | undefined {
  if (typeof location !== "string") return undefined;
  const text = location.trim();
  if (text === "") return undefined;
  for (const pattern of LINE_SUFFIXES) {
    const m = pattern.exec(text);
    if (!m?.groups) continue;
    const path = normalizePath(m.groups["path"] ?? "");
    if (path === undefined) return undefined;
    const start = toLine(m.groups["start"]);
    const end = m.groups["end"] === undefined ? start : toLine(m.groups["end"]);
    if (start === undefined || end === undefined) return undefined;
    return { path, startLine: Math.min(start, end), endLine: Math.max(start, end) };
  }
  const path = normalizePath(text);
  return path === undefined ? undefined : { path };
}

/**
 * Formats a location back to text: `path`, `path:12` or `path:12-20`. For every `loc` that
 * {@link parseLocation} returns, `parseLocation(formatLocation(loc))` equals `loc`.
 */
export function formatLocation(loc: Location): string {
  if (loc.startLine === undefined) return loc.path;
  const end = loc.endLine ?? loc.startLine;
  return end === loc.startLine ? `${loc.path}:${loc.startLine}` : `${loc.path}:${loc.startLine}-${end}`;
}

function toLine(digits: string | undefined): number | undefined {
  if (digits === undefined || digits.length > 16) return undefined;
  const n = Number(digits);
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

function normalizePath(raw: string): string | undefined {
  let path = raw;
  if (path.startsWith("./")) path = path.slice(2);
  else if (path.startsWith("/")) path = path.slice(1);
  if (path === "" || path.startsWith("/")) return undefined;
  // eslint-disable-next-line no-control-regex
  if (/[\s\u0000-\u001f\u007f]/u.test(path) || path.includes("://")) return undefined;
  const segments = path.split("/");
  // a location names a file inside the repository: no `..`, no `.` and no empty segment (`a//b`, `dir/`)
  if (segments.some((s) => s === ".." || s === "." || s === "")) return undefined;
  const last = segments[segments.length - 1] ?? "";
  if (segments.length < 2 && !EXTENSION.test(last)) return undefined;
  // `#` and `:` are not allowed where they would have been a line suffix we could not read.
  if (/#L\d/.test(path) || /:\d+(-\d+)?$/.test(path)) return undefined;
  return path;
}
