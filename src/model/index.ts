/** The model's public surface: entities, their codecs and their named access patterns. */
export * from './errors';
export * from './keys';
export * from './customer';
export * from './email';
export * from './address';
export * from './order';
export * from './place-order';
export * from './product';
export * from './status-index';
export * from './sku-index';
export * from './idempotency';
export * from './migration';
export * from './cursor';
export * from './collection';
export * from './declare';
export * from './catalog';
export * from './guards';
