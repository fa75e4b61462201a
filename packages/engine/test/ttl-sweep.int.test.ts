/**
 * The engine's TTL sweeper deletes expired items. Amazon DynamoDB does the same "typically within
 * two days of expiration", so these tests can only run on the embedded engine (skipped against an
 * external endpoint): what they pin is what Amazon promises once it does delete: only items whose
 * TTL attribute is a Number of epoch seconds less than the current time, removed from the table and
 * its indexes like a DeleteItem.
 */
import {
  DeleteTableCommand,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  UpdateTimeToLiveCommand,
  type AttributeValue,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngine, type EmbeddedEngine } from '../src/embedded';
import { N, S, clientFor, createTestTable, eventually, external, key, uniqueTableName } from './support';

const TTL = 'expiresAt';

/** Now, or `date`, in epoch seconds: the unit of a TTL attribute. */
const epochSeconds = (date = new Date()) => Math.floor(date.getTime() / 1000);

describe.skipIf(external)('TTL sweeper (embedded engine)', () => {
  let engine: EmbeddedEngine;
  let client: DynamoDBClient;
  let table: string;

  beforeAll(async () => {
    // A short interval, for the test that waits for a background sweep; the others sweep at once.
    engine = await startEngine({ ttlSweepSeconds: 0.2 });
    client = clientFor(engine.endpoint);
    table = uniqueTableName('ttlsweep');
    await createTestTable(client, table);
    await client.send(new UpdateTimeToLiveCommand({ TableName: table, TimeToLiveSpecification: { AttributeName: TTL, Enabled: true } }));
  });

  afterAll(async () => {
    client?.destroy();
    await engine?.close();
  });

  const put = (item: Record<string, AttributeValue>, tableName = table) =>
    client.send(new PutItemCommand({ TableName: tableName, Item: item }));
  const get = async (pk: string, sk: string, tableName = table) =>
    (await client.send(new GetItemCommand({ TableName: tableName, Key: key(pk, sk), ConsistentRead: true }))).Item;

  // The product's own records (an expired idempotency record) are swept the same way:
  // test/idempotency-ttl.int.test.ts, beside the product.
  it('deletes an expired item in a background sweep', async () => {
    const itemKey = key('ttl', 'background');
    await put({ ...itemKey, [TTL]: N(epochSeconds() - 60) });

    await eventually(async () => {
      const { Item } = await client.send(new GetItemCommand({ TableName: table, Key: itemKey, ConsistentRead: true }));
      expect(Item).toBeUndefined();
    }, 5000);
  });

  it('deletes only a Number of epoch seconds in the past, and removes the item from its indexes', async () => {
    const now = epochSeconds();
    const gsi = { GSI1PK: S('ttl-gsi'), GSI1SK: S('1') };
    await put({ ...key('ttl', 'expired'), ...gsi, [TTL]: N(now - 10) });
    await put({ ...key('ttl', 'future'), [TTL]: N(now + 3600) });
    await put({ ...key('ttl', 'string'), [TTL]: S(String(now - 10)) });
    await put({ ...key('ttl', 'map'), [TTL]: { M: { at: N(now - 10) } } });
    await put({ ...key('ttl', 'none') });
    await put({ ...key('ttl', 'ancient'), [TTL]: N(now - 6 * 366 * 24 * 3600) }); // > 5 years: ignored

    await engine.sweepExpiredItems();

    expect(await get('ttl', 'expired')).toBeUndefined();
    const { Items } = await client.send(
      new QueryCommand({
        TableName: table,
        IndexName: 'GSI1',
        KeyConditionExpression: 'GSI1PK = :pk',
        ExpressionAttributeValues: { ':pk': S('ttl-gsi') },
      }),
    );
    expect(Items).toEqual([]);
    for (const sk of ['future', 'string', 'map', 'none', 'ancient']) expect(await get('ttl', sk)).toBeDefined();
  });

  it('leaves tables without TTL alone', async () => {
    const plain = uniqueTableName('ttlplain');
    await createTestTable(client, plain);
    try {
      await put({ ...key('ttl', 'expired'), [TTL]: N(epochSeconds() - 10) }, plain);
      await engine.sweepExpiredItems();
      expect(await get('ttl', 'expired', plain)).toBeDefined();
    } finally {
      await client.send(new DeleteTableCommand({ TableName: plain }));
    }
  });

  it('is off unless asked: an engine started without ttlSweepSeconds keeps expired items', async () => {
    const quiet = await startEngine();
    const quietClient = clientFor(quiet.endpoint);
    try {
      await createTestTable(quietClient, table);
      await quietClient.send(
        new UpdateTimeToLiveCommand({ TableName: table, TimeToLiveSpecification: { AttributeName: TTL, Enabled: true } }),
      );
      await quietClient.send(new PutItemCommand({ TableName: table, Item: { ...key('ttl', 'kept'), [TTL]: N(epochSeconds() - 10) } }));
      await new Promise((resolve) => setTimeout(resolve, 400));
      const { Item } = await quietClient.send(new GetItemCommand({ TableName: table, Key: key('ttl', 'kept'), ConsistentRead: true }));
      expect(Item).toBeDefined();
      expect(await quiet.sweepExpiredItems()).toBe(1);
    } finally {
      quietClient.destroy();
      await quiet.close();
    }
  });
});

describe.skipIf(external)('engine CLI --ttl-sweep-seconds', () => {
  const cli = (args: string[]) =>
    spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], {
      cwd: join(import.meta.dirname, '..'),
      encoding: 'utf8',
      timeout: 30_000,
    });

  it('is documented in --help', () => {
    const { status, stdout } = cli(['--help']);
    expect(status).toBe(0);
    expect(stdout).toMatch(/--ttl-sweep-seconds N/);
  });

  it('refuses a value that is not a number of seconds', () => {
    const { status, stderr, stdout } = cli(['--port', '0', '--ttl-sweep-seconds', 'soon']);
    expect(status).toBe(2);
    expect(`${stdout}${stderr}`).toMatch(/--ttl-sweep-seconds must be a number/);
  });
});
