/**
 * The outbox relay over a test stack: the real Streams API of the embedded engine, the real relay
 * (src/relay/relay.ts), and publishers that record what they are given. Nothing is mocked but the
 * destination (and, where a test says so, a failure injected into it).
 */
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { Relay, type RelayOptions } from '../../src/relay/relay';
import type { Publisher, PublishFailure } from '../../src/relay/publishers';
import { eventFromItem, type OutboxEvent } from '../../src/model';
import type { Item } from '../../src/dynamo/table';
import type { Stack } from './stack';

export function streamsClient(stack: Stack): DynamoDBStreamsClient {
  return new DynamoDBStreamsClient({
    endpoint: stack.engine.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
}

/** A publisher that keeps every event it is given, in order (duplicates included), and may be told to fail. */
export interface Recorder extends Publisher {
  events: OutboxEvent[];
  /** Return a failure for these events instead of publishing them (they are not recorded). */
  failWhen?: (event: OutboxEvent) => boolean;
  /** Throw after recording (a crash after publishing, before the checkpoint). */
  crashAfterPublish?: boolean;
}

export function recorder(): Recorder {
  const rec: Recorder = {
    name: 'recorder',
    events: [],
    async publish(events) {
      const failures: PublishFailure[] = [];
      for (const event of events) {
        if (rec.failWhen?.(event)) failures.push({ eventId: event.eventId, error: 'injected publish failure' });
        else rec.events.push(event);
      }
      if (rec.crashAfterPublish) throw new Error('injected crash after publishing');
      return failures;
    },
  };
  return rec;
}

export function relayOver(
  stack: Stack,
  streams: DynamoDBStreamsClient,
  publisher: Publisher,
  name: string,
  options: Partial<RelayOptions> = {},
) {
  return new Relay({
    tableName: stack.tableName,
    doc: stack.doc,
    streams,
    table: stack.table,
    publisher,
    name,
    pollMillis: 20,
    maxAttempts: 3,
    ...options,
  });
}

/** Every outbox event item in the table (the committed events), decoded, by aggregate and sequence. */
export async function committedEvents(stack: Stack): Promise<OutboxEvent[]> {
  const items = (await stack.items()).filter((item) => item.type === 'EVENT');
  return items
    .map((item) => eventFromItem(item))
    .sort((a, b) => `${a.aggregateType}#${a.aggregateId}`.localeCompare(`${b.aggregateType}#${b.aggregateId}`) || a.sequence - b.sequence);
}

/** An aws-lambda DynamoDBRecord of an INSERT of `item`, as the event source mapping delivers it. */
export function insertRecord(item: Item, sequenceNumber: string): DynamoDBRecord {
  const image = marshall(item, { removeUndefinedValues: true }) as NonNullable<NonNullable<DynamoDBRecord['dynamodb']>['NewImage']>;
  return {
    eventID: `id-${sequenceNumber}`,
    eventName: 'INSERT',
    eventVersion: '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: 'eu-west-1',
    dynamodb: {
      ApproximateCreationDateTime: Date.now() / 1000,
      Keys: { PK: { S: String(item.PK) }, SK: { S: String(item.SK) } },
      NewImage: image,
      SequenceNumber: sequenceNumber,
      SizeBytes: 100,
      StreamViewType: 'NEW_AND_OLD_IMAGES',
    },
    eventSourceARN: 'arn:aws:dynamodb:eu-west-1:123456789012:table/app/stream/2026-12-01T00:00:00.000',
  };
}

/** Waits until `check` passes (polling), or fails with its last error after `ms`. */
export async function eventually(check: () => Promise<void> | void, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    try {
      await check();
      return;
    } catch (error) {
      if (Date.now() > until) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}
