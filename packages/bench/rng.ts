/**
 * Seeded randomness for the benchmark: the data set and the injected latency are both drawn from
 * here, so two runs with the same `--seed` load the same shapes of data and draw the same sequence
 * of latencies (the n-th DynamoDB request that reaches the proxy gets the n-th latency).
 */

import { seededRandom } from 'single-table-graphql';

/** The seed tool's PRNG (sfc32 seeded through cyrb128): floats in [0, 1), fully determined by the seed. */
export { seededRandom };

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
