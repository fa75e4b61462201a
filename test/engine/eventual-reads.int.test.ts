/**
 * Eventually consistent reads of the base table: on DynamoDB a GetItem or BatchGetItem without
 * ConsistentRead may return an item's previous version shortly after a write; with ConsistentRead
 * it never does. The embedded engine's `consistency: 'eventual'` makes that happen within a seeded
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
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import { startEngine, type EmbeddedEngine } from '../../src/engine/embedded';
import { S, clientFor, createTestTable, external, key, uniqueTableName } from './support';

describe.skipIf(external)('eventually consistent reads (embedded engine, consistency: eventual)', () => {
  let engine: EmbeddedEngine;
  let client: DynamoDBClient;
  let table: string;

  // Seed 2's first windows over 0..1000 ms are 734, 325, 285 ms: reads a few ms after a write fall inside.
  async function eventualEngine(options: { staleReadMs?: number; staleReadSeed?: number } = {}) {
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

  it('Query stays strongly consistent (not covered yet), and strong mode is never stale', async () => {
    await eventualEngine();
    await client.send(new PutItemCommand({ TableName: table, Item: { ...key('c#1', 'p'), v: S('one') } }));
    const query = await client.send(
      new QueryCommand({ TableName: table, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': S('c#1') } }),
    );
    expect(query.Items?.map((item) => item.v)).toEqual([S('one')]);

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
