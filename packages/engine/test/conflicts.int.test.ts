/**
 * Transaction conflicts (DynamoDB's "Transaction conflict handling"): requests in flight at once on
 * one item. Overlap is a matter of timing, so the overlapping tests send pairs at once until a pair
 * overlaps (on Amazon as on the embedded engine with `conflicts`), then check DynamoDB's answer:
 * one transaction cancelled with `TransactionConflict` at the shared item and `None` elsewhere, or
 * the single-item write refused with `TransactionConflictException`. `conflictChance` (embedded
 * only) forces a conflict on demand.
 */
import {
  GetItemCommand,
  PutItemCommand,
  TransactWriteItemsCommand,
  type DynamoDBClient,
  type TransactWriteItem,
} from '@aws-sdk/client-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import { startEngine, type EmbeddedEngine } from '../src/embedded';
import {
  N,
  S,
  clientFor,
  createTestTable,
  external,
  key,
  rejectionOf,
  setUpTarget,
  sleep,
  uniqueTableName,
  type TestTarget,
} from './support';

/** Enough actions that a transaction is still in flight when a request sent with it arrives. */
const WIDTH = 25;

const puts = (table: string, prefix: string, shared: string, n = WIDTH): TransactWriteItem[] => [
  {
    Update: {
      TableName: table,
      Key: key('shared', shared),
      UpdateExpression: 'ADD hits :one',
      ExpressionAttributeValues: { ':one': N(1) },
    },
  },
  ...Array.from({ length: n - 1 }, (_, i) => ({ Put: { TableName: table, Item: { ...key(`${prefix}#${i}`, 'x'), v: S(prefix) } } })),
];

const outcome = async (promise: Promise<unknown>) => {
  try {
    await promise;
    return { ok: true as const };
  } catch (err) {
    return { ok: false as const, err: err as Error & { CancellationReasons?: { Code: string }[] } };
  }
};

describe('transaction conflicts', () => {
  let target: TestTarget | undefined;
  let engine: EmbeddedEngine | undefined;
  let client: DynamoDBClient;
  let table: string;

  /** Amazon, or the embedded engine with conflicts on. */
  async function conflictingTarget(options: { conflictChance?: number } = {}) {
    if (external) {
      target = await setUpTarget('conflicts');
      ({ client, tableName: table } = target);
      return;
    }
    engine = await startEngine({ conflicts: true, ...options });
    client = clientFor(engine.endpoint);
    table = uniqueTableName('conflicts');
    await createTestTable(client, table);
  }
  afterEach(async () => {
    await target?.tearDown();
    if (engine) {
      client.destroy();
      await engine.close();
    }
    target = engine = undefined;
  });

  it('two overlapping transactions: one is cancelled with TransactionConflict at the shared item, None elsewhere', async () => {
    await conflictingTarget();
    for (let round = 0; round < 20; round++) {
      const [a, b] = await Promise.all([
        outcome(client.send(new TransactWriteItemsCommand({ TransactItems: puts(table, `a${round}`, `s${round}`) }))),
        outcome(client.send(new TransactWriteItemsCommand({ TransactItems: puts(table, `b${round}`, `s${round}`) }))),
      ]);
      if (a.ok && b.ok) continue; // no overlap this time: both committed, one after the other
      const lost = (a.ok ? b : a) as { ok: false; err: Error & { CancellationReasons?: { Code: string }[] } };
      expect(a.ok || b.ok).toBe(true);
      expect(lost.err.name).toBe('TransactionCanceledException');
      const codes = lost.err.CancellationReasons?.map((reason) => reason.Code);
      expect(codes?.[0]).toBe('TransactionConflict');
      expect(new Set(codes?.slice(1))).toEqual(new Set(['None']));
      const shared = await client.send(new GetItemCommand({ TableName: table, Key: key('shared', `s${round}`), ConsistentRead: true }));
      expect(shared.Item?.hits).toEqual(N(1)); // the cancelled one wrote nothing
      if (engine) expect(engine.conflicts().transactionsCancelled).toBe(1);
      return;
    }
    throw new Error('no two transactions overlapped in 20 rounds');
  });

  it('a PutItem on an item an in-flight transaction holds fails with TransactionConflictException', async () => {
    await conflictingTarget();
    for (let round = 0; round < 20; round++) {
      const transaction = outcome(client.send(new TransactWriteItemsCommand({ TransactItems: puts(table, `t${round}`, `p${round}`) })));
      await sleep(round % 4); // the transaction first, by 0..3 ms
      const put = outcome(client.send(new PutItemCommand({ TableName: table, Item: { ...key('shared', `p${round}`), hits: N(100) } })));
      const [t, p] = await Promise.all([transaction, put]);
      expect(t.ok).toBe(true);
      if (p.ok) continue; // the put came before or after the transaction
      expect(p.err.name).toBe('TransactionConflictException');
      if (engine) expect(engine.conflicts().singleWritesRefused).toBe(1);
      return;
    }
    throw new Error('no PutItem met an in-flight transaction in 20 rounds');
  });

  it('transactions one after the other never conflict', async () => {
    await conflictingTarget();
    for (let i = 0; i < 5; i++) {
      await client.send(new TransactWriteItemsCommand({ TransactItems: puts(table, `seq${i}`, 'same', 3) }));
    }
    const shared = await client.send(new GetItemCommand({ TableName: table, Key: key('shared', 'same'), ConsistentRead: true }));
    expect(shared.Item?.hits).toEqual(N(5));
  });

  it.skipIf(external)('with conflictChance 1 every transaction is cancelled with one TransactionConflict, and writes nothing', async () => {
    await conflictingTarget({ conflictChance: 1 });
    for (let i = 0; i < 10; i++) {
      const err = await rejectionOf(client.send(new TransactWriteItemsCommand({ TransactItems: puts(table, `f${i}`, `f${i}`, 4) })));
      expect(err.name).toBe('TransactionCanceledException');
      const codes = (err.CancellationReasons as { Code: string }[]).map((reason) => reason.Code);
      expect(codes).toHaveLength(4);
      expect(codes.filter((code) => code === 'TransactionConflict')).toHaveLength(1);
      expect(codes.filter((code) => code === 'None')).toHaveLength(3);
    }
    expect((await client.send(new GetItemCommand({ TableName: table, Key: key('shared', 'f0') }))).Item).toBeUndefined();
    expect(engine?.conflicts()).toEqual({ transactionsCancelled: 10, forced: 10, singleWritesRefused: 0 });
    // Single-item writes are not forced to conflict.
    await client.send(new PutItemCommand({ TableName: table, Item: key('single', 'x') }));
  });
});
