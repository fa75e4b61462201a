/**
 * No growth per Query: every LevelDB iterator dynalite opens for a Query or Scan is closed once
 * the request is answered (packages/engine/src/iterator-closing.ts). Counted, not timed: the engine's count
 * of open iterators after 20k Queries. Engine-only (an external endpoint has no such count).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../src/engine';
import { external } from './support';

const TABLE = 'memory';

describe.skipIf(external)('LevelDB iterators', () => {
  let engine: Engine;

  async function ok(operation: string, body: Record<string, unknown>): Promise<Record<string, unknown>> {
    const response = await engine.handle(operation, body);
    if (response.status !== 200) throw new Error(`${operation}: ${JSON.stringify(response.body)}`);
    return response.body as Record<string, unknown>;
  }

  /** Polls DescribeTable until the table is ACTIVE, or (`gone`) until it no longer exists. */
  async function until(tableName: string, state: 'ACTIVE' | 'gone'): Promise<void> {
    for (let attempt = 0; attempt < 400; attempt++) {
      const response = await engine.handle('DescribeTable', { TableName: tableName });
      const status = (response.body as { Table?: { TableStatus?: string } }).Table?.TableStatus;
      if (state === 'gone' ? response.status !== 200 : status === 'ACTIVE') return;
      await new Promise((resolve) => setTimeout(resolve, 5)); // a poll, at most 2 s
    }
    throw new Error(`table ${tableName} never ${state === 'gone' ? 'went away' : 'became ACTIVE'}`);
  }

  const query = (i: number, limit?: number) =>
    ok('Query', {
      TableName: TABLE,
      KeyConditionExpression: 'PK = :pk',
      ExpressionAttributeValues: { ':pk': { S: `p${i % 10}` } },
      ...(limit === undefined ? {} : { Limit: limit }),
    });

  beforeAll(async () => {
    engine = Engine.open();
    await ok('CreateTable', {
      TableName: TABLE,
      AttributeDefinitions: ['PK', 'SK', 'G'].map((name) => ({ AttributeName: name, AttributeType: 'S' })),
      KeySchema: [
        { AttributeName: 'PK', KeyType: 'HASH' },
        { AttributeName: 'SK', KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: [
        { IndexName: 'GSI', KeySchema: [{ AttributeName: 'G', KeyType: 'HASH' }], Projection: { ProjectionType: 'ALL' } },
      ],
      BillingMode: 'PAY_PER_REQUEST',
    });
    await until(TABLE, 'ACTIVE'); // CREATING until the next timer tick
    for (let i = 0; i < 100; i++) {
      await ok('PutItem', { TableName: TABLE, Item: { PK: { S: `p${i % 10}` }, SK: { S: `s${i}` }, G: { S: `g${i % 5}` } } });
    }
  });

  afterAll(async () => {
    await engine?.close();
  });

  it('none stays open after 20,000 Queries (read to the end, and stopped early by Limit)', async () => {
    const before = engine.iterators;
    expect(before.open).toBe(0);
    for (let i = 0; i < 20_000; i++) {
      const { Count } = await query(i, i % 2 === 0 ? 3 : undefined);
      expect(Count).toBe(i % 2 === 0 ? 3 : 10);
    }
    // Counted (one iterator per Query), and every one closed.
    expect(engine.iterators.opened - before.opened).toBeGreaterThanOrEqual(20_000);
    expect(engine.iterators.open).toBe(0);
  }, 60_000);

  it('none stays open after Scans, index Queries and a table deletion', async () => {
    for (let i = 0; i < 500; i++) {
      await ok('Scan', { TableName: TABLE, Limit: 1 + (i % 7) });
      await ok('Query', {
        TableName: TABLE,
        IndexName: 'GSI',
        KeyConditionExpression: 'G = :g',
        ExpressionAttributeValues: { ':g': { S: `g${i % 5}` } },
      });
    }
    expect(engine.iterators.open).toBe(0);
    await ok('CreateTable', {
      TableName: `${TABLE}-doomed`,
      AttributeDefinitions: [{ AttributeName: 'PK', AttributeType: 'S' }],
      KeySchema: [{ AttributeName: 'PK', KeyType: 'HASH' }],
      BillingMode: 'PAY_PER_REQUEST',
    });
    await until(`${TABLE}-doomed`, 'ACTIVE');
    await ok('PutItem', { TableName: `${TABLE}-doomed`, Item: { PK: { S: 'x' } } });
    await ok('DeleteTable', { TableName: `${TABLE}-doomed` });
    await until(`${TABLE}-doomed`, 'gone');
    expect(engine.iterators.open).toBe(0);
  });
});
