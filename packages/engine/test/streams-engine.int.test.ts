/**
 * DynamoDB Streams promises only the embedded engine can show (skipped on an external endpoint):
 * the TTL sweeper's deletes as service records, 24-hour retention and 15-minute iterators (by
 * moving the engine's streams clock: the numbers under test stay Amazon's, nobody waits a day),
 * records kept on disk across a restart, and records written in their commit's own LevelDB batch.
 */
import {
  CreateTableCommand,
  DeleteItemCommand,
  DescribeTableCommand,
  PutItemCommand,
  ScanCommand,
  TransactWriteItemsCommand,
  UpdateTimeToLiveCommand,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record,
  type DynamoDBStreamsClient,
} from '@aws-sdk/client-dynamodb-streams';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Store } from '../src/dynalite-internals';
import { startEngine } from '../src/embedded';
import { Engine } from '../src/engine';
import { HOUR, setUpStreams, streamsClientFor, summary, type StreamsHarness } from './streams-support';
import { N, S, clientFor, external, key, rejectionOf, startCli, testTableDefinition, uniqueTableName, waitUntilActive } from './support';

let harness: StreamsHarness;
let client: DynamoDBClient;
let streams: DynamoDBStreamsClient;
let createStreamTable: StreamsHarness['createStreamTable'];
let iterator: StreamsHarness['iterator'];
let readAll: StreamsHarness['readAll'];
let put: StreamsHarness['put'];

beforeAll(async () => {
  harness = await setUpStreams();
  ({ client, streams, createStreamTable, iterator, readAll, put } = harness);
});

afterAll(() => harness?.tearDown());

describe.skipIf(external)('embedded engine: the sweeper, the clock and the disk', () => {
  it('TTL sweeper deletes are REMOVE records with the service userIdentity; a client delete has none', async () => {
    const { name, arn } = await createStreamTable('streams-ttl', 'NEW_AND_OLD_IMAGES');
    await client.send(
      new UpdateTimeToLiveCommand({ TableName: name, TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true } }),
    );
    const start = await iterator(arn, 'LATEST');
    await put(name, { ...key('ttl', 'expired'), expiresAt: N(Math.floor(Date.now() / 1000) - 60) });
    await put(name, key('ttl', 'client'));
    await client.send(new DeleteItemCommand({ TableName: name, Key: key('ttl', 'client') }));
    expect(await harness.engine!.sweepExpiredItems()).toBe(1);
    const records = await readAll(arn, start);
    expect(summary(records)).toEqual(['INSERT expired', 'INSERT client', 'REMOVE client', 'REMOVE expired']);
    expect(records[2]!.userIdentity).toBeUndefined();
    expect(records[3]!.userIdentity).toEqual({ Type: 'Service', PrincipalId: 'dynamodb.amazonaws.com' });
    expect(records[3]!.dynamodb?.OldImage?.expiresAt).toBeDefined();
  });

  it('trims records older than 24 hours (TRIM_HORIZON starts at the oldest kept) and expires iterators after 15 minutes', async () => {
    const { name, arn } = await createStreamTable('streams-retention', 'KEYS_ONLY');
    try {
      await put(name, key('r', 'old'));
      const old = (await readAll(arn))[0]!.dynamodb!.SequenceNumber!;
      const stale = await iterator(arn, 'TRIM_HORIZON');
      harness.clock.offset += 16 * 60 * 1000;
      const expired = await rejectionOf(streams.send(new GetRecordsCommand({ ShardIterator: stale })));
      expect(expired.name).toBe('ExpiredIteratorException');

      harness.clock.offset += 23 * HOUR + 35 * 60 * 1000; // the first record is 23 h 51 min old
      await put(name, key('r', 'kept'));
      expect(summary(await readAll(arn))).toEqual(['INSERT old', 'INSERT kept']);
      const atOld = await iterator(arn, 'AT_SEQUENCE_NUMBER', old);
      harness.clock.offset += 14 * 60 * 1000; // 24 h 5 min: trimmed; the iterator is 14 min old, still valid
      const trimmed = await rejectionOf(streams.send(new GetRecordsCommand({ ShardIterator: atOld })));
      expect(trimmed.name).toBe('TrimmedDataAccessException');
      expect(summary(await readAll(arn))).toEqual(['INSERT kept']);
      const trimmedStart = await rejectionOf(iterator(arn, 'AT_SEQUENCE_NUMBER', old));
      expect(trimmedStart.name).toBe('TrimmedDataAccessException');
    } finally {
      harness.clock.offset = 0;
    }
  });

  it('keeps streams, records and sequence numbers across a restart on disk', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'engine-streams-'));
    try {
      const first = await startEngine({ path: dir });
      const firstClient = clientFor(first.endpoint);
      const name = uniqueTableName('streams-disk');
      const created = await firstClient.send(
        new CreateTableCommand({ ...testTableDefinition(name), StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_IMAGE' } }),
      );
      await waitUntilActive(firstClient, name);
      const arn = created.TableDescription!.LatestStreamArn!;
      await firstClient.send(new PutItemCommand({ TableName: name, Item: key('d', '1') }));
      await firstClient.send(new TransactWriteItemsCommand({ TransactItems: [{ Put: { TableName: name, Item: key('d', '2') } }] }));
      const firstStreams = streamsClientFor(first.endpoint);
      const before = await (async () => {
        const shard = (await firstStreams.send(new DescribeStreamCommand({ StreamArn: arn }))).StreamDescription!.Shards![0]!;
        const it0 = await firstStreams.send(
          new GetShardIteratorCommand({ StreamArn: arn, ShardId: shard.ShardId, ShardIteratorType: 'TRIM_HORIZON' }),
        );
        return (await firstStreams.send(new GetRecordsCommand({ ShardIterator: it0.ShardIterator }))).Records!;
      })();
      firstClient.destroy();
      firstStreams.destroy();
      await first.close();

      const second = await startEngine({ path: dir });
      const secondClient = clientFor(second.endpoint);
      const secondStreams = streamsClientFor(second.endpoint);
      try {
        const { Table } = await secondClient.send(new DescribeTableCommand({ TableName: name }));
        expect(Table?.LatestStreamArn).toBe(arn);
        expect(Table?.StreamSpecification).toEqual({ StreamEnabled: true, StreamViewType: 'NEW_IMAGE' });
        await secondClient.send(new PutItemCommand({ TableName: name, Item: key('d', '3') }));
        const description = (await secondStreams.send(new DescribeStreamCommand({ StreamArn: arn }))).StreamDescription!;
        expect(description.StreamStatus).toBe('ENABLED');
        const it0 = await secondStreams.send(
          new GetShardIteratorCommand({ StreamArn: arn, ShardId: description.Shards![0]!.ShardId, ShardIteratorType: 'TRIM_HORIZON' }),
        );
        const after = (await secondStreams.send(new GetRecordsCommand({ ShardIterator: it0.ShardIterator }))).Records!;
        expect(after.slice(0, 2)).toEqual(before);
        expect(summary(after)).toEqual(['INSERT 1', 'INSERT 2', 'INSERT 3']);
        expect(BigInt(after[2]!.dynamodb!.SequenceNumber!)).toBeGreaterThan(BigInt(after[1]!.dynamodb!.SequenceNumber!));
      } finally {
        secondClient.destroy();
        secondStreams.destroy();
        await second.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("writes a commit's records in the commit's own LevelDB batch: a failed batch leaves neither the item nor its record", async () => {
    const engine = Engine.open();
    const store = (engine as unknown as { store: Store }).store;
    const call = async (operation: string, body: object, service?: 'streams') => {
      const response = await engine.handle(operation, body, { service });
      if (response.status !== 200) throw Object.assign(new Error(JSON.stringify(response.body)), { response });
      return response.body as Record<string, any>;
    };
    try {
      const name = uniqueTableName('streams-batch');
      const created = await call('CreateTable', {
        ...testTableDefinition(name),
        StreamSpecification: { StreamEnabled: true, StreamViewType: 'KEYS_ONLY' },
      });
      const arn = created.TableDescription.LatestStreamArn as string;
      while ((await call('DescribeTable', { TableName: name })).Table.TableStatus !== 'ACTIVE') await new Promise((r) => setTimeout(r, 5));
      const batch = vi.spyOn(store.db, 'batch');
      const kinds = (call: number) =>
        batch.mock.calls[call]?.[0].map(({ key }) =>
          key.startsWith('engine-') ? key.split('~').slice(0, 2).join('~') : key.split('~')[0]!.replace(name, 'T'),
        );

      await call('PutItem', { TableName: name, Item: { ...key('b', '1'), GSI1PK: S('g'), GSI1SK: S('1') } });
      expect(kinds(0)).toEqual(['index-global', 'item-T', 'engine-streams~record', 'engine-streams~sequence']);
      await call('TransactWriteItems', {
        TransactItems: [{ Put: { TableName: name, Item: key('b', '2') } }, { Delete: { TableName: name, Key: key('b', '1') } }],
      });
      expect(kinds(1)).toEqual([
        'item-T',
        'index-global',
        'item-T',
        'engine-streams~record',
        'engine-streams~record',
        'engine-streams~sequence',
      ]);

      batch.mockRejectedValueOnce(new Error('disk gone'));
      await expect(call('PutItem', { TableName: name, Item: key('b', 'lost') })).rejects.toThrow();
      expect(await call('GetItem', { TableName: name, Key: key('b', 'lost'), ConsistentRead: true })).toEqual({});
      const { StreamDescription } = await call('DescribeStream', { StreamArn: arn }, 'streams');
      const { ShardIterator } = await call(
        'GetShardIterator',
        { StreamArn: arn, ShardId: StreamDescription.Shards[0].ShardId, ShardIteratorType: 'TRIM_HORIZON' },
        'streams',
      );
      const { Records } = await call('GetRecords', { ShardIterator }, 'streams');
      expect(Records.map((r: _Record) => `${r.eventName} ${r.dynamodb?.Keys?.SK?.S}`)).toEqual(['INSERT 1', 'INSERT 2', 'REMOVE 1']);
    } finally {
      await engine.close();
    }
  });

  it('a killed engine keeps exactly the records of the writes it committed (SIGKILL mid-writes, then a restart)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'engine-streams-kill-'));
    const cli = await startCli(['--port', '0', '--path', dir]);
    const { process: child, endpoint } = cli;
    try {
      const killed = cli.exited;
      const writer = clientFor(endpoint, { maxAttempts: 1 });
      const name = uniqueTableName('streams-kill');
      await writer.send(
        new CreateTableCommand({ ...testTableDefinition(name), StreamSpecification: { StreamEnabled: true, StreamViewType: 'KEYS_ONLY' } }),
      );
      await waitUntilActive(writer, name);
      const acknowledged: string[] = [];
      let next = 0;
      const lane = async () => {
        for (;;) {
          const sk = String(next++).padStart(5, '0');
          await writer.send(new PutItemCommand({ TableName: name, Item: key('k', sk) }));
          acknowledged.push(sk);
          if (acknowledged.length === 150) child.kill('SIGKILL'); // writes still in flight in the other lanes
        }
      };
      await Promise.allSettled(Array.from({ length: 6 }, lane));
      await killed;
      writer.destroy();

      const engine = await startEngine({ path: dir });
      const reader = clientFor(engine.endpoint);
      const streamsReader = streamsClientFor(engine.endpoint);
      try {
        const items = (await reader.send(new ScanCommand({ TableName: name, ConsistentRead: true }))).Items!.map((item) => item.SK!.S!);
        const { Table } = await reader.send(new DescribeTableCommand({ TableName: name }));
        const arn = Table!.LatestStreamArn!;
        const shard = (await streamsReader.send(new DescribeStreamCommand({ StreamArn: arn }))).StreamDescription!.Shards![0]!;
        const start = await streamsReader.send(
          new GetShardIteratorCommand({ StreamArn: arn, ShardId: shard.ShardId, ShardIteratorType: 'TRIM_HORIZON' }),
        );
        const records = (await streamsReader.send(new GetRecordsCommand({ ShardIterator: start.ShardIterator }))).Records!;
        expect(acknowledged.length).toBeGreaterThanOrEqual(150);
        expect(items).toEqual(expect.arrayContaining(acknowledged)); // every acknowledged write survived
        expect(records.map((r) => r.dynamodb!.Keys!.SK!.S).sort()).toEqual([...items].sort()); // each with its record, and no other
        const numbers = records.map((r) => BigInt(r.dynamodb!.SequenceNumber!));
        expect(numbers.every((n, i) => i === 0 || n > numbers[i - 1]!)).toBe(true);
      } finally {
        reader.destroy();
        streamsReader.destroy();
        await engine.close();
      }
    } finally {
      child.kill('SIGKILL');
      await rm(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
