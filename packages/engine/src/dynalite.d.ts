/**
 * Minimal types for the parts of dynalite 4.0.0 the engine reuses. dynalite ships no types; these
 * describe only what the engine calls, as dynalite implements it (CommonJS, callback style).
 */

declare module 'dynalite/db/index.js' {
  /** A DynamoDB attribute value in wire form, e.g. `{ S: 'x' }`, `{ N: '1' }`, `{ M: {...} }`. */
  export type AttributeValue = Record<string, any>;
  export type Item = Record<string, AttributeValue>;

  export interface DynaliteError extends Error {
    statusCode?: number;
    body?: { __type: string; message?: string; [field: string]: unknown };
  }

  export type Callback<T> = (err?: DynaliteError | null, result?: T) => void;

  export interface KeySchemaElement {
    AttributeName: string;
    KeyType: 'HASH' | 'RANGE';
  }

  export interface SecondaryIndex {
    IndexName: string;
    KeySchema: KeySchemaElement[];
    Projection: { ProjectionType?: string; NonKeyAttributes?: string[] };
  }

  export interface TableDescription {
    TableName: string;
    TableStatus: string;
    KeySchema: KeySchemaElement[];
    AttributeDefinitions: { AttributeName: string; AttributeType: string }[];
    GlobalSecondaryIndexes?: SecondaryIndex[];
    LocalSecondaryIndexes?: SecondaryIndex[];
  }

  /** A key-prefixed view of the one LevelDB (`<name>~<key>`), plus a per-key lock (npm `lock`). */
  export interface SubDb {
    get(key: string, cb: Callback<any>): void;
    put(key: string, value: unknown, cb: Callback<void>): void;
    del(key: string, cb: Callback<void>): void;
    /** Values in key order within `options` (gt/gte/lt/lte on the unprefixed key, reverse, limit); absent on write-only views. */
    createValueStream?(options: Record<string, unknown>): import('node:stream').Readable;
    lock(key: string, fn: (release: <F extends (...args: any[]) => void>(cb: F) => F) => void): void;
  }

  export interface BatchOperation {
    type: 'put' | 'del';
    key: string;
    value?: unknown;
  }

  /** The abstract-level database underneath (Level on disk, MemoryLevel otherwise), JSON values. */
  export interface LevelDatabase {
    get(key: string): Promise<any>;
    put(key: string, value: unknown): Promise<void>;
    del(key: string): Promise<void>;
    /** One atomic write: all operations are applied or none. */
    batch(operations: BatchOperation[]): Promise<void>;
  }

  export interface StoreOptions {
    path?: string;
    createTableMs?: number;
    deleteTableMs?: number;
    updateTableMs?: number;
    maxItemSizeKb?: number;
  }

  export interface Store {
    options: Required<Omit<StoreOptions, 'path'>> & { path?: string; maxItemSize: number };
    db: LevelDatabase;
    tableDb: SubDb;
    getItemDb(tableName: string): SubDb;
    getIndexDb(indexType: 'Local' | 'Global', tableName: string, indexName: string): SubDb;
    getTable(name: string, checkStatus: boolean, cb: Callback<TableDescription>): void;
    lifecycleManager: { gracefulClose(): Promise<void> };
  }

  /** `actions/<operation>.js`: runs a validated request against the store. */
  export type Action = (store: Store, data: any, cb: Callback<any>) => void;

  /** `validations/<operation>.js`: type shapes for checkTypes plus a custom check (returns a message). */
  export interface OperationValidation {
    types: Record<string, unknown>;
    custom?: (data: any, store: Store) => string | undefined;
  }

  export function create(options?: StoreOptions): Store;
  export function validateKey(key: Item, table: TableDescription): DynaliteError | undefined;
  export function validateItem(item: Item, table: TableDescription): DynaliteError | undefined;
  export function validateUpdates(
    attributeUpdates: unknown,
    expressionUpdates: unknown,
    table: TableDescription,
  ): DynaliteError | undefined;
  export function validateKeyPaths(nestedPaths: unknown, table: TableDescription): DynaliteError | undefined;
  /** The item's primary key as dynalite's sortable LevelDB key string. */
  export function createKey(item: Item, table: TableDescription): string;
  export function matchesFilter(item: Item, filter: unknown, conditionalOperator?: string): boolean;
  export function matchesExprFilter(item: Item, expression: unknown): boolean;
  /** Query and Scan's reading loop (replaced by query-table.ts). */
  export let queryTable: unknown;
  export function checkConditional(data: unknown, existingItem: Item | undefined): DynaliteError | null | undefined;
  export function itemSize(item: Item): number;
  export function mapPaths(paths: unknown[], item: Item): Item;
  export function validationError(message: string): DynaliteError;
  /** One comparison of a condition (`=`, `<`, `begins_with`, ...): `value` against `operands`. */
  export function compare(operator: string, value: AttributeValue | undefined, operands: (AttributeValue | undefined)[]): boolean;
  /** The value at a document path (`['a', 0, 'b']`) of `item`, or undefined. */
  export function mapPath(path: unknown[], item: Item): AttributeValue | undefined;
  /** The index entries that change from `existingItem` to `item` in `indexes` of `table` (keys unprefixed, items projected). */
  export function getIndexActions(
    indexes: SecondaryIndex[],
    existingItem: Item | undefined,
    item: Item | undefined,
    table: TableDescription,
  ): { puts: { index: string; key: string; item: Item }[]; deletes: { index: string; key: string }[] };
  /** Writes the index entries that change from `existingItem` to `item`. */
  export function updateIndexes(
    store: Store,
    table: TableDescription,
    existingItem: Item | undefined,
    item: Item | undefined,
    cb: Callback<void>,
  ): void;
}

declare module 'dynalite/validations/index.js' {
  import type { Store } from 'dynalite/db/index.js';
  /** Coerces/prunes a request to `types` (unknown members dropped); throws a SerializationException error. */
  export function checkTypes(data: unknown, types: Record<string, unknown>): any;
  /** Applies the declarative constraints and then `custom`; throws a ValidationException error. */
  export function checkValidations(
    data: unknown,
    types: Record<string, unknown>,
    custom: ((data: any, store: Store) => string | undefined) | undefined,
    store: Store,
  ): void;
  export function toLowerFirst(name: string): string;
}
