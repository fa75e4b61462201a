import { PutItemCommand, TransactGetItemsCommand, type TransactGetItem } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { N, S, key, rejectionOf, setUpTarget, type TestTarget } from './support';

let target: TestTarget;
let table: string;

beforeAll(async () => {
  target = await setUpTarget('txg');
  table = target.tableName;
  for (const [sk, extra] of [
    ['1', { name: S('one'), size: N(1), nested: { M: { deep: S('d1'), other: S('o1') } } }],
    ['2', { name: S('two'), size: N(2) }],
  ] as const) {
    await target.client.send(new PutItemCommand({ TableName: table, Item: { ...key('get', sk), ...extra } }));
  }
});

afterAll(async () => {
  await target?.tearDown();
});

const getOf = (sk: string, extra: Partial<NonNullable<TransactGetItem['Get']>> = {}): TransactGetItem => ({
  Get: { TableName: table, Key: key('get', sk), ...extra },
});

describe('TransactGetItems', () => {
  it('returns the items in request order, {} for a missing one', async () => {
    const { Responses } = await target.client.send(
      new TransactGetItemsCommand({ TransactItems: [getOf('2'), getOf('missing'), getOf('1')] }),
    );
    expect(Responses).toHaveLength(3);
    expect(Responses?.[0]?.Item?.name).toEqual(S('two'));
    expect(Responses?.[1]?.Item).toBeUndefined();
    expect(Responses?.[2]?.Item?.name).toEqual(S('one'));
  });

  it('applies ProjectionExpression per Get', async () => {
    const { Responses } = await target.client.send(
      new TransactGetItemsCommand({
        TransactItems: [
          getOf('1', { ProjectionExpression: '#n, nested.deep', ExpressionAttributeNames: { '#n': 'name' } }),
          getOf('2', { ProjectionExpression: 'SK' }),
        ],
      }),
    );
    expect(Responses?.[0]?.Item).toEqual({ name: S('one'), nested: { M: { deep: S('d1') } } });
    expect(Responses?.[1]?.Item).toEqual({ SK: S('2') });
  });

  it('reports consumed capacity when asked', async () => {
    const { ConsumedCapacity } = await target.client.send(
      new TransactGetItemsCommand({ TransactItems: [getOf('1'), getOf('2')], ReturnConsumedCapacity: 'TOTAL' }),
    );
    expect(ConsumedCapacity?.[0]?.TableName).toBe(table);
    // Transactional reads cost 2 units per 4 KB and item.
    expect(ConsumedCapacity?.[0]?.CapacityUnits).toBe(4);
  });

  it('refuses more than 100 Gets, none, two Gets of one item, and an unknown table', async () => {
    const tooMany = await rejectionOf(
      target.client.send(new TransactGetItemsCommand({ TransactItems: Array.from({ length: 101 }, (_, i) => getOf(String(i))) })),
    );
    expect(tooMany.name).toBe('ValidationException');
    expect(tooMany.message).toMatch(/less than or equal to 100/);

    const none = await rejectionOf(target.client.send(new TransactGetItemsCommand({ TransactItems: [] })));
    expect(none.name).toBe('ValidationException');

    const duplicate = await rejectionOf(target.client.send(new TransactGetItemsCommand({ TransactItems: [getOf('1'), getOf('1')] })));
    expect(duplicate.name).toBe('ValidationException');

    const noTable = await rejectionOf(
      target.client.send(new TransactGetItemsCommand({ TransactItems: [{ Get: { TableName: `${table}-missing`, Key: key('a', 'b') } }] })),
    );
    expect(noTable.name).toBe('ResourceNotFoundException');
  });
});
