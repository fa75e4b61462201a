/**
 * The customer's item collection, `CUSTOMER#<customerId>`, declared once (declaration.ts checks
 * it when this module loads). A descending Query meets its addresses (`PROFILE#ADDRESS#<label>`,
 * at most MAX_ADDRESSES, a bound the profile's `addressLabels` set enforces on write), then the
 * profile (`PROFILE`, one), then the order summaries (`ORDER#<placedAt>#<orderId>`, newest first,
 * unbounded: read by `Limit`). Adding a member (a wishlist) is one entry here; the planner's
 * `Limit`s and the splitter follow.
 */
import { addressEntity, customerEntity, orderSummaryEntity } from '../entities';
// The address bound is the write path's (address.ts enforces it on the profile's label set).
import { MAX_ADDRESSES } from '../address';
import { defineCollection } from './declaration';

export const customerCollection = defineCollection({
  name: 'Customer collection',
  pk: 'CUSTOMER#{customerId}',
  members: {
    addresses: { entity: addressEntity, key: 'customerId', bound: MAX_ADDRESSES },
    profile: { entity: customerEntity, key: 'id', bound: 1 },
    orders: { entity: orderSummaryEntity, key: 'customerId', bound: 'window' },
  },
  descending: ['addresses', 'profile', 'orders'],
});

export type CustomerMember = (typeof customerCollection.members)[number]['name'];
