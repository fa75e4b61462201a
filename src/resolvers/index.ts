import type { Resolvers } from './types.generated';
import { Customer, customerMutations, customerQueries } from './customer';
import { Order, OrderConnection, orderMutations, orderQueries } from './order';
import { DateTime } from './scalars';

/** Every resolver of the schema. Resolvers are thin: check arguments, call a loader or the model. */
export const resolvers: Resolvers = {
  DateTime,
  Query: { ...customerQueries, ...orderQueries },
  Mutation: { ...customerMutations, ...orderMutations },
  Customer,
  Order,
  OrderConnection,
};
