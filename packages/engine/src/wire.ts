/**
 * The wire log: one record per DynamoDB API request that reached the engine, so tests can count
 * the requests a piece of code really sends (SDK retries included, each attempt is a request).
 */

export interface WireRequest {
  /** Arrival order, from 1; keeps increasing across `reset()`. */
  seq: number;
  /** The `X-Amz-Target` operation, e.g. `Query`; '' when the request named none. */
  operation: string;
  /** The parsed JSON request body (undefined when it was not JSON). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any DynamoDB request's JSON; tests read the members of the operation they filter on
  body: any;
  /** `performance.now()` when the request body had arrived, and when the answer was sent. */
  startedAt: number;
  endedAt: number;
  status: number;
  /** The error's `__type` without namespace, e.g. `ConditionalCheckFailedException`. */
  errorType?: string;
}

export type WireListener = (request: WireRequest) => void;

export interface WireLog {
  /** Answered requests, in the order they were answered (a copy). */
  requests(): WireRequest[];
  /** Forgets the recorded requests. */
  reset(): void;
  /** How many answered requests, all or those of one operation. */
  count(operation?: string): number;
  /** Calls `listener` as each request is answered; returns the unsubscribe function. */
  onRequest(listener: WireListener): () => void;
}

/** The engine's side of the wire log: records requests and notifies listeners. */
export class WireRecorder implements WireLog {
  private records: WireRequest[] = [];
  private readonly listeners = new Set<WireListener>();
  private lastSeq = 0;

  nextSeq(): number {
    return ++this.lastSeq;
  }

  /** Keeps the newest `limit` records (up to twice that between trims), so a long-running engine does not grow forever. */
  constructor(private readonly limit = 10_000) {}

  record(request: WireRequest): void {
    this.records.push(request);
    if (this.records.length >= 2 * this.limit) this.records = this.records.slice(-this.limit);
    for (const listener of this.listeners) {
      try {
        listener(request);
      } catch (err) {
        // A listener's bug must not break the request it observes.
        console.error('[engine] wire listener failed:', err);
      }
    }
  }

  requests(): WireRequest[] {
    return [...this.records];
  }

  reset(): void {
    this.records = [];
  }

  count(operation?: string): number {
    if (operation === undefined) return this.records.length;
    return this.records.filter((r) => r.operation === operation).length;
  }

  onRequest(listener: WireListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
