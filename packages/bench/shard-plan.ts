/**
 * `npm run bench:shard-plan`: the status index's read plan (src/model/shard-merge.ts) simulated over
 * evenly hashed ids, in memory, deterministic per `--seed` (README, "`ordersByStatus`, like for like").
 * Not a test: it prints, per first-wave share a shard, the items a page reads and how often it needs
 * a second wave.
 *
 *   npm run bench:shard-plan [-- --first 50] [--shards 4] [--pages 20000] [--seed 42] [--shares 13-22]
 *
 * Each page is a stream of orders, newest first, with distinct sort keys (zero-padded decreasing
 * timestamps), each order hashed to a uniformly drawn shard until every shard holds DEPTH items, so
 * no shard is ever exhausted (the plan never reads a shard past first + 1 < DEPTH items). Every share
 * reads the same pages (common random numbers).
 *
 * Every row runs the product's `newestAcrossShards` itself, with the first-wave share as its
 * argument (the product's row: `firstWaveShare`, the default).
 */
import { parseArgs } from 'node:util';
import { firstWaveShare, newestAcrossShards, type ShardAnswer, type ShardQuery, type ShardStart } from 'single-table-graphql';
import { seededRandom } from './rng';

const USAGE = `npm run bench:shard-plan -- [--first 50] [--shards 4] [--pages 20000] [--seed 42] [--shares A-B]
  --first N    page size (1..100); the plan wants first + 1 items
  --shards N   status shards (1..64)
  --pages N    simulated pages (1..1000000)
  --seed X     seed of the pages (any string)
  --shares A-B first-wave shares a shard to compare (default: the product's share - 4 .. + 5)`;

/** Items each shard holds: more than any read can reach (at most first + 1 ≤ 101 a shard). */
const DEPTH = 200;
/** The newest order's timestamp; order n of a page is n ms older. Keys are 13 digits. */
const NEWEST_MS = 1_750_000_000_000;

type Read = (shard: number, query: ShardQuery) => Promise<ShardAnswer<number>>;

/** Sort key of stream position n (0 = newest): distinct, and decreasing as n grows. */
const keys: string[] = [];
function keyOf(n: number): string {
  while (keys.length <= n) keys.push(String(NEWEST_MS - keys.length).padStart(13, '0'));
  return keys[n]!;
}

/** One page: each shard's stream positions, newest first; position n is the n-th newest order. */
function drawPage(seed: string, page: number, shards: number): number[][] {
  const random = seededRandom(`${seed}:shard-plan:${page}`);
  const held: number[][] = Array.from({ length: shards }, () => []);
  let full = 0;
  for (let n = 0; full < shards; n++) {
    const items = held[Math.floor(random() * shards)]!;
    if (items.length === DEPTH) continue; // older than anything a read reaches: dropped
    items.push(n);
    if (items.length === DEPTH) full++;
  }
  return held;
}

/** What one page's plan did: items returned, waves. */
interface Meter {
  items: number;
  /** The highest wave answered so far: a read's wave is 1 + it when the read is sent (bench/proxy.ts's rule). */
  answered: number;
}

/**
 * A shard read that honours ShardQuery exactly: at most `limit` items from `next` (a position in
 * the shard), only items whose key is > `above` when set, `complete` when no item of the (bounded)
 * range is left. (DynamoDB also says "not complete" when the range ends exactly at Limit; that
 * cannot change a count here: an unbounded read never reaches a shard's end, and a bounded read that
 * returns `limit` = the shard's room fills the shard, which is then done either way.)
 */
function shardReader(held: number[][], meter: Meter): Read {
  return async (shard, query) => {
    const wave = meter.answered + 1;
    const items = held[shard]!;
    const from = query.next === undefined ? 0 : (query.next.at as number);
    const inRange = (i: number) => i < items.length && (query.above === undefined || keyOf(items[i]!) > query.above);
    let end = from;
    while (end - from < query.limit && inRange(end)) end++;
    const complete = !inRange(end);
    if (complete && query.above === undefined) throw new Error(`shard ${shard} exhausted: raise DEPTH`);
    meter.items += end - from;
    // Answered in a later microtask: the reads sent in one synchronous round share a wave.
    await Promise.resolve();
    meter.answered = Math.max(meter.answered, wave);
    return { items: items.slice(from, end), next: complete ? undefined : { at: end }, complete };
  };
}

/** Runs the plan with `share` on one page; throws unless it returns exactly the page's newest `wanted` orders. */
async function runPage(share: number, held: number[][], wanted: number) {
  const meter: Meter = { items: 0, answered: 0 };
  const starts = held.map((): ShardStart => ({ next: undefined, exhausted: false }));
  const { merged } = await newestAcrossShards(starts, wanted, keyOf, shardReader(held, meter), share);
  const got = merged.slice(0, wanted).map(({ item }) => item);
  if (got.length !== wanted || got.some((item, i) => item !== i)) throw new Error(`wrong page: ${got.join(',')}`);
  return { items: meter.items, waves: meter.answered };
}

/**
 * Probability of a second wave, exactly, when shards × share ≥ wanted (cut known after wave 1): a
 * shard is read again iff its share-th item is newer than the cut, i.e. iff it holds at least
 * `share` of the newest wanted - 1 orders. So P = 1 - P(every count ≤ share - 1) for a multinomial
 * of wanted - 1 orders over `shards` equal cells: (n! / S^n) [x^n] (Σ_{k<share} x^k / k!)^S.
 */
function expectedSecondWave(wanted: number, shards: number, share: number): number | undefined {
  if (shards * share < wanted) return undefined;
  const n = wanted - 1;
  const term: number[] = [1];
  for (let k = 1; k <= n; k++) term.push(k < share ? term[k - 1]! / k : 0);
  let poly: number[] = [1];
  for (let s = 0; s < shards; s++) {
    const next = new Array<number>(n + 1).fill(0);
    for (let i = 0; i <= n; i++) for (let j = 0; i + j <= n; j++) next[i + j]! += (poly[i] ?? 0) * term[j]!;
    poly = next;
  }
  let factor = 1;
  for (let k = 1; k <= n; k++) factor *= k / shards;
  return 1 - poly[n]! * factor;
}

function parseOptions() {
  const { values } = parseArgs({
    options: {
      first: { type: 'string', default: '50' },
      shards: { type: 'string', default: '4' },
      pages: { type: 'string', default: '20000' },
      seed: { type: 'string', default: '42' },
      shares: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const int = (name: string, text: string, min: number, max: number) => {
    const value = Number(text);
    if (Number.isInteger(value) && value >= min && value <= max) return value;
    console.error(`--${name} must be an integer ${min}..${max}\n${USAGE}`);
    process.exit(2);
  };
  const first = int('first', values.first, 1, 100);
  const shards = int('shards', values.shards, 1, 64);
  const product = firstWaveShare(first + 1, shards);
  let shares = [Math.max(1, product - 4), Math.min(first + 1, product + 5)];
  if (values.shares !== undefined) {
    const [from = '', to = from] = values.shares.split('-');
    shares = [int('shares', from, 1, first + 1), int('shares', to, 1, first + 1)];
  }
  return { first, shards, product, pages: int('pages', values.pages, 1, 1_000_000), seed: values.seed, shares };
}

const options = parseOptions();

async function main() {
  const { first, shards, product, pages, seed } = options;
  const wanted = first + 1;
  const [low, high] = options.shares as [number, number];
  const shares = [...new Set([...Array.from({ length: Math.max(0, high - low + 1) }, (_, i) => low + i), product])].sort((a, b) => a - b);
  const started = performance.now();

  const stats = new Map(shares.map((share) => [share, { items: 0, maxItems: 0, secondWave: 0, waves: 0, maxWaves: 0 }]));
  for (let page = 0; page < pages; page++) {
    const held = drawPage(seed, page, shards);
    for (const share of shares) {
      const { items, waves } = await runPage(share, held, wanted);
      const s = stats.get(share)!;
      s.items += items;
      s.maxItems = Math.max(s.maxItems, items);
      s.secondWave += waves >= 2 ? 1 : 0;
      s.waves += waves;
      s.maxWaves = Math.max(s.maxWaves, waves);
    }
  }
  const seconds = (performance.now() - started) / 1000;

  const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
  console.log(
    `status plan simulation: first ${first} (wanted ${wanted}), ${shards} shard${shards === 1 ? '' : 's'}, ${pages} pages, seed ${seed}, ${DEPTH} items a shard`,
  );
  console.log(
    `product share firstWaveShare(${wanted}, ${shards}) = ${product}; every row runs newestAcrossShards with its share; ${seconds.toFixed(1)} s\n`,
  );
  const rows = shares.map((share) => {
    const s = stats.get(share)!;
    const expected = expectedSecondWave(wanted, shards, share);
    return [
      share === product ? `**${share}** (product)` : String(share),
      (s.items / pages).toFixed(1),
      `${(s.items / pages / wanted).toFixed(3)}×`,
      pct(s.secondWave / pages),
      expected === undefined ? '–' : pct(expected),
      (s.waves / pages).toFixed(2),
      String(s.maxWaves),
      String(s.maxItems),
    ];
  });
  const header = ['share a shard', 'items/page', 'items/(first+1)', '2nd wave', '2nd wave, exact', 'waves/page', 'max waves', 'max items'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ')} |`;
  console.log(line(header));
  console.log(`| ${widths.map((w, i) => (i === 0 ? '-'.repeat(w) : '-'.repeat(w - 1) + ':')).join(' | ')} |`);
  rows.forEach((r) => console.log(line(r)));
  console.log(
    '\nitems: status index items returned per page (names not included); waves: read rounds, a read in round 1 + the latest round answered;' +
      ' 2nd wave, exact: 1 - P(no shard holds ≥ share of the newest first orders)',
  );
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
