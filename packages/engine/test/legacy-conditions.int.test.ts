/**
 * The legacy condition parameters as Amazon DynamoDB documents them (Expected, ConditionalOperator,
 * QueryFilter; "Legacy conditional parameters" in the DynamoDB Developer Guide), where dynalite
 * differed (packages/engine/src/condition-semantics.ts):
 * - `Value` alone, or with `Exists: true`, holds when the attribute exists AND equals the value:
 *   the version check an optimistic-locking client (DynamoDBMapper) sends;
 * - `ConditionalOperator: OR` holds when any of its conditions holds, AND (the default) when all do.
 * Runs against any endpoint (`DYNAMODB_TEST_ENDPOINT` for Amazon DynamoDB).
 */
import { PutItemCommand, QueryCommand, type AttributeValue, type ExpectedAttributeValue } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { N, S, key, setUpTarget, type TestTarget } from './support';

let target: TestTarget;
let table: string;

beforeAll(async () => {
  target = await setUpTarget('legacy');
  table = target.tableName;
});

afterAll(async () => {
  await target?.tearDown();
});

async function put(item: Record<string, AttributeValue>): Promise<void> {
  await target.client.send(new PutItemCommand({ TableName: table, Item: item }));
}

/** Overwrites item `pk` when the legacy conditions hold; answers whether they held. */
async function putIf(pk: string, Expected: Record<string, ExpectedAttributeValue>, ConditionalOperator?: 'AND' | 'OR'): Promise<boolean> {
  try {
    await target.client.send(
      new PutItemCommand({ TableName: table, Item: { ...key(pk, '1'), version: N(99) }, Expected, ConditionalOperator }),
    );
    return true;
  } catch (err) {
    if ((err as Error).name === 'ConditionalCheckFailedException') return false;
    throw err;
  }
}

describe('Expected: a Value is compared, with or without Exists: true', () => {
  it('the optimistic-locking check fails on another version and passes on the same one', async () => {
    await put({ ...key('lock', '1'), version: N(2) });
    expect(await putIf('lock', { version: { Exists: true, Value: N(1) } })).toBe(false);
    expect(await putIf('lock', { version: { Value: N(1) } })).toBe(false);
    expect(await putIf('lock', { version: { Exists: true, Value: N(2) } })).toBe(true);
  });

  it('a Value on a missing attribute or item fails; Exists: false holds only when it is missing', async () => {
    await put({ ...key('missing', '1') });
    expect(await putIf('missing', { version: { Value: N(1) } })).toBe(false);
    expect(await putIf('no-such-item', { version: { Exists: true, Value: N(1) } })).toBe(false);
    expect(await putIf('missing', { version: { Exists: false } })).toBe(true);
    expect(await putIf('missing', { version: { Exists: false } })).toBe(false); // the write above added it
  });
});

describe('ConditionalOperator', () => {
  const both = (first: AttributeValue, second: AttributeValue): Record<string, ExpectedAttributeValue> => ({
    a: { ComparisonOperator: 'EQ', AttributeValueList: [first] },
    b: { ComparisonOperator: 'EQ', AttributeValueList: [second] },
  });

  it('OR holds when any condition holds, whichever comes first', async () => {
    for (const [first, second, held] of [
      [S('no'), S('b'), true],
      [S('a'), S('no'), true],
      [S('no'), S('no'), false],
    ] as const) {
      await put({ ...key('or', '1'), a: S('a'), b: S('b') });
      expect(await putIf('or', both(first, second), 'OR'), `${first.S} ${second.S}`).toBe(held);
    }
  });

  it('AND (the default) holds only when every condition holds', async () => {
    await put({ ...key('and', '1'), a: S('a'), b: S('b') });
    expect(await putIf('and', both(S('a'), S('no')), 'AND')).toBe(false);
    expect(await putIf('and', both(S('no'), S('b')))).toBe(false);
    expect(await putIf('and', both(S('a'), S('b')))).toBe(true);
  });

  it('a QueryFilter with OR keeps the items any condition matches', async () => {
    await put({ ...key('filter', '1'), colour: S('red') });
    await put({ ...key('filter', '2'), colour: S('blue'), size: N(3) });
    await put({ ...key('filter', '3'), colour: S('green') });
    // A QueryFilter goes with the legacy KeyConditions (mixing it with expressions is refused).
    const { Items } = await target.client.send(
      new QueryCommand({
        TableName: table,
        KeyConditions: { PK: { ComparisonOperator: 'EQ', AttributeValueList: [S('filter')] } },
        QueryFilter: {
          colour: { ComparisonOperator: 'EQ', AttributeValueList: [S('red')] },
          size: { ComparisonOperator: 'GT', AttributeValueList: [N(2)] },
        },
        ConditionalOperator: 'OR',
        ConsistentRead: true,
      }),
    );
    expect(Items?.map((item) => item.SK?.S)).toEqual(['1', '2']);
  });
});

describe('Expected: an operand of a type its ComparisonOperator does not take is refused', () => {
  it.each([
    ['BEGINS_WITH', N(2), 'N'],
    ['CONTAINS', { SS: ['a'] }, 'SS'],
    ['NOT_CONTAINS', { L: [S('a')] }, 'L'],
    ['LE', { NS: ['1'] }, 'NS'],
    ['IN', { SS: ['a'] }, 'SS'],
  ] as const)('%s with %j', async (ComparisonOperator, operand, type) => {
    await put({ ...key('typed', '1'), a: N(2) });
    const err = await target.client
      .send(
        new PutItemCommand({
          TableName: table,
          Item: key('typed', '1'),
          Expected: { a: { ComparisonOperator, AttributeValueList: [operand as AttributeValue] } },
        }),
      )
      .then(
        () => undefined,
        (error: Error) => error,
      );
    expect(err?.name).toBe('ValidationException');
    expect(err?.message).toBe(
      `One or more parameter values were invalid: ComparisonOperator ${ComparisonOperator} is not valid for ${type} AttributeValue type`,
    );
  });
});
