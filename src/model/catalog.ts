/**
 * Every named access pattern, listed explicitly (the entities are listed in entities.ts). Each is
 * declared on the function that runs it (`pattern`, access-pattern.ts), or, for a planned Query or
 * a request inside another operation, next to the code that sends it (`declarePattern`); either way
 * as the request it builds. Read by the
 * generated docs/access-patterns.md and by test/access-pattern-bounds.int.test.ts, which runs
 * each one on adversarial data and checks it reads no more than its declared bound.
 * (This is the model's catalog of declarations; the product catalog is product.ts.)
 */
import type { AccessPattern } from './declare';
import { customerByEmail, customerProfile } from './customer';
import { ordersByStatus } from './status-index';
import { orderDetail, orderHeader } from './order';
import { idempotencyClaim, idempotencyRecord } from './idempotency';
import { orderHeaders, ordersBySku } from './sku-index';
import { catalogPrices, product, products } from './product';
import { orderInputs } from './place-order';
import { migrationState } from './migration';
import { collectionPatterns } from './collection';
import { indexPartitionWindow, orderOwner, partitionWindow } from './partition-view';

export function accessPatterns(): readonly AccessPattern[] {
  return [
    customerProfile.pattern,
    customerByEmail.pattern,
    ordersByStatus.pattern,
    orderDetail.pattern,
    orderHeader.pattern,
    idempotencyClaim,
    idempotencyRecord.pattern,
    ordersBySku.pattern,
    orderHeaders.pattern,
    product.pattern,
    products.pattern,
    catalogPrices.pattern,
    orderInputs.pattern,
    migrationState.pattern,
    ...collectionPatterns,
    partitionWindow.pattern,
    indexPartitionWindow.pattern,
    orderOwner.pattern,
  ];
}
