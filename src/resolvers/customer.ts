import type { AddressResolvers, CustomerResolvers, MutationResolvers, QueryResolvers } from './types.generated';
import type { GraphQLResolveInfo } from 'graphql';
import type { Context } from '../request/context';
import { ownCustomerId } from '../auth';
import {
  checkCustomerId,
  checkEmail,
  createCustomer,
  putAddress,
  removeAddress,
  updateCustomer,
  addressNodeId,
  customerProfile,
  NO_STATS,
  type CustomerRecord,
  type CustomerRef,
  type CustomerStats,
} from '../model';

import { customerView, exactCustomer, primeNewCustomer, primeProfile } from '../loaders';
import { customerNeed, orderWindowArgs } from './lookahead';
import { actorOf } from './actor';

export const customerQueries: QueryResolvers = {
  // Exact screens (ConsistentRead, same requests, twice the read capacity): `me` is the signed-in
  // customer's own screen, read right after its own writes (createCustomer, updateCustomer,
  // putAddress, placeOrder); `customer(id)` is the one-customer screen (the customer's own, or
  // staff's right after editing it). An eventual read there may answer null for a customer just
  // created, or the addresses before the last change. One customer's collection is a bounded read
  // (README, "What each GraphQL field reads, today").
  me: (_root, _args, ctx, info) => {
    const customerId = ownCustomerId(ctx.principal);
    return customerId === undefined ? null : customerById(customerId, ctx, info);
  },
  customer: (_root, { id }, ctx, info) => customerById(checkCustomerId(id), ctx, info),

  async customerByEmail(_root, { email }, ctx, info) {
    // The loader records the profile it finds in the request's customer collections.
    const profile = await ctx.loaders.customerByEmail.load(checkEmail(email, 'email'));
    if (!profile) return null;
    indexCopies.add(profile); // Customer.stats reads the table's profile (GSI1 does not project stats)
    // Anything beyond the profile (addresses, orders) is read now, in one batch with its peers;
    // eventually (GSI1 is never read strongly, so the field is eventual anyway), but the index
    // proved the customer: a miss is read again strongly rather than answered null.
    const view = await customerView(ctx.loaders, {
      customerId: profile.id,
      need: customerNeed(info, ctx.loaders.collections, profile.id),
      proven: true,
    });
    return view ? { id: profile.id, profile } : null;
  },
};

export const customerMutations: MutationResolvers = {
  async createCustomer(_root, { input }, ctx) {
    // A customer makes its own (the id its identity names); staff make anyone's.
    const id = ctx.principal.kind === 'customer' ? ctx.principal.customerId : undefined;
    const customer = await createCustomer(ctx.table, input, actorOf(ctx.principal), { id });
    primeNewCustomer(ctx.loaders, customer);
    return { id: customer.id, profile: customer };
  },

  async updateCustomer(_root, { id, input }, ctx) {
    const customer = await updateCustomer(ctx.table, id, input, actorOf(ctx.principal));
    primeProfile(ctx.loaders, customer);
    return { id: customer.id, profile: customer };
  },

  // The address as written, with its customer (its id names both): a client's cache updates from it.
  putAddress: async (_root, { customerId, input }, ctx) => ({
    ...(await putAddress(ctx.table, customerId, input, actorOf(ctx.principal))),
    customerId: checkCustomerId(customerId, 'customerId'),
  }),

  removeAddress: (_root, { customerId, label }, ctx) => removeAddress(ctx.table, customerId, label, actorOf(ctx.principal)),
};

export const Customer: CustomerResolvers = {
  id: (customer) => customer.id,
  // Synchronous when the profile is at hand (the common case): no promise per field.
  name: (customer, _args, ctx) => customer.profile?.name ?? profileOf(customer, ctx).then((profile) => profile.name),
  email: (customer, _args, ctx) => customer.profile?.email ?? profileOf(customer, ctx).then((profile) => profile.email),
  createdAt: (customer, _args, ctx) => customer.profile?.createdAt ?? profileOf(customer, ctx).then((profile) => profile.createdAt),

  // The order aggregate the relay keeps on the profile: answered with the profile the screen read.
  // A GSI1 copy of the profile (customerByEmail) lacks it (INCLUDE does not project it): one GetItem then.
  stats: (customer, _args, ctx) =>
    customer.profile && !indexCopies.has(customer.profile) ? (customer.profile.stats ?? NO_STATS) : statsOf(customer, ctx),

  // Usually answered from what the parent's look-ahead already read: no batch, no promise.
  addresses: (customer, _args, ctx) =>
    then(customerView(ctx.loaders, { customerId: customer.id, need: ADDRESSES, proven: true }), (view) =>
      (view?.addresses ?? vanished(customer.id)).map((address) => ({ ...address, customerId: customer.id })),
    ),

  orders(customer, args, ctx, info) {
    const window = ctx.loaders.collections.window(customer.id, orderWindowArgs(info, args));
    return then(
      customerView(ctx.loaders, { customerId: customer.id, need: { profile: false, addresses: false, windows: [window] }, proven: true }),
      (view) => view?.pages[0] ?? vanished(customer.id),
    );
  },
};

export const Address: AddressResolvers = {
  id: (address) => addressNodeId(address),
};

const ADDRESSES = { profile: false, addresses: true, windows: [] };
const PROFILE = { profile: true, addresses: false, windows: [] };

/** `f` of a value now, or of a promised one later: a known answer stays synchronous. */
function then<T, U>(value: T | Promise<T>, f: (value: T) => U): U | Promise<U> {
  return value instanceof Promise ? value.then(f) : f(value);
}

/** A customer and whatever the selection below wants of its collection, in one batch with its peers. */
async function customerById(customerId: string, ctx: Context, info: GraphQLResolveInfo): Promise<CustomerRef | null> {
  const view = await exactCustomer(ctx.loaders, { customerId, need: customerNeed(info, ctx.loaders.collections, customerId) });
  return view ? { id: customerId, profile: view.profile } : null;
}

/** Profiles read from GSI1 (customerByEmail): they lack the stats attributes, which the index does not project. */
const indexCopies = new WeakSet<CustomerRecord>();

/** The stats of a customer whose profile at hand cannot tell them. */
async function statsOf(customer: CustomerRef, ctx: Context): Promise<CustomerStats> {
  const profile =
    customer.profile && indexCopies.has(customer.profile) ? await customerProfile(ctx.table, customer.id) : await profileOf(customer, ctx);
  if (!profile) vanished(customer.id);
  return profile.stats ?? NO_STATS;
}

/** The profile of a customer reference: at hand, or from the request's collection memo. */
async function profileOf(customer: CustomerRef, ctx: Context): Promise<CustomerRecord> {
  if (customer.profile) return customer.profile;
  const view = await customerView(ctx.loaders, { customerId: customer.id, need: PROFILE, proven: true });
  return view?.profile ?? vanished(customer.id);
}

/** A customer that a parent field proved to exist is gone even to a strong read: a broken invariant, not user input. */
function vanished(customerId: string): never {
  throw new Error(`customer ${customerId} was expected to exist`);
}
