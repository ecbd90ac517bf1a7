import { describe, expect, it } from "vitest";
import { ScannerConfigError, resolveScannerBaseUrl } from "../../src/scanner/index.js";

const STAGING = "https://staging.scanner.example/api/v1";
const PROD = "https://scanner.example/api/v1";

function errorOf(fn: () => unknown): ScannerConfigError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ScannerConfigError) return e;
    throw e;
  }
  throw new Error("expected a ScannerConfigError");
}

describe("resolveScannerBaseUrl", () => {
  it("takes SCANNER_API_URL first", () => {
    expect(
      resolveScannerBaseUrl({
        SCANNER_API_URL: "http://127.0.0.1:4010/api/v1/",
        SCANNER_ENV: "production",
        SCANNER_PRODUCTION_URL: PROD,
      }),
    ).toBe("http://127.0.0.1:4010/api/v1");
  });

  it("maps SCANNER_ENV through the deployment variables", () => {
    const env = { SCANNER_STAGING_URL: STAGING, SCANNER_PRODUCTION_URL: PROD };
    expect(resolveScannerBaseUrl({ ...env, SCANNER_ENV: "staging" })).toBe(STAGING);
    expect(resolveScannerBaseUrl({ ...env, SCANNER_ENV: "production" })).toBe(PROD);
    expect(resolveScannerBaseUrl({ ...env, SCANNER_API_URL: "", SCANNER_ENV: "staging" })).toBe(STAGING);
  });

  it.each([
    [{}, "SCANNER_API_URL", /SCANNER_ENV=staging\|production/],
    [{ SCANNER_API_URL: "https://scanner.example/api" }, "SCANNER_API_URL", /\/api\/v1/],
    [{ SCANNER_ENV: "qa" }, "SCANNER_ENV", /staging, production/],
    [{ SCANNER_ENV: "staging" }, "SCANNER_STAGING_URL", /not set/],
    [
      { SCANNER_ENV: "production", SCANNER_PRODUCTION_URL: "scanner.example" },
      "SCANNER_PRODUCTION_URL",
      /not a URL/,
    ],
  ])("names the variable at fault for %j", (env, variable, message) => {
    const err = errorOf(() => resolveScannerBaseUrl(env));
    expect(err.variable).toBe(variable);
    expect(err.message).toMatch(new RegExp(`^${variable}: `));
    expect(err.message).toMatch(message);
  });
});
