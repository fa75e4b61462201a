/**
 * One invocation of the relay in AWS Lambda (src/entry/lambda-relay.ts): a batch of the table's stream
 * from the event source mapping (aws-lambda's `DynamoDBStreamEvent`), delivered by the same core
 * as the local relay (deliver.ts), answered as a **partial batch response**: `batchItemFailures`
 * holds the first record that failed (its `SequenceNumber`), so Lambda checkpoints everything
 * before it and retries from it (`ReportBatchItemFailures`); records after it are delivered again
 * (at-least-once: `eventId` de-duplicates). After `MaximumRetryAttempts`, bisecting the batch on
 * each failure (`BisectBatchOnFunctionError`), Lambda sends the failed range's description to the
 * mapping's on-failure destination (an SQS dead-letter queue) and moves on: a poison record (one
 * that does not decode) goes there the same way, never into an endless retry.
 */
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import type { Table } from '../dynamo/table';
import { deliverRecords, type StreamRecordLike } from './deliver';
import type { Publisher } from './publishers';

export interface BatchLog {
  info(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

export interface StreamBatchOptions {
  publisher: Publisher;
  /** Where Customer.stats are kept. */
  statsTable: Table | undefined;
  logger?: BatchLog;
}

export async function relayStreamBatch(event: DynamoDBStreamEvent, options: StreamBatchOptions): Promise<DynamoDBBatchResponse> {
  const records = (event.Records ?? []) as StreamRecordLike[];
  const result = await deliverRecords(records, { publisher: options.publisher, statsTable: options.statsTable });
  options.logger?.info(
    {
      records: records.length,
      published: result.published.length,
      statsApplied: result.statsApplied,
      statsDuplicates: result.statsDuplicates,
    },
    'relay batch',
  );
  if (!result.failure) return { batchItemFailures: [] };
  options.logger?.error(
    { sequenceNumber: result.failure.sequenceNumber, poison: result.failure.poison, error: result.failure.error },
    'relay record failed: Lambda retries from it, then sends it to the dead-letter queue',
  );
  return { batchItemFailures: [{ itemIdentifier: result.failure.sequenceNumber }] };
}
