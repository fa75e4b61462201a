/**
 * The customer's item collection, `CUSTOMER#<customerId>`, declared once (declaration.ts checks
 * it when this module loads). A descending Query meets its addresses (`PROFILE#ADDRESS#<label>`,
 * at most MAX_ADDRESSES, a bound the profile's `addressLabels` set enforces on write), then the
 * profile (`PROFILE`, one), then the order summaries (`ORDER#<placedAt>#<orderId>`, newest first,
 * unbounded: read by `Limit`). Adding a member (a wishlist) is one entry here: the planner's
 * key conditions and `Limit`s, the splitter, the look-ahead (the `fields` it answers) and the read
 * cost of those fields follow (test/collection-member.int.test.ts declares one in test code).
 */
import { addressEntity, customerEntity, orderSummaryEntity } from '../entities';
import type { AddressRecord } from '../entity/address';
import type { CustomerRecord } from '../entity/customer';
import type { OrderPage } from '../cursor';
// The address bound is the write path's (address.ts enforces it on the profile's label set).
import { MAX_ADDRESSES } from '../address';
import { defineCollection, type NeedOf } from './declaration';
import { orderRuns, type OrderWindow } from './window';

export const customerCollection = defineCollection({
  name: 'Customer collection',
  graphql: 'Customer',
  members: {
    addresses: {
      entity: addressEntity,
      key: 'customerId',
      bound: MAX_ADDRESSES,
      order: (a: AddressRecord, b: AddressRecord) => a.label.localeCompare(b.label),
      fields: ['addresses'],
    },
    // `stats`: the order aggregate the relay keeps on the profile item.
    profile: { entity: customerEntity, key: 'id', bound: 1, fields: ['name', 'email', 'createdAt', 'stats'] },
    orders: { entity: orderSummaryEntity, key: 'customerId', bound: 'window', fields: ['orders'] },
  },
  descending: ['addresses', 'profile', 'orders'],
  runs: orderRuns,
});

export type CustomerMember = (typeof customerCollection.members)[number]['name'];

/**
 * A customer as one field asked for it (null when there is no such customer): each head member's
 * records under its name, as the declaration above reads them, and the page of each window.
 */
export interface CustomerView {
  profile: CustomerRecord | undefined;
  addresses: AddressRecord[] | undefined;
  /** The page of each window of the need, in the need's order. */
  pages: OrderPage[];
}

/** What an operation wants of one customer's collection: each head member, and order windows. */
export type CollectionNeed = NeedOf<Exclude<CustomerMember, 'orders'>, OrderWindow>;
