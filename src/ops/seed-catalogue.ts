/**
 * The catalogue that `npm run seed` loads and its generated orders draw from (seed-data.ts).
 *
 * Contract: `CATALOGUE_SIZE` (500) active products `SKU-0000`..`SKU-0499` (`seededSku(n)`), each
 * at the fixed price `seededPrice(n)` (99..19,999 cents), which is what every generated line of
 * SKU n is charged, so `placeOrder` agrees with seeded data. Nothing here depends on the seed or
 * draws a random number: two seeds loaded into one table agree on the catalogue.
 */
import type { ProductRecord } from '../model';

export const CATALOGUE_SIZE = 500;
const PRODUCT_NAMES = ['Notebook', 'Mug', 'T-shirt', 'Pen', 'Lamp', 'Backpack', 'Poster', 'Cap', 'Sticker pack', 'Bottle'];

/** SKU n of the catalogue, and its fixed price (what every line of it is charged). */
export const seededSku = (n: number) => `SKU-${String(n).padStart(4, '0')}`;
export const seededPrice = (n: number) => (((n * 7919) % 200) + 1) * 100 - 1;

/** The whole catalogue, in SKU order. */
export function catalogueProducts(): ProductRecord[] {
  return Array.from({ length: CATALOGUE_SIZE }, (_, n): ProductRecord => ({
    sku: seededSku(n),
    name: `${PRODUCT_NAMES[n % PRODUCT_NAMES.length]} ${String(n).padStart(4, '0')}`,
    priceCents: seededPrice(n),
    active: true,
  }));
}
