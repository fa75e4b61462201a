/**
 * The I/O seam without an engine: the paging loop's request budget, BatchWriteItem with
 * `UnprocessedItems` and the write guard, the UpdateExpression builder, and AWS error recognition.
 */
import { describe, expect, it } from 'vitest';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { Table, type Item, type WriteGuard } from '../../src/dynamo/table';
import { queryAll, type QueryInput } from '../../src/dynamo/paging';
import { assignments, setFields, updateExpression } from '../../src/dynamo/update-expression';
import {
  cancellationReasons,
  failedCondition,
  isConditionalCheckFailed,
  isResourceInUse,
  isResourceNotFound,
  isThrottling,
  isTransactionConflict,
} from '../../src/dynamo/errors';

function awsError(name: string, extra: Record<string, unknown> = {}): Error {
  return Object.assign(new Error(name), { name, ...extra });
}

/** `n` items in one partition, answered `pageSize` at most a page (as if DynamoDB cut pages at 1 MB). */
function pagedTable(n: number, pageSize: number) {
  const sent: QueryInput[] = [];
  const items = Array.from({ length: n }, (_, i) => ({ PK: 'P', SK: String(i).padStart(4, '0') }));
  return {
    sent,
    async query(input: QueryInput) {
      sent.push(input);
      const from = input.ExclusiveStartKey ? items.findIndex((item) => item.SK === input.ExclusiveStartKey!.SK) + 1 : 0;
      const page = items.slice(from, from + Math.min(pageSize, input.Limit ?? Infinity));
      const more = from + page.length < items.length;
      return { Items: page, Count: page.length, LastEvaluatedKey: more ? page.at(-1) : undefined, $metadata: {} };
    },
  };
}

describe('queryAll', () => {
  it('follows LastEvaluatedKey, asking each page for what is left of the limit, and stops at it', async () => {
    const table = pagedTable(50, 7);
    const result = await queryAll(table, { KeyConditionExpression: 'PK = :pk' }, { limit: 20 });
    expect(result.items).toHaveLength(20);
    expect(result.complete).toBe(false);
    expect(result.next).toEqual({ PK: 'P', SK: '0019' });
    expect(table.sent.map((input) => input.Limit)).toEqual([20, 13, 6]);
  });

  it('reads the range to its end without a limit, and says it is complete', async () => {
    const table = pagedTable(15, 7);
    const result = await queryAll(table, { KeyConditionExpression: 'PK = :pk' });
    expect(result).toMatchObject({ complete: true, next: undefined });
    expect(result.items).toHaveLength(15);
    expect(table.sent).toHaveLength(3);
    expect(table.sent.every((input) => input.Limit === undefined)).toBe(true);
  });

  it('starts from the input ExclusiveStartKey', async () => {
    const table = pagedTable(10, 100);
    const result = await queryAll(table, { KeyConditionExpression: 'PK = :pk', ExclusiveStartKey: { PK: 'P', SK: '0007' } }, { limit: 5 });
    expect(result.items.map((item) => item.SK)).toEqual(['0008', '0009']);
    expect(result.complete).toBe(true);
    expect(table.sent).toHaveLength(1);
  });
});

/** A document client that answers BatchWriteItem, leaving the tail of every first call unprocessed. */
function batchClient() {
  const calls: Array<Array<Record<string, any>>> = [];
  let n = 0;
  const client = {
    async send(command: { input: { RequestItems: Record<string, Array<Record<string, any>>> } }) {
      const requests = command.input.RequestItems.app!;
      calls.push(requests);
      const unprocessed = n++ % 2 === 0 && requests.length > 5 ? requests.slice(5) : [];
      return {
        UnprocessedItems: unprocessed.length ? { app: unprocessed } : {},
        ConsumedCapacity: [{ CapacityUnits: requests.length - unprocessed.length }],
      };
    },
  };
  return { client: client as unknown as DynamoDBDocumentClient, calls };
}

const refuseBad: WriteGuard = {
  item: (item) => {
    if (item.bad) throw new Error(`refusing ${String(item.SK)}`);
  },
  update: () => undefined,
};

describe('Table.batchWrite', () => {
  const items = (n: number): Item[] => Array.from({ length: n }, (_, i) => ({ PK: 'P', SK: `S${i}` }));

  it('writes puts and deletes 25 a call, re-sending what was left unprocessed, and counts it', async () => {
    const { client, calls } = batchClient();
    const table = new Table('app', client);
    const totals = await table.batchWrite([...items(30).map((put) => ({ put })), { delete: { PK: 'P', SK: 'OLD' } }], {
      concurrency: 1,
      backoffMs: () => 0,
    });
    expect(totals).toMatchObject({ items: 31, retries: 2, unprocessed: 20 + 1, capacity: 31 });
    expect(calls.map((c) => c.length)).toEqual([25, 20, 6, 1]);
    expect(calls[2]!.at(-1)).toEqual({ DeleteRequest: { Key: { PK: 'P', SK: 'OLD' } } });
    expect(table.meter.summary().byOperation).toEqual({ BatchWriteItem: 4 });
    expect(table.meter.retained).toBe(0);
  });

  it('passes every put through the guard before it is sent; an unguarded table opts out', async () => {
    const bad = [...items(3), { PK: 'P', SK: 'X', bad: true }];
    const guardedSend = batchClient();
    await expect(new Table('app', guardedSend.client, { guard: refuseBad }).putAll(bad, { concurrency: 1 })).rejects.toThrow('refusing X');
    expect(guardedSend.calls).toHaveLength(0);
    const open = batchClient();
    await expect(
      new Table('app', open.client, { guard: refuseBad }).withGuard(undefined).putAll(bad, { concurrency: 1 }),
    ).resolves.toMatchObject({ items: 4 });
  });

  it('gives up after maxRounds when a call never gets through', async () => {
    const client = {
      send: async (command: any) => ({ UnprocessedItems: command.input.RequestItems }),
    } as unknown as DynamoDBDocumentClient;
    await expect(new Table('app', client).putAll(items(3), { maxRounds: 3, backoffMs: () => 0 })).rejects.toThrow(
      /3 items unprocessed after 3 rounds/,
    );
  });

  it('reports a call that failed outright with how far it got, the SDK error as its cause', async () => {
    const throttled = awsError('ProvisionedThroughputExceededException');
    let calls = 0;
    const client = {
      send: async () => {
        if (calls++ > 0) throw throttled;
        return {};
      },
    } as unknown as DynamoDBDocumentClient;
    const failure = await new Table('app', client).putAll(items(40), { concurrency: 1 }).catch((error: Error) => error);
    expect((failure as Error).message).toMatch(/^BatchWriteItem failed after 25 items written: ProvisionedThroughputExceededException/);
    expect((failure as Error).cause).toBe(throttled);
    expect(isThrottling((failure as Error).cause)).toBe(true);
  });

  it('guards PutItem, UpdateItem and the puts and updates of a transaction', async () => {
    const seen: string[] = [];
    const guard: WriteGuard = {
      item: (item) => void seen.push(`item ${String(item.SK)}`),
      update: (u) => void seen.push(`update ${String(u.Key?.SK)}`),
    };
    const client = { send: async () => ({}) } as unknown as DynamoDBDocumentClient;
    const table = new Table('app', client, { guard });
    await table.put({ Item: { PK: 'P', SK: 'a' } });
    await table.update({ Key: { PK: 'P', SK: 'b' }, UpdateExpression: 'SET x = :x' });
    await table.transactWrite([
      { Put: { Item: { PK: 'P', SK: 'c' } } },
      { Update: { Key: { PK: 'P', SK: 'd' }, UpdateExpression: 'SET x = :x' } },
      { Delete: { Key: { PK: 'P', SK: 'e' } } },
    ]);
    expect(seen).toEqual(['item a', 'update b', 'item c', 'update d']);
    // A metered handle keeps the guard.
    expect(table.withMeter(table.meter).guard).toBe(guard);
  });
});

describe('UpdateExpression builder', () => {
  it('puts every name behind a placeholder, skipping undefined values', () => {
    expect(setFields({ name: 'Ana', email: undefined, type: 'CUSTOMER' })).toEqual({
      expression: 'SET #name = :name, #type = :type',
      names: { '#name': 'name', '#type': 'type' },
      values: { ':name': 'Ana', ':type': 'CUSTOMER' },
    });
    expect(setFields({ 'odd-name': 1, other: 2 }, { indexed: 'm' })).toEqual({
      expression: 'SET #m0 = :m0, #m1 = :m1',
      names: { '#m0': 'odd-name', '#m1': 'other' },
      values: { ':m0': 1, ':m1': 2 },
    });
  });

  it('joins SET and REMOVE clauses, with hand-written assignments', () => {
    const set = assignments({ pages: 3 });
    expect(updateExpression({ set: [...set.list, '#runs = #runs + :one'], remove: ['#next'] })).toBe(
      'SET #pages = :pages, #runs = #runs + :one REMOVE #next',
    );
    expect(updateExpression({ set: set.list, remove: [] })).toBe('SET #pages = :pages');
    expect(() => updateExpression({})).toThrow();
  });
});

describe('AWS errors', () => {
  it('recognises each by name, nothing else', () => {
    expect(isConditionalCheckFailed(awsError('ConditionalCheckFailedException'))).toBe(true);
    expect(isConditionalCheckFailed(awsError('ValidationException'))).toBe(false);
    expect(isConditionalCheckFailed('ConditionalCheckFailedException')).toBe(false);
    expect(isResourceNotFound(awsError('ResourceNotFoundException'))).toBe(true);
    expect(isResourceInUse(awsError('ResourceInUseException'))).toBe(true);
    expect(isThrottling(awsError('ProvisionedThroughputExceededException'))).toBe(true);
    expect(isThrottling(awsError('ThrottlingException'))).toBe(true);
    expect(isThrottling(awsError('ValidationException'))).toBe(false);
  });

  it('reads a cancelled transaction: one reason per action, ALL_OLD items unmarshalled', () => {
    const error = awsError('TransactionCanceledException', {
      CancellationReasons: [
        { Code: 'None' },
        { Code: 'ConditionalCheckFailed', Item: marshall({ PK: 'P', SK: 'S', n: 2 }) },
        { Code: 'TransactionConflict' },
      ],
    });
    const reasons = cancellationReasons(error)!;
    expect(reasons[1]).toEqual({ Code: 'ConditionalCheckFailed', Item: { PK: 'P', SK: 'S', n: 2 } });
    expect(failedCondition(reasons[1])).toBe(true);
    expect(failedCondition(reasons[0])).toBe(false);
    expect(isTransactionConflict(reasons)).toBe(true);
    expect(cancellationReasons(awsError('ConditionalCheckFailedException'))).toBeUndefined();
  });
});
