/**
 * The items each mutation writes at most, computed from the transactions the model builds: each
 * builder (`createCustomerActions`, …, `placeOrderActions`) runs on the cases that write most (an
 * email whose canonical form moves, a new address label, a product replaced), so an action added to
 * a transaction is charged by admission (src/admission/cost.ts) without anyone counting it again.
 * test/write-cost.int.test.ts compares these with the writes each mutation makes on the wire.
 *
 * Keyed by the GraphQL mutation each model operation serves; the model itself knows no GraphQL.
 */
import { DEFAULT_WRITE_SHARDS, type Item, type TransactAction } from '../dynamo/table';
import type { EventActor } from './events';
import { createCustomerActions, customerToItem, type CustomerRecord, updateCustomerActions } from './customer';
import { putAddressActions, removeAddressActions } from './address';
import { headerToItem, updateOrderStatusActions, type OrderLineRecord, type OrderRecord } from './order';
import { placeOrderActions } from './place-order';
import { productToItem, putProductActions, type ProductRecord } from './product';
import { EVENT_SEQ } from './outbox';
import { newId } from './keys';

const actor: EventActor = { kind: 'system' };
const customer: CustomerRecord = { id: newId(), name: 'Bound', email: 'bound@example.com', createdAt: '2026-01-01T00:00:00.000Z' };
/** A profile that has had events: its sequence is conditioned on, as in every later write. */
const profile: Item = { ...customerToItem(customer), [EVENT_SEQ]: 7 };
const address = { label: 'home', street: '1 Main St', city: 'Springfield', postalCode: '12345', country: 'US' };
const product: ProductRecord = { sku: 'BOUND-1', name: 'Bound', priceCents: 100, active: true };

function order(lineCount: number): OrderRecord & { lines: OrderLineRecord[] } {
  const lines = Array.from({ length: lineCount }, (_, index) => ({
    lineNo: index + 1,
    sku: `BOUND-${index + 1}`,
    quantity: 1,
    unitPriceCents: 100,
  }));
  return {
    id: newId(),
    customerId: customer.id,
    placedAt: customer.createdAt,
    status: 'PENDING',
    totalCents: 100 * lineCount,
    lineCount,
    lines,
  };
}

const most = (...cases: readonly (readonly TransactAction[])[]) => Math.max(...cases.map((actions) => actions.length));

/** Each mutation's costliest cases, built when its bound is first asked for (not when the model loads). */
const cases: Record<string, () => number> = {
  createCustomer: () => most(createCustomerActions(customer, actor)),
  updateCustomer: () =>
    most(
      updateCustomerActions(profile, customer, { ...customer, name: 'Renamed' }, actor),
      updateCustomerActions(profile, customer, { ...customer, email: 'moved@example.com' }, actor),
    ),
  putAddress: () =>
    most(putAddressActions(profile, customer.id, address, true, actor), putAddressActions(profile, customer.id, address, false, actor)),
  removeAddress: () => most(removeAddressActions(profile, customer.id, address.label, actor)),
  updateOrderStatus: () =>
    most(updateOrderStatusActions({ ...headerToItem(order(1)), [EVENT_SEQ]: 1 }, order(1), 'PAID', actor, DEFAULT_WRITE_SHARDS)),
  putProduct: () =>
    most(putProductActions(product, undefined, actor), putProductActions(product, { ...productToItem(product), [EVENT_SEQ]: 3 }, actor)),
};

/** Items placeOrder writes for an order of `lines` lines: its transaction built for such an order. */
function placeOrderWrites(lines: number): number {
  return placeOrderActions(order(Math.max(1, lines)), { key: 'bound', fingerprint: 'bound', now: 0 }, actor, DEFAULT_WRITE_SHARDS).length;
}

/** The items each mutation writes at most; placeOrder's from the lines of its input. */
export const MUTATION_WRITE_BOUNDS: Readonly<Record<string, (lines: number) => number>> = {
  placeOrder: placeOrderWrites,
  ...Object.fromEntries(
    Object.entries(cases).map(([name, costliest]) => {
      let writes: number | undefined;
      return [name, () => (writes ??= costliest())];
    }),
  ),
};
