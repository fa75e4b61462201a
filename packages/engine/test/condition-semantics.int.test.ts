/**
 * Condition and write semantics as Amazon DynamoDB has them, where dynalite differed (see
 * packages/engine/src/condition-semantics.ts): equal lists and maps compare equal, a comparison with a
 * missing operand is false, an update that only removes attributes does not create a missing item,
 * and an empty string is not a valid secondary index key value. A Query's or Scan's FilterExpression
 * is a condition on each item read ("Filter expressions", the same syntax and comparisons as condition
 * expressions), so it compares the same way. Runs against any endpoint.
 */
import {
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  ScanCommand,
  TransactWriteItemsCommand,
  UpdateItemCommand,
  type AttributeValue,
} from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { N, S, key, list, rejectionOf, setUpTarget, type TestTarget } from './support';

let target: TestTarget;
let table: string;

beforeAll(async () => {
  target = await setUpTarget('cond');
  table = target.tableName;
});

afterAll(async () => {
  await target?.tearDown();
});

async function get(pk: string, sk: string): Promise<Record<string, AttributeValue> | undefined> {
  const { Item } = await target.client.send(new GetItemCommand({ TableName: table, Key: key(pk, sk), ConsistentRead: true }));
  return Item;
}

async function put(item: Record<string, AttributeValue>): Promise<void> {
  await target.client.send(new PutItemCommand({ TableName: table, Item: item }));
}

/** Overwrites the item when `condition` holds; answers whether it held. */
async function putIf(pk: string, condition: string, values?: Record<string, AttributeValue>): Promise<boolean> {
  try {
    await target.client.send(
      new PutItemCommand({
        TableName: table,
        Item: { ...key(pk, '1'), written: S('yes') },
        ConditionExpression: condition,
        ...(values ? { ExpressionAttributeValues: values } : {}),
      }),
    );
    return true;
  } catch (err) {
    if ((err as Error).name === 'ConditionalCheckFailedException') return false;
    throw err;
  }
}

describe('conditions compare lists and maps by value', () => {
  it('an equal list compares equal, a reordered one does not (PutItem)', async () => {
    await put({ ...key('list-eq', '1'), tags: list('a', 'b') });
    expect(await putIf('list-eq', 'tags = :same', { ':same': list('a', 'b') })).toBe(true);
    await put({ ...key('list-eq', '1'), tags: list('a', 'b') });
    expect(await putIf('list-eq', 'tags = :other', { ':other': list('b', 'a') })).toBe(false);
    expect(await putIf('list-eq', 'tags <> :other', { ':other': list('b', 'a') })).toBe(true);
  });

  it('an equal map compares equal (PutItem)', async () => {
    const address = { M: { city: S('Oslo'), lines: list('x', 'y'), zip: N(150) } };
    await put({ ...key('map-eq', '1'), address });
    expect(await putIf('map-eq', 'address = :same', { ':same': address })).toBe(true);
  });

  it('an equal list satisfies a transaction ConditionCheck', async () => {
    await put({ ...key('list-tx', '1'), tags: list('a', 'b') });
    await target.client.send(
      new TransactWriteItemsCommand({
        TransactItems: [
          {
            ConditionCheck: {
              TableName: table,
              Key: key('list-tx', '1'),
              ConditionExpression: 'tags = :same AND tags IN (:other, :same)',
              ExpressionAttributeValues: { ':same': list('a', 'b'), ':other': list('c') },
            },
          },
          { Put: { TableName: table, Item: { ...key('list-tx', '2'), ok: S('yes') } } },
        ],
      }),
    );
    expect((await get('list-tx', '2'))?.ok).toEqual(S('yes'));
  });
});

describe('a comparison with a missing operand is false', () => {
  it('two missing attributes are not equal', async () => {
    await put({ ...key('missing', '1'), present: S('x') });
    expect(await putIf('missing', 'nope1 = nope2')).toBe(false);
  });

  it('a missing attribute is not equal to, less or greater than a value, and is not between or in', async () => {
    await put({ ...key('missing-v', '1'), present: S('x') });
    for (const condition of ['nope = :v', 'nope < :v', 'nope >= :v', 'nope BETWEEN :v AND :w', 'nope IN (:v, :w)']) {
      const values: Record<string, AttributeValue> = condition.includes(':w') ? { ':v': N(1), ':w': N(5) } : { ':v': N(1) };
      expect(await putIf('missing-v', condition, values), condition).toBe(false);
    }
  });

  it('a missing attribute is different from a value', async () => {
    await put({ ...key('missing-ne', '1'), present: S('x') });
    expect(await putIf('missing-ne', 'nope <> :v', { ':v': N(1) })).toBe(true);
  });

  it('in a transaction too: the condition fails and the transaction is cancelled', async () => {
    await put({ ...key('missing-tx', '1'), present: S('x') });
    const err = await rejectionOf(
      target.client.send(
        new TransactWriteItemsCommand({
          TransactItems: [
            { ConditionCheck: { TableName: table, Key: key('missing-tx', '1'), ConditionExpression: 'nope1 = nope2' } },
            { Put: { TableName: table, Item: { ...key('missing-tx', '2') } } },
          ],
        }),
      ),
    );
    expect(err.name).toBe('TransactionCanceledException');
    expect(err.CancellationReasons.map((r: { Code: string }) => r.Code)).toEqual(['ConditionalCheckFailed', 'None']);
    expect(await get('missing-tx', '2')).toBeUndefined();
  });
});

describe("a Query's and a Scan's FilterExpression compare as conditions do", () => {
  const pk = 'filter-semantics';
  beforeAll(async () => {
    await put({ ...key(pk, '1'), tags: list('a', 'b'), doc: { M: { k: S('v') } }, n: N(5) });
    await put({ ...key(pk, '2'), tags: list('b', 'a'), bag: { L: [{ M: { k: S('v') } }, S('x')] } });
    await put({ ...key(pk, '3') });
  });
  async function filtered(filter: string, values?: Record<string, AttributeValue>): Promise<string[]> {
    const names = { '#pk': 'PK' };
    const { Items } = await target.client.send(
      new QueryCommand({
        TableName: table,
        KeyConditionExpression: '#pk = :pk',
        FilterExpression: filter,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: { ':pk': S(pk), ...values },
        ConsistentRead: true,
      }),
    );
    return (Items ?? []).map((item) => item.SK!.S!).sort();
  }

  it('an equal list or map matches by value, a reordered list does not', async () => {
    expect(await filtered('tags = :t', { ':t': list('a', 'b') })).toEqual(['1']);
    expect(await filtered('doc = :d', { ':d': { M: { k: S('v') } } })).toEqual(['1']);
    expect(await filtered('tags <> :t', { ':t': list('a', 'b') })).toEqual(['2', '3']);
  });

  it('a comparison with a missing attribute is false, and <> is true', async () => {
    expect(await filtered('n < :v', { ':v': N(9) })).toEqual(['1']);
    expect(await filtered('n >= :v', { ':v': N(0) })).toEqual(['1']);
    expect(await filtered('n <> :v', { ':v': N(5) })).toEqual(['2', '3']);
    expect(await filtered('nothing = alsoNothing')).toEqual([]);
  });

  it('contains(list, map) finds an equal element', async () => {
    expect(await filtered('contains(bag, :m)', { ':m': { M: { k: S('v') } } })).toEqual(['2']);
  });

  it('a Scan filters the same way', async () => {
    const { Items } = await target.client.send(
      new ScanCommand({
        TableName: table,
        FilterExpression: '#pk = :pk AND tags = :t',
        ExpressionAttributeNames: { '#pk': 'PK' },
        ExpressionAttributeValues: { ':pk': S(pk), ':t': list('a', 'b') },
        ConsistentRead: true,
      }),
    );
    expect((Items ?? []).map((item) => item.SK!.S)).toEqual(['1']);
  });
});

describe('an update that only removes attributes or set elements does not create a missing item', () => {
  it('UpdateItem REMOVE on a missing item leaves no item', async () => {
    const answer = await target.client.send(
      new UpdateItemCommand({ TableName: table, Key: key('remove-only', '1'), UpdateExpression: 'REMOVE a, b', ReturnValues: 'ALL_NEW' }),
    );
    expect(answer.Attributes).toBeUndefined();
    expect(await get('remove-only', '1')).toBeUndefined();
  });

  it('UpdateItem DELETE of set elements on a missing item leaves no item, and so does AttributeUpdates DELETE with a value', async () => {
    await target.client.send(
      new UpdateItemCommand({
        TableName: table,
        Key: key('delete-only', '1'),
        UpdateExpression: 'DELETE tags :gone',
        ExpressionAttributeValues: { ':gone': { SS: ['a'] } },
      }),
    );
    expect(await get('delete-only', '1')).toBeUndefined();
    await target.client.send(
      new UpdateItemCommand({
        TableName: table,
        Key: key('delete-only', '2'),
        AttributeUpdates: { tags: { Action: 'DELETE', Value: { SS: ['a'] } } },
      }),
    );
    expect(await get('delete-only', '2')).toBeUndefined();
    // On an existing item the element goes and the item stays.
    await put({ ...key('delete-only', '3'), tags: { SS: ['a', 'b'] } });
    await target.client.send(
      new UpdateItemCommand({
        TableName: table,
        Key: key('delete-only', '3'),
        UpdateExpression: 'DELETE tags :gone',
        ExpressionAttributeValues: { ':gone': { SS: ['a'] } },
      }),
    );
    expect(await get('delete-only', '3')).toEqual({ ...key('delete-only', '3'), tags: { SS: ['b'] } });
  });

  it('a REMOVE-only Update in a transaction leaves no item', async () => {
    await target.client.send(
      new TransactWriteItemsCommand({
        TransactItems: [
          { Update: { TableName: table, Key: key('remove-only-tx', '1'), UpdateExpression: 'REMOVE a' } },
          { Put: { TableName: table, Item: { ...key('remove-only-tx', '2') } } },
        ],
      }),
    );
    expect(await get('remove-only-tx', '1')).toBeUndefined();
    expect(await get('remove-only-tx', '2')).toEqual(key('remove-only-tx', '2'));
  });

  it('its condition is still checked against the missing item', async () => {
    const err = await rejectionOf(
      target.client.send(
        new UpdateItemCommand({
          TableName: table,
          Key: key('remove-only-cond', '1'),
          UpdateExpression: 'REMOVE a',
          ConditionExpression: 'attribute_exists(PK)',
        }),
      ),
    );
    expect(err.name).toBe('ConditionalCheckFailedException');
  });

  it('REMOVE on an existing item removes the attribute and keeps the item', async () => {
    await put({ ...key('remove-existing', '1'), a: S('x'), b: S('y') });
    await target.client.send(new UpdateItemCommand({ TableName: table, Key: key('remove-existing', '1'), UpdateExpression: 'REMOVE a' }));
    expect(await get('remove-existing', '1')).toEqual({ ...key('remove-existing', '1'), b: S('y') });
  });

  it('an update that sets something still creates the item', async () => {
    await target.client.send(
      new UpdateItemCommand({
        TableName: table,
        Key: key('set-remove', '1'),
        UpdateExpression: 'SET v = :v REMOVE a',
        ExpressionAttributeValues: { ':v': N(1) },
      }),
    );
    expect(await get('set-remove', '1')).toEqual({ ...key('set-remove', '1'), v: N(1) });
  });
});

describe('an empty string is not a secondary index key value', () => {
  it('PutItem with an empty GSI key attribute is a ValidationException', async () => {
    const err = await rejectionOf(put({ ...key('empty-gsi', '1'), GSI1PK: S(''), GSI1SK: S('x') }));
    expect(err.name).toBe('ValidationException');
    expect(err.message).toMatch(/empty string/);
    expect(await get('empty-gsi', '1')).toBeUndefined();
  });

  it('UpdateItem setting a GSI key attribute to an empty string is a ValidationException', async () => {
    await put({ ...key('empty-gsi', '2'), GSI1PK: S('g'), GSI1SK: S('x') });
    const err = await rejectionOf(
      target.client.send(
        new UpdateItemCommand({
          TableName: table,
          Key: key('empty-gsi', '2'),
          UpdateExpression: 'SET GSI1PK = :empty',
          ExpressionAttributeValues: { ':empty': S('') },
        }),
      ),
    );
    expect(err.name).toBe('ValidationException');
    expect((await get('empty-gsi', '2'))?.GSI1PK).toEqual(S('g'));
  });

  it('an empty string in a non-key attribute is fine', async () => {
    await put({ ...key('empty-gsi', '3'), note: S('') });
    expect((await get('empty-gsi', '3'))?.note).toEqual(S(''));
  });
});
