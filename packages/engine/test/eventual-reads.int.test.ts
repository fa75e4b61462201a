/**
 * Eventually consistent reads of the base table: on DynamoDB a GetItem, BatchGetItem, Query or Scan
 * without ConsistentRead may return an item's previous version shortly after a write; with
 * ConsistentRead it never does. The embedded engine's `consistency: 'eventual'` makes that happen within a seeded
 * window (`staleReadMs`), and `readsSettled()` says when it is over, so these tests wait for the
 * engine's signal rather than sleeping. On another endpoint only the ConsistentRead half holds
 * deterministically, so the suite is embedded-only, apart from that.
 */
import {
  BatchGetItemCommand,
  DeleteItemCommand,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  ScanCommand,
  type DynamoDBClient,
  type QueryCommandInput,
} from '@aws-sdk/client-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import { startEngine, type EmbeddedEngine } from '../src/embedded';
import { S, clientFor, createTestTable, external, key, uniqueTableName } from './support';

describe.skipIf(external)('eventually consistent reads (embedded engine, consistency: eventual)', () => {
  let engine: EmbeddedEngine;
  let client: DynamoDBClient;
  let table: string;

  // Seed 2's first windows over 0..1000 ms are 734, 325, 285 ms: reads a few ms after a write fall inside.
  async function eventualEngine(options: { staleReadMs?: number; staleReadSeed?: number; staleReadChance?: number } = {}) {
    engine = await startEngine({ consistency: 'eventual', staleReadMs: 1000, staleReadSeed: 2, ...options });
    client = clientFor(engine.endpoint);
    table = uniqueTableName('eventual');
    await createTestTable(client, table);
  }
  afterEach(async () => {
    client.destroy();
    await engine.close();
  });

  const get = (consistent: boolean) =>
    client.send(new GetItemCommand({ TableName: table, Key: key('c#1', 'p'), ConsistentRead: consistent }));

  it('right after a write, an eventually consistent GetItem may return the previous version; ConsistentRead never does', async () => {
    await eventualEngine();
    await client.send(new PutItemCommand({ TableName: table, Item: { ...key('c#1', 'p'), v: S('one') } }));
    expect((await get(false)).Item).toBeUndefined(); // just created: a replica may not have it yet
    expect((await get(true)).Item?.v).toEqual(S('one'));
    await engine.readsSettled();
    expect((await get(false)).Item?.v).toEqual(S('one'));

    await client.send(new PutItemCommand({ TableName: table, Item: { ...key('c#1', 'p'), v: S('two') } }));
    expect((await get(false)).Item?.v).toEqual(S('one'));
    expect((await get(true)).Item?.v).toEqual(S('two'));
    await engine.readsSettled();
    expect((await get(false)).Item?.v).toEqual(S('two'));

    await client.send(new DeleteItemCommand({ TableName: table, Key: key('c#1', 'p') }));
    expect((await get(false)).Item?.v).toEqual(S('two')); // just deleted: still there on a replica
    expect((await get(true)).Item).toBeUndefined();
    await engine.readsSettled();
    expect((await get(false)).Item).toBeUndefined();
  });

  it('inside the window, each read is stale with the seeded staleReadChance, so some reads see the write at once', async () => {
    const staleReads = async (staleReadChance: number) => {
      await eventualEngine({ staleReadMs: 60_000, staleReadChance }); // every read below is inside the window
      await client.send(new PutItemCommand({ TableName: table, Item: { ...key('c#1', 'p'), v: S('one') } }));
      let stale = 0;
      for (let read = 0; read < 300; read++) if ((await get(false)).Item === undefined) stale++;
      client.destroy();
      await engine.close();
      return stale;
    };
    expect(await staleReads(1)).toBe(300);
    expect(await staleReads(0)).toBe(0);
    const third = await staleReads(1 / 3);
    expect(third).toBeGreaterThan(60); // 300/3 = 100 expected; a fair draw lands in 60..140 all but never
    expect(third).toBeLessThan(140);
    await eventualEngine(); // for afterEach
  });

  it('BatchGetItem is stale per table unless that table is read with ConsistentRead', async () => {
    await eventualEngine();
    await client.send(new PutItemCommand({ TableName: table, Item: { ...key('c#1', 'p'), v: S('one') } }));
    const batch = (consistent: boolean) =>
      client.send(new BatchGetItemCommand({ RequestItems: { [table]: { Keys: [key('c#1', 'p')], ConsistentRead: consistent } } }));
    expect((await batch(false)).Responses?.[table]).toEqual([]);
    expect((await batch(true)).Responses?.[table]?.[0]?.v).toEqual(S('one'));
    await engine.readsSettled();
    expect((await batch(false)).Responses?.[table]?.[0]?.v).toEqual(S('one'));
  });

  it('Query and Scan without ConsistentRead see previous versions in key order: a deleted item at its place, an updated one as it was, a created one not yet', async () => {
    // Seed 9 over 0..1000 ms: the first three windows are 198, 852, 141 ms; the next three 822, 724, 689 ms.
    await eventualEngine({ staleReadSeed: 9 });
    const item = (sk: string, v: string) => ({ ...key('c#1', sk), v: S(v) });
    for (const sk of ['a', 'b', 'c']) await client.send(new PutItemCommand({ TableName: table, Item: item(sk, 'old') }));
    await engine.readsSettled();
    await client.send(new DeleteItemCommand({ TableName: table, Key: key('c#1', 'b') }));
    await client.send(new PutItemCommand({ TableName: table, Item: item('c', 'new') }));
    await client.send(new PutItemCommand({ TableName: table, Item: item('d', 'new') }));

    const query = async (consistent: boolean, extra: Partial<QueryCommandInput> = {}) =>
      client.send(
        new QueryCommand({
          TableName: table,
          KeyConditionExpression: 'PK = :pk',
          ExpressionAttributeValues: { ':pk': S('c#1') },
          ConsistentRead: consistent,
          ...extra,
        }),
      );
    const stale = [item('a', 'old'), item('b', 'old'), item('c', 'old')];
    const current = [item('a', 'old'), item('c', 'new'), item('d', 'new')];
    expect((await query(false)).Items).toEqual(stale);
    expect((await query(true)).Items).toEqual(current);
    expect((await query(false, { ScanIndexForward: false })).Items).toEqual([...stale].reverse());
    // Pages: Limit counts the versions the read sees, and the next page starts after the last of them.
    const first = await query(false, { Limit: 2 });
    expect(first.Items).toEqual(stale.slice(0, 2));
    expect(first.LastEvaluatedKey).toEqual(key('c#1', 'b'));
    expect((await query(false, { ExclusiveStartKey: first.LastEvaluatedKey })).Items).toEqual(stale.slice(2));
    const scan = (consistent: boolean) => client.send(new ScanCommand({ TableName: table, ConsistentRead: consistent }));
    expect((await scan(false)).Items).toEqual(stale);
    expect((await scan(true)).Items).toEqual(current);

    await engine.readsSettled();
    expect((await query(false)).Items).toEqual(current);
    expect((await scan(false)).Items).toEqual(current);
  });

  it('strong mode is never stale', async () => {
    await eventualEngine();
    const strong = await startEngine();
    const strongClient = clientFor(strong.endpoint);
    try {
      await createTestTable(strongClient, table);
      await strongClient.send(new PutItemCommand({ TableName: table, Item: { ...key('c#1', 'p'), v: S('one') } }));
      expect((await strongClient.send(new GetItemCommand({ TableName: table, Key: key('c#1', 'p') }))).Item?.v).toEqual(S('one'));
    } finally {
      strongClient.destroy();
      await strong.close();
    }
  });
});
