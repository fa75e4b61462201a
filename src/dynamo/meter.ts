/**
 * Records the DynamoDB requests made on behalf of one GraphQL operation, for the `dynamodb`
 * explain extension and the request log. A meter never changes what is sent.
 *
 * Waves: a request belongs to wave 1 + the highest wave among the requests that had already
 * completed when it was sent. Requests sent together (one DataLoader dispatch) share a wave; a
 * request that had to wait for an answer starts the next one. The number of waves is the length
 * of the critical path, so an operation's latency is about waves × one round trip.
 *
 * Bounded by construction: `begin` and `end` cost O(1) whatever came before (the highest completed
 * wave and the totals are numbers kept as requests complete, never recomputed from a list). A
 * meter keeps the records of its requests only when it is made with `{ records: true }`: the
 * per-operation meter of a GraphQL request (src/request/context.ts), dropped with the operation that owns
 * it. A `Table` without an operation meter (`counters()`: tools, migrations, probes) keeps totals
 * only, so a long-lived table never accumulates anything.
 */
import type { HedgeReport } from './hedge';

/**
 * The keys of one item a request returned (reads) or named (writes), for the explain plan's
 * picture of the table: its table keys, its GSI1 keys when the item carries them, its `type`
 * attribute, and for a write the action that named it. Never other attributes.
 */
export interface TouchedKey {
  PK: string;
  SK: string;
  GSI1PK?: string;
  GSI1SK?: string;
  type?: string;
  action?: 'Put' | 'Update' | 'Delete' | 'ConditionCheck';
}

export interface RequestRecord {
  operation: string;
  index?: string | undefined;
  keyCondition?: string | undefined;
  /** The partition key value the request named (Query, GetItem, single-item writes); undefined otherwise. */
  partition?: string | undefined;
  /** The keys of the items it returned or wrote, in the order the answer listed them (records only). */
  keys?: TouchedKey[] | undefined;
  items: number;
  scanned: number;
  /** Capacity units the engine reported (read and write together); 0 when it reported none. */
  capacity: number;
  wave: number;
  startedAt: number;
  endedAt: number;
  error?: string | undefined;
  /**
   * Set when a copy of this read was sent (src/dynamo/hedge.ts): two requests on the wire, and which
   * answered first. `capacity` then counts both: the winner's twice, since the aborted loser's own
   * capacity is unknown (an upper bound).
   */
  hedge?: HedgeReport | undefined;
}

export interface RequestDetail {
  index?: string | undefined;
  keyCondition?: string | undefined;
  partition?: string | undefined;
  /** Known before sending (a write names its items); a read's keys come with its outcome. */
  keys?: TouchedKey[] | undefined;
}

export interface RequestOutcome {
  items?: number;
  scanned?: number;
  capacity?: number;
  error?: string;
  keys?: TouchedKey[] | undefined;
  /** The read was hedged: a second request was sent (see `RequestRecord.hedge`). */
  hedge?: HedgeReport | undefined;
}

export interface MeterSummary {
  requests: number;
  waves: number;
  items: number;
  scanned: number;
  /** Items the reads (GetItem, Query, Scan, BatchGetItem) scanned: what the cost estimate bounds. */
  read: number;
  capacity: number;
  byOperation: Record<string, number>;
  /** Reads that sent a hedged copy (each counted twice in `requests` and `byOperation`). */
  hedges: number;
  /** Of those, the reads whose copy answered first. */
  hedgesWon: number;
}

export interface MeterOptions {
  /** Keep one record per request, for the explain plan (default true: a meter is per operation). */
  records?: boolean;
}

const READS = new Set(['GetItem', 'Query', 'Scan', 'BatchGetItem']);

export class Meter {
  private readonly kept: RequestRecord[] | undefined;
  /** The highest wave among completed requests: the wave of the next request is one more. */
  private completedWave = 0;
  private requests = 0;
  private waves = 0;
  private items = 0;
  private scanned = 0;
  private read = 0;
  private capacity = 0;
  private hedges = 0;
  private hedgesWon = 0;
  private writeRequests = 0;
  private readonly byOperation: Record<string, number> = {};

  constructor(options: MeterOptions = {}) {
    this.kept = options.records === false ? undefined : [];
  }

  /** A meter that keeps totals only, no record: the default of a `Table` without an operation. */
  static counters(): Meter {
    return new Meter({ records: false });
  }

  /** Whether this meter keeps records: the seam then also collects the keys each request touched. */
  get detailed(): boolean {
    return this.kept !== undefined;
  }

  /**
   * Starts a record; call the returned function exactly once when the answer (or error) is in.
   * `detail` is only read when this meter keeps records, so a function defers building it (key
   * conditions spelt out for humans) to the operations that are explained.
   */
  begin(operation: string, detail: RequestDetail | (() => RequestDetail) = {}): (outcome: RequestOutcome) => void {
    const wave = this.completedWave + 1;
    const startedAt = performance.now();
    this.requests += 1;
    if (wave > this.waves) this.waves = wave;
    this.byOperation[operation] = (this.byOperation[operation] ?? 0) + 1;
    if (!READS.has(operation)) this.writeRequests += 1;
    const described = this.kept && typeof detail === 'function' ? detail() : (detail as RequestDetail);
    const record: RequestRecord | undefined = this.kept
      ? {
          operation,
          index: described.index,
          keyCondition: described.keyCondition,
          partition: described.partition,
          keys: described.keys,
          items: 0,
          scanned: 0,
          capacity: 0,
          wave,
          startedAt,
          endedAt: Number.NaN,
        }
      : undefined;
    if (record) this.kept!.push(record);
    return (outcome) => {
      const items = outcome.items ?? 0;
      const scanned = outcome.scanned ?? items;
      // A hedged read is two requests; the loser was aborted, so its capacity is counted as the winner's.
      const capacity = (outcome.capacity ?? 0) * (outcome.hedge ? 2 : 1);
      if (outcome.hedge) {
        this.hedges += 1;
        if (outcome.hedge.winner === 'hedge') this.hedgesWon += 1;
        this.requests += 1;
        this.byOperation[operation] = (this.byOperation[operation] ?? 0) + 1;
      }
      this.items += items;
      this.scanned += scanned;
      if (READS.has(operation)) this.read += scanned;
      this.capacity += capacity;
      if (wave > this.completedWave) this.completedWave = wave;
      if (record) {
        record.endedAt = performance.now();
        record.items = items;
        record.scanned = scanned;
        record.capacity = capacity;
        record.error = outcome.error;
        if (outcome.keys) record.keys = outcome.keys;
        if (outcome.hedge) record.hedge = outcome.hedge;
      }
    };
  }

  /** The requests of this meter, in the order they were sent; empty for a `counters()` meter. */
  records(): readonly RequestRecord[] {
    return this.kept ?? [];
  }

  /**
   * Whether a write request (any request but GetItem, Query, Scan, BatchGetItem) was sent, whatever
   * its outcome: what makes the principal's next screens read strongly (src/request/consistency.ts).
   */
  get wrote(): boolean {
    return this.writeRequests > 0;
  }

  /** How many records the meter holds (0 for a `counters()` meter, whatever it has measured). */
  get retained(): number {
    return this.kept?.length ?? 0;
  }

  summary(): MeterSummary {
    return {
      requests: this.requests,
      waves: this.waves,
      items: this.items,
      scanned: this.scanned,
      read: this.read,
      capacity: round(this.capacity),
      byOperation: { ...this.byOperation },
      hedges: this.hedges,
      hedgesWon: this.hedgesWon,
    };
  }
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}
