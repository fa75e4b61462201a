/**
 * One customer's concurrent orders (the pattern card's first gotcha: traffic concentrated on one
 * key). An order is the aggregate of its own events and placeOrder's transaction writes only new
 * items (src/model/place-order.ts), so one customer's orders share no item and never conflict on
 * the faithful engine, which cancels overlapping transactions by DynamoDB's rules. Where conflicts
 * do happen (forced ones, `conflictChance`: a busy table on Amazon), retries are bounded by time and
 * a caller whose retries run out gets the retryable UNAVAILABLE with Retry-After, never an internal
 * error, and nothing partial is written.
 */
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from './support/stack';
import { lines, loadCatalog, PLACE, writeHelpers } from './support/write-path';
import { bearer, tokens } from './support/auth';
import { customerToItem, newId, nowIso } from '../src/model';

const BUYERS = 16;
const ROUNDS = 5;

describe('one customer, many buyers at once, on the faithful engine', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
    await loadCatalog(stack);
  });
  afterAll(async () => {
    await stack?.close();
  });
  const { createCustomer } = writeHelpers(() => stack);

  it(`${BUYERS} concurrent placeOrders of one customer (distinct keys), ${BUYERS * ROUNDS} in all: every one placed, none conflicted`, async () => {
    const customer = await createCustomer('Busy Buyer');
    const asCustomer = bearer(await tokens.customer(customer.id));
    const cancelledBefore = stack.engine.conflicts().transactionsCancelled;
    stack.engine.wire.reset();
    const responses = [];
    for (let round = 0; round < ROUNDS; round++) {
      responses.push(
        ...(await Promise.all(
          Array.from({ length: BUYERS }, (_, i) => stack.gql(PLACE, { input: { idempotencyKey: `hot-${round}-${i}`, lines } }, asCustomer)),
        )),
      );
    }
    const codes = responses.flatMap((response) => response.errors?.map((error) => error.extensions?.code) ?? []);
    expect(codes).toEqual([]);
    expect(new Set(responses.map((response) => response.data.placeOrder.id)).size).toBe(BUYERS * ROUNDS);
    expect(stack.engine.conflicts().transactionsCancelled - cancelledBefore).toBe(0);

    // On the wire: each order one BatchGetItem and one TransactWriteItems of new items only (Puts),
    // none of them the customer's profile: no item is written by every order of the customer.
    const transactions = stack.engine.wire.requests().filter((request) => request.operation === 'TransactWriteItems');
    expect(transactions).toHaveLength(BUYERS * ROUNDS);
    for (const request of transactions) {
      const items = request.body.TransactItems.map((action: { Put?: { Item: Record<string, never> } }) => {
        expect(Object.keys(action)).toEqual(['Put']);
        return unmarshall(action.Put!.Item);
      });
      expect(items.filter((item: Record<string, unknown>) => item.SK === 'PROFILE')).toEqual([]);
    }
    const profile = (await stack.items()).find((item) => item.PK === `CUSTOMER#${customer.id}` && item.SK === 'PROFILE')!;
    expect(profile.eventSeq).toBe(1); // its CustomerCreated, untouched by 80 orders
  });

  it('the same key sent 8 times at once: one order, every caller gets it, no caller sends the transaction twice', async () => {
    const customer = await createCustomer('Double Clicker');
    const asCustomer = bearer(await tokens.customer(customer.id));
    stack.engine.wire.reset();
    const responses = await Promise.all(
      Array.from({ length: 8 }, () => stack.gql(PLACE, { input: { idempotencyKey: 'one-cart', lines } }, asCustomer)),
    );
    for (const response of responses) expect(response.errors).toBeUndefined();
    expect(new Set(responses.map((response) => response.data.placeOrder.id)).size).toBe(1);
    // A loser's transaction fails the record's condition (the winner's record comes back with it) or
    // conflicts on it (the loser then reads the record): at most one transaction per caller.
    expect(stack.engine.wire.count('TransactWriteItems')).toBeLessThanOrEqual(8);
    const summaries = (await stack.items()).filter((item) => item.PK === `CUSTOMER#${customer.id}` && item.type === 'ORDER');
    expect(summaries).toHaveLength(1);
  });
});

describe('when every transaction is cancelled by a conflict (conflictChance 1)', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ engine: { conflictChance: 1, conflictSeed: 7 } });
    await loadCatalog(stack); // BatchWriteItem: forced conflicts cancel transactions only
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('every placeOrder is UNAVAILABLE, retryable, with Retry-After (HTTP 503), and nothing is written', async () => {
    const customer = { id: newId(), name: 'Unlucky', email: `unlucky.${Date.now()}@example.com`, createdAt: nowIso() };
    await stack.load([customerToItem(customer)]);
    const before = await stack.items();
    const asCustomer = bearer(await tokens.customer(customer.id));
    const responses = await Promise.all(
      Array.from({ length: 4 }, (_, i) => stack.gql(PLACE, { input: { idempotencyKey: `unlucky-${i}`, lines } }, asCustomer)),
    );
    for (const response of responses) {
      expect(response.status).toBe(503);
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(response.errors).toHaveLength(1);
      expect(response.errors![0]!.extensions).toMatchObject({ code: 'UNAVAILABLE', retryable: true, reason: 'contention' });
      expect(response.errors![0]!.message).not.toMatch(/Transaction|cancel/i); // the engine's text stays inside
    }
    expect(await stack.items()).toEqual(before);
    // Bounded by time: each caller sent its transaction a few times, then gave up.
    const sent = stack.engine.wire.count('TransactWriteItems');
    expect(sent).toBeGreaterThan(4 * 2);
  });
});
