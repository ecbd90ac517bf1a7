import type { IncomingMessage } from "node:http";

/**
 * Reads a request body as raw bytes, at most `maxBytes`: past the cap it stops keeping chunks, discards
 * the rest as it arrives (so the answer can still be read by the sender) and resolves `undefined`.
 * Rejects when the request errors or closes before its body ended (an aborted upload, a reset connection).
 */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    let chunks: Buffer[] | undefined = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (chunks && size <= maxBytes) chunks.push(c);
      else chunks = undefined;
    });
    let ended = false;
    req.on("end", () => {
      ended = true;
      resolve(chunks ? Buffer.concat(chunks, size) : undefined);
    });
    req.on("error", reject);
    req.on("close", () => {
      if (!ended) reject(new Error("the request closed before its body ended"));
    });
  });
}
