import type { MutationResolvers, OrderConnectionResolvers, OrderResolvers, QueryResolvers } from './types.generated';
import { badInput, checkOrderId, placeOrder, updateOrderStatus } from '../model';
import { customerView, exactOrder, primeOrder, provenOrder } from '../loaders';
import { ownCustomerId } from '../auth';
import { customerNeed } from './lookahead';
import { actorOf } from './actor';

/**
 * A connection's PageInfo. Paging is forward only (first/after): `hasPreviousPage` is true exactly
 * when the page starts after a cursor. Cursors are made only when one is selected (getters).
 */
export function pageInfo(page: { hasNextPage: boolean; hasPreviousPage: boolean; readonly cursors: string[] }) {
  return {
    hasNextPage: page.hasNextPage,
    hasPreviousPage: page.hasPreviousPage,
    get startCursor() {
      return page.cursors[0] ?? null;
    },
    get endCursor() {
      return page.cursors.at(-1) ?? null;
    },
  };
}

export const orderQueries: QueryResolvers = {
  // An exact screen: strongly after the caller's own write (placeOrder), eventually otherwise
  // (README, "What each GraphQL field reads"); `node` of an order id reads it the same way.
  order: (_root, { id }, ctx) => exactOrder(ctx.loaders, checkOrderId(id)),

  ordersByStatus: (_root, { status, first, after }, ctx) => ctx.loaders.ordersByStatus.load({ status, first, after }),

  ordersBySku: (_root, { sku, first, after }, ctx) => ctx.loaders.ordersBySku.load({ sku, first, after }),
};

export const orderMutations: MutationResolvers = {
  // A customer orders for itself: customerId defaults to its own (src/schema/access.ts refuses
  // another's). Staff order for anyone, so staff must name the customer.
  async placeOrder(_root, { input }, ctx) {
    const customerId = input.customerId ?? (ctx.principal.kind === 'staff' ? undefined : ownCustomerId(ctx.principal));
    if (customerId == null) throw badInput('input.customerId is required: staff order for a customer they name', 'input.customerId');
    const order = await placeOrder(ctx.table, { ...input, customerId }, actorOf(ctx.principal));
    primeOrder(ctx.loaders, order);
    return order;
  },

  // Staff move any order; a customer (allowed only to cancel, src/schema/access.ts) only its own.
  updateOrderStatus: (_root, { id, status }, ctx) =>
    updateOrderStatus(ctx.table, id, status, actorOf(ctx.principal), {
      ownedBy: ctx.principal.kind === 'staff' ? undefined : (ownCustomerId(ctx.principal) ?? 'nobody'),
    }),
};

export const Order: OrderResolvers = {
  // Eventual (many orders' customers batch into one read), but an order proves its customer
  // exists (placeOrder's ConditionCheck): a miss, say right after createCustomer, is read again
  // with ConsistentRead (one more request, only then) before it is called a broken invariant.
  async customer(order, _args, ctx, info) {
    const view = await customerView(ctx.loaders, {
      customerId: order.customerId,
      need: customerNeed(info, ctx.loaders.collections, order.customerId),
      proven: true,
    });
    if (!view) throw new Error(`order ${order.id} names customer ${order.customerId}, which does not exist`);
    return { id: order.customerId, profile: view.profile };
  },

  async lines(order, _args, ctx) {
    if (order.lines) return order.lines;
    // The summary proves the header: an eventual miss is read again strongly (loaders).
    const detail = await provenOrder(ctx.loaders, order.id);
    if (!detail) throw new Error(`order ${order.id} has a summary but no header`);
    return detail.lines ?? [];
  },
};

export const OrderConnection: OrderConnectionResolvers = {
  nodes: (page) => page.orders,
  edges: (page) => page.orders.map((node, index) => ({ node, cursor: page.cursors[index] as string })),
  pageInfo: (page) => pageInfo(page),
};
