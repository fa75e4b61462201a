import type { MutationResolvers, ProductConnectionResolvers, QueryResolvers } from './types.generated';
import { product, products, putProduct } from '../model';

export const productQueries: QueryResolvers = {
  product: async (_root, { sku }, ctx) => (await product(ctx.table, sku)) ?? null,

  products: (_root, { first, after }, ctx) => products(ctx.table, { first, after }),
};

export const productMutations: MutationResolvers = {
  putProduct: (_root, { input }, ctx) => putProduct(ctx.table, input),
};

export const ProductConnection: ProductConnectionResolvers = {
  nodes: (page) => page.products,
  edges: (page) => page.products.map((node, index) => ({ node, cursor: page.cursors[index] as string })),
  pageInfo: (page) => ({ hasNextPage: page.hasNextPage, endCursor: page.cursors.at(-1) ?? null }),
};
