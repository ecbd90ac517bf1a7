/**
 * The requests about the calling account (spec §Token, §Billing): its token, and the organization's
 * credits as this project sees them. All amounts are in credits.
 */
import { type ScannerTransport } from "./transport.js";
import { asQuery, checked } from "./request-input.js";
import { SummaryOptions, UsageOptions } from "./inputs.js";
import { Balance, Summary, Token, Usage } from "./schemas.js";

/** `GET /token`. */
export function getToken(t: ScannerTransport): Promise<Token> {
  return t.json(Token, { method: "GET", route: "/token" });
}

/** `GET /projects/{projectId}/billing/balance`. */
export function getBalance(t: ScannerTransport, projectId: string): Promise<Balance> {
  return t.json(Balance, {
    method: "GET",
    route: "/projects/{projectId}/billing/balance",
    params: { projectId },
  });
}

/** `GET /projects/{projectId}/billing/usage`: `from` and `to` are sent as ISO 8601 instants. */
export function getUsage(t: ScannerTransport, projectId: string, options: UsageOptions): Promise<Usage> {
  const iso = (d: Date | string | undefined) => (d instanceof Date ? d.toISOString() : d);
  return t.json(Usage, {
    method: "GET",
    route: "/projects/{projectId}/billing/usage",
    params: { projectId },
    input: checked(UsageOptions, options, ({ from, to, limit }) => ({
      query: { from: iso(from), to: iso(to), limit },
    })),
  });
}

/** `GET /projects/{projectId}/billing/summary`. */
export function getSummary(
  t: ScannerTransport,
  projectId: string,
  options: SummaryOptions,
): Promise<Summary> {
  return t.json(Summary, {
    method: "GET",
    route: "/projects/{projectId}/billing/summary",
    params: { projectId },
    input: checked(SummaryOptions, options, asQuery),
  });
}
