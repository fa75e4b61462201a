/**
 * Seeded randomness for the benchmark: the data set and the injected latency are both drawn from
 * here, so two runs with the same `--seed` load the same shapes of data and draw the same sequence
 * of latencies (the n-th DynamoDB request that reaches the proxy gets the n-th latency).
 */

/** sfc32, a small fast PRNG with a 128-bit state; returns floats in [0, 1). */
export function seededRandom(seed: number | string): () => number {
  // Expand the seed into four 32-bit words with a string hash (cyrb128).
  const text = String(seed);
  let h1 = 1779033703, h2 = 3144134277, h3 = 1013904242, h4 = 2773480762;
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
  let a = (h1 ^ h2 ^ h3 ^ h4) >>> 0, b = (h2 ^ h1) >>> 0, c = (h3 ^ h1) >>> 0, d = (h4 ^ h1) >>> 0;
  const next = () => {
    a >>>= 0; b >>>= 0; c >>>= 0; d >>>= 0;
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

/** A standard normal draw (Box–Muller). */
export function normal(random: () => number): number {
  const u = 1 - random(); // (0, 1]
  const v = random();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

export interface LatencyModel {
  /** Median of the body of the distribution, ms. */
  medianMs: number;
  /** Lognormal shape: the body is median × e^(sigma·N(0,1)). 0 = constant. */
  sigma: number;
  /** Probability that a request also takes the long tail (0..1). */
  tail: number;
  /** The tail adds a uniform draw from [tailMinMs, tailMaxMs]. */
  tailMinMs: number;
  tailMaxMs: number;
  seed: number | string;
}

/**
 * The injected per-request latency: a lognormal body around `medianMs` (sigma 0.3 puts p99 of
 * the body at about 2× the median) plus, with probability `tail`, an extra 20–50 ms (a slow
 * storage node, a retry inside the service, a GC pause on the far side). Deterministic per seed.
 */
export function latencySampler(model: LatencyModel, stream = ''): () => { ms: number; tail: boolean } {
  const random = seededRandom(`latency:${model.seed}:${stream}`);
  return () => {
    const body = model.medianMs * Math.exp(model.sigma * normal(random));
    const tail = random() < model.tail;
    const extra = tail ? model.tailMinMs + random() * (model.tailMaxMs - model.tailMinMs) : 0;
    return { ms: body + extra, tail };
  };
}

/** Integer in [min, max], inclusive. */
export function intBetween(random: () => number, min: number, max: number): number {
  return min + Math.floor(random() * (max - min + 1));
}

export function pick<T>(random: () => number, list: readonly T[]): T {
  return list[Math.floor(random() * list.length)] as T;
}
