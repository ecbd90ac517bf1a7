import type { StandInState } from "./state.js";

/** What a route handler receives. `apiBase` is the absolute URL prefix the client used (with `/api/v3`). */
export interface RouteContext {
  readonly method: string;
  readonly path: string;
  readonly params: Record<string, string>;
  readonly query: Record<string, string>;
  readonly body: unknown;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly apiBase: string;
  readonly origin: string;
  readonly installationId: number | undefined;
  /** the login a user access token (`ghu_…`, the App's web flow) belongs to */
  readonly user?: string | undefined;
  readonly state: StandInState;
}

/** A route's answer. `raw` sends text or bytes as-is (contents with a raw media type). */
export interface RouteReply {
  status: number;
  body?: unknown;
  raw?: string | Uint8Array;
  contentType?: string;
  headers?: Record<string, string>;
}

/** An HTTP error with GitHub's error body (`message`, optional `errors`, `documentation_url`). */
export class HttpError extends Error {
  override readonly name = "HttpError";
  constructor(
    readonly status: number,
    message: string,
    readonly errors?: unknown[],
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }

  toReply(): RouteReply {
    return {
      status: this.status,
      headers: this.headers ?? {},
      body: {
        message: this.message,
        ...(this.errors === undefined ? {} : { errors: this.errors }),
        documentation_url: "https://docs.github.com/rest",
        status: String(this.status),
      },
    };
  }
}

/** `404 Not Found`, GitHub's answer for anything missing or not visible to the caller. */
export function notFound(): HttpError {
  return new HttpError(404, "Not Found");
}

/**
 * Pages `items` with `per_page` (default 30, max 100) and `page` (1-based), as GitHub does, and builds the
 * `Link` header (`next`, `last`, `prev`, `first`) that Octokit's `paginate` follows (docs: REST "Using
 * pagination in the REST API").
 */
export function paginate<T>(
  ctx: RouteContext,
  items: readonly T[],
): { items: T[]; headers: Record<string, string> } {
  const perPage = Math.min(100, Math.max(1, Number(ctx.query["per_page"] ?? 30) || 30));
  const page = Math.max(1, Number(ctx.query["page"] ?? 1) || 1);
  const last = Math.max(1, Math.ceil(items.length / perPage));
  const slice = items.slice((page - 1) * perPage, page * perPage);
  const link = (p: number, rel: string): string => {
    const q = new URLSearchParams({ ...ctx.query, per_page: String(perPage), page: String(p) });
    return `<${ctx.apiBase}${ctx.path}?${q.toString()}>; rel="${rel}"`;
  };
  const links: string[] = [];
  if (page > 1) links.push(link(page - 1, "prev"));
  if (page < last) links.push(link(page + 1, "next"), link(last, "last"));
  if (page > 1) links.push(link(1, "first"));
  return { items: slice, headers: links.length > 0 ? { link: links.join(", ") } : {} };
}
