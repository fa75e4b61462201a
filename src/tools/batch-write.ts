/**
 * Bulk writes for the command-line tools (seed, migrations): `BatchWriteItem` through the SDK's
 * document client, 25 puts a call, `concurrency` calls in flight, `UnprocessedItems` re-sent with
 * exponential backoff and jitter until every item is written.
 *
 * Items are pulled from an iterable as calls are sent, so a generator of millions of items is
 * written in bounded memory. A BatchWriteItem is not a transaction and not conditional: it is for
 * loading data the tool built itself, never for the product's write path (which transacts).
 *
 * Whole-request failures (throttling, 5xx) are retried by the SDK's own retry strategy
 * (`maxAttempts` of the client); this module retries what a successful call left unprocessed,
 * which the SDK does not. It rejects, and stops sending, once a call still leaves items
 * unprocessed after `maxRounds` rounds, so a load never reports success with items missing.
 */
import { BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Item } from '../dynamo/table';
import { backoffMs as defaultBackoffMs, sleep } from '../dynamo/backoff';

/** BatchWriteItem accepts at most this many requests a call. */
export const BATCH_WRITE_LIMIT = 25;

export interface BatchWriteOptions {
  /** Calls in flight at once. Default 8. */
  concurrency?: number;
  /** Rounds per call (the first send and its retries) before giving up. Default 10. */
  maxRounds?: number;
  /** Called after every answer with the number of items it wrote. */
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

type WriteRequest = { PutRequest: { Item: Item } };

export async function batchWrite(
  doc: DynamoDBDocumentClient,
  tableName: string,
  items: Iterable<Item>,
  options: BatchWriteOptions = {},
): Promise<BatchWriteTotals> {
  const concurrency = options.concurrency ?? 8;
  const maxRounds = options.maxRounds ?? 10;
  const backoff = options.backoffMs ?? defaultBackoffMs;
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError(`concurrency must be an integer ≥ 1, got ${concurrency}`);
  const totals: BatchWriteTotals = { items: 0, requests: 0, retries: 0, unprocessed: 0, capacity: 0 };
  const source = items[Symbol.iterator]();
  let failed = false;

  // Pulling from a synchronous iterator cannot interleave, so workers never share an item.
  const nextChunk = (): WriteRequest[] => {
    const chunk: WriteRequest[] = [];
    while (chunk.length < BATCH_WRITE_LIMIT) {
      const next = source.next();
      if (next.done) break;
      chunk.push({ PutRequest: { Item: next.value } });
    }
    return chunk;
  };

  const writeChunk = async (chunk: WriteRequest[]) => {
    let pending = chunk;
    for (let round = 0; pending.length > 0; round++) {
      if (round >= maxRounds) throw new Error(`BatchWriteItem left ${pending.length} items unprocessed after ${maxRounds} rounds`);
      if (round > 0) {
        totals.retries += 1;
        totals.unprocessed += pending.length;
        await sleep(backoff(round));
      }
      const out = await doc.send(new BatchWriteCommand({ RequestItems: { [tableName]: pending }, ReturnConsumedCapacity: 'TOTAL' }));
      totals.requests += 1;
      for (const consumed of out.ConsumedCapacity ?? []) totals.capacity += consumed.CapacityUnits ?? 0;
      const left = (out.UnprocessedItems?.[tableName] ?? []) as WriteRequest[];
      const written = pending.length - left.length;
      totals.items += written;
      if (written > 0) options.onWritten?.(written);
      pending = left;
    }
  };

  const worker = async () => {
    while (!failed) {
      const chunk = nextChunk();
      if (chunk.length === 0) return;
      try {
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
