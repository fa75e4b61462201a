import type { Resolvers } from './types.generated';
import { Address, Customer, customerMutations, customerQueries } from './customer';
import { Node, nodeQueries } from './node';
import { Order, OrderConnection, orderMutations, orderQueries } from './order';
import { Product, ProductConnection, productMutations, productQueries } from './product';
import { DateTime } from './scalars';
import { OrderEvent, subscriptionResolvers } from './subscription';

/** Every resolver of the schema. Resolvers are thin: check arguments, call a loader or the model. */
export const resolvers: Resolvers = {
  DateTime,
  Query: { ...customerQueries, ...orderQueries, ...productQueries, ...nodeQueries },
  Mutation: { ...customerMutations, ...orderMutations, ...productMutations },
  Subscription: subscriptionResolvers,
  OrderEvent,
  Customer,
  Address,
  Order,
  OrderConnection,
  Product,
  ProductConnection,
  Node,
};
