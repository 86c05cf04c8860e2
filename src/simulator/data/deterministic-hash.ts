/**
 * Fast integer hashing for the simulator's deterministic values: no global random state, the
 * same inputs give the same numbers in every process. `mix32` is Chris Wellons' "lowbias32"
 * finalizer; inputs are 32-bit integers (coordinates ×10⁴, epoch hours, salts).
 */

/** Scrambles a 32-bit integer into a well-distributed unsigned 32-bit integer. */
export function mix32(x: number): number {
  x ^= x >>> 16;
  x = Math.imul(x, 0x7feb352d);
  x ^= x >>> 15;
  x = Math.imul(x, 0x846ca68b);
  x ^= x >>> 16;
  return x >>> 0;
}

/** Hash of three integers; order matters. */
export function hash3(a: number, b: number, c: number): number {
  return mix32(mix32(mix32(a + 0x9e3779b9) ^ b) + c);
}

/** A hash of three integers as a number in [0, 1). */
export function unit3(a: number, b: number, c: number): number {
  return hash3(a, b, c) / 4294967296;
}

/**
 * Smooth value noise in [0, 1): random knots every `period` units of `t`, joined by smoothstep.
 * Neighbouring `t` give neighbouring values, which makes weather and pollen drift plausibly.
 */
export function smoothNoise(seed: number, salt: number, t: number, period: number): number {
  const x = t / period;
  const k = Math.floor(x);
  const f = x - k;
  const a = unit3(seed, salt, k);
  const b = unit3(seed, salt, k + 1);
  return a + (b - a) * f * f * (3 - 2 * f);
}

/** A text as an unsigned 32-bit integer (FNV-1a over its UTF-16 code units), for text seeds. */
export function hashText(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
