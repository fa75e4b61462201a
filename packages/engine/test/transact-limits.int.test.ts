/**
 * TransactWriteItems limits and per-action validation, as Amazon DynamoDB answers them:
 * - "The aggregate size of the items in the transaction cannot exceed 4 MB" (API reference): the
 *   limit is on the request's payload (its items, keys and values), not on the stored items it
 *   touches; over it, a ValidationException for the whole request, nothing written. (ScyllaDB's
 *   Alternator suite, run against Amazon: test_transact_write_items_put_5MB, _delete_5MB.)
 * - A key that does not match the schema (wrong type) is caught while the transaction runs: a
 *   TransactionCanceledException with a ValidationError reason at that action and None at the
 *   others; Put reports PutItem's "Type mismatch for key", Update/Delete/ConditionCheck "The
 *   provided key element does not match the schema". An empty-string key value is refused up front:
 *   a whole-request ValidationException. (Captured against Amazon by the dynamodb-conformance
 *   project, paritysuite/dynamodb-conformance#46 and #60.) Amazon stops at the first invalid
 *   action: a second one reports None (Alternator's test_transact_write_cancellation_reasons_validationerror).
 */
import { GetItemCommand, TransactWriteItemsCommand, type AttributeValue, type TransactWriteItem } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { N, S, key, rejectionOf, setUpTarget, type TestTarget } from './support';

let target: TestTarget;
let table: string;

beforeAll(async () => {
  target = await setUpTarget('txlimits');
  table = target.tableName;
});

afterAll(async () => {
  await target?.tearDown();
});

async function get(pk: string, sk: string): Promise<Record<string, AttributeValue> | undefined> {
  const { Item } = await target.client.send(new GetItemCommand({ TableName: table, Key: key(pk, sk), ConsistentRead: true }));
  return Item;
}

function transact(items: TransactWriteItem[]) {
  return target.client.send(new TransactWriteItemsCommand({ TransactItems: items }));
}

function reasonsOf(err: Record<string, unknown>): { Code: string; Message?: string }[] {
  return err.CancellationReasons as { Code: string; Message?: string }[];
}

describe('TransactWriteItems: 4 MB per transaction', () => {
  const bigPut = (pk: string, i: number): TransactWriteItem => ({
    Put: { TableName: table, Item: { ...key(pk, String(i)), v: S('x'.repeat(390_000)) } },
  });

  it('accepts items totalling just under 4 MB', async () => {
    // 10 × ~390 KB = ~3.9 MB (4 MB = 4,194,304 bytes).
    await transact(Array.from({ length: 10 }, (_, i) => bigPut('under4mb', i)));
    expect(await get('under4mb', '9')).toBeDefined();
  });

  it('refuses items totalling more than 4 MB, writing nothing', async () => {
    // 11 × ~390 KB = ~4.3 MB.
    const err = await rejectionOf(transact(Array.from({ length: 11 }, (_, i) => bigPut('over4mb', i))));
    expect(err.name).toBe('ValidationException');
    expect(err.message).toMatch(/^Transaction payload size cannot exceed 4MB\. Payload Size: : .* Payload Size: 429\d{4}$/);
    expect(await get('over4mb', '0')).toBeUndefined();
  });

  it('counts what the request carries: deleting 4.3 MB of stored items in one small transaction goes through', async () => {
    await transact(Array.from({ length: 10 }, (_, i) => bigPut('delete4mb', i)));
    await transact([bigPut('delete4mb', 10)]);
    await transact(Array.from({ length: 11 }, (_, i) => ({ Delete: { TableName: table, Key: key('delete4mb', String(i)) } })));
    expect(await get('delete4mb', '0')).toBeUndefined();
    expect(await get('delete4mb', '10')).toBeUndefined();
  });

  it("counts an Update's values: eleven updates of ~390 KB each are refused, nothing written", async () => {
    const err = await rejectionOf(
      transact(
        Array.from({ length: 11 }, (_, i) => ({
          Update: {
            TableName: table,
            Key: key('update4mb', String(i)),
            UpdateExpression: 'SET v = :v',
            ExpressionAttributeValues: { ':v': S('x'.repeat(390_000)) },
          },
        })),
      ),
    );
    expect(err.name).toBe('ValidationException');
    expect(err.message).toMatch(/^Transaction payload size cannot exceed 4MB/);
    expect(await get('update4mb', '0')).toBeUndefined();
  });
});

describe('TransactWriteItems: a key that does not match the schema', () => {
  it('cancels a Put with a key of the wrong type: ValidationError at that action, None elsewhere', async () => {
    const err = await rejectionOf(
      transact([
        { Put: { TableName: table, Item: key('wrongtype', 'ok') } },
        { Put: { TableName: table, Item: { PK: N(1), SK: S('bad') } } },
      ]),
    );
    expect(err.name).toBe('TransactionCanceledException');
    expect(err.message).toBe('Transaction cancelled, please refer cancellation reasons for specific reasons [None, ValidationError]');
    const reasons = reasonsOf(err);
    expect(reasons.map((r) => r.Code)).toEqual(['None', 'ValidationError']);
    expect(reasons[1]?.Message).toMatch(/Type mismatch for key/);
    expect(await get('wrongtype', 'ok')).toBeUndefined();
  });

  it('cancels an Update, Delete or ConditionCheck whose Key has the wrong type', async () => {
    const badKey = { PK: S('wrongtype'), SK: N(2) };
    for (const action of [
      { Update: { TableName: table, Key: badKey, UpdateExpression: 'SET v = :v', ExpressionAttributeValues: { ':v': S('x') } } },
      { Delete: { TableName: table, Key: badKey } },
      { ConditionCheck: { TableName: table, Key: badKey, ConditionExpression: 'attribute_exists(PK)' } },
    ] satisfies TransactWriteItem[]) {
      const err = await rejectionOf(transact([{ Put: { TableName: table, Item: key('wrongtype', 'other') } }, action]));
      expect(err.name).toBe('TransactionCanceledException');
      const reasons = reasonsOf(err);
      expect(reasons.map((r) => r.Code)).toEqual(['None', 'ValidationError']);
      expect(reasons[1]?.Message).toMatch(/The provided key element does not match the schema/);
    }
    expect(await get('wrongtype', 'other')).toBeUndefined();
  });

  it('cancels a Put whose index key has the wrong type', async () => {
    const err = await rejectionOf(
      transact([
        { Put: { TableName: table, Item: { ...key('wrongindex', '1'), GSI1PK: N(5), GSI1SK: S('x') } } },
        { Put: { TableName: table, Item: key('wrongindex', '2') } },
      ]),
    );
    expect(err.name).toBe('TransactionCanceledException');
    expect(reasonsOf(err).map((r) => r.Code)).toEqual(['ValidationError', 'None']);
    expect(await get('wrongindex', '2')).toBeUndefined();
  });

  it('reports the first invalid action only: a second one, and a false condition, are not reached (None)', async () => {
    const err = await rejectionOf(
      transact([
        { Put: { TableName: table, Item: { PK: N(7), SK: S('a') } } },
        { Put: { TableName: table, Item: { PK: N(8), SK: S('b') } } },
        { Put: { TableName: table, Item: key('firstinvalid', 'c'), ConditionExpression: 'attribute_exists(PK)' } },
      ]),
    );
    expect(err.name).toBe('TransactionCanceledException');
    const reasons = reasonsOf(err);
    expect(reasons.map((r) => r.Code)).toEqual(['ValidationError', 'None', 'None']);
    expect(reasons[0]?.Message).toMatch(/Type mismatch for key/);
    expect(reasons.slice(1).every((r) => r.Message === undefined)).toBe(true);
  });

  it('refuses an empty-string key value up front: a ValidationException for the request', async () => {
    const err = await rejectionOf(
      transact([
        { Put: { TableName: table, Item: key('emptykey', 'ok') } },
        { Put: { TableName: table, Item: { PK: S(''), SK: S('x') } } },
      ]),
    );
    expect(err.name).toBe('ValidationException');
    expect(err.message).toMatch(/cannot contain an empty string value/);
    expect(await get('emptykey', 'ok')).toBeUndefined();
  });
});
