/**
 * Product: keys, lifecycle and codec, declared once. Operations: src/model/product.ts.
 */
import type { Item } from '../../dynamo/table';
import { defineEntity } from '../declare';
import { str } from '../keys';
import { sku } from './parts';

export const productEntity = defineEntity({
  name: 'Product',
  type: 'PRODUCT',
  graphql: 'Product',
  parts: { sku },
  table: { PK: 'CATALOG', SK: 'PRODUCT#{sku}' },
  expires: false,
  codec: { toItem: productToItem, fromItem: productFromItem },
});

export function productFromItem(item: Item) {
  const { priceCents, active } = item;
  if (typeof priceCents !== 'number' || typeof active !== 'boolean')
    throw new Error(`product ${String(item.SK)} lacks priceCents or active`);
  return { sku: str(item, 'sku'), name: str(item, 'name'), priceCents, active };
}
/** A product as the model hands it out; GraphQL resolvers receive this type. */
export type ProductRecord = ReturnType<typeof productFromItem>;

export function productToItem(product: ProductRecord): Item {
  return { ...productEntity.itemKeys(product), ...product };
}
