/**
 * The engine's DynamoDB behaviours, as named profiles: one declaration, used by `npm run engine`,
 * `npm start`'s embedded engine and the test suite's stack.
 *
 * FAITHFUL is the default everywhere a developer or a test talks to the engine: it is never more
 * forgiving than Amazon DynamoDB where the product's correctness depends on the difference.
 * - GSI writes lag 0..50 ms (DynamoDB propagates them asynchronously; ConsistentRead is refused on a GSI);
 * - reads without ConsistentRead may see an item's previous version for 0..50 ms after a write,
 *   each such read with probability 1/3 (on Amazon a write is acknowledged once two of an item's
 *   three replicas have it, and an eventually consistent read goes to any one of the three);
 * - a transaction's items turn visible to BatchGetItem/Query/Scan over 0..10 ms (read-committed);
 * - requests in flight at once on one item conflict by DynamoDB's rules (no forced conflicts).
 * All seeded, so a run is repeatable. 50 ms spans the next few requests of a client, so reading
 * one's own write through an index, or eventually, shows locally as it would in production.
 *
 * CERTAIN_STALENESS is FAITHFUL with every read inside a stale window stale: the product's test
 * suite runs on it, so a path that would read stale data in production fails every time, not one
 * time in three.
 *
 * STRONG is the deterministic engine (every write visible at once to every read, no conflicts):
 * for the few tests that need it, each saying why, and `--strong` for whoever wants it.
 */
import type { OpenOptions } from './engine';

export type EngineBehaviour = Pick<
  OpenOptions,
  | 'gsiLagMs'
  | 'gsiLagSeed'
  | 'conflicts'
  | 'conflictChance'
  | 'conflictSeed'
  | 'consistency'
  | 'staleReadMs'
  | 'staleReadChance'
  | 'staleReadSeed'
  | 'commitSpanMs'
>;

export const FAITHFUL: EngineBehaviour = {
  gsiLagMs: 50,
  gsiLagSeed: 1,
  consistency: 'eventual',
  staleReadMs: 50,
  staleReadChance: 1 / 3,
  staleReadSeed: 1,
  commitSpanMs: 10,
  conflicts: true,
};

export const STRONG: EngineBehaviour = { gsiLagMs: 0, consistency: 'strong', commitSpanMs: 0, conflicts: false };

export const CERTAIN_STALENESS: EngineBehaviour = { ...FAITHFUL, staleReadChance: 1 };
