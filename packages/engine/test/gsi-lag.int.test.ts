/**
 * Global secondary indexes are eventually consistent on DynamoDB: a write is in the table when it
 * is acknowledged, and in its GSIs a little later; ConsistentRead on a GSI is refused. The first
 * block holds on any endpoint. The second pins the embedded engine's `gsiLagMs`: the lag is real
 * (a Query right after a write misses it, and still sees an entry a write removed), the table is
 * never behind, and once `indexesSettled()` resolves the index is exactly what it would have been
 * without lag (deletes and index-key changes included, in commit order per key).
 */
import {
  DeleteItemCommand,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  ScanCommand,
  TransactWriteItemsCommand,
  UpdateItemCommand,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startEngine, type EmbeddedEngine } from '../src/embedded';
import {
  S,
  clientFor,
  createTestTable,
  eventually,
  external,
  key,
  rejectionOf,
  setUpTarget,
  uniqueTableName,
  type TestTarget,
} from './support';

const byGsi = (table: string, pk: string) =>
  new QueryCommand({
    TableName: table,
    IndexName: 'GSI1',
    KeyConditionExpression: 'GSI1PK = :pk',
    ExpressionAttributeValues: { ':pk': S(pk) },
  });

const skOf = (items: Record<string, { S?: string }>[] | undefined) => (items ?? []).map((item) => item.SK?.S).sort();

describe('GSI reads are eventually consistent (any endpoint)', () => {
  let target: TestTarget;
  beforeAll(async () => {
    target = await setUpTarget('gsilag');
  });
  afterAll(() => target.tearDown());

  it('refuses ConsistentRead on a GSI, for Query and Scan', async () => {
    const query = byGsi(target.tableName, 'any');
    query.input.ConsistentRead = true;
    const refused = await rejectionOf(target.client.send(query));
    expect(refused.name).toBe('ValidationException');
    expect(refused.message).toMatch(/Consistent reads are not supported on global secondary indexes/);
    const scan = await rejectionOf(
      target.client.send(new ScanCommand({ TableName: target.tableName, IndexName: 'GSI1', ConsistentRead: true })),
    );
    expect(scan.name).toBe('ValidationException');
  });

  it('a write is in the table at once and in the GSI eventually', async () => {
    const item = { ...key('lag#any', 'a'), GSI1PK: S('lagany'), GSI1SK: S('a') };
    await target.client.send(new PutItemCommand({ TableName: target.tableName, Item: item }));
    const read = await target.client.send(
      new GetItemCommand({ TableName: target.tableName, Key: key('lag#any', 'a'), ConsistentRead: true }),
    );
    expect(read.Item).toEqual(item);
    await eventually(async () => expect(skOf((await target.client.send(byGsi(target.tableName, 'lagany'))).Items)).toEqual(['a']));
  });
});

describe.skipIf(external)('GSI propagation lag (embedded engine, gsiLagMs)', () => {
  let engine: EmbeddedEngine;
  let client: DynamoDBClient;
  let table: string;

  // Seed 2's first delays over 0..1000 ms are 734, 325, 285 ms: a Query a few ms after the write
  // is well inside the window. Each test has its own engine, so its delays are the seed's.
  async function laggingEngine(options: { gsiLagMs?: number; gsiLagSeed?: number; path?: string } = {}) {
    engine = await startEngine({ gsiLagMs: 1000, gsiLagSeed: 2, ...options });
    client = clientFor(engine.endpoint);
    table = uniqueTableName('gsilag');
    await createTestTable(client, table);
  }
  afterEach(async () => {
    client.destroy();
    await engine.close();
  });

  it('a Query on the GSI right after a PutItem misses it; the table has it; after the lag the GSI does', async () => {
    await laggingEngine();
    const item = { ...key('c#1', 'profile'), GSI1PK: S('email#a'), GSI1SK: S('profile') };
    await client.send(new PutItemCommand({ TableName: table, Item: item }));
    expect((await client.send(byGsi(table, 'email#a'))).Items).toEqual([]);
    expect((await client.send(new GetItemCommand({ TableName: table, Key: key('c#1', 'profile') }))).Item).toEqual(item);
    expect(
      skOf(
        (
          await client.send(
            new QueryCommand({ TableName: table, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': S('c#1') } }),
          )
        ).Items,
      ),
    ).toEqual(['profile']);
    await engine.indexesSettled();
    expect((await client.send(byGsi(table, 'email#a'))).Items).toEqual([item]);
  });

  it('deletes and index-key changes lag too, and the index is exact once settled', async () => {
    await laggingEngine();
    await client.send(new PutItemCommand({ TableName: table, Item: { ...key('c#2', 'profile'), GSI1PK: S('email#old'), GSI1SK: S('p') } }));
    await client.send(
      new PutItemCommand({ TableName: table, Item: { ...key('c#3', 'profile'), GSI1PK: S('email#gone'), GSI1SK: S('p') } }),
    );
    await engine.indexesSettled();

    await client.send(
      new UpdateItemCommand({
        TableName: table,
        Key: key('c#2', 'profile'),
        UpdateExpression: 'SET GSI1PK = :new',
        ExpressionAttributeValues: { ':new': S('email#new') },
      }),
    );
    await client.send(new DeleteItemCommand({ TableName: table, Key: key('c#3', 'profile') }));
    // Stale: the old entries are still there, the new one not yet; the table is current.
    expect(skOf((await client.send(byGsi(table, 'email#old'))).Items)).toEqual(['profile']);
    expect(skOf((await client.send(byGsi(table, 'email#gone'))).Items)).toEqual(['profile']);
    expect((await client.send(new GetItemCommand({ TableName: table, Key: key('c#3', 'profile') }))).Item).toBeUndefined();

    await engine.indexesSettled();
    expect((await client.send(byGsi(table, 'email#old'))).Items).toEqual([]);
    expect(skOf((await client.send(byGsi(table, 'email#new'))).Items)).toEqual(['profile']);
    expect((await client.send(byGsi(table, 'email#gone'))).Items).toEqual([]);
  });

  it('keeps commit order per index key: many quick rewrites of one item leave exactly its last entry', async () => {
    await laggingEngine({ gsiLagMs: 50, gsiLagSeed: 7 });
    for (let i = 0; i < 40; i++) {
      const pk = `bucket#${i % 3}`;
      if (i % 5 === 4) await client.send(new DeleteItemCommand({ TableName: table, Key: key('c#4', 'x') }));
      else await client.send(new PutItemCommand({ TableName: table, Item: { ...key('c#4', 'x'), GSI1PK: S(pk), GSI1SK: S(String(i)) } }));
    }
    await client.send(new PutItemCommand({ TableName: table, Item: { ...key('c#4', 'x'), GSI1PK: S('bucket#1'), GSI1SK: S('final') } }));
    await engine.indexesSettled();
    const index = await client.send(new ScanCommand({ TableName: table, IndexName: 'GSI1' }));
    expect(index.Items?.map((item) => [item.GSI1PK?.S, item.GSI1SK?.S])).toEqual([['bucket#1', 'final']]);
  });

  it('transactions write the table at once and their GSI entries after the lag', async () => {
    await laggingEngine();
    await client.send(
      new TransactWriteItemsCommand({
        TransactItems: [{ Put: { TableName: table, Item: { ...key('c#5', 'profile'), GSI1PK: S('email#t'), GSI1SK: S('p') } } }],
      }),
    );
    expect((await client.send(byGsi(table, 'email#t'))).Items).toEqual([]);
    expect((await client.send(new GetItemCommand({ TableName: table, Key: key('c#5', 'profile') }))).Item).toBeDefined();
    await engine.indexesSettled();
    expect(skOf((await client.send(byGsi(table, 'email#t'))).Items)).toEqual(['profile']);
  });

  it('a clean close applies the GSI writes still lagging (on disk, reopened without lag)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gsilag-'));
    try {
      await laggingEngine({ path: dir });
      await client.send(new PutItemCommand({ TableName: table, Item: { ...key('c#6', 'profile'), GSI1PK: S('email#d'), GSI1SK: S('p') } }));
      client.destroy();
      await engine.close();
      engine = await startEngine({ path: dir });
      client = clientFor(engine.endpoint);
      expect(skOf((await client.send(byGsi(table, 'email#d'))).Items)).toEqual(['profile']);
    } finally {
      client.destroy();
      await engine.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
