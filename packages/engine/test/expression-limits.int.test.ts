/**
 * Expression limits: Amazon refuses an expression over 4 KB (4,096 bytes) with a
 * ValidationException, in every request that carries expressions, transactions included; and no
 * expression, however deeply nested, may hold the engine up (dynalite's parser is exponential in
 * nesting depth; the engine refuses deep nesting before parsing). Runs against any endpoint: the
 * nesting test asks only for a fast answer that is not a server error, which Amazon also gives.
 */
import {
  BatchGetItemCommand,
  DeleteItemCommand,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  ScanCommand,
  TransactGetItemsCommand,
  TransactWriteItemsCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { N, S, external, key, rejectionOf, setUpTarget, type TestTarget } from './support';

let target: TestTarget;
let table: string;

beforeAll(async () => {
  target = await setUpTarget('expr');
  table = target.tableName;
  await target.client.send(new PutItemCommand({ TableName: table, Item: { ...key('e', '1'), a: N(1) } }));
});

afterAll(async () => {
  await target?.tearDown();
});

/** `a = :v OR a = :v OR ...`, just over 4,096 bytes. */
const OVERSIZED_CONDITION = Array.from({ length: 420 }, () => 'a = :v').join(' OR ');
/** `a, a, ...`, just over 4,096 bytes. */
const OVERSIZED_PROJECTION = Array.from({ length: 1400 }, () => 'a').join(', ');
const SIZE_MESSAGE = /Expression size has exceeded the maximum allowed size/;

async function expectTooLarge(request: Promise<unknown>, member: string): Promise<void> {
  const err = await rejectionOf(request);
  expect(err.name).toBe('ValidationException');
  expect(err.message).toMatch(new RegExp(`Invalid ${member}`));
  expect(err.message).toMatch(SIZE_MESSAGE);
}

describe('expressions over 4 KB are refused', () => {
  it('sizes the expressions used here right', () => {
    expect(Buffer.byteLength(OVERSIZED_CONDITION)).toBeGreaterThan(4096);
    expect(Buffer.byteLength(OVERSIZED_PROJECTION)).toBeGreaterThan(4096);
  });

  it('in single-item writes and reads', async () => {
    const v = { ':v': N(1) };
    const send = target.client.send.bind(target.client);
    await expectTooLarge(
      send(
        new PutItemCommand({
          TableName: table,
          Item: key('e', '2'),
          ConditionExpression: OVERSIZED_CONDITION,
          ExpressionAttributeValues: v,
        }),
      ),
      'ConditionExpression',
    );
    await expectTooLarge(
      send(
        new DeleteItemCommand({
          TableName: table,
          Key: key('e', '1'),
          ConditionExpression: OVERSIZED_CONDITION,
          ExpressionAttributeValues: v,
        }),
      ),
      'ConditionExpression',
    );
    const update = `SET ${Array.from({ length: 500 }, (_, i) => `a${i} = :v`).join(', ')}`;
    await expectTooLarge(
      send(new UpdateItemCommand({ TableName: table, Key: key('e', '1'), UpdateExpression: update, ExpressionAttributeValues: v })),
      'UpdateExpression',
    );
    await expectTooLarge(
      send(new GetItemCommand({ TableName: table, Key: key('e', '1'), ProjectionExpression: OVERSIZED_PROJECTION })),
      'ProjectionExpression',
    );
    expect((await send(new GetItemCommand({ TableName: table, Key: key('e', '1'), ConsistentRead: true }))).Item?.a).toEqual(N(1));
  });

  it('in Query, Scan and BatchGetItem', async () => {
    const send = target.client.send.bind(target.client);
    const pk = { ':pk': S('e'), ':v': N(1) };
    const keyCondition = `PK = :pk AND (${Array.from({ length: 1400 }, () => 'SK').join(' ')})`;
    await expectTooLarge(
      send(new QueryCommand({ TableName: table, KeyConditionExpression: keyCondition, ExpressionAttributeValues: pk })),
      'KeyConditionExpression',
    );
    await expectTooLarge(
      send(
        new QueryCommand({
          TableName: table,
          KeyConditionExpression: 'PK = :pk',
          FilterExpression: OVERSIZED_CONDITION,
          ExpressionAttributeValues: pk,
        }),
      ),
      'FilterExpression',
    );
    await expectTooLarge(
      send(new ScanCommand({ TableName: table, FilterExpression: OVERSIZED_CONDITION, ExpressionAttributeValues: { ':v': N(1) } })),
      'FilterExpression',
    );
    await expectTooLarge(
      send(new BatchGetItemCommand({ RequestItems: { [table]: { Keys: [key('e', '1')], ProjectionExpression: OVERSIZED_PROJECTION } } })),
      'ProjectionExpression',
    );
  });

  it('in TransactWriteItems and TransactGetItems actions, and nothing is written', async () => {
    const send = target.client.send.bind(target.client);
    await expectTooLarge(
      send(
        new TransactWriteItemsCommand({
          TransactItems: [
            { Put: { TableName: table, Item: key('e', 'tx') } },
            {
              ConditionCheck: {
                TableName: table,
                Key: key('e', '1'),
                ConditionExpression: OVERSIZED_CONDITION,
                ExpressionAttributeValues: { ':v': N(1) },
              },
            },
          ],
        }),
      ),
      'ConditionExpression',
    );
    expect((await send(new GetItemCommand({ TableName: table, Key: key('e', 'tx'), ConsistentRead: true }))).Item).toBeUndefined();
    await expectTooLarge(
      send(
        new TransactGetItemsCommand({
          TransactItems: [{ Get: { TableName: table, Key: key('e', '1'), ProjectionExpression: OVERSIZED_PROJECTION } }],
        }),
      ),
      'ProjectionExpression',
    );
  });

  it('accepts an expression of exactly 4,096 bytes', async () => {
    const terms = `${'a = :v OR '.repeat(50)}a = :v`;
    const condition = terms.padEnd(4096, ' ');
    expect(Buffer.byteLength(condition)).toBe(4096);
    const err = await rejectionOf(
      target.client.send(
        new PutItemCommand({
          TableName: table,
          Item: { ...key('e', '1'), a: N(1) },
          ConditionExpression: condition,
          ExpressionAttributeValues: { ':v': N(2) },
        }),
      ),
    );
    expect(err.name).toBe('ConditionalCheckFailedException');
  });
});

describe('deeply nested expressions answer at once', () => {
  /** `(((...(a = :v)...)))` with `depth` pairs of parentheses. */
  const nested = (depth: number) => `${'('.repeat(depth)}a = :v${')'.repeat(depth)}`;

  // A parser that backtracked exponentially on nesting would hang here: the test's own timeout (5 s)
  // is the guard, not a measured duration (figures belong to `npm run bench:engine`).
  it.each([149, 40])('a condition nested %i deep is answered, not with a server error', { timeout: 5_000 }, async (depth) => {
    let outcome: string;
    try {
      await target.client.send(
        new PutItemCommand({
          TableName: table,
          Item: { ...key('e', 'deep'), a: N(1) },
          ConditionExpression: nested(depth),
          ExpressionAttributeValues: { ':v': N(1) },
        }),
      );
      outcome = 'ok';
    } catch (err) {
      outcome = (err as Error).name;
    }
    expect(['ok', 'ConditionalCheckFailedException', 'ValidationException']).toContain(outcome);
    if (!external) expect(outcome).toBe('ValidationException');
  });

  it.skipIf(external)('the engine names the nesting limit in its answer, for Query filters and transactions too', async () => {
    const deep = nested(30);
    const err = await rejectionOf(
      target.client.send(
        new TransactWriteItemsCommand({
          TransactItems: [
            {
              ConditionCheck: {
                TableName: table,
                Key: key('e', '1'),
                ConditionExpression: deep,
                ExpressionAttributeValues: { ':v': N(1) },
              },
            },
          ],
        }),
      ),
    );
    expect(err.name).toBe('ValidationException');
    expect(err.message).toMatch(/Invalid ConditionExpression: .*nested more than \d+ levels/);
    const queryErr = await rejectionOf(
      target.client.send(
        new QueryCommand({
          TableName: table,
          KeyConditionExpression: 'PK = :pk',
          FilterExpression: deep,
          ExpressionAttributeValues: { ':pk': S('e'), ':v': N(1) },
        }),
      ),
    );
    expect(queryErr.message).toMatch(/Invalid FilterExpression: .*nested/);
  });

  it('ordinary nesting still works', async () => {
    await target.client.send(
      new PutItemCommand({
        TableName: table,
        Item: { ...key('e', 'nest-ok'), a: N(1) },
        ConditionExpression: 'attribute_not_exists(PK) OR (a = :v AND (size(b) > :v OR NOT (attribute_exists(c))))',
        ExpressionAttributeValues: { ':v': N(1) },
      }),
    );
  });
});
