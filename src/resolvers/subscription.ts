/**
 * Live updates (src/schema/subscription.graphql): each field's `subscribe` names its topic (which
 * of the hub's events it is about) and returns a detached stream; the field's access rule
 * (src/schema/access.ts) decides, then starts it. The root value is the websocket connection
 * (src/hub/live.ts), so these run only on the long-running server.
 *
 * The order events' payloads (what the outbox records), both of the order's own aggregate
 * (`aggregateId` the order id): OrderPlaced, sequence 1 (src/model/place-order.ts:
 * `{ orderId, status, totalCents, lineCount, placedAt }`), and OrderStatusChanged
 * (src/model/order.ts: `{ orderId, from, to }`). An OrderPlaced from before orders were their own
 * aggregate is the customer's, and names its order in the payload only.
 */
import type { OrderEventResolvers, SubscriptionResolvers } from './types.generated';
import { checkOrderId, notFound, ORDER_STATUSES, type OrderStatus, type OutboxEvent } from '../model';
import { liveConnection } from '../hub/live';
import { ownCustomerId } from '../auth';

const ORDER_EVENTS = new Set(['OrderPlaced', 'OrderStatusChanged']);
const STATUSES = new Set<string>(ORDER_STATUSES);

/** The order an order event is about, or undefined for any other event. */
export function orderIdOf(event: OutboxEvent): string | undefined {
  if (!ORDER_EVENTS.has(event.eventType)) return undefined;
  if (event.aggregateType === 'Order') return event.aggregateId;
  const id = event.payload.orderId;
  return typeof id === 'string' ? id : undefined;
}

function statusOf(value: unknown): OrderStatus | null {
  return typeof value === 'string' && STATUSES.has(value) ? (value as OrderStatus) : null;
}

/** The status after the change (`to` of a move, `status` of a placement; an order is placed PENDING). */
function statusAfter(event: OutboxEvent): OrderStatus | null {
  return statusOf(event.payload.to ?? event.payload.status) ?? (event.eventType === 'OrderPlaced' ? 'PENDING' : null);
}

export const subscriptionResolvers: SubscriptionResolvers = {
  orderUpdated: {
    // One strongly consistent read of the order, as order(id) makes: the rule decides on it.
    async subscribe(root, { id }, ctx) {
      const connection = liveConnection(root);
      const orderId = checkOrderId(id);
      const order = await ctx.loaders.ordersStrongly.load(orderId);
      if (!order) throw notFound(`no order with id ${orderId}`);
      return connection.stream((event) => orderIdOf(event) === orderId, order);
    },
    resolve: (event: OutboxEvent) => event,
  },

  myOrderEvents: {
    subscribe(root, _args, ctx) {
      const own = ownCustomerId(ctx.principal);
      return liveConnection(root).stream((event) => orderIdOf(event) !== undefined && event.customerId === own);
    },
    resolve: (event: OutboxEvent) => event,
  },

  ordersByStatusEvents: {
    subscribe(root, { status }) {
      return liveConnection(root).stream((event) => orderIdOf(event) !== undefined && statusAfter(event) === status);
    },
    resolve: (event: OutboxEvent) => event,
  },
};

export const OrderEvent: OrderEventResolvers = {
  type: (event) => event.eventType as 'OrderPlaced' | 'OrderStatusChanged',
  orderId: (event) => orderIdOf(event) as string,
  customerId: (event) => {
    if (event.customerId === undefined) throw new Error(`order event ${event.eventId} names no customer`);
    return event.customerId;
  },
  status: (event) => {
    const status = statusAfter(event);
    if (!status) throw new Error(`order event ${event.eventId} carries no status`);
    return status;
  },
  previousStatus: (event) => (event.eventType === 'OrderStatusChanged' ? statusOf(event.payload.from) : null),
  totalCents: (event) => (typeof event.payload.totalCents === 'number' ? event.payload.totalCents : null),
  // Every event gets fresh loaders, paid for before it executes (src/live/paid.ts), so this reads the order now.
  order: (event, _args, ctx) => ctx.loaders.ordersStrongly.load(orderIdOf(event) as string),
};
