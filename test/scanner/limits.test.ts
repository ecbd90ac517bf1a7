/**
 * Size limits on the scanning service's answers: bytes per response (streamed,
 * aborted at the cap), pages and items per listing, and per-field caps on finding text. Real HTTP for
 * the streamed body; nock for the paging cases.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import nock from "nock";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  FINDING_TEXT_MAX_CHARS,
  FindingDetail,
  FindingListItem,
  ScannerClient,
  ScannerConfigError,
  ScannerLimitError,
  capText,
} from "../../src/scanner/index.js";

const TOKEN = "tok_limits";
const MB = 1024 * 1024;

const item = (n: number, over: Record<string, unknown> = {}) => ({
  id: `fnd_${n}`,
  displayId: n,
  title: `Finding ${n}`,
  location: "src/a.ts:1",
  severity: "HIGH",
  category: "injection",
  triageStatus: "NEW",
  confirmationEvidence: null,
  resolutionStatus: "NOT_STARTED",
  notesCount: 0,
  ...over,
});

describe("bytes per response (real HTTP)", () => {
  let server: Server;
  let base: string;
  /** bytes the endless endpoint managed to write before the client went away */
  let written = 0;
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url?.includes("/scan-presets")) {
        // an endless JSON body, chunked, no Content-Length
        res.writeHead(200, { "content-type": "application/json" });
        res.write('{"presets":[');
        const chunk = `${JSON.stringify({ ref: "x".repeat(64 * 1024) })},`;
        const pump = () => {
          while (!res.destroyed && res.write(chunk)) written += chunk.length;
          if (!res.destroyed) res.once("drain", pump);
        };
        pump();
        return;
      }
      if (req.url?.includes("/token")) {
        // declares 100 MB: refused from the header
        res.writeHead(200, { "content-type": "application/json", "content-length": String(100 * MB) });
        res.write("{");
        return;
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it("aborts a body that grows past maxResponseBytes with a typed error, having read about the cap", async () => {
    const c = new ScannerClient({ baseUrl: base, token: TOKEN, maxResponseBytes: 1 * MB });
    const err = await c.listPresets("p").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ScannerLimitError);
    expect(err).toMatchObject({
      kind: "response-bytes",
      limit: 1 * MB,
      retryable: false,
      endpoint: "GET /projects/{projectId}/scan-presets",
    });
    expect((err as Error).message).toContain("over 1048576 bytes");
    // the server stops once the client cancels: it never got to stream more than a few socket buffers
    await new Promise((r) => setTimeout(r, 200));
    expect(written).toBeLessThan(32 * MB);
  });

  it("refuses a declared Content-Length over the cap before reading the body", async () => {
    const c = new ScannerClient({ baseUrl: base, token: TOKEN, maxResponseBytes: 1 * MB, timeoutMs: 2_000 });
    const err = await c.getToken().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ScannerLimitError);
    expect(err).toMatchObject({ kind: "response-bytes" });
  });

  it("defaults to 16 MiB and refuses a cap that is not a positive integer", () => {
    expect(new ScannerClient({ baseUrl: base, token: TOKEN }).limits).toEqual({
      maxResponseBytes: 16 * MB,
      maxPages: 100,
      maxItems: 10_000,
    });
    expect(() => new ScannerClient({ baseUrl: base, token: TOKEN, maxPages: 0 })).toThrow(ScannerConfigError);
  });
});

describe("pages and items per listing (nock)", () => {
  const ORIGIN = "http://scanner.limits";
  beforeAll(() => nock.disableNetConnect());
  afterEach(() => nock.cleanAll());
  afterAll(() => nock.enableNetConnect());

  it("stops following pages past maxPages (a service that always says there is more)", async () => {
    const scope = nock(ORIGIN)
      .get("/api/v1/projects/p/findings")
      .query(true)
      .times(3)
      .reply(200, (request: Request) => {
        const page = Number(new URL(request.url).searchParams.get("page"));
        return { items: [item(page * 2), item(page * 2 + 1)], page, limit: 2, total: 1_000_000 };
      });
    const c = new ScannerClient({ baseUrl: `${ORIGIN}/api/v1`, token: TOKEN, maxPages: 3 });
    const seen: string[] = [];
    const err = await (async () => {
      for await (const f of c.iterateFindings("p", { scanId: "s", limit: 2 })) seen.push(f.id);
    })().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ScannerLimitError);
    expect(err).toMatchObject({ kind: "pages", limit: 3 });
    expect(seen).toHaveLength(6);
    scope.done();
  });

  it("stops past maxItems", async () => {
    nock(ORIGIN)
      .get("/api/v1/projects/p/findings")
      .query(true)
      .reply(200, { items: [item(1), item(2), item(3)], page: 1, limit: 3, total: 9 });
    const c = new ScannerClient({ baseUrl: `${ORIGIN}/api/v1`, token: TOKEN, maxItems: 2 });
    const err = await (async () => {
      for await (const _ of c.iterateFindings("p", { limit: 3 })) void _;
    })().catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: "items", limit: 2 });
  });

  it("cuts finding text fields when parsed, and says so", async () => {
    const huge = "A".repeat(180 * 1024);
    nock(ORIGIN)
      .get("/api/v1/projects/p/findings/f1")
      .reply(200, {
        finding: {
          ...item(1, { title: huge, location: `src/${huge}`, category: huge }),
          description: huge,
          pocReport: huge,
          recommendedFix: huge,
          scanId: "s",
          commitHash: null,
          createdAt: "2025-01-01T00:00:00Z",
          notes: [
            {
              id: "n",
              body: huge,
              createdAt: "2025-01-01T00:00:00Z",
              author: { id: "u", name: null, email: "e" },
            },
          ],
        },
      });
    const f = await new ScannerClient({ baseUrl: `${ORIGIN}/api/v1`, token: TOKEN }).getFinding("p", "f1");
    const caps = FINDING_TEXT_MAX_CHARS;
    for (const [value, max] of [
      [f.title, caps.title],
      [f.location, caps.location],
      [f.category, caps.category],
      [f.description, caps.description],
      [f.pocReport!, caps.pocReport],
      [f.recommendedFix!, caps.recommendedFix],
      [f.notes[0]!.body, caps.noteBody],
    ] as const) {
      expect(value.length).toBeLessThanOrEqual(max);
      expect(value).toMatch(/… \[truncated by diffward: 18\d{4} characters, the first \d+ kept\]$/);
    }
  });
});

describe("capText", () => {
  it("keeps text that fits, never splits a surrogate pair, and stays within the cap", () => {
    expect(capText("short", 10)).toBe("short");
    const emoji = "😀".repeat(300);
    const cut = capText(emoji, 200);
    expect(cut.length).toBeLessThanOrEqual(200);
    expect(cut).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
    expect(FindingListItem.parse(item(1, { title: "x".repeat(600) })).title).toContain(
      "truncated by diffward",
    );
    expect(FindingDetail.shape.description).toBeDefined();
  });
});
