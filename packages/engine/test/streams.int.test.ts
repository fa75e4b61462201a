/**
 * DynamoDB Streams through the real SDK (`@aws-sdk/client-dynamodb-streams`), as Amazon serves
 * them: the table's StreamSpecification, ListStreams, DescribeStream, GetShardIterator, GetRecords,
 * records per view type, transactions, errors. Written to Amazon's behaviour (messages as Amazon
 * answers them); the tests that need the engine's clock, its TTL sweeper or its disk run on the
 * embedded engine only. The embedded engine runs the FAITHFUL profile (GSI lag, stale reads,
 * commit spans): records come from the commit itself, never from the lagging index.
 *
 * Retention (24 h) and iterator expiry (15 min) are tested by moving the engine's streams clock
 * (`streamsClock`) rather than shortening them: the numbers under test stay Amazon's.
 */
import {
  DeleteItemCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  TransactWriteItemsCommand,
  UpdateItemCommand,
  UpdateTableCommand,
  type AttributeValue,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  GetRecordsCommand,
  GetShardIteratorCommand,
  ListStreamsCommand,
  type DynamoDBStreamsClient,
} from '@aws-sdk/client-dynamodb-streams';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setUpStreams, summary, type StreamsHarness } from './streams-support';
import { N, S, key, rejectionOf, testTableDefinition, waitUntilActive } from './support';

let harness: StreamsHarness;
let client: DynamoDBClient;
let streams: DynamoDBStreamsClient;
let createStreamTable: StreamsHarness['createStreamTable'];
let shardOf: StreamsHarness['shardOf'];
let iterator: StreamsHarness['iterator'];
let readAll: StreamsHarness['readAll'];
let put: StreamsHarness['put'];

beforeAll(async () => {
  harness = await setUpStreams();
  ({ client, streams, createStreamTable, shardOf, iterator, readAll, put } = harness);
});

afterAll(() => harness?.tearDown());

describe('the table side: StreamSpecification, LatestStreamArn, LatestStreamLabel', () => {
  it('CreateTable enables the stream and answers it in Amazon formats; DescribeTable and ListStreams agree', async () => {
    const { name, arn, created } = await createStreamTable('streams-create', 'NEW_AND_OLD_IMAGES');
    const label = created.TableDescription?.LatestStreamLabel as string;
    expect(label).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}$/);
    expect(arn).toMatch(new RegExp(`^arn:aws:dynamodb:us-east-1:\\d*:table/${name}/stream/${label.replace(/\./g, '\\.')}$`));
    expect(created.TableDescription?.StreamSpecification).toEqual({ StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' });

    const { Table } = await client.send(new DescribeTableCommand({ TableName: name }));
    expect(Table).toMatchObject({
      LatestStreamArn: arn,
      LatestStreamLabel: label,
      StreamSpecification: created.TableDescription?.StreamSpecification,
    });
    const listed = await streams.send(new ListStreamsCommand({ TableName: name }));
    expect(listed.Streams).toEqual([{ StreamArn: arn, TableName: name, StreamLabel: label }]);

    const description = (await streams.send(new DescribeStreamCommand({ StreamArn: arn }))).StreamDescription!;
    expect(description).toMatchObject({
      StreamArn: arn,
      StreamLabel: label,
      StreamStatus: 'ENABLED',
      StreamViewType: 'NEW_AND_OLD_IMAGES',
      TableName: name,
    });
    expect(description.KeySchema).toEqual(testTableDefinition(name).KeySchema);
    expect(description.Shards).toHaveLength(1); // one shard per stream (the embedded engine; Amazon may have more)
    expect(description.Shards![0]!.SequenceNumberRange?.StartingSequenceNumber).toMatch(/^\d{21,40}$/);
    expect(description.Shards![0]!.SequenceNumberRange?.EndingSequenceNumber).toBeUndefined();
  });

  it('a table without a stream has no StreamSpecification and no stream', async () => {
    const { name } = await createStreamTable('streams-none', null);
    const { Table } = await client.send(new DescribeTableCommand({ TableName: name }));
    expect(Table?.StreamSpecification).toBeUndefined();
    expect(Table?.LatestStreamArn).toBeUndefined();
    expect((await streams.send(new ListStreamsCommand({ TableName: name }))).Streams).toEqual([]);
  });

  it("refuses what Amazon refuses, with Amazon's messages", async () => {
    const { name } = await createStreamTable('streams-refuse', 'KEYS_ONLY');
    const update = (spec: object) => client.send(new UpdateTableCommand({ TableName: name, StreamSpecification: spec as never }));
    const again = await rejectionOf(update({ StreamEnabled: true, StreamViewType: 'KEYS_ONLY' }));
    expect([again.name, again.message]).toEqual(['ValidationException', `Table already has an enabled stream: TableName: ${name}`]);
    const otherType = await rejectionOf(update({ StreamEnabled: true, StreamViewType: 'NEW_IMAGE' }));
    expect(otherType.message).toBe(`Table already has an enabled stream: TableName: ${name}`);
    const noType = await rejectionOf(update({ StreamEnabled: true }));
    expect(noType.message).toBe('One or more parameter values were invalid: If stream is being enabled then UpdateViewType is required');
    const typeOnDisable = await rejectionOf(update({ StreamEnabled: false, StreamViewType: 'KEYS_ONLY' }));
    expect(typeOnDisable.message).toBe(
      'One or more parameter values were invalid: If stream is being disabled, then UpdateViewType must not be specified',
    );
    const badType = await rejectionOf(update({ StreamEnabled: true, StreamViewType: 'EVERYTHING' }));
    expect(badType.name).toBe('ValidationException');
    expect(badType.message).toContain("at 'streamSpecification.streamViewType' failed to satisfy constraint");

    await update({ StreamEnabled: false });
    await waitUntilActive(client, name); // Amazon updates the table first (UPDATING); the engine never shows it
    const twice = await rejectionOf(update({ StreamEnabled: false }));
    expect([twice.name, twice.message]).toEqual(['ValidationException', `Table has no stream to disable: TableName: ${name}`]);
  });
});

describe('records', () => {
  it.each(['NEW_AND_OLD_IMAGES', 'NEW_IMAGE', 'OLD_IMAGE', 'KEYS_ONLY'] as const)(
    'INSERT, MODIFY, REMOVE with the images of %s; writes that change nothing make no record',
    async (viewType) => {
      const { name, arn } = await createStreamTable(`streams-${viewType.toLowerCase().replace(/_/g, '')}`, viewType);
      const v1 = { ...key('p', 'a'), x: N(1) };
      const v2 = { ...key('p', 'a'), x: N(2), tags: { SS: ['b', 'a'] } };
      await put(name, v1);
      await put(name, v1); // the same item: no record
      await client.send(
        new UpdateItemCommand({
          TableName: name,
          Key: key('p', 'a'),
          UpdateExpression: 'SET x = :x, tags = :t',
          ExpressionAttributeValues: { ':x': N(2), ':t': { SS: ['b', 'a'] } },
        }),
      );
      await client.send(new DeleteItemCommand({ TableName: name, Key: key('p', 'a') }));
      await client.send(new DeleteItemCommand({ TableName: name, Key: key('p', 'a') })); // missing: no record

      const records = await readAll(arn);
      expect(records.map((r) => r.eventName)).toEqual(['INSERT', 'MODIFY', 'REMOVE']);
      for (const record of records) {
        expect(record).toMatchObject({ eventVersion: '1.1', eventSource: 'aws:dynamodb', awsRegion: 'us-east-1' });
        expect(record.eventID).toMatch(/^\S+$/);
        expect(record.dynamodb?.Keys).toEqual(key('p', 'a'));
        expect(record.dynamodb?.StreamViewType).toBe(viewType);
        expect(record.dynamodb?.SequenceNumber).toMatch(/^\d{21,40}$/);
        expect(record.dynamodb?.SizeBytes).toBeGreaterThan(0);
        expect(Math.abs(record.dynamodb!.ApproximateCreationDateTime!.getTime() - Date.now())).toBeLessThan(60_000);
        expect(record.userIdentity).toBeUndefined();
      }
      const sequence = records.map((r) => BigInt(r.dynamodb!.SequenceNumber!));
      expect([...sequence].sort((a, b) => (a < b ? -1 : 1))).toEqual(sequence);
      const newImages = viewType === 'NEW_IMAGE' || viewType === 'NEW_AND_OLD_IMAGES';
      const oldImages = viewType === 'OLD_IMAGE' || viewType === 'NEW_AND_OLD_IMAGES';
      const images = records.map((r) => [r.dynamodb?.OldImage, r.dynamodb?.NewImage]);
      const normalise = (item?: Record<string, AttributeValue>) =>
        item && JSON.parse(JSON.stringify(item, (k, v) => (k === 'SS' ? [...v].sort() : v)));
      expect(images.map(([o, n]) => [normalise(o), normalise(n)])).toEqual([
        [undefined, newImages ? v1 : undefined],
        [oldImages ? v1 : undefined, newImages ? normalise(v2) : undefined],
        [oldImages ? normalise(v2) : undefined, undefined],
      ]);
    },
  );

  it('reads each iterator type from its place; Limit pages with NextShardIterator', async () => {
    const { name, arn } = await createStreamTable('streams-iterators');
    const latest = await iterator(arn, 'LATEST');
    for (const sk of ['1', '2', '3']) await put(name, key('p', sk));
    const all = await readAll(arn);
    expect(summary(all)).toEqual(['INSERT 1', 'INSERT 2', 'INSERT 3']);
    expect(summary(await readAll(arn, latest))).toEqual(['INSERT 1', 'INSERT 2', 'INSERT 3']);
    const second = all[1]!.dynamodb!.SequenceNumber!;
    expect(summary(await readAll(arn, await iterator(arn, 'AT_SEQUENCE_NUMBER', second)))).toEqual(['INSERT 2', 'INSERT 3']);
    expect(summary(await readAll(arn, await iterator(arn, 'AFTER_SEQUENCE_NUMBER', second)))).toEqual(['INSERT 3']);
    const start = (await shardOf(arn)).SequenceNumberRange!.StartingSequenceNumber!;
    expect(summary(await readAll(arn, await iterator(arn, 'AT_SEQUENCE_NUMBER', start)))).toHaveLength(3);

    const first = await streams.send(new GetRecordsCommand({ ShardIterator: await iterator(arn, 'TRIM_HORIZON'), Limit: 2 }));
    expect(summary(first.Records ?? [])).toEqual(['INSERT 1', 'INSERT 2']);
    const rest = await streams.send(new GetRecordsCommand({ ShardIterator: first.NextShardIterator, Limit: 2 }));
    expect(summary(rest.Records ?? [])).toEqual(['INSERT 3']);
    const empty = await streams.send(new GetRecordsCommand({ ShardIterator: rest.NextShardIterator }));
    expect(empty.Records).toEqual([]);
    expect(empty.NextShardIterator).toBeDefined(); // an open shard always has a next iterator
    await put(name, key('p', '4'));
    expect(summary((await streams.send(new GetRecordsCommand({ ShardIterator: empty.NextShardIterator }))).Records ?? [])).toEqual([
      'INSERT 4',
    ]);
    // A fresh LATEST iterator starts after everything already there.
    expect(await readAll(arn, await iterator(arn, 'LATEST'))).toEqual([]);
  });

  it("keeps a transaction's records together and in action order; a cancelled transaction makes none", async () => {
    const { name, arn } = await createStreamTable('streams-transactions');
    await put(name, { ...key('t', 'updated'), n: N(1) });
    await put(name, key('t', 'deleted'));
    await put(name, key('t', 'checked'));
    const start = await iterator(arn, 'LATEST');
    await client.send(
      new TransactWriteItemsCommand({
        ClientRequestToken: `token-${Date.now()}`, // its idempotency entry is engine state, not an item: no record
        TransactItems: [
          { Put: { TableName: name, Item: { ...key('t', 'put'), GSI1PK: S('g'), GSI1SK: S('1') } } },
          { ConditionCheck: { TableName: name, Key: key('t', 'checked'), ConditionExpression: 'attribute_exists(PK)' } },
          {
            Update: {
              TableName: name,
              Key: key('t', 'updated'),
              UpdateExpression: 'SET n = :n',
              ExpressionAttributeValues: { ':n': N(2) },
            },
          },
          { Delete: { TableName: name, Key: key('t', 'deleted') } },
        ],
      }),
    );
    await put(name, key('t', 'after'));
    const cancelled = await rejectionOf(
      client.send(
        new TransactWriteItemsCommand({
          TransactItems: [
            { Put: { TableName: name, Item: key('t', 'never') } },
            { ConditionCheck: { TableName: name, Key: key('t', 'missing'), ConditionExpression: 'attribute_exists(PK)' } },
          ],
        }),
      ),
    );
    expect(cancelled.name).toBe('TransactionCanceledException');

    const records = await readAll(arn, start);
    expect(summary(records)).toEqual(['INSERT put', 'MODIFY updated', 'REMOVE deleted', 'INSERT after']);
    const numbers = records.map((r) => BigInt(r.dynamodb!.SequenceNumber!));
    expect(numbers.every((n, i) => i === 0 || n > numbers[i - 1]!)).toBe(true);
    // The GSI entry lags (FAITHFUL profile) but the record is the commit's: it is there at once, with the item.
    expect(records[0]!.dynamodb?.NewImage).toEqual({ ...key('t', 'put'), GSI1PK: S('g'), GSI1SK: S('1') });
  });
});

describe('stream lifecycle', () => {
  it('disabling closes the stream (still readable, its shard ended); enabling again makes a new stream; DeleteTable ends it', async () => {
    const { name, arn } = await createStreamTable('streams-cycle', 'KEYS_ONLY');
    await put(name, key('c', '1'));
    const open = await iterator(arn, 'TRIM_HORIZON');
    await client.send(new UpdateTableCommand({ TableName: name, StreamSpecification: { StreamEnabled: false } }));
    await waitUntilActive(client, name);
    await put(name, key('c', 'unrecorded'));

    const { Table } = await client.send(new DescribeTableCommand({ TableName: name }));
    expect(Table?.StreamSpecification).toBeUndefined();
    expect(Table?.LatestStreamArn).toBe(arn);
    const closed = (await streams.send(new DescribeStreamCommand({ StreamArn: arn }))).StreamDescription!;
    expect(['DISABLING', 'DISABLED']).toContain(closed.StreamStatus); // Amazon passes through DISABLING
    const range = closed.Shards![0]!.SequenceNumberRange!;
    expect(BigInt(range.EndingSequenceNumber!)).toBeGreaterThan(BigInt(range.StartingSequenceNumber!));
    const read = await streams.send(new GetRecordsCommand({ ShardIterator: open }));
    expect(summary(read.Records ?? [])).toEqual(['INSERT 1']);
    // A closed shard read to its end: no record after that one, then no iterator (the engine ends at
    // once; Amazon may first answer empty pages).
    let next = read.NextShardIterator;
    for (let page = 0; next !== undefined && page < 10; page++) {
      const more = await streams.send(new GetRecordsCommand({ ShardIterator: next }));
      expect(more.Records).toEqual([]);
      next = more.NextShardIterator;
    }
    expect(next).toBeUndefined();

    const enabled = await client.send(
      new UpdateTableCommand({ TableName: name, StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_IMAGE' } }),
    );
    const second = enabled.TableDescription?.LatestStreamArn as string;
    expect(second).not.toBe(arn);
    expect(enabled.TableDescription?.StreamSpecification).toEqual({ StreamEnabled: true, StreamViewType: 'NEW_IMAGE' });
    await waitUntilActive(client, name);
    await put(name, key('c', '2'));
    expect(summary(await readAll(second))).toEqual(['INSERT 2']);
    const listed = (await streams.send(new ListStreamsCommand({ TableName: name }))).Streams!.map((s) => s.StreamArn);
    expect(listed.sort()).toEqual([arn, second].sort());

    await client.send(new DeleteTableCommand({ TableName: name }));
    const ended = (await streams.send(new DescribeStreamCommand({ StreamArn: second }))).StreamDescription!;
    expect(['DISABLING', 'DISABLED']).toContain(ended.StreamStatus);
    expect(ended.Shards![0]!.SequenceNumberRange?.EndingSequenceNumber).toMatch(/^\d+$/);
  });

  it('ListStreams pages with Limit and ExclusiveStartStreamArn', async () => {
    const a = await createStreamTable('streams-list-a', 'KEYS_ONLY');
    const b = await createStreamTable('streams-list-b', 'KEYS_ONLY');
    const seen: string[] = [];
    let start: string | undefined;
    do {
      const page = await streams.send(new ListStreamsCommand({ Limit: 1, ExclusiveStartStreamArn: start }));
      expect(page.Streams!.length).toBeLessThanOrEqual(1);
      seen.push(...page.Streams!.map((s) => s.StreamArn!));
      start = page.LastEvaluatedStreamArn;
    } while (start);
    expect(seen).toEqual(expect.arrayContaining([a.arn, b.arn]));
    expect(new Set(seen).size).toBe(seen.length);
  });
});

describe('Streams API errors', () => {
  it("answers Amazon's exceptions", async () => {
    const { arn } = await createStreamTable('streams-errors', 'KEYS_ONLY');
    const shardId = (await shardOf(arn)).ShardId!;
    const start = (await shardOf(arn)).SequenceNumberRange!.StartingSequenceNumber!;
    const failure = async (promise: Promise<unknown>) => {
      const err = await rejectionOf(promise);
      return err.name;
    };
    const getIterator = (input: object) =>
      streams.send(new GetShardIteratorCommand({ StreamArn: arn, ShardId: shardId, ...input } as never));
    expect(await failure(streams.send(new DescribeStreamCommand({ StreamArn: 'not-an-arn-not-an-arn-not-an-arn-not-an-arn' })))).toBe(
      'ValidationException',
    );
    expect(
      await failure(
        streams.send(new DescribeStreamCommand({ StreamArn: arn.replace(/\d{3}$/, '999').replace('streams-errors', 'streams-nothere') })),
      ),
    ).toBe('ResourceNotFoundException');
    expect(await failure(getIterator({ ShardId: 'shardId-00000000000000000000-00000000', ShardIteratorType: 'LATEST' }))).toBe(
      'ResourceNotFoundException',
    );
    expect(await failure(getIterator({ ShardIteratorType: 'AT_SEQUENCE_NUMBER' }))).toBe('ValidationException');
    expect(await failure(getIterator({ ShardIteratorType: 'LATEST', SequenceNumber: start }))).toBe('ValidationException');
    expect(await failure(getIterator({ ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: 'x'.repeat(21) }))).toBe(
      'ValidationException',
    );
    expect(await failure(getIterator({ ShardIteratorType: 'SOMEWHERE' }))).toBe('ValidationException');
    expect(await failure(streams.send(new GetRecordsCommand({ ShardIterator: 'garbage-garbage-garbage' })))).toBe('ValidationException');
    const valid = await iterator(arn, 'LATEST');
    expect(await failure(streams.send(new GetRecordsCommand({ ShardIterator: valid, Limit: 1001 })))).toBe('ValidationException');
    expect(await failure(streams.send(new ListStreamsCommand({ Limit: 0 })))).toBe('ValidationException');
  });

  it('DescribeStream refuses a ShardFilter without its Type or without the ShardId CHILD_SHARDS needs', async () => {
    const { arn } = await createStreamTable('streams-filter', 'KEYS_ONLY');
    const shardId = (await shardOf(arn)).ShardId!;
    const message = async (filter: object) => {
      const err = await rejectionOf(streams.send(new DescribeStreamCommand({ StreamArn: arn, ShardFilter: filter as never })));
      expect(err.name).toBe('ValidationException');
      return err.message;
    };
    expect(await message({ ShardId: shardId })).toBe(
      "1 validation error detected: Value null at 'shardFilter.type' failed to satisfy constraint: Member must not be null",
    );
    expect(await message({ Type: 'CHILD_SHARDS' })).toBe(
      "1 validation error detected: Value null at 'shardFilter.shardId' failed to satisfy constraint: Member must not be null",
    );
    const { StreamDescription } = await streams.send(
      new DescribeStreamCommand({ StreamArn: arn, ShardFilter: { Type: 'CHILD_SHARDS', ShardId: shardId } }),
    );
    expect(StreamDescription?.Shards).toEqual([]);
  });
});
