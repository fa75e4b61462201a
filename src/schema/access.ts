/**
 * Who may do what: one rule for every field of the schema, declared here, next to the SDL.
 * `test/access-policy.test.ts` walks the served schema field by field and fails on a field
 * without a rule; `buildSchema` refuses to start with a root field that has none.
 *
 * Root fields are enforced by `withAccess` before their resolver runs, so every refusal that the
 * arguments decide costs no DynamoDB request. Fields of object types are `reached`: whoever was
 * allowed the root field that led to the object may read it (a customer reaches only its own
 * customer and orders; staff reach everything).
 *
 * | principal          | may |
 * | ------------------ | --- |
 * | anonymous          | nothing (UNAUTHENTICATED, HTTP 401, before execution); introspection in development |
 * | signed in, no customer yet | `createCustomer` for itself (once), `me` (null), the catalog |
 * | customer           | its own customer, addresses and orders; orders for itself; cancel its own PENDING/PAID orders; the catalog |
 * | staff              | everything |
 *
 * Subscriptions (websocket only, src/live/websocket.ts) are decided the same way before their stream
 * starts, and their rule's `hears` filters every event the stream would deliver: `orderUpdated(id)`
 * staff any order, a customer its own (one read, as `order(id)`; another's is NOT_FOUND like a
 * missing one); `myOrderEvents` the caller's own customer's events; `ordersByStatusEvents` staff.
 */
import type { GraphQLFieldResolver } from 'graphql';
import { ownCustomerId, type Principal } from '../auth';
import type { Context } from '../request/context';
import { checkCustomerId, DomainError, ErrorCode, forbidden, notFound, type OutboxEvent } from '../model';
import type { EventStream } from '../hub/hub';

/** Field arguments as graphql-js coerced them; each rule reads the ones its field declares. */
type Args = Record<string, unknown>;

export interface Rule {
  /** Who, in words (the README's table and error messages use it). */
  who: 'reached' | 'signed in' | 'owner or staff' | 'staff';
  /** A refusal decided from the principal and the arguments alone, before any read. */
  check?(principal: Principal, args: Args): DomainError | undefined;
  /** What of a result found by reading the principal may see; refused results read as missing. */
  filter?(principal: Principal, result: unknown): unknown;
  /** Subscriptions: whether the principal may hear this event (checked on every event of the stream). */
  hears?(principal: Principal, event: OutboxEvent): boolean;
}

const reached: Rule = { who: 'reached' };
const signedIn: Rule = { who: 'signed in' };
const staff: Rule = { who: 'staff' };

/** The customer named by the argument `field` must be the caller's own (or the caller is staff). */
function ownerOf(field: 'id' | 'customerId'): Rule {
  return {
    who: 'owner or staff',
    check(principal, args) {
      if (principal.kind === 'staff') return undefined;
      return checkCustomerId(String(args[field]), field) === ownCustomerId(principal) ? undefined : notYours(field);
    },
  };
}

function notYours(field: string): DomainError {
  return forbidden(`${field} names a customer other than yours`, field);
}

/** An order is visible to staff and to the customer it belongs to; to anyone else it is missing. */
function ownOrderOrNull(principal: Principal, result: unknown): unknown {
  const order = result as { customerId: string } | null;
  if (!order || principal.kind === 'staff') return order;
  return order.customerId === ownCustomerId(principal) ? order : null;
}

/**
 * A node (Relay) is visible to staff; to anyone else a product, or what is its own: its customer,
 * its orders, its addresses. Anything else reads as missing: null, as an id that names nothing.
 */
function ownNodeOrNull(principal: Principal, result: unknown): unknown {
  if (!result || principal.kind === 'staff') return result;
  const node = result as { id?: string; customerId?: string; priceCents?: number };
  if (node.priceCents !== undefined) return node;
  // An order or an address names its customer; a customer is its own.
  return (node.customerId ?? node.id) === ownCustomerId(principal) ? node : null;
}

/** An event is heard by staff and by the customer it concerns. */
function ownEvent(principal: Principal, event: OutboxEvent): boolean {
  return principal.kind === 'staff' || (event.customerId !== undefined && event.customerId === ownCustomerId(principal));
}

const all = (...fields: string[]): Record<string, Rule> => Object.fromEntries(fields.map((field) => [field, reached]));

export const ACCESS: Record<string, Record<string, Rule>> = {
  Query: {
    me: signedIn,
    customer: ownerOf('id'),
    customerByEmail: staff,
    order: { who: 'signed in', filter: ownOrderOrNull },
    ordersByStatus: staff,
    ordersBySku: staff,
    // The catalog is public to anyone signed in; only staff change it.
    product: signedIn,
    products: signedIn,
    // Relay: any id, but only what the caller may see; another customer's reads like a missing id.
    node: { who: 'signed in', filter: ownNodeOrNull },
    nodes: { who: 'signed in', filter: (principal, result) => (result as unknown[]).map((node) => ownNodeOrNull(principal, node)) },
  },
  Mutation: {
    createCustomer: signedIn,
    updateCustomer: ownerOf('id'),
    putAddress: ownerOf('customerId'),
    removeAddress: ownerOf('customerId'),
    placeOrder: {
      who: 'owner or staff',
      check(principal, args) {
        if (principal.kind === 'staff') return undefined;
        const input = args.input as { customerId?: string | null; placedAt?: string | null };
        if (input.placedAt != null) return forbidden('input.placedAt is for staff imports only', 'input.placedAt');
        if (input.customerId != null && checkCustomerId(input.customerId, 'input.customerId') !== ownCustomerId(principal))
          return notYours('input.customerId');
        return undefined;
      },
    },
    // A customer may cancel its own order; whose order it is is known only by reading it.
    updateOrderStatus: {
      who: 'owner or staff',
      check: (principal, { status }) =>
        principal.kind === 'staff' || status === 'CANCELLED'
          ? undefined
          : forbidden('only staff move an order on; you may cancel yours', 'status'),
    },
    putProduct: staff,
  },
  Subscription: {
    // One read of the order (as order(id)); another customer's order is refused as a missing one: NOT_FOUND.
    orderUpdated: { who: 'owner or staff', filter: ownOrderOrNull, hears: ownEvent },
    // The caller's own customer's events, staff included (a staff token naming no customer is refused).
    myOrderEvents: {
      who: 'signed in',
      check: (principal) =>
        ownCustomerId(principal) === undefined
          ? forbidden('your token names no customer: staff follow orders with ordersByStatusEvents')
          : undefined,
      hears: (principal, event) => event.customerId !== undefined && event.customerId === ownCustomerId(principal),
    },
    ordersByStatusEvents: { ...staff, hears: (principal) => principal.kind === 'staff' },
  },
  Customer: all('id', 'name', 'email', 'createdAt', 'addresses', 'orders', 'stats'),
  // The order aggregate (src/model/customer-stats.ts): whoever reached the customer, like its other fields.
  CustomerStats: all('orderCount', 'lifetimeCents', 'asOf'),
  Address: all('id', 'label', 'street', 'city', 'postalCode', 'country'),
  Order: all('id', 'placedAt', 'status', 'totalCents', 'customer', 'lines'),
  OrderLine: all('lineNo', 'sku', 'quantity', 'unitPriceCents'),
  OrderConnection: all('nodes', 'edges', 'pageInfo'),
  OrderEdge: all('cursor', 'node'),
  PageInfo: all('hasNextPage', 'endCursor', 'hasPreviousPage', 'startCursor'),
  Product: all('id', 'sku', 'name', 'priceCents', 'active'),
  ProductConnection: all('nodes', 'edges', 'pageInfo'),
  ProductEdge: all('cursor', 'node'),
  OrderEvent: all('eventId', 'type', 'sequence', 'occurredAt', 'orderId', 'customerId', 'status', 'previousStatus', 'totalCents', 'order'),
};

export const ROOT_TYPES = ['Query', 'Mutation', 'Subscription'] as const;

/**
 * The root resolvers with their rules enforced: anonymous callers are refused (the admission
 * pipeline's sign-in step, src/admission/pipeline.ts, refuses them before execution already; this is the same rule, kept where the
 * field runs), staff-only fields refuse everyone else, then the rule's own check, then the field,
 * then the rule's filter. Throws when a root resolver has no rule.
 */
export function withAccess<R extends object>(resolvers: R): R {
  const byType = resolvers as Record<string, unknown>;
  const wrapped: Record<string, unknown> = { ...byType };
  for (const type of ROOT_TYPES) {
    const fields = byType[type] as Record<string, GraphQLFieldResolver<unknown, Context> | Subscriber> | undefined;
    if (!fields) continue;
    wrapped[type] = Object.fromEntries(
      Object.entries(fields).map(([field, resolve]) => {
        const rule = ACCESS[type]?.[field];
        if (!rule || rule.who === 'reached') throw new Error(`${type}.${field} has no access rule in src/schema/access.ts`);
        if (typeof resolve !== 'function') return [field, { ...resolve, subscribe: guardedSubscription(rule, resolve.subscribe) }];
        return [field, guarded(rule, resolve)];
      }),
    );
  }
  return wrapped as R;
}

function guarded(rule: Rule, resolve: GraphQLFieldResolver<unknown, Context>): GraphQLFieldResolver<unknown, Context> {
  return async (root, args, ctx, info) => {
    const { principal } = ctx;
    if (principal.kind === 'anonymous')
      throw new DomainError(ErrorCode.UNAUTHENTICATED, 'sign in first: send Authorization: Bearer <token>');
    if (rule.who === 'staff' && principal.kind !== 'staff') throw forbidden(`${info.parentType.name}.${info.fieldName} is for staff only`);
    const refusal = rule.check?.(principal, args);
    if (refusal) throw refusal;
    if (principal.kind === 'staff') return resolve(root, args, ctx, info);
    try {
      const result = await resolve(root, args, ctx, info);
      const shown = rule.filter ? rule.filter(principal, result) : result;
      if (rule.filter && (shown === null || (Array.isArray(shown) && shown.includes(null)))) hidePlan(ctx);
      return shown;
    } catch (error) {
      if (error instanceof DomainError && error.code === ErrorCode.NOT_FOUND) hidePlan(ctx);
      throw error;
    }
  };
}

/** A subscription field's resolvers: `subscribe` returns a detached stream (src/hub/stream.ts). */
interface Subscriber {
  subscribe: GraphQLFieldResolver<unknown, Context>;
  resolve?: GraphQLFieldResolver<unknown, Context>;
}

/**
 * A subscription's rule, decided before its stream starts: anonymous, staff-only and `check` as
 * for any root field; then `subscribe` names its topic (and may read what the rule decides on,
 * its `subject`); a subject the rule's `filter` hides is NOT_FOUND, exactly as a missing one, and
 * the stream never starts. Started, the stream delivers only what `hears` lets the principal hear.
 */
function guardedSubscription(rule: Rule, subscribe: GraphQLFieldResolver<unknown, Context>): GraphQLFieldResolver<unknown, Context> {
  return async (root, args, ctx, info) => {
    const { principal } = ctx;
    if (principal.kind === 'anonymous')
      throw new DomainError(ErrorCode.UNAUTHENTICATED, 'sign in first: send { Authorization: "Bearer <token>" } in connection_init');
    if (rule.who === 'staff' && principal.kind !== 'staff') throw forbidden(`${info.parentType.name}.${info.fieldName} is for staff only`);
    const refusal = rule.check?.(principal, args);
    if (refusal) throw refusal;
    const stream = (await subscribe(root, args, ctx, info)) as EventStream;
    if (rule.filter && principal.kind !== 'staff' && rule.filter(principal, stream.subject) == null) {
      await stream.return();
      hidePlan(ctx);
      throw notFound(missingMessage(info.fieldName, args));
    }
    return stream.start(rule.hears ? (event) => rule.hears!(principal, event) : undefined);
  };
}

/** The NOT_FOUND a hidden subject reads as: the same words as a missing one (src/resolvers/subscription.ts). */
function missingMessage(field: string, args: Args): string {
  // The id as the model normalises it (checkId: upper case), so even its spelling cannot tell the two apart.
  return field === 'orderUpdated' ? `no order with id ${String(args.id).toUpperCase()}` : `nothing to follow for ${field}`;
}

/**
 * A result that reads as missing must read as missing everywhere, the request plan included: the
 * plan of a read that found another customer's order would show the items it read. So a
 * non-staff answer that is null by a filter (or a filtered list holding a null), or NOT_FOUND,
 * carries no plan, whether the thing was missing or someone else's (both look alike).
 */
function hidePlan(ctx: Context): void {
  ctx.explain = false;
}
