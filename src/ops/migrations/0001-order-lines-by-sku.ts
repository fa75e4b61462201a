/**
 * 0001: GSI1 keys on the order lines, for `ordersBySku` (src/model/sku-index.ts).
 *
 * Touches: order lines (`ORDER#<orderId>` / `LINE#<n>`) that carry no `GSI1PK` — every line
 * written before placeOrder wrote these keys itself.
 * Rewrite: `SET GSI1PK = SKU#<sku>, GSI1SK = <placedAt>#<orderId>#<lineNo>`, on condition that the
 * line still exists, still has no `GSI1PK` and still has the SKU and number the keys were made
 * from. A line does not store `placedAt`: each page reads the headers of its lines' orders with
 * one BatchGetItem (`PK`, `placedAt` only); `placedAt` never changes after an order is placed.
 * A line whose header is missing, or whose SKU could not stand in a key, is `unresolved`.
 */
import type { Item } from '../../dynamo/table';
import { checkSku, orderKeys, orderLineEntity, pkOf, skuKeys } from '../../model';
import { defineMigration } from './migration';

export const migration = defineMigration<Map<string, string>>({
  name: '0001-order-lines-by-sku',
  description: 'GSI1 keys SKU#<sku> / <placedAt>#<orderId>#<lineNo> on order lines written before ordersBySku',
  touches: orderLineEntity,

  selects: (item) => orderLineEntity.matches(item) && item.GSI1PK === undefined,

  /** placedAt of every order the page's lines belong to: one BatchGetItem (100 keys a call), consistent: an eventual read may miss a header just written and leave its lines unresolved. */
  async prepare(table, lines) {
    const orderIds = [...new Set(lines.map((line) => orderKeys.idOf(pkOf(line))).filter((id) => id !== undefined))];
    const headers = await table.batchGet(orderIds.map(orderKeys.header), { projection: 'PK, placedAt', consistent: true });
    const placedAt = new Map<string, string>();
    for (const header of headers) {
      const orderId = orderKeys.idOf(pkOf(header));
      if (orderId !== undefined && typeof header.placedAt === 'string') placedAt.set(orderId, header.placedAt);
    }
    return placedAt;
  },

  rewrite(line: Item, placedAtById) {
    const orderId = orderKeys.idOf(pkOf(line)) ?? '';
    const placedAt = placedAtById.get(orderId);
    if (placedAt === undefined) return { unresolved: `order ${orderId} has no header` };
    const { sku, lineNo } = line;
    if (typeof sku !== 'string' || typeof lineNo !== 'number')
      return { unresolved: `line ${pkOf(line)}/${String(line.SK)} lacks sku or lineNo` };
    try {
      checkSku(sku);
    } catch {
      return { unresolved: `line ${pkOf(line)}/${String(line.SK)} has a sku that cannot stand in a key` };
    }
    return {
      rewrite: {
        key: { PK: pkOf(line), SK: String(line.SK) },
        set: skuKeys.ofLine({ id: orderId, placedAt }, { sku, lineNo }),
        condition: {
          expression: 'attribute_not_exists(GSI1PK) AND #sku = :sku AND #lineNo = :lineNo',
          names: { '#sku': 'sku', '#lineNo': 'lineNo' },
          values: { ':sku': sku, ':lineNo': lineNo },
        },
      },
    };
  },
});
