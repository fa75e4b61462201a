/**
 * Seeded randomness for generated data (`npm run seed`): the same seed draws the same sequence,
 * on any machine and in any Node version, so the same seed writes the same items.
 *
 * `seededRandom` is sfc32 (a small fast PRNG with a 128-bit state) seeded through the cyrb128
 * string hash, so any string names a stream: `seededRandom('42:orders:17')` and
 * `seededRandom('42:orders:18')` are independent. `ulidAt` builds ULID-shaped ids from a time and
 * such a stream: the 10 time characters of a real ULID (so ids still sort by time) and 16 random
 * characters drawn from the stream instead of `crypto`.
 */
import { ULID_ALPHABET } from '../model/keys';

export type Random = () => number;

/** A PRNG returning floats in [0, 1), fully determined by `seed`. */
export function seededRandom(seed: string | number): Random {
  const text = String(seed);
  let h1 = 1779033703,
    h2 = 3144134277,
    h3 = 1013904242,
    h4 = 2773480762;
  for (let i = 0; i < text.length; i++) {
    const k = text.charCodeAt(i);
    h1 = h2 ^ Math.imul(h1 ^ k, 597399067);
    h2 = h3 ^ Math.imul(h2 ^ k, 2869860233);
    h3 = h4 ^ Math.imul(h3 ^ k, 951274213);
    h4 = h1 ^ Math.imul(h4 ^ k, 2716044179);
  }
  h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
  h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
  h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
  h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
  let a = (h1 ^ h2 ^ h3 ^ h4) >>> 0,
    b = (h2 ^ h1) >>> 0,
    c = (h3 ^ h1) >>> 0,
    d = (h4 ^ h1) >>> 0;
  const next = () => {
    a >>>= 0;
    b >>>= 0;
    c >>>= 0;
    d >>>= 0;
    let t = (a + b) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    d = (d + 1) | 0;
    t = (t + d) | 0;
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  for (let i = 0; i < 15; i++) next(); // let the state mix
  return next;
}

/** An integer in [min, max], inclusive. */
export function intBetween(random: Random, min: number, max: number): number {
  return min + Math.floor(random() * (max - min + 1));
}

export function pick<T>(random: Random, list: readonly T[]): T {
  return list[Math.floor(random() * list.length)] as T;
}

/** Picks by weight: `weighted(random, [['A', 3], ['B', 1]])` is 'A' three times in four. */
export function weighted<T>(random: Random, choices: ReadonlyArray<readonly [T, number]>): T {
  const total = choices.reduce((sum, [, weight]) => sum + weight, 0);
  let draw = random() * total;
  for (const [value, weight] of choices) {
    draw -= weight;
    if (draw < 0) return value;
  }
  return choices[choices.length - 1]![0];
}

/** A seeded Fisher–Yates shuffle, in place. */
export function shuffle<T>(random: Random, list: T[]): T[] {
  for (let i = list.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [list[i], list[j]] = [list[j] as T, list[i] as T];
  }
  return list;
}

/** Crockford's base 32, as ULIDs spell it (declared once, src/model/keys.ts). */
const CROCKFORD = ULID_ALPHABET;
const MAX_ULID_TIME = 2 ** 48 - 1;

/**
 * A ULID-shaped id (`ULID_SHAPE`, src/model/keys.ts): 10 characters of `timeMs` (48 bits, as a real
 * ULID, so ids sort by time) and 16 characters (80 bits) drawn from `random`.
 */
export function ulidAt(timeMs: number, random: Random): string {
  if (!Number.isInteger(timeMs) || timeMs < 0 || timeMs > MAX_ULID_TIME)
    throw new Error(`a ULID time must be an integer 0..2^48-1, got ${timeMs}`);
  let time = '';
  let rest = timeMs;
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[rest % 32]! + time;
    rest = Math.floor(rest / 32);
  }
  let tail = '';
  for (let i = 0; i < 16; i++) tail += CROCKFORD[Math.floor(random() * 32)]!;
  return time + tail;
}
