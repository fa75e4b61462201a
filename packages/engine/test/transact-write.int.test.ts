import {
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  TransactWriteItemsCommand,
  type AttributeValue,
  type TransactWriteItem,
} from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { N, S, eventually, key, rejectionOf, setUpTarget, type TestTarget } from './support';

let target: TestTarget;
let table: string;

beforeAll(async () => {
  target = await setUpTarget('txw');
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

function transact(items: TransactWriteItem[], extra: Partial<TransactWriteItemsCommand['input']> = {}) {
  return target.client.send(new TransactWriteItemsCommand({ TransactItems: items, ...extra }));
}

describe('TransactWriteItems: success', () => {
  it('applies Put, Update, Delete and ConditionCheck together', async () => {
    await put({ ...key('ok', 'update'), n: N(1) });
    await put({ ...key('ok', 'delete'), doomed: S('yes') });
    await put({ ...key('ok', 'check'), status: S('open') });

    await transact([
      { Put: { TableName: table, Item: { ...key('ok', 'put'), v: S('new') }, ConditionExpression: 'attribute_not_exists(PK)' } },
      {
        Update: {
          TableName: table,
          Key: key('ok', 'update'),
          UpdateExpression: 'SET n = n + :one',
          ConditionExpression: 'n = :old',
          ExpressionAttributeValues: { ':one': N(1), ':old': N(1) },
        },
      },
      { Delete: { TableName: table, Key: key('ok', 'delete'), ConditionExpression: 'attribute_exists(doomed)' } },
      {
        ConditionCheck: {
          TableName: table,
          Key: key('ok', 'check'),
          ConditionExpression: '#s = :open',
          ExpressionAttributeNames: { '#s': 'status' },
          ExpressionAttributeValues: { ':open': S('open') },
        },
      },
    ]);

    expect(await get('ok', 'put')).toEqual({ ...key('ok', 'put'), v: S('new') });
    expect((await get('ok', 'update'))?.n).toEqual(N(2));
    expect(await get('ok', 'delete')).toBeUndefined();
    expect(await get('ok', 'check')).toEqual({ ...key('ok', 'check'), status: S('open') });
  });

  it('creates an item with Update when it does not exist (like UpdateItem)', async () => {
    await transact([
      {
        Update: { TableName: table, Key: key('upsert', '1'), UpdateExpression: 'SET v = :v', ExpressionAttributeValues: { ':v': S('x') } },
      },
    ]);
    expect(await get('upsert', '1')).toEqual({ ...key('upsert', '1'), v: S('x') });
  });

  it('supports the update expression language exactly like UpdateItem', async () => {
    await put({
      ...key('expr', '1'),
      count: N(5),
      list: { L: [S('a')] },
      tags: { SS: ['x'] },
      colors: { SS: ['red', 'blue'] },
      profile: { M: { name: S('old') } },
      obsolete: S('remove me'),
    });

    await transact([
      {
        Update: {
          TableName: table,
          Key: key('expr', '1'),
          UpdateExpression:
            'SET #c = #c + :one, #l = list_append(#l, :more), #p.#n = :name, created = if_not_exists(created, :now), absent = if_not_exists(absent, :dflt) ' +
            'REMOVE obsolete ADD tags :newTags, visits :one DELETE colors :red',
          ExpressionAttributeNames: { '#c': 'count', '#l': 'list', '#p': 'profile', '#n': 'name' },
          ExpressionAttributeValues: {
            ':one': N(1),
            ':more': { L: [S('b'), S('c')] },
            ':name': S('new'),
            ':now': S('2024-01-01'),
            ':dflt': N(0),
            ':newTags': { SS: ['y'] },
            ':red': { SS: ['red'] },
          },
        },
      },
    ]);

    const item = await get('expr', '1');
    expect(item?.count).toEqual(N(6));
    expect(item?.list).toEqual({ L: [S('a'), S('b'), S('c')] });
    expect(item?.profile).toEqual({ M: { name: S('new') } });
    expect(item?.created).toEqual(S('2024-01-01'));
    expect(item?.absent).toEqual(N(0));
    expect(item?.obsolete).toBeUndefined();
    expect([...(item?.tags?.SS ?? [])].sort()).toEqual(['x', 'y']);
    expect(item?.visits).toEqual(N(1));
    expect(item?.colors).toEqual({ SS: ['blue'] });

    // if_not_exists keeps an existing value.
    await transact([
      {
        Update: {
          TableName: table,
          Key: key('expr', '1'),
          UpdateExpression: 'SET created = if_not_exists(created, :later)',
          ExpressionAttributeValues: { ':later': S('2030') },
        },
      },
    ]);
    expect((await get('expr', '1'))?.created).toEqual(S('2024-01-01'));
  });

  it('maintains GSI1 for Put, Update and Delete', async () => {
    const queryGsi = async (pk: string) => {
      const { Items } = await target.client.send(
        new QueryCommand({
          TableName: table,
          IndexName: 'GSI1',
          KeyConditionExpression: 'GSI1PK = :pk',
          ExpressionAttributeValues: { ':pk': S(pk) },
        }),
      );
      return (Items ?? []).map((item) => `${item.SK?.S}:${item.GSI1SK?.S}`).sort();
    };

    await transact([
      { Put: { TableName: table, Item: { ...key('gsi', 'a'), GSI1PK: S('owner#1'), GSI1SK: S('1') } } },
      { Put: { TableName: table, Item: { ...key('gsi', 'b'), GSI1PK: S('owner#1'), GSI1SK: S('2') } } },
    ]);
    await eventually(async () => expect(await queryGsi('owner#1')).toEqual(['a:1', 'b:2']));

    // Move one item to another partition of the index, re-sort the other, then delete them.
    await transact([
      {
        Update: {
          TableName: table,
          Key: key('gsi', 'a'),
          UpdateExpression: 'SET GSI1PK = :o2',
          ExpressionAttributeValues: { ':o2': S('owner#2') },
        },
      },
      {
        Update: {
          TableName: table,
          Key: key('gsi', 'b'),
          UpdateExpression: 'SET GSI1SK = :s',
          ExpressionAttributeValues: { ':s': S('9') },
        },
      },
    ]);
    await eventually(async () => {
      expect(await queryGsi('owner#1')).toEqual(['b:9']);
      expect(await queryGsi('owner#2')).toEqual(['a:1']);
    });

    await transact([
      { Update: { TableName: table, Key: key('gsi', 'a'), UpdateExpression: 'REMOVE GSI1PK' } },
      { Delete: { TableName: table, Key: key('gsi', 'b') } },
    ]);
    await eventually(async () => {
      expect(await queryGsi('owner#1')).toEqual([]);
      expect(await queryGsi('owner#2')).toEqual([]);
    });
  });

  it('reports consumed capacity per table when asked', async () => {
    const { ConsumedCapacity } = await transact(
      [
        { Put: { TableName: table, Item: { ...key('cap', '1'), GSI1PK: S('cap'), GSI1SK: S('1') } } },
        { Put: { TableName: table, Item: key('cap', '2') } },
      ],
      { ReturnConsumedCapacity: 'TOTAL' },
    );
    expect(ConsumedCapacity).toHaveLength(1);
    expect(ConsumedCapacity?.[0]?.TableName).toBe(table);
    // Transactional writes cost 2 units per KB and item: at least 4 for two items.
    expect(ConsumedCapacity?.[0]?.CapacityUnits).toBeGreaterThanOrEqual(4);
  });

  it('does not apply a transaction twice for one ClientRequestToken', async () => {
    const token = `token-${Date.now()}`;
    const add = (amount: number) =>
      transact(
        [
          {
            Update: {
              TableName: table,
              Key: key('idem', '1'),
              UpdateExpression: 'ADD n :a',
              ExpressionAttributeValues: { ':a': N(amount) },
            },
          },
        ],
        { ClientRequestToken: token },
      );
    await add(1);
    await add(1);
    expect((await get('idem', '1'))?.n).toEqual(N(1));

    const err = await rejectionOf(add(2));
    expect(err.name).toBe('IdempotentParameterMismatchException');
  });
});

describe('TransactWriteItems: cancellation', () => {
  it('cancels everything when one condition fails, with reasons in action order', async () => {
    await put({ ...key('cancel', 'taken'), owner: S('alice') });
    await put({ ...key('cancel', 'counter'), n: N(10) });

    const err = await rejectionOf(
      transact([
        { Put: { TableName: table, Item: { ...key('cancel', 'new'), v: S('1') } } },
        {
          Put: {
            TableName: table,
            Item: { ...key('cancel', 'taken'), owner: S('bob') },
            ConditionExpression: 'attribute_not_exists(PK)',
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          },
        },
        {
          Update: {
            TableName: table,
            Key: key('cancel', 'counter'),
            UpdateExpression: 'SET n = n + :one',
            ExpressionAttributeValues: { ':one': N(1) },
          },
        },
        { ConditionCheck: { TableName: table, Key: key('cancel', 'absent'), ConditionExpression: 'attribute_exists(PK)' } },
      ]),
    );

    expect(err.name).toBe('TransactionCanceledException');
    expect(err.message).toBe(
      'Transaction cancelled, please refer cancellation reasons for specific reasons [None, ConditionalCheckFailed, None, ConditionalCheckFailed]',
    );
    expect(err.$metadata?.httpStatusCode).toBe(400);
    const reasons = err.CancellationReasons as { Code: string; Message?: string; Item?: unknown }[];
    expect(reasons.map((r) => r.Code)).toEqual(['None', 'ConditionalCheckFailed', 'None', 'ConditionalCheckFailed']);
    expect(reasons[1]?.Message).toBe('The conditional request failed');
    // ALL_OLD returns the item the condition was checked against; without it, no item.
    expect(reasons[1]?.Item).toEqual({ ...key('cancel', 'taken'), owner: S('alice') });
    expect(reasons[3]?.Item).toBeUndefined();

    // Nothing was written.
    expect(await get('cancel', 'new')).toBeUndefined();
    expect((await get('cancel', 'taken'))?.owner).toEqual(S('alice'));
    expect((await get('cancel', 'counter'))?.n).toEqual(N(10));
  });

  it('cancels with a ValidationError reason when an update cannot be applied to the stored item', async () => {
    await put({ ...key('badupdate', '1'), label: S('text') });
    const err = await rejectionOf(
      transact([
        { Put: { TableName: table, Item: key('badupdate', 'other') } },
        {
          Update: {
            TableName: table,
            Key: key('badupdate', '1'),
            UpdateExpression: 'SET label = label + :one',
            ExpressionAttributeValues: { ':one': N(1) },
          },
        },
      ]),
    );
    expect(err.name).toBe('TransactionCanceledException');
    const reasons = err.CancellationReasons as { Code: string; Message?: string }[];
    expect(reasons.map((r) => r.Code)).toEqual(['None', 'ValidationError']);
    expect(reasons[1]?.Message).toMatch(/incorrect data type/);
    expect(await get('badupdate', 'other')).toBeUndefined();
  });

  it('enforces the 400 KB item size limit', async () => {
    const big = 'x'.repeat(300 * 1024);
    const putErr = await rejectionOf(transact([{ Put: { TableName: table, Item: { ...key('size', 'put'), a: S(big), b: S(big) } } }]));
    expect(putErr.name).toBe('ValidationException');
    expect(putErr.message).toMatch(/Item size has exceeded the maximum allowed size/);

    await put({ ...key('size', 'grow'), a: S(big) });
    const updateErr = await rejectionOf(
      transact([
        {
          Update: {
            TableName: table,
            Key: key('size', 'grow'),
            UpdateExpression: 'SET b = :b',
            ExpressionAttributeValues: { ':b': S(big) },
          },
        },
      ]),
    );
    expect(updateErr.name).toBe('TransactionCanceledException');
    expect(updateErr.CancellationReasons?.[0]?.Code).toBe('ValidationError');
    expect(updateErr.CancellationReasons?.[0]?.Message).toMatch(/Item size to update has exceeded the maximum allowed size/);
    expect((await get('size', 'grow'))?.b).toBeUndefined();
  });
});

describe('TransactWriteItems: request validation', () => {
  const putItem = (i: number): TransactWriteItem => ({ Put: { TableName: table, Item: key('many', String(i)) } });

  it('accepts 100 actions and refuses 101', async () => {
    await transact(Array.from({ length: 100 }, (_, i) => putItem(i)));
    expect(await get('many', '99')).toBeDefined();

    const err = await rejectionOf(transact(Array.from({ length: 101 }, (_, i) => putItem(1000 + i))));
    expect(err.name).toBe('ValidationException');
    expect(err.message).toMatch(/transactItems.*less than or equal to 100/);
    expect(await get('many', '1000')).toBeUndefined();
  });

  it('refuses an empty transaction', async () => {
    const err = await rejectionOf(transact([]));
    expect(err.name).toBe('ValidationException');
  });

  it('refuses two actions on one item', async () => {
    const err = await rejectionOf(
      transact([
        { Put: { TableName: table, Item: { ...key('dup', '1'), v: S('a') } } },
        { ConditionCheck: { TableName: table, Key: key('dup', '1'), ConditionExpression: 'attribute_not_exists(PK)' } },
      ]),
    );
    expect(err.name).toBe('ValidationException');
    expect(err.message).toBe('Transaction request cannot include multiple operations on one item');
    expect(await get('dup', '1')).toBeUndefined();
  });

  it('refuses a key that does not match the schema, and an unknown table', async () => {
    // Caught while the transaction runs (transact-limits.int.test.ts): the action's ValidationError.
    const badKey = await rejectionOf(transact([{ Delete: { TableName: table, Key: { PK: S('only-hash') } } }]));
    expect(badKey.name).toBe('TransactionCanceledException');
    expect(badKey.CancellationReasons?.[0]?.Message).toMatch(/The provided key element does not match the schema/);

    const noTable = await rejectionOf(transact([{ Put: { TableName: `${table}-missing`, Item: key('x', 'y') } }]));
    expect(noTable.name).toBe('ResourceNotFoundException');
  });
});

describe('single-item writes', () => {
  it('return the item with ReturnValuesOnConditionCheckFailure=ALL_OLD', async () => {
    await put({ ...key('single', '1'), owner: S('alice') });
    const err = await rejectionOf(
      target.client.send(
        new PutItemCommand({
          TableName: table,
          Item: { ...key('single', '1'), owner: S('bob') },
          ConditionExpression: 'attribute_not_exists(PK)',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      ),
    );
    expect(err.name).toBe('ConditionalCheckFailedException');
    expect(err.Item).toEqual({ ...key('single', '1'), owner: S('alice') });

    const without = await rejectionOf(
      target.client.send(
        new PutItemCommand({ TableName: table, Item: key('single', '1'), ConditionExpression: 'attribute_not_exists(PK)' }),
      ),
    );
    expect(without.name).toBe('ConditionalCheckFailedException');
    expect(without.Item).toBeUndefined();
  });
});
