import type { MutationResolvers, ProductConnectionResolvers, ProductResolvers, QueryResolvers } from './types.generated';
import { productNodeId, putProduct } from '../model';
import { pageInfo } from './order';
import { actorOf } from './actor';

export const productQueries: QueryResolvers = {
  product: (_root, { sku }, ctx) => ctx.loaders.product.load(sku),

  products: (_root, { first, after }, ctx) => ctx.loaders.products.load({ first, after }),
};

export const productMutations: MutationResolvers = {
  putProduct: (_root, { input }, ctx) => putProduct(ctx.table, input, actorOf(ctx.principal)),
};

export const ProductConnection: ProductConnectionResolvers = {
  nodes: (page) => page.products,
  edges: (page) => page.products.map((node, index) => ({ node, cursor: page.cursors[index] as string })),
  pageInfo: (page) => pageInfo(page),
};

export const Product: ProductResolvers = {
  id: (product) => productNodeId(product),
};
