/**
 * Item sizes and consumed capacity in UTF-8 bytes, as Amazon DynamoDB counts them ("the size of an
 * item is the sum of the lengths of its attribute names and values"; strings are UTF-8). 'é' is one
 * UTF-16 code unit and two UTF-8 bytes, so these items are over (or under) a limit only when counted
 * in bytes.
 */
import {
  BatchWriteItemCommand,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  TransactWriteItemsCommand,
  UpdateItemCommand,
  type AttributeValue,
} from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S, key, rejectionOf, setUpTarget, type TestTarget } from './support';

let target: TestTarget;
let table: string;

beforeAll(async () => {
  target = await setUpTarget('size');
  table = target.tableName;
});

afterAll(async () => {
  await target?.tearDown();
});

/** 210,000 code units, 420,000 UTF-8 bytes: over 400 KB (409,600 bytes) only in bytes. */
const OVER_IN_BYTES = 'é'.repeat(210_000);

async function get(pk: string, sk: string): Promise<Record<string, AttributeValue> | undefined> {
  const { Item } = await target.client.send(new GetItemCommand({ TableName: table, Key: key(pk, sk), ConsistentRead: true }));
  return Item;
}

describe('the 400 KB item limit, in UTF-8 bytes', () => {
  it('PutItem refuses a non-ASCII item over 400 KB in bytes', async () => {
    const err = await rejectionOf(
      target.client.send(new PutItemCommand({ TableName: table, Item: { ...key('size', 'put'), v: S(OVER_IN_BYTES) } })),
    );
    expect(err.name).toBe('ValidationException');
    expect(err.message).toMatch(/Item size has exceeded the maximum allowed size/);
    expect(await get('size', 'put')).toBeUndefined();
  });

  it('PutItem accepts an item just under 400 KB', async () => {
    await target.client.send(new PutItemCommand({ TableName: table, Item: { ...key('size', 'under'), v: S('é'.repeat(200_000)) } }));
    expect((await get('size', 'under'))?.v?.S).toHaveLength(200_000);
  });

  it('UpdateItem refuses to grow an item over 400 KB in bytes', async () => {
    await target.client.send(new PutItemCommand({ TableName: table, Item: { ...key('size', 'grow'), a: S('é'.repeat(100_000)) } }));
    const err = await rejectionOf(
      target.client.send(
        new UpdateItemCommand({
          TableName: table,
          Key: key('size', 'grow'),
          UpdateExpression: 'SET b = :b',
          ExpressionAttributeValues: { ':b': S('é'.repeat(110_000)) },
        }),
      ),
    );
    expect(err.name).toBe('ValidationException');
    expect(err.message).toMatch(/Item size to update has exceeded the maximum allowed size/);
    expect((await get('size', 'grow'))?.b).toBeUndefined();
  });

  it('BatchWriteItem refuses the batch', async () => {
    const err = await rejectionOf(
      target.client.send(
        new BatchWriteItemCommand({
          RequestItems: {
            [table]: [
              { PutRequest: { Item: { ...key('size', 'batch-ok'), v: S('small') } } },
              { PutRequest: { Item: { ...key('size', 'batch-big'), v: S(OVER_IN_BYTES) } } },
            ],
          },
        }),
      ),
    );
    expect(err.name).toBe('ValidationException');
    expect(err.message).toMatch(/Item size has exceeded the maximum allowed size/);
    expect(await get('size', 'batch-ok')).toBeUndefined();
  });

  it('TransactWriteItems refuses a Put over 400 KB in bytes', async () => {
    const err = await rejectionOf(
      target.client.send(
        new TransactWriteItemsCommand({
          TransactItems: [
            { Put: { TableName: table, Item: key('size', 'tx-ok') } },
            { Put: { TableName: table, Item: { ...key('size', 'tx-big'), v: S(OVER_IN_BYTES) } } },
          ],
        }),
      ),
    );
    // The whole request is refused (ValidationException), or cancelled with the action's ValidationError.
    expect(['ValidationException', 'TransactionCanceledException']).toContain(err.name);
    if (err.name === 'TransactionCanceledException') expect(err.CancellationReasons?.[1]?.Code).toBe('ValidationError');
    else expect(err.message).toMatch(/Item size has exceeded the maximum allowed size/);
    expect(await get('size', 'tx-ok')).toBeUndefined();
  });

  it('TransactWriteItems cancels an Update that grows an item over 400 KB in bytes', async () => {
    await target.client.send(new PutItemCommand({ TableName: table, Item: { ...key('size', 'tx-grow'), a: S('é'.repeat(100_000)) } }));
    const err = await rejectionOf(
      target.client.send(
        new TransactWriteItemsCommand({
          TransactItems: [
            {
              Update: {
                TableName: table,
                Key: key('size', 'tx-grow'),
                UpdateExpression: 'SET b = :b',
                ExpressionAttributeValues: { ':b': S('é'.repeat(110_000)) },
              },
            },
          ],
        }),
      ),
    );
    expect(err.name).toBe('TransactionCanceledException');
    expect(err.CancellationReasons?.[0]?.Code).toBe('ValidationError');
  });
});

describe('consumed capacity, from UTF-8 sizes', () => {
  // ~2,000 bytes in UTF-8 (2 write units, 1 read unit); ~1,000 code units (1 write unit).
  const twoKb = { ...key('cap', 'w'), v: S('é'.repeat(1000)) };
  // ~4,200 bytes in UTF-8: 2 strongly consistent read units; 2,100 code units would be 1.
  const overFourKb = { ...key('cap', 'r'), v: S('é'.repeat(2100)) };

  it('PutItem and UpdateItem: 1 unit per KB', async () => {
    const put = await target.client.send(new PutItemCommand({ TableName: table, Item: twoKb, ReturnConsumedCapacity: 'TOTAL' }));
    expect(put.ConsumedCapacity?.CapacityUnits).toBe(2);

    const update = await target.client.send(
      new UpdateItemCommand({
        TableName: table,
        Key: key('cap', 'w'),
        UpdateExpression: 'SET n = :n',
        ExpressionAttributeValues: { ':n': { N: '1' } },
        ReturnConsumedCapacity: 'TOTAL',
      }),
    );
    expect(update.ConsumedCapacity?.CapacityUnits).toBe(2);
  });

  it('GetItem: 1 strongly consistent unit per 4 KB', async () => {
    await target.client.send(new PutItemCommand({ TableName: table, Item: overFourKb }));
    const got = await target.client.send(
      new GetItemCommand({ TableName: table, Key: key('cap', 'r'), ConsistentRead: true, ReturnConsumedCapacity: 'TOTAL' }),
    );
    expect(got.ConsumedCapacity?.CapacityUnits).toBe(2);
  });

  it('TransactWriteItems: 2 units per KB', async () => {
    const result = await target.client.send(
      new TransactWriteItemsCommand({
        TransactItems: [{ Put: { TableName: table, Item: { ...twoKb, SK: S('tx') } } }],
        ReturnConsumedCapacity: 'TOTAL',
      }),
    );
    expect(result.ConsumedCapacity?.[0]?.CapacityUnits).toBe(4);
  });
});

describe('Query pages and capacity, from UTF-8 sizes', () => {
  const inPartition = (pk: string) => ({
    TableName: table,
    KeyConditionExpression: 'PK = :pk',
    ExpressionAttributeValues: { ':pk': S(pk) },
  });

  it('Query: 1 strongly consistent unit per 4 KB of the items read', async () => {
    // 3 items of ~4,200 bytes: 12,600 bytes are 4 units; their 6,300 code units would be 2.
    for (const sk of ['a', 'b', 'c'])
      await target.client.send(new PutItemCommand({ TableName: table, Item: { ...key('qcap', sk), v: S('é'.repeat(2100)) } }));
    const page = await target.client.send(
      new QueryCommand({ ...inPartition('qcap'), ConsistentRead: true, ReturnConsumedCapacity: 'TOTAL' }),
    );
    expect(page.Count).toBe(3);
    expect(page.ConsumedCapacity?.CapacityUnits).toBe(4);
  });

  it('Query: a page stops at 1 MB of items in bytes', async () => {
    // 4 items of 400,000 bytes (200,000 code units): the page reaches 1 MB after 3 in bytes; in code units all 4 fit.
    for (const sk of ['a', 'b', 'c', 'd'])
      await target.client.send(new PutItemCommand({ TableName: table, Item: { ...key('qpage', sk), v: S('é'.repeat(200_000)) } }));
    const page = await target.client.send(new QueryCommand({ ...inPartition('qpage'), ConsistentRead: true, ProjectionExpression: 'SK' }));
    expect(page.Items?.map((item) => item.SK)).toEqual([S('a'), S('b'), S('c')]);
    expect(page.LastEvaluatedKey).toEqual(key('qpage', 'c'));
  });
});
