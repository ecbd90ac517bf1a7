import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";

/**
 * Whether `Authorization: Bearer <token>` carries `token` (RFC 6750 §2.1), compared in constant time over
 * SHA-256 digests (so neither the content nor the length of the token leaks through timing).
 */
export function hasBearer(req: IncomingMessage, token: string): boolean {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? "");
  if (!m) return false;
  const digest = (s: string) => createHash("sha256").update(s).digest();
  return timingSafeEqual(digest(m[1]!), digest(token));
}
