/**
 * Online index operations, as DynamoDB documents them (UpdateTable, "Managing global secondary
 * indexes"): `GlobalSecondaryIndexUpdates` `Create` adds a GSI to an existing table (on an on-demand
 * table without ProvisionedThroughput), with its key attributes' AttributeDefinitions; the index is
 * CREATING with Backfilling true, the table UPDATING, until every existing item that has the index's
 * key attributes is in the index, projected as declared (an item that would violate the index key,
 * by type, emptiness or size, is skipped: "Detecting and correcting index key violations"); then both are ACTIVE. A backfilling index
 * cannot be read ("Cannot read from backfilling global secondary index: <name>"). One index can be
 * created or deleted per request and per table at a time. `Delete` makes the index DELETING, then it
 * is gone. Every engine here runs the FAITHFUL profile, GSI lag included.
 */
import {
  CreateTableCommand,
  DescribeTableCommand,
  PutItemCommand,
  ScanCommand,
  UpdateItemCommand,
  UpdateTableCommand,
  type DynamoDBClient,
  type GlobalSecondaryIndexUpdate,
} from '@aws-sdk/client-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startEngine, type EmbeddedEngine } from '../src/embedded';
import { Engine } from '../src/engine';
import { FAITHFUL } from '../src/profiles';
import {
  N,
  S,
  clientFor,
  createTestTable,
  eventually,
  key,
  rejectionOf,
  testTableDefinition,
  uniqueTableName,
  waitUntilActive,
} from './support';

import { byStatus, createIndex, order, type Row } from './index-support';

describe('UpdateTable adds and removes GSIs on an existing table (FAITHFUL engine)', () => {
  let engine: EmbeddedEngine;
  let client: DynamoDBClient;
  beforeAll(async () => {
    engine = await startEngine({ ...FAITHFUL });
    // No retries: the SDK retries LimitExceededException as throttling, and the refusals are the point here.
    client = clientFor(engine.endpoint, { maxAttempts: 1 });
  });
  afterAll(async () => {
    client.destroy();
    await engine.close();
  });

  async function freshTable(label: string): Promise<string> {
    const table = uniqueTableName(label);
    await createTestTable(client, table);
    return table;
  }

  it('creates an index on an on-demand table without ProvisionedThroughput: CREATING and backfilling, the table UPDATING, then ACTIVE', async () => {
    const table = await freshTable('gsicreate');
    const { TableDescription: updating } = await client.send(
      new UpdateTableCommand(createIndex(table, 'ByStatus', { ProjectionType: 'ALL' })),
    );
    expect(updating?.TableStatus).toBe('UPDATING');
    const created = updating?.GlobalSecondaryIndexes?.find((index) => index.IndexName === 'ByStatus');
    expect(created).toMatchObject({ IndexStatus: 'CREATING', Backfilling: true, Projection: { ProjectionType: 'ALL' } });
    expect(updating?.AttributeDefinitions).toEqual(
      expect.arrayContaining([
        { AttributeName: 'PK', AttributeType: 'S' },
        { AttributeName: 'STATUS', AttributeType: 'S' },
        { AttributeName: 'AT', AttributeType: 'N' },
      ]),
    );
    await waitUntilActive(client, table, 5_000);
    const { Table } = await client.send(new DescribeTableCommand({ TableName: table }));
    const active = Table?.GlobalSecondaryIndexes?.find((index) => index.IndexName === 'ByStatus');
    expect(active?.IndexStatus).toBe('ACTIVE');
    expect(active?.Backfilling).not.toBe(true);
    expect(active?.ProvisionedThroughput).toMatchObject({ ReadCapacityUnits: 0, WriteCapacityUnits: 0 });
    expect(Table?.GlobalSecondaryIndexes?.map((index) => index.IndexName).sort()).toEqual(['ByStatus', 'GSI1']);
  });

  it('backfills every existing item that has the key attributes of their types, projected as declared (KEYS_ONLY, INCLUDE, ALL)', async () => {
    const table = await freshTable('gsibackfill');
    const rows: Row[] = [
      { ...key('o#1', 'x'), STATUS: S('open'), AT: N(1), note: S('first'), extra: S('e1') },
      { ...key('o#2', 'x'), STATUS: S('open'), AT: N(2), note: S('second') },
      { ...key('o#3', 'x'), STATUS: S('open') }, // no sort key attribute: not in the index
      { ...key('o#4', 'x'), STATUS: N(7), AT: N(4) }, // wrong type for STATUS: not in the index
      { ...key('o#5', 'x'), STATUS: S('closed'), AT: N(5) },
      { ...key('o#6', 'x'), STATUS: S('x'.repeat(2_049)), AT: N(6) }, // over the partition key limit: not in the index
      { ...key('o#7', 'x'), STATUS: S(''), AT: N(7) }, // empty: not in the index
    ];
    for (const Item of rows) await client.send(new PutItemCommand({ TableName: table, Item }));

    type Projection = Parameters<typeof createIndex>[2];
    const projections: [string, Projection, (row: Row) => Row][] = [
      ['ByStatusKeys', { ProjectionType: 'KEYS_ONLY' }, (row) => ({ PK: row.PK!, SK: row.SK!, STATUS: row.STATUS!, AT: row.AT! })],
      [
        'ByStatusNote',
        { ProjectionType: 'INCLUDE', NonKeyAttributes: ['note'] },
        (row) => ({ PK: row.PK!, SK: row.SK!, STATUS: row.STATUS!, AT: row.AT!, ...(row.note ? { note: row.note } : {}) }),
      ],
      ['ByStatusAll', { ProjectionType: 'ALL' }, (row) => row],
    ];
    for (const [name, projection, projected] of projections) {
      await client.send(new UpdateTableCommand(createIndex(table, name, projection)));
      await waitUntilActive(client, table, 5_000);
      const open = await client.send(byStatus(table, name, 'open'));
      expect(order(open.Items)).toEqual([rows[0]!, rows[1]!].map(projected));
      expect((await client.send(byStatus(table, name, 'closed'))).Items).toEqual([projected(rows[4]!)]);
      const { Items: all } = await client.send(new ScanCommand({ TableName: table, IndexName: name }));
      expect(all?.map((item) => item.PK?.S).sort()).toEqual(['o#1', 'o#2', 'o#5']);
    }
  });

  it('indexes an item written after the Create through the normal write path, exactly once', async () => {
    const table = await freshTable('gsiafter');
    await client.send(new PutItemCommand({ TableName: table, Item: { ...key('a#1', 'x'), STATUS: S('new'), AT: N(1) } }));
    await client.send(new UpdateTableCommand(createIndex(table, 'ByStatus', { ProjectionType: 'ALL' })));
    // Written while the index is being created, and once it is ACTIVE.
    await client.send(new PutItemCommand({ TableName: table, Item: { ...key('a#2', 'x'), STATUS: S('new'), AT: N(2) } }));
    await waitUntilActive(client, table, 5_000);
    await client.send(new PutItemCommand({ TableName: table, Item: { ...key('a#3', 'x'), STATUS: S('new'), AT: N(3) } }));
    await client.send(
      new UpdateItemCommand({
        TableName: table,
        Key: key('a#1', 'x'),
        UpdateExpression: 'SET #s = :s',
        ExpressionAttributeNames: { '#s': 'STATUS' },
        ExpressionAttributeValues: { ':s': S('done') },
      }),
    );
    await eventually(async () => {
      expect(order((await client.send(byStatus(table, 'ByStatus', 'new'))).Items).map((item) => item.PK?.S)).toEqual(['a#2', 'a#3']);
      expect((await client.send(byStatus(table, 'ByStatus', 'done'))).Items?.map((item) => item.PK?.S)).toEqual(['a#1']);
    });
  });

  it('refuses ProvisionedThroughput for the new index of an on-demand table', async () => {
    const table = await freshTable('gsiondemandpt');
    const request = createIndex(table, 'ByStatus', { ProjectionType: 'ALL' });
    const update = request.GlobalSecondaryIndexUpdates[0] as GlobalSecondaryIndexUpdate;
    update.Create = { ...update.Create!, ProvisionedThroughput: { ReadCapacityUnits: 1, WriteCapacityUnits: 1 } };
    const refused = await rejectionOf(client.send(new UpdateTableCommand(request)));
    expect(refused.name).toBe('ValidationException');
    expect(refused.message).toBe(
      'One or more parameter values were invalid: ProvisionedThroughput should not be specified for index: ByStatus when BillingMode is PAY_PER_REQUEST',
    );
  });

  it('requires ProvisionedThroughput for the new index of a provisioned table', async () => {
    const table = uniqueTableName('gsiprovisioned');
    const { BillingMode: _mode, GlobalSecondaryIndexes, ...definition } = testTableDefinition(table);
    const throughput = { ReadCapacityUnits: 1, WriteCapacityUnits: 1 };
    await client.send(
      new CreateTableCommand({
        ...definition,
        ProvisionedThroughput: throughput,
        GlobalSecondaryIndexes: GlobalSecondaryIndexes.map((index) => ({ ...index, ProvisionedThroughput: throughput })),
      }),
    );
    await waitUntilActive(client, table, 5_000);
    const refused = await rejectionOf(client.send(new UpdateTableCommand(createIndex(table, 'ByStatus', { ProjectionType: 'ALL' }))));
    expect(refused.name).toBe('ValidationException');
    expect(refused.message).toBe('One or more parameter values were invalid: ProvisionedThroughput must be specified for index: ByStatus');

    const request = createIndex(table, 'ByStatus', { ProjectionType: 'ALL' });
    const update = request.GlobalSecondaryIndexUpdates[0] as GlobalSecondaryIndexUpdate;
    update.Create = { ...update.Create!, ProvisionedThroughput: { ReadCapacityUnits: 2, WriteCapacityUnits: 3 } };
    const { TableDescription } = await client.send(new UpdateTableCommand(request));
    const created = TableDescription?.GlobalSecondaryIndexes?.find((index) => index.IndexName === 'ByStatus');
    expect(created?.ProvisionedThroughput).toMatchObject({ ReadCapacityUnits: 2, WriteCapacityUnits: 3 });
    await waitUntilActive(client, table, 5_000);
  });

  it('refuses two index creations in one request, an index name that exists, and a conflicting attribute type', async () => {
    const table = await freshTable('gsirefusals');
    const two = createIndex(table, 'ByStatus', { ProjectionType: 'ALL' });
    const second = { Create: { ...two.GlobalSecondaryIndexUpdates[0]!.Create, IndexName: 'ByStatus2' } };
    const twice = await rejectionOf(
      client.send(new UpdateTableCommand({ ...two, GlobalSecondaryIndexUpdates: [...two.GlobalSecondaryIndexUpdates, second] })),
    );
    expect(twice.name).toBe('LimitExceededException');
    expect(twice.message).toBe('Subscriber limit exceeded: Only 1 online index can be created or deleted simultaneously per table');

    const existing = createIndex(table, 'GSI1', { ProjectionType: 'ALL' });
    const exists = await rejectionOf(client.send(new UpdateTableCommand(existing)));
    expect(exists.name).toBe('ValidationException');
    expect(exists.message).toBe('Attempting to create an index which already exists');

    const conflicting = createIndex(table, 'ByStatus', { ProjectionType: 'ALL' });
    conflicting.GlobalSecondaryIndexUpdates[0]!.Create.KeySchema[0]!.AttributeName = 'GSI1PK';
    conflicting.AttributeDefinitions[0] = { AttributeName: 'GSI1PK', AttributeType: 'N' as 'S' };
    const conflict = await rejectionOf(client.send(new UpdateTableCommand(conflicting)));
    expect(conflict.name).toBe('ValidationException');
    expect(conflict.message).toMatch(/^One or more parameter values were invalid: .*GSI1PK/);
    const { Table } = await client.send(new DescribeTableCommand({ TableName: table }));
    expect(Table?.GlobalSecondaryIndexes?.map((index) => index.IndexName)).toEqual(['GSI1']);
    expect(Table?.AttributeDefinitions?.find((definition) => definition.AttributeName === 'GSI1PK')?.AttributeType).toBe('S');
  });

  it('refuses a 21st global secondary index', async () => {
    const table = await freshTable('gsilimit');
    for (let i = 2; i <= 20; i++) {
      await client.send(new UpdateTableCommand(createIndex(table, `Index${i}`, { ProjectionType: 'KEYS_ONLY' })));
      await waitUntilActive(client, table, 5_000);
    }
    const refused = await rejectionOf(client.send(new UpdateTableCommand(createIndex(table, 'Index21', { ProjectionType: 'KEYS_ONLY' }))));
    expect(refused.name).toBe('LimitExceededException');
    expect(refused.message).toMatch(/GlobalSecondaryIndex count exceeds the per-table limit of 20/);
  });

  it('deletes an index: DELETING, then gone from DescribeTable with its entries, and a Query on it is refused', async () => {
    const table = await freshTable('gsidelete');
    await client.send(new PutItemCommand({ TableName: table, Item: { ...key('d#1', 'x'), STATUS: S('open'), AT: N(1) } }));
    await client.send(new UpdateTableCommand(createIndex(table, 'ByStatus', { ProjectionType: 'ALL' })));
    await waitUntilActive(client, table, 5_000);
    await eventually(async () => expect((await client.send(byStatus(table, 'ByStatus', 'open'))).Items).toHaveLength(1));

    const deleteRequest = { TableName: table, GlobalSecondaryIndexUpdates: [{ Delete: { IndexName: 'ByStatus' } }] };
    const { TableDescription } = await client.send(new UpdateTableCommand(deleteRequest));
    expect(TableDescription?.TableStatus).toBe('UPDATING');
    expect(TableDescription?.GlobalSecondaryIndexes?.find((index) => index.IndexName === 'ByStatus')?.IndexStatus).toBe('DELETING');
    await waitUntilActive(client, table, 5_000);
    const { Table } = await client.send(new DescribeTableCommand({ TableName: table }));
    expect(Table?.GlobalSecondaryIndexes?.map((index) => index.IndexName)).toEqual(['GSI1']);
    const refused = await rejectionOf(client.send(byStatus(table, 'ByStatus', 'open')));
    expect(refused.name).toBe('ValidationException');
    expect(refused.message).toBe('The table does not have the specified index: ByStatus');

    // The entries went with it: an index of the same name, on another key, holds only its own.
    await client.send(new PutItemCommand({ TableName: table, Item: { ...key('d#2', 'x'), STATUS: S('other'), AT: N(2) } }));
    const again = createIndex(table, 'ByStatus', { ProjectionType: 'ALL' });
    again.GlobalSecondaryIndexUpdates[0]!.Create.KeySchema = [{ AttributeName: 'STATUS', KeyType: 'HASH' }];
    await client.send(new UpdateTableCommand({ ...again, AttributeDefinitions: [again.AttributeDefinitions[0]!] }));
    await waitUntilActive(client, table, 5_000);
    expect((await client.send(byStatus(table, 'ByStatus', 'open'))).Items?.map((item) => item.PK?.S)).toEqual(['d#1']);
    expect((await client.send(byStatus(table, 'ByStatus', 'other'))).Items?.map((item) => item.PK?.S)).toEqual(['d#2']);

    const unknown = await rejectionOf(
      client.send(new UpdateTableCommand({ TableName: table, GlobalSecondaryIndexUpdates: [{ Delete: { IndexName: 'NoSuchIndex' } }] })),
    );
    expect(unknown.name).toBe('ResourceNotFoundException');
    expect(unknown.message).toBe('Requested resource not found: Index: NoSuchIndex not found');
  });
});

/**
 * The CREATING window, held open with the engine's table-status delay (not an option of the HTTP
 * engine), so these speak to the engine's `handle` directly, as the wire would.
 */
describe('while an index is backfilling (engine with a 300 ms status delay, FAITHFUL)', () => {
  let engine: Engine;
  afterEach(() => engine.close());

  async function send(operation: string, body: unknown): Promise<{ status: number; body: Record<string, any> }> {
    return (await engine.handle(operation, body)) as { status: number; body: Record<string, any> };
  }
  async function settled(table: string): Promise<Record<string, any>> {
    for (;;) {
      const { body } = await send('DescribeTable', { TableName: table });
      const indexes = (body.Table.GlobalSecondaryIndexes ?? []) as { IndexStatus: string }[];
      if (body.Table.TableStatus === 'ACTIVE' && indexes.every((index) => index.IndexStatus === 'ACTIVE')) return body.Table;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  it('DescribeTable shows CREATING and Backfilling, a Query on the index is refused, a second Create is refused; then ACTIVE and readable', async () => {
    engine = Engine.open({ ...FAITHFUL, tableStatusDelayMs: 300 });
    const table = uniqueTableName('gsiwindow');
    expect((await send('CreateTable', testTableDefinition(table))).status).toBe(200);
    await settled(table);
    await send('PutItem', { TableName: table, Item: { ...key('w#1', 'x'), STATUS: S('open'), AT: N(1) } });
    expect((await send('UpdateTable', createIndex(table, 'ByStatus', { ProjectionType: 'ALL' }))).status).toBe(200);

    const { body: described } = await send('DescribeTable', { TableName: table });
    expect(described.Table.TableStatus).toBe('UPDATING');
    expect(described.Table.GlobalSecondaryIndexes.find((index: { IndexName: string }) => index.IndexName === 'ByStatus')).toMatchObject({
      IndexStatus: 'CREATING',
      Backfilling: true,
    });
    const query = byStatus(table, 'ByStatus', 'open').input;
    const refused = await send('Query', query);
    expect(refused.status).toBe(400);
    expect(refused.body.__type).toMatch(/#ValidationException$/);
    expect(refused.body.message).toBe('Cannot read from backfilling global secondary index: ByStatus');

    // A write that would violate the new index's key is refused from the Create on (Amazon documents
    // the refusal once the backfill is done; refusing it during the backfill too never indexes it wrongly).
    const violating = await send('PutItem', { TableName: table, Item: { ...key('w#2', 'x'), STATUS: N(2), AT: N(2) } });
    expect(violating.body.__type).toMatch(/#ValidationException$/);
    expect(violating.body.message).toBe(
      'One or more parameter values were invalid: Type mismatch for Index Key STATUS Expected: S Actual: N IndexName: ByStatus',
    );

    const another = await send('UpdateTable', createIndex(table, 'ByStatus2', { ProjectionType: 'ALL' }));
    expect(another.body.__type).toMatch(/#LimitExceededException$/);
    expect(another.body.message).toBe('Subscriber limit exceeded: Only 1 online index can be created or deleted simultaneously per table');

    const active = await settled(table);
    expect(active.GlobalSecondaryIndexes.map((index: { IndexName: string }) => index.IndexName).sort()).toEqual(['ByStatus', 'GSI1']);
    await engine.indexesSettled();
    const read = await send('Query', query);
    expect(read.status).toBe(200);
    expect(read.body.Items.map((item: Row) => item.PK?.S)).toEqual(['w#1']);
  });
});
