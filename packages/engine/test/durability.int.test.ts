/**
 * The engine's durability on disk (issue 11, "Memory and durability"): single-item writes applied
 * as one LevelDB batch, `sync` (fsync each commit), the ClientRequestToken window persisted across
 * restarts, and the dynalite version asserted at start. Embedded engine only (skipped on an
 * external endpoint): these are promises of our engine's storage, not of DynamoDB's API.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetItemCommand, PutItemCommand, QueryCommand, TransactWriteItemsCommand, type TransactWriteItem } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Store } from '../src/dynalite-internals';
import { dynaliteVersionProblem } from '../src/dynalite-version';
import { startEngine } from '../src/embedded';
import { Engine } from '../src/engine';
import { N, S, clientFor, createTestTable, external, key, rejectionOf, testTableDefinition, uniqueTableName } from './support';

const storeOf = (engine: Engine): Store => (engine as unknown as { store: Store }).store;

/** An in-memory Engine (no HTTP) with the standard test table, and its dynalite store. */
async function engineWithTable(): Promise<{
  engine: Engine;
  store: Store;
  table: string;
  call: (op: string, body: object) => Promise<unknown>;
}> {
  const engine = Engine.open();
  const table = uniqueTableName('durable');
  const call = async (operation: string, body: object) => {
    const response = await engine.handle(operation, body);
    if (response.status !== 200) throw Object.assign(new Error(JSON.stringify(response.body)), { response });
    return response.body;
  };
  await call('CreateTable', testTableDefinition(table));
  for (;;) {
    const { Table } = (await call('DescribeTable', { TableName: table })) as { Table: { TableStatus: string } };
    if (Table.TableStatus === 'ACTIVE') break;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return { engine, store: storeOf(engine), table, call };
}

describe.skipIf(external)('single-item writes: one LevelDB batch each', () => {
  it('writes the index entries and the item of PutItem, UpdateItem, DeleteItem and BatchWriteItem in one batch', async () => {
    const { engine, store, table, call } = await engineWithTable();
    try {
      const batch = vi.spyOn(store.db, 'batch');
      const put = vi.spyOn(store.db, 'put');
      const del = vi.spyOn(store.db, 'del');
      const indexed = (sk: string) => ({ ...key('p', sk), GSI1PK: S('g'), GSI1SK: S(sk) });

      await call('PutItem', { TableName: table, Item: indexed('a') });
      expect(batch).toHaveBeenCalledTimes(1);
      expect(batch.mock.calls[0]?.[0].map((op) => op.key.split('~')[0])).toEqual(['index-global', 'item-' + table]);

      await call('UpdateItem', {
        TableName: table,
        Key: key('p', 'a'),
        UpdateExpression: 'SET GSI1SK = :s',
        ExpressionAttributeValues: { ':s': S('moved') },
      });
      expect(batch).toHaveBeenCalledTimes(2);
      // The old index entry deleted, the new one put, and the item: three operations, one batch.
      expect(batch.mock.calls[1]?.[0].map((op) => op.type)).toEqual(['del', 'put', 'put']);

      await call('DeleteItem', { TableName: table, Key: key('p', 'a') });
      expect(batch).toHaveBeenCalledTimes(3);
      expect(batch.mock.calls[2]?.[0].map((op) => op.type)).toEqual(['del', 'del']);

      await call('BatchWriteItem', { RequestItems: { [table]: ['b', 'c', 'd'].map((sk) => ({ PutRequest: { Item: indexed(sk) } })) } });
      expect(batch).toHaveBeenCalledTimes(4);
      expect(batch.mock.calls[3]?.[0]).toHaveLength(6);

      // A failed condition writes nothing at all.
      await expect(
        call('PutItem', { TableName: table, Item: indexed('b'), ConditionExpression: 'attribute_not_exists(PK)' }),
      ).rejects.toThrow(/ConditionalCheckFailed/);
      expect(batch).toHaveBeenCalledTimes(4);
      expect(put).not.toHaveBeenCalled();
      expect(del).not.toHaveBeenCalled();
    } finally {
      await engine.close();
    }
  });

  it('leaves neither the index entry nor the item when the write fails (a crash mid-write)', async () => {
    const { engine, store, table, call } = await engineWithTable();
    try {
      vi.spyOn(store.db, 'batch').mockRejectedValueOnce(new Error('disk gone'));
      await expect(call('PutItem', { TableName: table, Item: { ...key('c', 'x'), GSI1PK: S('g'), GSI1SK: S('x') } })).rejects.toThrow();

      expect(await call('GetItem', { TableName: table, Key: key('c', 'x') })).toEqual({});
      const query = (await call('Query', {
        TableName: table,
        IndexName: 'GSI1',
        KeyConditionExpression: 'GSI1PK = :g',
        ExpressionAttributeValues: { ':g': S('g') },
      })) as { Count: number };
      expect(query.Count).toBe(0);
    } finally {
      await engine.close();
    }
  });
});

describe.skipIf(external)('the engine on disk across restarts', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'engine-durable-'));
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('still honours a ClientRequestToken used before the restart', async () => {
    const path = join(dir, 'tokens');
    const table = uniqueTableName('token');
    const token = `token-${Date.now()}`;
    const add = (amount: number): TransactWriteItem[] => [
      {
        Update: {
          TableName: table,
          Key: key('idem', '1'),
          UpdateExpression: 'ADD n :a',
          ExpressionAttributeValues: { ':a': N(amount) },
        },
      },
    ];

    const first = await startEngine({ path });
    const client1 = clientFor(first.endpoint);
    let firstAnswer: unknown;
    try {
      await createTestTable(client1, table);
      const { $metadata: _, ...answer } = await client1.send(
        new TransactWriteItemsCommand({ TransactItems: add(1), ClientRequestToken: token, ReturnConsumedCapacity: 'TOTAL' }),
      );
      firstAnswer = answer;
    } finally {
      client1.destroy();
      await first.close();
    }

    const second = await startEngine({ path });
    const client2 = clientFor(second.endpoint);
    try {
      const { $metadata: _, ...repeated } = await client2.send(
        new TransactWriteItemsCommand({ TransactItems: add(1), ClientRequestToken: token, ReturnConsumedCapacity: 'TOTAL' }),
      );
      expect(repeated).toEqual(firstAnswer);
      const { Item } = await client2.send(new GetItemCommand({ TableName: table, Key: key('idem', '1'), ConsistentRead: true }));
      expect(Item?.n).toEqual(N(1)); // not applied a second time

      const err = await rejectionOf(client2.send(new TransactWriteItemsCommand({ TransactItems: add(2), ClientRequestToken: token })));
      expect(err.name).toBe('IdempotentParameterMismatchException');

      // Another token is another transaction.
      await client2.send(new TransactWriteItemsCommand({ TransactItems: add(1), ClientRequestToken: `${token}-2` }));
      expect((await client2.send(new GetItemCommand({ TableName: table, Key: key('idem', '1') }))).Item?.n).toEqual(N(2));
    } finally {
      client2.destroy();
      await second.close();
    }
  });

  it('with sync, fsyncs every commit and keeps what it acknowledged', async () => {
    const path = join(dir, 'sync');
    const table = uniqueTableName('sync');
    const first = await startEngine({ path, sync: true });
    const client1 = clientFor(first.endpoint);
    try {
      await createTestTable(client1, table);
      await client1.send(new PutItemCommand({ TableName: table, Item: { ...key('s', '1'), GSI1PK: S('g'), GSI1SK: S('1') } }));
    } finally {
      client1.destroy();
      await first.close();
    }
    const second = await startEngine({ path });
    const client2 = clientFor(second.endpoint);
    try {
      const { Items } = await client2.send(
        new QueryCommand({
          TableName: table,
          IndexName: 'GSI1',
          KeyConditionExpression: 'GSI1PK = :g',
          ExpressionAttributeValues: { ':g': S('g') },
        }),
      );
      expect(Items?.map((item) => item.SK?.S)).toEqual(['1']);
    } finally {
      client2.destroy();
      await second.close();
    }
  });

  it('passes sync: true to every LevelDB write when sync is on, and not otherwise', async () => {
    for (const sync of [true, false]) {
      const engine = Engine.open({ path: join(dir, `sync-option-${sync}`), sync });
      const db = storeOf(engine).db as unknown as Record<'_put' | '_del' | '_batch', (...args: unknown[]) => Promise<void>>;
      // Below syncEveryWrite's wrapper: the LevelDB binding's own write calls.
      const options: unknown[] = [];
      const binding = Object.getPrototypeOf(db) as typeof db;
      const spies = (['_put', '_del', '_batch'] as const).map((name) =>
        vi.spyOn(binding, name).mockImplementation(function (this: unknown, ...args: unknown[]) {
          options.push(args[args.length - 1]);
          return Promise.resolve();
        }),
      );
      try {
        await storeOf(engine).db.put('k', 1);
        await storeOf(engine).db.del('k');
        await storeOf(engine).db.batch([{ type: 'put', key: 'k', value: 1 }]);
      } finally {
        for (const spy of spies) spy.mockRestore();
        await engine.close();
      }
      expect(options).toHaveLength(3);
      for (const option of options) expect((option as { sync?: boolean }).sync === true).toBe(sync);
    }
  });

  it('documents --sync in the CLI help', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', '--help'], {
      cwd: join(import.meta.dirname, '..'),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(0);
    expect(output).toMatch(/--sync\s+fsync each commit/);
  });
});

describe('the dynalite version check', () => {
  it('accepts the pinned version and refuses any other, saying which and why', () => {
    expect(dynaliteVersionProblem('4.0.0', '4.0.0')).toBeUndefined();
    expect(dynaliteVersionProblem('4.0.1', '4.0.0')).toMatch(/node_modules\/dynalite is version 4\.0\.1, but package\.json pins 4\.0\.0/);
    expect(dynaliteVersionProblem(undefined, '4.0.0')).toMatch(/version \(unknown\)/);
    expect(dynaliteVersionProblem('4.0.0', '^4.0.0')).toMatch(/exact version/);
    expect(dynaliteVersionProblem('4.0.0', undefined)).toMatch(/does not list dynalite/);
  });

  it('lets the engine start with the installed dynalite', async () => {
    const engine = Engine.open();
    await engine.close();
  });
});
