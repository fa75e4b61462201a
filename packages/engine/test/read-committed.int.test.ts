/**
 * Read-committed isolation of transactions, as DynamoDB has it: GetItem and TransactGetItems are
 * serializable against a TransactWriteItems (they see all of it or none), but BatchGetItem, Query
 * and Scan are only read-committed: while a transaction commits they may see some of its items
 * and not others, even with ConsistentRead. They never see an uncommitted or cancelled write, an
 * item once seen new stays new, and once the transaction has answered every read sees all of it.
 *
 * The embedded engine's `commitSpanMs` makes the in-between observable: each item of a transaction
 * turns visible to those reads at a seeded random instant within the span, and the transaction
 * answers after the last. Embedded-only: on Amazon the window is too short to observe on demand.
 */
import {
  BatchGetItemCommand,
  GetItemCommand,
  QueryCommand,
  TransactGetItemsCommand,
  TransactWriteItemsCommand,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngine, type EmbeddedEngine } from '../src/embedded';
import { S, clientFor, createTestTable, external, key, uniqueTableName } from './support';

const ITEMS = 10;
const sks = Array.from({ length: ITEMS }, (_, i) => `i${String(i).padStart(2, '0')}`);

describe.skipIf(external)('read-committed transactions (embedded engine, commitSpanMs)', () => {
  let engine: EmbeddedEngine;
  let client: DynamoDBClient;
  let table: string;

  beforeAll(async () => {
    engine = await startEngine({ commitSpanMs: 300, staleReadSeed: 4 });
    client = clientFor(engine.endpoint);
    table = uniqueTableName('committed');
    await createTestTable(client, table);
  });
  afterAll(async () => {
    client?.destroy();
    await engine?.close();
  });

  /** Sends a 10-item transaction (every item `v` = `value`) and reads with `read` until it answers. */
  async function readWhileCommitting<T>(pk: string, value: string, read: () => Promise<T>): Promise<{ during: T[]; after: T }> {
    let answered = false;
    const transaction = client
      .send(
        new TransactWriteItemsCommand({
          TransactItems: sks.map((sk) => ({ Put: { TableName: table, Item: { ...key(pk, sk), v: S(value) } } })),
        }),
      )
      .finally(() => (answered = true));
    const during: T[] = [];
    while (!answered) during.push(await read());
    await transaction;
    return { during, after: await read() };
  }

  const consistentQuery = (pk: string) => async () => {
    const { Items = [] } = await client.send(
      new QueryCommand({
        TableName: table,
        KeyConditionExpression: 'PK = :pk',
        ExpressionAttributeValues: { ':pk': S(pk) },
        ConsistentRead: true,
      }),
    );
    return Items.map((item) => item.v?.S);
  };

  it('a consistent Query may see part of a committing transaction, only more of it over time, and all of it once it has answered', async () => {
    const { during, after } = await readWhileCommitting('q', 'new', consistentQuery('q'));
    const counts = during.map((values) => values.length);
    expect(counts.some((n) => n > 0 && n < ITEMS)).toBe(true); // part of it
    expect(counts).toEqual([...counts].sort((a, b) => a - b)); // never less than before
    expect(after).toEqual(sks.map(() => 'new'));
  });

  it('an update in flight shows as a mix of committed versions, never anything else', async () => {
    await readWhileCommitting('m', 'v1', consistentQuery('m'));
    const { during, after } = await readWhileCommitting('m', 'v2', consistentQuery('m'));
    for (const values of during) {
      expect(values).toHaveLength(ITEMS);
      expect(values.every((v) => v === 'v1' || v === 'v2')).toBe(true);
    }
    expect(during.some((values) => values.includes('v1') && values.includes('v2'))).toBe(true);
    expect(after).toEqual(sks.map(() => 'v2'));
  });

  it('a consistent BatchGetItem is read-committed too', async () => {
    const { during } = await readWhileCommitting('b', 'new', async () => {
      const { Responses } = await client.send(
        new BatchGetItemCommand({ RequestItems: { [table]: { Keys: sks.map((sk) => key('b', sk)), ConsistentRead: true } } }),
      );
      return Responses?.[table]?.length ?? 0;
    });
    expect(during.some((n) => n > 0 && n < ITEMS)).toBe(true);
  });

  it('GetItem and TransactGetItems are serializable: all of the transaction or none', async () => {
    const { during } = await readWhileCommitting('g', 'new', async () => {
      const [first, last, pair] = await Promise.all([
        client.send(new GetItemCommand({ TableName: table, Key: key('g', sks[0]!), ConsistentRead: true })),
        client.send(new GetItemCommand({ TableName: table, Key: key('g', sks[ITEMS - 1]!), ConsistentRead: true })),
        client.send(
          new TransactGetItemsCommand({
            TransactItems: [
              { Get: { TableName: table, Key: key('g', sks[0]!) } },
              { Get: { TableName: table, Key: key('g', sks[ITEMS - 1]!) } },
            ],
          }),
        ),
      ]);
      return [first.Item?.v?.S, last.Item?.v?.S, ...(pair.Responses ?? []).map((r) => r.Item?.v?.S)];
    });
    expect(during.length).toBeGreaterThan(0);
    for (const seen of during) expect(seen).toEqual(['new', 'new', 'new', 'new']); // the write is applied before its span
  });
});
