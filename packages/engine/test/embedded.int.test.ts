/**
 * What only the embedded engine offers: the wire log, faults, the on-disk store, the CLI. These
 * tests always run the embedded engine (they skip when DYNAMODB_TEST_ENDPOINT points elsewhere).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BatchGetItemCommand,
  DescribeTimeToLiveCommand,
  GetItemCommand,
  ListTablesCommand,
  PutItemCommand,
  QueryCommand,
  ScanCommand,
  TransactWriteItemsCommand,
  UpdateTimeToLiveCommand,
  type AttributeValue,
} from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorResponse, startEngine, type EmbeddedEngine, type WireRequest } from '../src/embedded';
import {
  N,
  S,
  clientFor,
  createTestTable,
  external,
  key,
  rejectionOf,
  setUpTarget,
  startCli,
  uniqueTableName,
  type TestTarget,
} from './support';

describe.skipIf(external)('embedded engine', () => {
  let target: TestTarget;
  let engine: EmbeddedEngine;
  let table: string;

  beforeAll(async () => {
    target = await setUpTarget('emb');
    engine = target.engine as EmbeddedEngine;
    table = target.tableName;
    await target.client.send(new PutItemCommand({ TableName: table, Item: { ...key('w', '1'), v: N(1) } }));
    await target.client.send(new PutItemCommand({ TableName: table, Item: { ...key('w', '2'), v: N(2) } }));
  });

  afterAll(async () => {
    await target?.tearDown();
  });

  describe('wire log', () => {
    it('records every request with operation, body, status and error type', async () => {
      engine.wire.reset();
      const seen: WireRequest[] = [];
      const unsubscribe = engine.wire.onRequest((request) => seen.push(request));

      await target.client.send(new GetItemCommand({ TableName: table, Key: key('w', '1') }));
      await target.client.send(
        new QueryCommand({ TableName: table, KeyConditionExpression: 'PK = :w', ExpressionAttributeValues: { ':w': S('w') } }),
      );
      await rejectionOf(
        target.client.send(new PutItemCommand({ TableName: table, Item: key('w', '1'), ConditionExpression: 'attribute_not_exists(PK)' })),
      );
      unsubscribe();
      await target.client.send(new GetItemCommand({ TableName: table, Key: key('w', '2') }));

      expect(engine.wire.count()).toBe(4);
      expect(engine.wire.count('GetItem')).toBe(2);
      expect(engine.wire.count('Query')).toBe(1);
      expect(seen.map((r) => r.operation)).toEqual(['GetItem', 'Query', 'PutItem']);

      const [get, query, put] = engine.wire.requests();
      expect(get?.body).toMatchObject({ TableName: table, Key: key('w', '1') });
      expect(query?.status).toBe(200);
      expect(query?.errorType).toBeUndefined();
      expect(put?.status).toBe(400);
      expect(put?.errorType).toBe('ConditionalCheckFailedException');
      const requests = engine.wire.requests();
      for (const [i, r] of requests.entries()) {
        expect(r.endedAt).toBeGreaterThanOrEqual(r.startedAt);
        if (i > 0) expect(r.seq).toBeGreaterThan((requests[i - 1] as WireRequest).seq);
      }

      engine.wire.reset();
      expect(engine.wire.count()).toBe(0);
    });
  });

  describe('faults', () => {
    it('answers instead of the engine: a ThrottlingException the SDK retries', async () => {
      let throttled = 0;
      const remove = engine.faults.inject('GetItem', () => (throttled++ < 1 ? errorResponse('ThrottlingException') : undefined));
      try {
        engine.wire.reset();
        const { Item } = await target.client.send(new GetItemCommand({ TableName: table, Key: key('w', '1') }));
        expect(Item?.v).toEqual(N(1));
        expect(engine.wire.count('GetItem')).toBe(2);
        expect(engine.wire.requests()[0]?.errorType).toBe('ThrottlingException');

        const noRetry = target.newClient({ maxAttempts: 1 });
        throttled = 0;
        const err = await rejectionOf(noRetry.send(new GetItemCommand({ TableName: table, Key: key('w', '1') })));
        expect(err.name).toBe('ThrottlingException');
      } finally {
        remove();
      }
    });

    it('can shape a real answer: BatchGetItem with UnprocessedKeys, a Query page cut short', async () => {
      const removeBatch = engine.faults.inject('BatchGetItem', async (request) => {
        const keys = request.body.RequestItems[table].Keys as unknown[];
        const answer = await request.forward({ RequestItems: { [table]: { Keys: keys.slice(0, 1) } } });
        return { ...answer, body: { ...(answer.body as object), UnprocessedKeys: { [table]: { Keys: keys.slice(1) } } } };
      });
      const removeQuery = engine.faults.inject('Query', (request) => request.forward({ ...request.body, Limit: 1 }));
      try {
        const batch = await target.client.send(
          new BatchGetItemCommand({ RequestItems: { [table]: { Keys: [key('w', '1'), key('w', '2')] } } }),
        );
        expect(batch.Responses?.[table]).toHaveLength(1);
        expect(batch.UnprocessedKeys?.[table]?.Keys).toEqual([key('w', '2')]);

        const page = await target.client.send(
          new QueryCommand({ TableName: table, KeyConditionExpression: 'PK = :w', ExpressionAttributeValues: { ':w': S('w') } }),
        );
        expect(page.Items).toHaveLength(1);
        expect(page.LastEvaluatedKey).toEqual(key('w', '1'));
      } finally {
        removeBatch();
        removeQuery();
      }

      const full = await target.client.send(
        new QueryCommand({ TableName: table, KeyConditionExpression: 'PK = :w', ExpressionAttributeValues: { ':w': S('w') } }),
      );
      expect(full.Items).toHaveLength(2);
    });

    it('clear() removes every fault; "*" matches every operation', async () => {
      engine.faults.inject('*', () => errorResponse('InternalServerError'));
      const client = target.newClient({ maxAttempts: 1 });
      expect((await rejectionOf(client.send(new ListTablesCommand({})))).name).toBe('InternalServerError');
      engine.faults.clear();
      expect((await client.send(new ListTablesCommand({}))).TableNames).toContain(table);
    });
  });

  it('answers UnknownOperationException for an operation it does not implement', async () => {
    const response = await fetch(engine.endpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-amz-json-1.0',
        'x-amz-target': 'DynamoDB_20120810.ExecuteStatement',
        authorization: 'AWS4-HMAC-SHA256 x',
      },
      body: '{}',
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ __type: 'com.amazon.coral.service#UnknownOperationException' });
  });
});

describe.skipIf(external)('embedded engine on disk', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'engine-test-'));
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps transactional writes, GSI entries and the TTL setting across close and reopen', async () => {
    const path = join(dir, 'reopen');
    const table = uniqueTableName('disk');

    const first = await startEngine({ path });
    const client1 = clientFor(first.endpoint);
    try {
      await createTestTable(client1, table);
      await client1.send(
        new TransactWriteItemsCommand({
          TransactItems: [
            { Put: { TableName: table, Item: { ...key('d', 'a'), GSI1PK: S('g'), GSI1SK: S('a') } } },
            {
              Update: {
                TableName: table,
                Key: key('d', 'b'),
                UpdateExpression: 'SET GSI1PK = :g, GSI1SK = :s',
                ExpressionAttributeValues: { ':g': S('g'), ':s': S('b') },
              },
            },
          ],
        }),
      );
      await rejectionOf(
        client1.send(
          new TransactWriteItemsCommand({
            TransactItems: [
              { Put: { TableName: table, Item: key('d', 'cancelled') } },
              { ConditionCheck: { TableName: table, Key: key('d', 'nope'), ConditionExpression: 'attribute_exists(PK)' } },
            ],
          }),
        ),
      );
      await client1.send(
        new UpdateTimeToLiveCommand({ TableName: table, TimeToLiveSpecification: { Enabled: true, AttributeName: 'ttl' } }),
      );
    } finally {
      client1.destroy();
      await first.close();
    }

    const second = await startEngine({ path });
    const client2 = clientFor(second.endpoint);
    try {
      const { Items } = await client2.send(new ScanCommand({ TableName: table }));
      expect(Items?.map((item) => item.SK?.S).sort()).toEqual(['a', 'b']);
      const { Items: indexed } = await client2.send(
        new QueryCommand({
          TableName: table,
          IndexName: 'GSI1',
          KeyConditionExpression: 'GSI1PK = :g',
          ExpressionAttributeValues: { ':g': S('g') },
        }),
      );
      expect(indexed?.map((item) => item.SK?.S)).toEqual(['a', 'b']);
      const { TimeToLiveDescription } = await client2.send(new DescribeTimeToLiveCommand({ TableName: table }));
      expect(TimeToLiveDescription).toEqual({ TimeToLiveStatus: 'ENABLED', AttributeName: 'ttl' });

      await client2.send(
        new UpdateTimeToLiveCommand({ TableName: table, TimeToLiveSpecification: { Enabled: false, AttributeName: 'ttl' } }),
      );
      expect((await client2.send(new DescribeTimeToLiveCommand({ TableName: table }))).TimeToLiveDescription?.TimeToLiveStatus).toBe(
        'DISABLED',
      );
    } finally {
      client2.destroy();
      await second.close();
    }
  });

  it('never holds half a transaction after the engine process is killed mid-stream', async () => {
    const path = join(dir, 'killed');
    const table = uniqueTableName('kill');
    const cli = await startCli(['--port', '0', '--path', path]);
    const client = clientFor(cli.endpoint, { maxAttempts: 1 });
    try {
      await createTestTable(client, table);
      let committed = 0;
      const writers = [0, 1, 2, 3, 4, 5, 6, 7].map(async (w) => {
        for (let i = 0; ; i++) {
          const n = `${w}-${i}`;
          try {
            await client.send(
              new TransactWriteItemsCommand({
                TransactItems: ['a', 'b', 'c'].map((half) => ({
                  Put: { TableName: table, Item: { ...key('K', `${n}#${half}`), pad: S('p'.repeat(20_000)) } },
                })),
              }),
            );
            committed++;
          } catch {
            return; // the engine is gone
          }
        }
      });
      while (committed < 150) await new Promise((resolve) => setTimeout(resolve, 5));
      cli.process.kill('SIGKILL');
      await Promise.all([cli.exited, ...writers]);
    } finally {
      client.destroy();
    }

    const reopened = await startEngine({ path });
    const reader = clientFor(reopened.endpoint);
    try {
      const items: string[] = [];
      let ExclusiveStartKey: Record<string, AttributeValue> | undefined;
      do {
        const page = await reader.send(new ScanCommand({ TableName: table, ExclusiveStartKey }));
        items.push(...(page.Items ?? []).map((item) => String(item.SK?.S)));
        ExclusiveStartKey = page.LastEvaluatedKey;
      } while (ExclusiveStartKey);
      expect(items.length).toBeGreaterThanOrEqual(150 * 3);
      const halves = new Map<string, number>();
      for (const sk of items) {
        const n = sk.split('#')[0] as string;
        halves.set(n, (halves.get(n) ?? 0) + 1);
      }
      expect([...halves.entries()].filter(([, count]) => count !== 3)).toEqual([]);
    } finally {
      reader.destroy();
      await reopened.close();
    }
  });
});

describe.skipIf(external)('engine CLI', () => {
  it('serves the engine and stops cleanly on SIGTERM', async () => {
    const cli = await startCli(['--port', '0']);
    const client = clientFor(cli.endpoint);
    try {
      expect((await client.send(new ListTablesCommand({}))).TableNames).toEqual([]);
    } finally {
      client.destroy();
    }
    cli.process.kill('SIGTERM');
    expect(await cli.exited).toBe(0);
    expect(cli.output()).toMatch(/SIGTERM: closing the engine/);
  });

  it('says in one line that a --path another process holds is held, and exits 1', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'engine-held-'));
    const holder = await startEngine({ path: dir });
    try {
      const error = await startCli(['--port', '0', '--path', dir]).then(
        () => undefined,
        (e: Error) => e,
      );
      expect(error?.message).toContain('engine CLI exited (1) before listening');
      expect(error?.message.trim().split('\n').slice(1)).toEqual([
        `--path ${dir} is held by another process (LevelDB's lock): stop it, or give another directory`,
      ]);
    } finally {
      await holder.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('is faithful to DynamoDB by default, and deterministic with --strong', async () => {
    for (const [args, behaviours] of [
      [
        [],
        'GSI lag up to 50 ms, eventually consistent reads (stale up to 50 ms), read-committed transactions (10 ms span), transaction conflicts',
      ],
      [['--strong'], 'GSIs updated with the item, strongly consistent reads, transactions visible at once, no conflicts'],
      [['--strong', '--gsi-lag-ms', '200'], 'GSI lag up to 200 ms, strongly consistent reads, transactions visible at once, no conflicts'],
    ] as const) {
      const cli = await startCli(['--port', '0', ...args]);
      cli.process.kill('SIGTERM');
      expect(await cli.exited).toBe(0);
      expect(cli.output()).toContain(`(in memory; ${behaviours})`);
    }
  });
});
