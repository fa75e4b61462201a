/**
 * Records the DynamoDB requests made on behalf of one GraphQL operation, for the `dynamodb`
 * explain extension and the request log. A meter never changes what is sent.
 *
 * Waves: a request belongs to wave 1 + the highest wave among the requests that had already
 * completed when it was sent. Requests sent together (one DataLoader dispatch) share a wave; a
 * request that had to wait for an answer starts the next one. The number of waves is the length
 * of the critical path, so an operation's latency is about waves × one round trip.
 */
export interface RequestRecord {
  operation: string;
  index?: string | undefined;
  keyCondition?: string | undefined;
  items: number;
  scanned: number;
  /** Capacity units the engine reported (read and write together); 0 when it reported none. */
  capacity: number;
  wave: number;
  startedAt: number;
  endedAt: number;
  error?: string | undefined;
}

export interface RequestDetail {
  index?: string | undefined;
  keyCondition?: string | undefined;
}

export interface RequestOutcome {
  items?: number;
  scanned?: number;
  capacity?: number;
  error?: string;
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
}

const READS = new Set(['GetItem', 'Query', 'Scan', 'BatchGetItem']);

export class Meter {
  private readonly done: RequestRecord[] = [];
  private readonly all: RequestRecord[] = [];

  /** Starts a record; call the returned function exactly once when the answer (or error) is in. */
  begin(operation: string, detail: RequestDetail = {}): (outcome: RequestOutcome) => void {
    const record: RequestRecord = {
      operation,
      index: detail.index,
      keyCondition: detail.keyCondition,
      items: 0,
      scanned: 0,
      capacity: 0,
      wave: 1 + this.done.reduce((max, r) => Math.max(max, r.wave), 0),
      startedAt: performance.now(),
      endedAt: Number.NaN,
    };
    this.all.push(record);
    return (outcome) => {
      record.endedAt = performance.now();
      record.items = outcome.items ?? 0;
      record.scanned = outcome.scanned ?? record.items;
      record.capacity = outcome.capacity ?? 0;
      record.error = outcome.error;
      this.done.push(record);
    };
  }

  records(): readonly RequestRecord[] {
    return this.all;
  }

  summary(): MeterSummary {
    const byOperation: Record<string, number> = {};
    for (const r of this.all) byOperation[r.operation] = (byOperation[r.operation] ?? 0) + 1;
    return {
      requests: this.all.length,
      waves: this.all.reduce((max, r) => Math.max(max, r.wave), 0),
      items: this.all.reduce((n, r) => n + r.items, 0),
      scanned: this.all.reduce((n, r) => n + r.scanned, 0),
      read: this.all.reduce((n, r) => n + (READS.has(r.operation) ? r.scanned : 0), 0),
      capacity: round(this.all.reduce((n, r) => n + r.capacity, 0)),
      byOperation,
    };
  }
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}
