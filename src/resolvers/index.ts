import type { Resolvers } from './types.generated';
import { Customer, customerMutations, customerQueries } from './customer';
import { Order, OrderConnection, orderMutations, orderQueries } from './order';
import { ProductConnection, productMutations, productQueries } from './product';
import { DateTime } from './scalars';

/** Every resolver of the schema. Resolvers are thin: check arguments, call a loader or the model. */
export const resolvers: Resolvers = {
  DateTime,
  Query: { ...customerQueries, ...orderQueries, ...productQueries },
  Mutation: { ...customerMutations, ...orderMutations, ...productMutations },
  Customer,
  Order,
  OrderConnection,
  ProductConnection,
};
