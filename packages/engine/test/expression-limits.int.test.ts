/**
 * Expression limits: Amazon refuses an expression over 4 KB (4,096 bytes) with a
 * ValidationException, in every request that carries expressions, transactions included; nesting
 * has no limit of its own (Amazon evaluates a condition nested 149 deep), and no expression may hold
 * the engine up (dynalite's parsers were exponential in nesting depth; the engine's are memoised,
 * packrat-parsers.ts). Runs against any endpoint but the engine-only case.
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
import { N, S, key, rejectionOf, setUpTarget, type TestTarget } from './support';

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

describe('deeply nested expressions are parsed, as Amazon parses them', () => {
  /** `a = :v AND (a = :v AND (... a = :v))`: `depth` levels, no redundant parentheses. */
  const nested = (depth: number) => `${'a = :v AND ('.repeat(depth)}a = :v${')'.repeat(depth)}`;
  const put = (sk: string, condition: string) =>
    target.client.send(
      new PutItemCommand({
        TableName: table,
        Item: { ...key('e', sk), a: N(1) },
        ConditionExpression: condition,
        ExpressionAttributeValues: { ':v': N(1) },
      }),
    );

  // A parser that backtracked exponentially on nesting would hang here (depth 8 took seconds): the
  // test's own timeout is the guard, not a measured duration (figures: `npm run bench:engine`).
  it.each([5, 20, 149])('a condition nested %i deep is evaluated', { timeout: 5_000 }, async (depth) => {
    await target.client.send(new DeleteItemCommand({ TableName: table, Key: key('e', 'deep') }));
    expect((await rejectionOf(put('deep', nested(depth)))).name).toBe('ConditionalCheckFailedException'); // a is missing
    await target.client.send(new PutItemCommand({ TableName: table, Item: { ...key('e', 'deep'), a: N(1) } }));
    await put('deep', nested(depth)); // a = 1 at every level: the condition holds
  });

  it('refuses redundant parentheses at any depth, as Amazon does', { timeout: 5_000 }, async () => {
    for (const depth of [2, 149, 1000]) {
      const err = await rejectionOf(put('deep', `${'('.repeat(depth)}a = :v${')'.repeat(depth)}`));
      expect(err.name).toBe('ValidationException');
      expect(err.message).toMatch(/^Invalid ConditionExpression: /);
      expect(err.message).toMatch(/redundant parentheses/);
    }
  });

  it('answers a Query filter and a transaction nested 149 deep', async () => {
    const query = await target.client.send(
      new QueryCommand({
        TableName: table,
        KeyConditionExpression: 'PK = :pk',
        FilterExpression: nested(149),
        ExpressionAttributeValues: { ':pk': S('e'), ':v': N(1) },
      }),
    );
    expect(query.Items?.every((item) => item.a?.N === '1')).toBe(true);
    await target.client.send(
      new TransactWriteItemsCommand({
        TransactItems: [
          {
            ConditionCheck: {
              TableName: table,
              Key: key('e', '1'),
              ConditionExpression: nested(149),
              ExpressionAttributeValues: { ':v': N(1) },
            },
          },
        ],
      }),
    );
  });

  it('counts 680 NOTs as 681 operators, over the 300 Amazon takes, and answers 2,040 redundant parentheses with a ValidationException', async () => {
    const nots = `${'NOT ('.repeat(680)}a = :v${')'.repeat(680)}`;
    expect(Buffer.byteLength(nots)).toBeLessThanOrEqual(4096);
    await target.client.send(new PutItemCommand({ TableName: table, Item: { ...key('e', 'deep'), a: N(1) } }));
    const tooMany = await rejectionOf(put('deep', nots));
    expect(tooMany.message).toBe('Invalid ConditionExpression: The expression contains too many operators; operator count: 301');
    // Deeper than the engine's parser can recurse: refused (Amazon: redundant parentheses), not a 500.
    const err = await rejectionOf(put('deep', `${'('.repeat(2040)}a = :v${')'.repeat(2040)}`));
    expect(err.name).toBe('ValidationException');
    expect(err.message).toMatch(/^Invalid ConditionExpression: /);
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
