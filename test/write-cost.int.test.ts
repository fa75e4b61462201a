/**
 * Each mutation is admitted with the items it writes at most (`cost.writes`, computed from the
 * transactions the model builds: src/model/write-bounds.ts), and on its costliest case it writes
 * exactly that many on the wire, reading at most the reads it was admitted with (the declared
 * bounds of the patterns it runs). An action added to a transaction moves both; a write made outside
 * the builders the bound is computed from shows here as a difference.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from './support/stack';
import { dataOf } from './support/graphql';
import { address, CREATE, freshEmail, loadCatalog, MOVE, PLACE, PUT_ADDRESS, REMOVE_ADDRESS, UPDATE } from './support/write-path';
import type { WireRequest } from '@single-table/engine';
import { MAX_LINES, newId } from '../src/model';

const PUT_PRODUCT = `mutation($input: ProductInput!) { putProduct(input: $input) { sku } }`;

/**
 * Items the requests wrote: a committed TransactWriteItems' actions that write (not its
 * ConditionChecks), one a single write. A cancelled transaction or a failed condition writes none
 * (putProduct of a stored SKU first tries it as new, then replaces what its cancellation returned).
 */
function written(wire: readonly WireRequest[]): number {
  let items = 0;
  for (const request of wire) {
    if (request.status !== 200) continue;
    const body = request.body as { TransactItems?: Record<string, unknown>[]; RequestItems?: Record<string, unknown[]> };
    if (request.operation === 'TransactWriteItems') items += body.TransactItems!.filter((action) => !('ConditionCheck' in action)).length;
    else if (request.operation === 'BatchWriteItem') items += Object.values(body.RequestItems!).flat().length;
    else if (['PutItem', 'UpdateItem', 'DeleteItem'].includes(request.operation)) items++;
  }
  return items;
}

let stack: Stack;
const admitted = new Map<string, number>();
/** Per request: the items its reads scanned, and the reads it was admitted with (the operation's log line). */
const reads = new Map<string, { read: number; admitted: number }>();

beforeAll(async () => {
  stack = await startStack({
    log: (line) => {
      if (line.msg !== 'operation' || !line.cost) return;
      const cost = line.cost as { writes: number; reads: number };
      admitted.set(String(line.requestId), cost.writes);
      reads.set(String(line.requestId), { read: (line.dynamodb as { read: number }).read, admitted: cost.reads });
    },
  });
  await loadCatalog(stack);
});
afterAll(async () => {
  await stack?.close();
});

/** Sends one mutation; returns its data, the items it wrote on the wire and the writes it was admitted with. */
async function send(query: string, variables: Record<string, unknown>) {
  const { response, wire } = await stack.measure(query, variables);
  const data = dataOf(response);
  const id = response.headers.get('x-request-id') ?? '';
  return { data, written: written(wire), admitted: admitted.get(id), reads: reads.get(id)! };
}

describe('a mutation is charged the items it writes', () => {
  it('on the costliest case of each mutation, the items written on the wire are the writes it was admitted with', async () => {
    const created = await send(CREATE, { input: { name: 'Writes', email: freshEmail('writes') } });
    const id = created.data.createCustomer.id as string;
    // updateCustomer's costliest case moves the email's canonical form (its guard: a Delete and a Put).
    const moved = await send(UPDATE, { id, input: { email: freshEmail('moved') } });
    const renamed = await send(UPDATE, { id, input: { name: 'Renamed' } });
    const added = await send(PUT_ADDRESS, { customerId: id, input: address('home') });
    const removed = await send(REMOVE_ADDRESS, { customerId: id, label: 'home' });
    const small = await send(PLACE, { input: { customerId: id, idempotencyKey: `k-${newId()}`, lines: [{ sku: 'A', quantity: 1 }] } });
    const full = await send(PLACE, {
      input: {
        customerId: id,
        idempotencyKey: `k-${newId()}`,
        lines: Array.from({ length: MAX_LINES }, (_, i) => ({ sku: `SKU-${i}`, quantity: 1 })),
      },
    });
    const paid = await send(MOVE, { id: small.data.placeOrder.id, status: 'PAID' });
    const product = await send(PUT_PRODUCT, { input: { sku: 'WRITES-1', name: 'Writes', priceCents: 5, active: true } });
    const replaced = await send(PUT_PRODUCT, { input: { sku: 'WRITES-1', name: 'Writes', priceCents: 6, active: true } });

    const costliest = { created, moved, added, removed, small, full, paid, product, replaced };
    expect(Object.fromEntries(Object.entries(costliest).map(([name, sent]) => [name, sent.written]))).toEqual(
      Object.fromEntries(Object.entries(costliest).map(([name, sent]) => [name, sent.admitted])),
    );
    // The figures themselves, from the transactions: profile + guard + event; profile + event + old guard + new guard; …
    expect(Object.fromEntries(Object.entries(costliest).map(([name, sent]) => [name, sent.written]))).toEqual({
      created: 3,
      moved: 4,
      added: 3,
      removed: 3,
      small: 5,
      full: 100,
      paid: 3,
      product: 2,
      replaced: 2,
    });
    // And each read at most what it was admitted with (reads from the patterns' declared bounds).
    for (const [name, sent] of Object.entries({ ...costliest, renamed }))
      expect(sent.reads.read, name).toBeLessThanOrEqual(sent.reads.admitted);
    expect(moved.reads).toEqual({ read: 1, admitted: 1 }); // one consistent GetItem of the profile
    // A cheaper case is charged its mutation's bound, never less than it writes.
    expect(renamed.written).toBe(2);
    expect(renamed.admitted).toBe(4);
  });
});
