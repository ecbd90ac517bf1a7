/**
 * Seeded pseudo-random numbers and ids, so a sandbox started with the same `seed` produces the same ids,
 * spends and findings. Not for anything secret.
 */
import { createHash } from "node:crypto";

const ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";

/** A small deterministic generator (mulberry32). */
export class SeededRandom {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0;
  }
  /** A float in [0, 1). */
  next(): number {
    this.s = (this.s + 0x6d2b79f5) >>> 0;
    let t = this.s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** An integer in [min, max] (both inclusive). */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  /** One element of a non-empty array. */
  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) throw new Error("pick from an empty array");
    return item;
  }
  /** `length` characters of `[a-z0-9]`. */
  chars(length: number): string {
    let out = "";
    for (let i = 0; i < length; i += 1) out += ALPHABET[Math.floor(this.next() * ALPHABET.length)];
    return out;
  }
  /** An id with a readable prefix, e.g. `scn_k3j2…`. */
  id(prefix: string, length = 16): string {
    return `${prefix}_${this.chars(length)}`;
  }
}

/** A deterministic fake 40-hex commit id derived from `text`. */
export function fakeSha(text: string): string {
  return createHash("sha1").update(text).digest("hex");
}
