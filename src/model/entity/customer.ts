/**
 * The customer profile and the email guard: keys, lifecycle and codec, declared once.
 * Operations: src/model/customer.ts, src/model/email.ts.
 */
import type { Item } from '../../dynamo/table';
import { defineEntity } from '../declare';
import { str } from '../keys';
import { email, ID } from './parts';

export const emailGuardEntity = defineEntity({
  name: 'Email guard',
  type: 'EMAIL',
  parts: { email },
  table: { PK: 'EMAIL#{email}', SK: 'EMAIL' },
  expires: false,
  codec: { toItem: emailGuardItem, fromItem: emailGuardFromItem },
});

/** The guard item of an email (its key is the canonical email), naming the customer who holds it. */
export function emailGuardItem(address: string, customerId: string): Item {
  return { ...emailGuardEntity.itemKeys({ email: address }), customerId };
}

/** The customer a guard names (guards are only ever checked by key, never read back). */
export function emailGuardFromItem(item: Item) {
  return { customerId: str(item, 'customerId') };
}

export const customerEntity = defineEntity({
  name: 'Customer profile',
  type: 'CUSTOMER',
  graphql: 'Customer',
  parts: { id: { shape: ID, doc: 'customerId' }, email },
  table: { PK: 'CUSTOMER#{id}', SK: 'PROFILE' },
  gsi1: { GSI1PK: 'EMAIL#{email}', GSI1SK: 'CUSTOMER#{id}', required: true },
  expires: false,
  codec: { toItem: customerToItem, fromItem: customerFromItem },
});

export function customerToItem(customer: CustomerRecord): Item {
  return {
    ...customerEntity.itemKeys(customer),
    id: customer.id,
    name: customer.name,
    email: customer.email,
    createdAt: customer.createdAt,
  };
}

export function customerFromItem(item: Item) {
  return {
    id: str(item, 'id'),
    name: str(item, 'name'),
    email: str(item, 'email'),
    createdAt: str(item, 'createdAt'),
    ...statsPart(item),
  };
}

/** The order aggregate the relay keeps on the profile (src/model/customer-stats.ts). */
export interface CustomerStats {
  orderCount: number;
  lifetimeCents: number;
  /** When the last order counted was placed (its event's `occurredAt`); null before the first. */
  asOf: string | null;
}

/**
 * `stats` when the profile item carries them (`orderCount` is set by the first order counted, or
 * by a count from the summaries); absent otherwise: a customer with no order counted yet, or a GSI1
 * copy (INCLUDE does not project them).
 */
function statsPart(item: Item): { stats?: CustomerStats } {
  if (typeof item.orderCount !== 'number') return {};
  const count = item.orderCount;
  const cents = item.lifetimeCents;
  return {
    stats: {
      orderCount: typeof count === 'number' ? count : 0,
      lifetimeCents: typeof cents === 'number' ? cents : 0,
      asOf: typeof item.statsAsOf === 'string' ? item.statsAsOf : null,
    },
  };
}
/** A customer profile as the model hands it out; GraphQL resolvers receive this type. */
export type CustomerRecord = ReturnType<typeof customerFromItem>;
