/**
 * `ReturnValues` with nothing to return: DynamoDB answers without an `Attributes` field, never with
 * `Attributes: {}` (packages/engine/src/return-values.ts). Runs against any endpoint.
 */
import { DeleteItemCommand, PutItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { N, S, key, setUpTarget, type TestTarget } from './support';

let target: TestTarget;
let table: string;

beforeAll(async () => {
  target = await setUpTarget('retval');
  table = target.tableName;
});

afterAll(async () => {
  await target?.tearDown();
});

describe('ReturnValues with nothing to return', () => {
  it('UpdateItem UPDATED_OLD of an attribute the item did not have answers no Attributes; UPDATED_NEW answers the new value', async () => {
    await target.client.send(new PutItemCommand({ TableName: table, Item: { ...key('old', '1'), a: S('x') } }));
    const update = (ReturnValues: 'UPDATED_OLD' | 'UPDATED_NEW', value: number) =>
      target.client.send(
        new UpdateItemCommand({
          TableName: table,
          Key: key('old', '1'),
          UpdateExpression: 'SET b = :b',
          ExpressionAttributeValues: { ':b': N(value) },
          ReturnValues,
        }),
      );
    expect('Attributes' in (await update('UPDATED_OLD', 1))).toBe(false);
    expect((await update('UPDATED_NEW', 2)).Attributes).toEqual({ b: N(2) });
    expect((await update('UPDATED_OLD', 3)).Attributes).toEqual({ b: N(2) });
  });

  it('UpdateItem UPDATED_NEW of an update that only removes answers no Attributes', async () => {
    await target.client.send(new PutItemCommand({ TableName: table, Item: { ...key('new', '1'), a: S('x'), b: S('y') } }));
    const answer = await target.client.send(
      new UpdateItemCommand({ TableName: table, Key: key('new', '1'), UpdateExpression: 'REMOVE a', ReturnValues: 'UPDATED_NEW' }),
    );
    expect('Attributes' in answer).toBe(false);
  });

  it('PutItem and DeleteItem ALL_OLD on a missing item answer no Attributes', async () => {
    const put = await target.client.send(new PutItemCommand({ TableName: table, Item: key('none', '1'), ReturnValues: 'ALL_OLD' }));
    expect('Attributes' in put).toBe(false);
    const deleted = await target.client.send(new DeleteItemCommand({ TableName: table, Key: key('none', '2'), ReturnValues: 'ALL_OLD' }));
    expect('Attributes' in deleted).toBe(false);
  });
});
