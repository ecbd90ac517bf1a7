import { describe, expect, it } from "vitest";
import {
  ERROR_CODES,
  ScannerApiError,
  ScannerNetworkError,
  ScannerRequestError,
  ScannerResponseError,
  ScannerTimeoutError,
  isRetryable,
  parseRetryAfter,
} from "../../src/scanner/index.js";

const endpoint = "POST /projects/{projectId}/scans";

describe("parseRetryAfter", () => {
  const now = Date.parse("2025-01-01T00:00:00Z");

  it("reads integer seconds", () => {
    expect(parseRetryAfter("1", now)).toBe(1);
    expect(parseRetryAfter(" 120 ", now)).toBe(120);
    expect(parseRetryAfter("0", now)).toBe(0);
  });

  it("reads an HTTP-date relative to now, rounded up", () => {
    expect(parseRetryAfter("Wed, 01 Jan 2025 00:00:30 GMT", now)).toBe(30);
    expect(parseRetryAfter(new Date(now + 1500).toUTCString(), now + 500)).toBe(1);
  });

  it("never goes negative for a date in the past", () => {
    expect(parseRetryAfter("Tue, 31 Dec 2024 23:59:00 GMT", now)).toBe(0);
  });

  it("gives undefined for missing or unparseable values", () => {
    for (const v of [undefined, null, "", "soon", "-3", "1.5", "1e3", "Foo, 99 Bar 2025"]) {
      expect(parseRetryAfter(v, now), String(v)).toBeUndefined();
    }
  });
});

describe("ScannerApiError.retryable", () => {
  const make = (status: number, code: ScannerApiError["code"]) =>
    new ScannerApiError({ status, code, message: "m", endpoint });

  it("is true for 429, 5xx and internal", () => {
    expect(make(429, "rate_limited").retryable).toBe(true);
    expect(make(500, "internal").retryable).toBe(true);
    expect(make(503, "unknown").retryable).toBe(true);
    expect(make(418, "internal").retryable).toBe(true);
  });

  it("is false for 402 and other 4xx", () => {
    for (const [status, code] of [
      [402, "insufficient_credits"],
      [400, "bad_request"],
      [401, "unauthorized"],
      [403, "forbidden"],
      [404, "not_found"],
      [409, "conflict"],
      [409, "repository_initializing"],
      [422, "diff_empty"],
    ] as const) {
      expect(make(status, code).retryable, `${status} ${code}`).toBe(false);
    }
  });

  it("names endpoint, status and code in the message", () => {
    const e = make(402, "insufficient_credits");
    expect(e.message).toBe(`${endpoint} answered 402 insufficient_credits: m`);
    expect(e.serviceMessage).toBe("m");
    expect(e.name).toBe("ScannerApiError");
  });
});

describe("isRetryable", () => {
  it("sorts every error class", () => {
    expect(isRetryable(new ScannerNetworkError(endpoint, "ECONNRESET", new Error("x")))).toBe(true);
    expect(isRetryable(new ScannerTimeoutError(endpoint, 10))).toBe(true);
    expect(isRetryable(new ScannerResponseError(endpoint, 200, [{ path: "a", message: "b" }]))).toBe(false);
    expect(isRetryable(new ScannerRequestError(endpoint, "commitHash", "bad"))).toBe(false);
    expect(isRetryable(new Error("plain"))).toBe(false);
    expect(isRetryable("nope")).toBe(false);
  });

  it("lists the spec's 13 error codes", () => {
    expect(ERROR_CODES).toHaveLength(13);
    expect(new Set(ERROR_CODES).size).toBe(13);
  });
});
