/**
 * Relay's `node(id)` and `nodes(ids)`: every id is decoded (src/model/node-id.ts) before any read,
 * so one malformed id is BAD_USER_INPUT for 0 requests; then each is loaded through the loader
 * that serves its type by id, all in one tick, so the whole list is one wave:
 *
 * - a bare id (a customer's or an order's ULID): the customer collection (as `customer(id)`, with
 *   what the selection wants of it) and the order's detail (as `order(id)`). Staff
 *   read both candidates; a customer only the one it could see: its own id names its customer,
 *   and any other bare id can only be one of its orders. So a customer's `node` of another
 *   customer's id costs what a missing id costs.
 * - an address id: its customer's collection head (as `customer(id) { addresses }`), never read for
 *   a customer's address other than the caller's own (null, 0 requests, as for any id of theirs).
 * - a product id: the catalog, every SKU of the wave in one BatchGetItem.
 *
 * Each reads as the request's exact screens read: eventually, or strongly after the caller's own
 * write (src/request/consistency.ts).
 *
 * Whether a found node may be shown is the access rule's (src/schema/access.ts, `Query.node`).
 */
import type { GraphQLResolveInfo } from 'graphql';
import type { NodeResolvers, QueryResolvers, ResolversParentTypes } from './types.generated';
import type { Context } from '../request/context';
import { ownCustomerId } from '../auth';
import { decodeNodeId, decodeNodeIds, type NodeRef } from '../model';
import { exactCustomer, exactOrder } from '../loaders';
import { customerNeed } from './lookahead';

type NodeParent = ResolversParentTypes['Node'];

const ADDRESSES = { profile: false, addresses: true, windows: [] };

export const nodeQueries: QueryResolvers = {
  node: async (_root, { id }, ctx, info) => (await loadNodes([decodeNodeId(id)], ctx, info))[0] ?? null,
  nodes: (_root, { ids }, ctx, info) => loadNodes(decodeNodeIds(ids), ctx, info),
};

export const Node: NodeResolvers = {
  __resolveType: (node) => ('label' in node ? 'Address' : 'priceCents' in node ? 'Product' : 'placedAt' in node ? 'Order' : 'Customer'),
};

function loadNodes(refs: readonly NodeRef[], ctx: Context, info: GraphQLResolveInfo): Promise<Array<NodeParent | null>> {
  // Staff may see anything; anyone else only what is theirs (the rule's filter decides, this only spares reads).
  const own = ctx.principal.kind === 'staff' ? undefined : (ownCustomerId(ctx.principal) ?? '');
  const mayBeSeen = (customerId: string) => own === undefined || customerId === own;
  return Promise.all(
    refs.map(async (ref): Promise<NodeParent | null> => {
      switch (ref.type) {
        case 'Customer|Order': {
          const [customer, order] = await Promise.all([
            mayBeSeen(ref.id) ? customerById(ref.id, ctx, info) : null,
            own === undefined || ref.id !== own ? exactOrder(ctx.loaders, ref.id) : null,
          ]);
          return customer ?? order;
        }
        case 'Address': {
          if (!mayBeSeen(ref.customerId)) return null;
          const view = await exactCustomer(ctx.loaders, { customerId: ref.customerId, need: ADDRESSES });
          const address = view?.addresses?.find((candidate) => candidate.label === ref.label);
          return address ? { ...address, customerId: ref.customerId } : null;
        }
        case 'Product':
          return ctx.loaders.catalogProducts.load(ref.sku);
      }
    }),
  );
}

/** A customer and whatever the selection wants of its collection, read exactly as `customer(id)` reads it. */
async function customerById(customerId: string, ctx: Context, info: GraphQLResolveInfo): Promise<NodeParent | null> {
  const need = customerNeed(info, ctx.loaders.collections, customerId);
  const view = await exactCustomer(ctx.loaders, { customerId, need });
  return view ? { id: customerId, profile: view.profile } : null;
}
