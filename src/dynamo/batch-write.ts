/**
 * BatchWriteItem, as `Table.batchWrite` sends it: 25 requests a call, `concurrency` calls in
 * flight, `UnprocessedItems` re-sent with exponential backoff and jitter until every request is
 * written.
 *
 * Requests are pulled from an iterable as calls are sent, so a generator of millions of items is
 * written in bounded memory. A BatchWriteItem is not a transaction and not conditional: it is for
 * loading data a tool or a test built itself, never for the product's write path (which
 * transacts). Its puts still pass the table's write guard, when it has one.
 *
 * Whole-request failures (throttling, 5xx) are retried by the SDK's own retry strategy
 * (`maxAttempts` of the client); this module retries what a successful call left unprocessed,
 * which the SDK does not. It rejects, and stops sending, once a call still leaves requests
 * unprocessed after `maxRounds` rounds, so a load never reports success with items missing. A
 * call that fails outright is reported with how far the load got, the SDK's error as `cause`.
 */
import type { Item, Key } from './types';
import { backoffMs as defaultBackoffMs, inRounds } from './backoff';

/** BatchWriteItem accepts at most this many requests a call. */
export const BATCH_WRITE_LIMIT = 25;

/** One request of a BatchWriteItem: put an item, or delete the item at a key. */
export type BatchWrite = { put: Item } | { delete: Key };

export interface BatchWriteOptions {
  /** Calls in flight at once. Default 8. */
  concurrency?: number;
  /** Rounds per call (the first send and its retries) before giving up. Default 10. */
  maxRounds?: number;
  /** Called after every answer with the number of requests it wrote. */
  onWritten?(items: number): void;
  /** Backoff before retry round `round` (1-based), in ms. Default 25 ms doubling to 1 s, with jitter. */
  backoffMs?(round: number): number;
}

export interface BatchWriteTotals {
  items: number;
  /** BatchWriteItem calls sent, retries included. */
  requests: number;
  /** Calls that re-sent items a previous answer left unprocessed. */
  retries: number;
  /** Items re-sent because an answer left them unprocessed (an item re-sent twice counts twice). */
  unprocessed: number;
  /** Write capacity units the engine reported. */
  capacity: number;
}

/** A request as the wire carries it. */
export type WireWriteRequest = { PutRequest: { Item: Item } } | { DeleteRequest: { Key: Key } };

/** Sends one call; answers with the requests it left unprocessed and the capacity reported. */
export type SendBatch = (requests: WireWriteRequest[]) => Promise<{ unprocessed: WireWriteRequest[]; capacity: number }>;

export async function writeInBatches(
  writes: Iterable<BatchWrite>,
  send: SendBatch,
  options: BatchWriteOptions & { check?: (write: BatchWrite) => void } = {},
): Promise<BatchWriteTotals> {
  const concurrency = options.concurrency ?? 8;
  const maxRounds = options.maxRounds ?? 10;
  const backoff = options.backoffMs ?? defaultBackoffMs;
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError(`concurrency must be an integer ≥ 1, got ${concurrency}`);
  const totals: BatchWriteTotals = { items: 0, requests: 0, retries: 0, unprocessed: 0, capacity: 0 };
  const source = writes[Symbol.iterator]();
  let failed = false;

  // Pulling from a synchronous iterator cannot interleave, so workers never share a request.
  const nextChunk = (): WireWriteRequest[] => {
    const chunk: WireWriteRequest[] = [];
    while (chunk.length < BATCH_WRITE_LIMIT) {
      const next = source.next();
      if (next.done) break;
      options.check?.(next.value);
      chunk.push('put' in next.value ? { PutRequest: { Item: next.value.put } } : { DeleteRequest: { Key: next.value.delete } });
    }
    return chunk;
  };

  const writeChunk = async (chunk: WireWriteRequest[]) => {
    const sendRound = async (pending: readonly WireWriteRequest[], round: number): Promise<readonly WireWriteRequest[]> => {
      if (round > 0) {
        totals.retries += 1;
        totals.unprocessed += pending.length;
      }
      let out: Awaited<ReturnType<SendBatch>>;
      try {
        out = await send(pending as WireWriteRequest[]);
      } catch (error) {
        throw new Error(`BatchWriteItem failed after ${totals.items} items written: ${(error as Error).message ?? String(error)}`, {
          cause: error,
        });
      }
      totals.requests += 1;
      totals.capacity += out.capacity;
      const written = pending.length - out.unprocessed.length;
      totals.items += written;
      if (written > 0) options.onWritten?.(written);
      return out.unprocessed;
    };
    const left = await inRounds(chunk, maxRounds, sendRound, backoff);
    if (left.length > 0) throw new Error(`BatchWriteItem left ${left.length} items unprocessed after ${maxRounds} rounds`);
  };

  const worker = async () => {
    while (!failed) {
      try {
        const chunk = nextChunk();
        if (chunk.length === 0) return;
        await writeChunk(chunk);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };

  // Every worker settles (the others stop after their call in flight) before the first error is thrown.
  const outcomes = await Promise.allSettled(Array.from({ length: concurrency }, worker));
  const failure = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
  if (failure) throw failure.reason;
  return totals;
}

/** Puts of `items`, lazily (a generator stays a generator). */
export function* puts(items: Iterable<Item>): Generator<BatchWrite> {
  for (const item of items) yield { put: item };
}
