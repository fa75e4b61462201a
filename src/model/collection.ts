/**
 * The customer's item collection, read as whole screens. Its home is src/model/customer-collection/:
 *
 * - `members.ts`: the collection declared once (partition key, members in descending order,
 *   their bounds), checked when built by `declaration.ts`;
 * - `window.ts`: order windows (`orders(first, after, month)`), validated once, and their runs;
 * - `plan.ts`: what a need would send (`planCollection`: key conditions and `Limit`s derived
 *   from the declaration), with no I/O;
 * - `state.ts`: what a request knows of one collection; `absorb` splits items by `type`;
 * - `session.ts`: `CustomerCollections`, the per-request object that owns that state and sends plans.
 *
 * This module lists the collection's access patterns for the generated documentation and the
 * bounds test (catalog.ts), and is the model's public surface for all of the above.
 */
import type { AccessPattern } from './declare';
import { plannedPatterns } from './customer-collection/plan';
import { customerCollection } from './customer-collection/members';

export * from './customer-collection/declaration';
export { customerCollection, type CollectionNeed, type CustomerMember, type CustomerView } from './customer-collection/members';
export * from './customer-collection/window';
export * from './customer-collection/plan';
export * from './customer-collection/state';
export * from './customer-collection/session';

/** The Queries a plan may hold (`PlannedQuery.pattern`) and the profiles read across customers (`customerProfiles`). */
export const collectionPatterns: readonly AccessPattern[] = plannedPatterns(customerCollection, 'Customer profile', 'Customer');
