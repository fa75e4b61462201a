/**
 * UpdateItem as DynamoDB applies it: every document path of one update expression names a place in
 * the item as it was before the update (so `REMOVE a[1] SET a[3]` sets the original fourth element,
 * and several REMOVEs of list elements remove the original ones), UPDATED_OLD / UPDATED_NEW return
 * only the updated places, nested within their attributes, and a failed condition answers no item
 * unless ReturnValuesOnConditionCheckFailure asks for it. Written from DynamoDB's documentation and
 * from suites run against it; runs against any endpoint.
 */
import { GetItemCommand, PutItemCommand, UpdateItemCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { N, S, key, rejectionOf, setUpTarget, type TestTarget } from './support';

let target: TestTarget;
let table: string;

beforeAll(async () => {
  target = await setUpTarget('update');
  table = target.tableName;
});

afterAll(async () => {
  await target?.tearDown();
});

const list = (...values: number[]) => ({ L: values.map((value) => N(value)) });
const put = (sk: string, item: Record<string, AttributeValue>) =>
  target.client.send(new PutItemCommand({ TableName: table, Item: { ...key('u', sk), ...item } }));
const read = async (sk: string) =>
  (await target.client.send(new GetItemCommand({ TableName: table, Key: key('u', sk), ConsistentRead: true }))).Item;
const update = (sk: string, UpdateExpression: string, values?: Record<string, AttributeValue>, ReturnValues?: string) =>
  target.client.send(
    new UpdateItemCommand({
      TableName: table,
      Key: key('u', sk),
      UpdateExpression,
      ExpressionAttributeValues: values,
      ReturnValues: ReturnValues as 'NONE' | undefined,
    }),
  );

describe('list positions refer to the item before the update', () => {
  it('REMOVE a[1] SET a[3] sets the original a[3], in either order', async () => {
    for (const expression of ['REMOVE a[1] SET a[3] = :v', 'SET a[3] = :v REMOVE a[1]']) {
      await put('list', { a: list(2, 3, 4, 5, 6, 7) });
      await update('list', expression, { ':v': N(17) });
      expect((await read('list'))?.a).toEqual(list(2, 4, 17, 6, 7));
    }
  });

  it('REMOVE a[1], a[3] removes the original second and fourth elements, in either order', async () => {
    for (const expression of ['REMOVE a[1], a[3]', 'REMOVE a[3], a[1]']) {
      await put('list', { a: list(2, 3, 4, 5, 6, 7) });
      await update('list', expression);
      expect((await read('list'))?.a).toEqual(list(2, 4, 6, 7));
    }
  });

  it('a removal from a list inside an element that another removal shifts', async () => {
    await put('list', { a: { L: [list(0), list(1), list(2, 3)] } });
    await update('list', 'REMOVE a[1], a[2][0]');
    expect((await read('list'))?.a).toEqual({ L: [list(0), list(3)] });
  });
});

describe('UPDATED_OLD and UPDATED_NEW return only the updated places, nested', () => {
  it('a map member and a list element', async () => {
    await put('nested', { a: { M: { b: S('dog'), c: list(1, 2, 3) } }, d: S('cat') });
    expect((await update('nested', 'SET a.b = :v', { ':v': S('hi') }, 'UPDATED_OLD')).Attributes).toEqual({ a: { M: { b: S('dog') } } });
    expect((await update('nested', 'SET a.b = :v', { ':v': S('yo') }, 'UPDATED_NEW')).Attributes).toEqual({ a: { M: { b: S('yo') } } });
    expect((await update('nested', 'SET a.c[1] = :v', { ':v': N(4) }, 'UPDATED_NEW')).Attributes).toEqual({ a: { M: { c: list(4) } } });
    expect((await update('nested', 'SET a.c[1] = :v, a.b = :w', { ':v': N(3), ':w': S('dog') }, 'UPDATED_NEW')).Attributes).toEqual({
      a: { M: { b: S('dog'), c: list(3) } },
    });
  });

  it('removals: a place that did not exist is not returned', async () => {
    await put('nested', { a: { M: { c: list(1, 3, 3) } } });
    expect((await update('nested', 'REMOVE a.c[1], a.c[3]', undefined, 'UPDATED_OLD')).Attributes).toEqual({ a: { M: { c: list(3) } } });
    expect((await read('nested'))?.a).toEqual({ M: { c: list(1, 3) } });
  });

  it('a new member: nothing old, the new value new', async () => {
    await put('nested', { a: { M: {} } });
    expect('Attributes' in (await update('nested', 'SET a.x1 = :v', { ':v': N(8) }, 'UPDATED_OLD'))).toBe(false);
    expect((await update('nested', 'SET a.x2 = :v', { ':v': N(8) }, 'UPDATED_NEW')).Attributes).toEqual({ a: { M: { x2: N(8) } } });
  });
});

describe('a failed condition on UpdateItem', () => {
  it.each([
    ['a < :v', { ':v': N(1) }],
    ['a <= :v', { ':v': N(1) }],
    ['a > :v', { ':v': N(5) }],
    ['a >= :v', { ':v': N(5) }],
    ['a BETWEEN :v AND :w', { ':v': N(3), ':w': N(4) }],
    ['contains(s, :v)', { ':v': S('z') }],
    ['begins_with(s, :v)', { ':v': S('z') }],
    ['NOT attribute_exists(a)', undefined],
    ['attribute_type(a, :v)', { ':v': S('S') }],
    ['size(s) > :v', { ':v': N(10) }],
  ])('%s answers ConditionalCheckFailedException without the item', async (condition, values) => {
    await put('cond', { a: N(2), s: S('abc') });
    const err = await rejectionOf(
      target.client.send(
        new UpdateItemCommand({
          TableName: table,
          Key: key('u', 'cond'),
          UpdateExpression: 'SET b = :b',
          ConditionExpression: condition,
          ExpressionAttributeValues: { ':b': N(1), ...values },
          ReturnValues: 'ALL_NEW',
        }),
      ),
    );
    expect(err.name).toBe('ConditionalCheckFailedException');
    expect(err.Item).toBeUndefined();
    expect((await read('cond'))?.b).toBeUndefined();
  });
});

describe('contains', () => {
  it('contains(list, value) compares whole elements; a set operand is an element, not a subset', async () => {
    await put('contains', { l: { L: [S('a'), { SS: ['x', 'y'] }] }, ss: { SS: ['a', 'b'] } });
    const holds = async (condition: string, values: Record<string, AttributeValue>) => {
      try {
        await target.client.send(
          new UpdateItemCommand({
            TableName: table,
            Key: key('u', 'contains'),
            UpdateExpression: 'SET n = :n',
            ConditionExpression: condition,
            ExpressionAttributeValues: { ':n': N(1), ...values },
          }),
        );
        return true;
      } catch (err) {
        if ((err as Error).name === 'ConditionalCheckFailedException') return false;
        throw err;
      }
    };
    expect(await holds('contains(l, :v)', { ':v': S('a') })).toBe(true);
    expect(await holds('contains(l, :v)', { ':v': { SS: ['x', 'y'] } })).toBe(true);
    expect(await holds('contains(l, :v)', { ':v': { SS: ['x'] } })).toBe(false);
    expect(await holds('contains(l, :v)', { ':v': S('x') })).toBe(false);
    expect(await holds('contains(ss, :v)', { ':v': S('a') })).toBe(true);
  });
});
