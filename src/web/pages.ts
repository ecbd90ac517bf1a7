/**
 * The few pages of sign-in itself (a problem, sign out, signed out): full HTML documents, no external
 * resources, GitHub-like styling, usable without JavaScript. Pure.
 */
import { escapeHtml } from "../render/html.js";

const CSS =
  'body{font-family:-apple-system,BlinkMacSystemFont,"Segoe UI","Noto Sans",Helvetica,Arial,sans-serif;background:#f6f8fa;color:#1f2328;margin:0}' +
  "main{max-width:480px;margin:64px auto;padding:24px;background:#fff;border:1px solid #d1d9e0;border-radius:6px}" +
  "h1{font-size:20px;font-weight:600;margin-top:0}p{font-size:14px;line-height:1.5}" +
  "button,.button{display:inline-block;font:inherit;font-size:14px;font-weight:500;padding:5px 16px;border-radius:6px;border:1px solid #1f883d;background:#1f883d;color:#fff;cursor:pointer;text-decoration:none}";

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)} · diffward</title><style>${CSS}</style></head><body><main><h1>${escapeHtml(title)}</h1>${body}</main></body></html>`;
}

/** A problem page: what happened (`message`) and a link to sign in again. */
export function problemPage(title: string, message: string): string {
  return page(
    title,
    `<p>${escapeHtml(message)}</p><p><a class="button" href="/login">Sign in with GitHub</a></p>`,
  );
}

/** Sign out: a form posting the session's CSRF token to `/logout` (a link or a GET never signs out). */
export function signOutPage(login: string, csrf: string): string {
  return page(
    "Sign out",
    `<p>Signed in as <b>${escapeHtml(login)}</b>.</p><form method="post" action="/logout"><input type="hidden" name="csrf" value="${escapeHtml(csrf)}"><button type="submit">Sign out</button></form>`,
  );
}

/** After signing out (or with no session): a link to sign in again. */
export function signedOutPage(): string {
  return page(
    "Signed out",
    `<p>You are signed out of diffward.</p><p><a class="button" href="/login">Sign in with GitHub</a></p>`,
  );
}
