/**
 * The request side of TransactWriteItems and TransactGetItems: their shapes in dynalite's
 * `checkTypes` notation, validation without a lock (the shape through dynalite's
 * `checkTypes`/`checkValidations`, each action through the dynalite PutItem/UpdateItem/DeleteItem/
 * GetItem validator it resembles, which also parses its expressions), and the typed requests the
 * executors receive. Also the checks both executors share once tables are loaded: one action per
 * item, and each action's table. Nothing here reads or writes items.
 */
import {
  getTable,
  loadValidation,
  validations,
  type Item,
  type OperationValidation,
  type Store,
  type TableDescription,
} from './dynalite-internals';
import { validationException } from './errors';
import { withoutLeadingPlus } from './number-limits';
import { sizeOf } from './transaction-capacity';

const TABLE_NAME = { type: 'String', notNull: true, regex: '[a-zA-Z0-9_.-]+', lengthGreaterThanOrEqual: 3, lengthLessThanOrEqual: 255 };
const ATTRIBUTE_MAP = { type: 'Map<AttributeValue>', notNull: true, children: 'AttrStruct<ValueStruct>' };
const EXPRESSION_ATTRIBUTES = {
  ExpressionAttributeNames: { type: 'Map<java.lang.String>', children: 'String' },
  ExpressionAttributeValues: { type: 'Map<AttributeValue>', children: 'AttrStruct<ValueStruct>' },
};
const CONDITION_MEMBERS = {
  ConditionExpression: { type: 'String' },
  ...EXPRESSION_ATTRIBUTES,
  ReturnValuesOnConditionCheckFailure: { type: 'String', enum: ['ALL_OLD', 'NONE'] },
};
const RETURN_CONSUMED_CAPACITY = { type: 'String', enum: ['INDEXES', 'TOTAL', 'NONE'] };

const TRANSACT_WRITE_TYPES = {
  ClientRequestToken: { type: 'String', lengthGreaterThanOrEqual: 1, lengthLessThanOrEqual: 36 },
  ReturnConsumedCapacity: RETURN_CONSUMED_CAPACITY,
  ReturnItemCollectionMetrics: { type: 'String', enum: ['SIZE', 'NONE'] },
  TransactItems: {
    type: 'List',
    notNull: true,
    lengthGreaterThanOrEqual: 1,
    lengthLessThanOrEqual: 100,
    children: {
      type: 'ValueStruct<TransactWriteItem>',
      children: {
        ConditionCheck: {
          type: 'FieldStruct<ConditionCheck>',
          children: {
            TableName: TABLE_NAME,
            Key: ATTRIBUTE_MAP,
            ...CONDITION_MEMBERS,
            ConditionExpression: { type: 'String', notNull: true },
          },
        },
        Put: { type: 'FieldStruct<Put>', children: { TableName: TABLE_NAME, Item: ATTRIBUTE_MAP, ...CONDITION_MEMBERS } },
        Delete: { type: 'FieldStruct<Delete>', children: { TableName: TABLE_NAME, Key: ATTRIBUTE_MAP, ...CONDITION_MEMBERS } },
        Update: {
          type: 'FieldStruct<Update>',
          children: {
            TableName: TABLE_NAME,
            Key: ATTRIBUTE_MAP,
            UpdateExpression: { type: 'String', notNull: true },
            ...CONDITION_MEMBERS,
          },
        },
      },
    },
  },
};

const TRANSACT_GET_TYPES = {
  ReturnConsumedCapacity: RETURN_CONSUMED_CAPACITY,
  TransactItems: {
    type: 'List',
    notNull: true,
    lengthGreaterThanOrEqual: 1,
    lengthLessThanOrEqual: 100,
    children: {
      type: 'ValueStruct<TransactGetItem>',
      children: {
        Get: {
          type: 'FieldStruct<Get>',
          notNull: true,
          children: {
            TableName: TABLE_NAME,
            Key: ATTRIBUTE_MAP,
            ProjectionExpression: { type: 'String' },
            ExpressionAttributeNames: EXPRESSION_ATTRIBUTES.ExpressionAttributeNames,
          },
        },
      },
    },
  },
};

export const WRITE_KINDS = ['ConditionCheck', 'Put', 'Delete', 'Update'] as const;
export type WriteKind = (typeof WRITE_KINDS)[number];

/** Each action kind is validated by the dynalite operation it resembles (ConditionCheck: a Delete's members). */
const WRITE_VALIDATIONS: Record<WriteKind, OperationValidation> = {
  ConditionCheck: loadValidation('DeleteItem'),
  Put: loadValidation('PutItem'),
  Delete: loadValidation('DeleteItem'),
  Update: loadValidation('UpdateItem'),
};
const GET_VALIDATION = loadValidation('GetItem');

/** One action as a dynalite single-item request (expressions parsed into `_condition`/`_updates`). */
export interface ItemRequest {
  TableName: string;
  Key?: Item;
  Item?: Item;
  [member: string]: unknown;
}

export interface PlannedWrite {
  kind: WriteKind;
  request: ItemRequest;
  returnOldOnFailure: boolean;
}

export interface TransactWriteRequest {
  writes: PlannedWrite[];
  returnConsumedCapacity: string | undefined;
  clientRequestToken: string | undefined;
  /** The request without its token: what a retry with the same token must repeat. */
  fingerprint: string;
}

export interface TransactGetRequest {
  gets: ItemRequest[];
  returnConsumedCapacity: string | undefined;
}

/** The request as dynalite's `checkTypes` leaves it: the members `types` declares, checked. */
function checkShape<Data>(body: unknown, types: Record<string, unknown>, store: Store): Data {
  const data = validations.checkTypes(withoutLeadingPlus(body), types);
  validations.checkValidations(data, types, undefined, store);
  return data as Data;
}

interface CheckedTransactWrite {
  TransactItems: Record<string, unknown>[];
  ReturnConsumedCapacity?: string;
  ClientRequestToken?: string;
}

interface CheckedTransactGet {
  TransactItems: { Get: ItemRequest }[];
  ReturnConsumedCapacity?: string;
}

/**
 * DynamoDB's 4 MB limit is on the transaction's payload, what the request carries (Puts' items,
 * keys, expression values), not on the stored items it touches: a Delete of fifty 100 KB items is
 * a small transaction and goes through (ScyllaDB's test_transact_write_items_delete_5MB, checked
 * against Amazon). Its message, as DynamoDB words it (doubled prefix included).
 */
const MAX_TRANSACTION_PAYLOAD = 4 * 1024 * 1024;

function rejectOversizedPayload(items: Record<string, unknown>[]): void {
  let payload = 0;
  for (const transactItem of items) {
    for (const kind of WRITE_KINDS) {
      const action = transactItem[kind] as ItemRequest | undefined;
      if (!action) continue;
      payload += sizeOf(action.Item ?? action.Key) + sizeOf(action.ExpressionAttributeValues as Item | undefined);
    }
  }
  if (payload > MAX_TRANSACTION_PAYLOAD) {
    const limit = 'Transaction payload size cannot exceed 4MB. Payload Size:';
    throw validationException(`${limit} : ${limit} ${payload}`);
  }
}

export function validateTransactWrite(body: unknown, store: Store): TransactWriteRequest {
  const data = checkShape<CheckedTransactWrite>(body, TRANSACT_WRITE_TYPES, store);
  rejectOversizedPayload(data.TransactItems);
  const fingerprint = JSON.stringify({ ...data, ClientRequestToken: undefined });
  return {
    writes: data.TransactItems.map((transactItem) => planWrite(transactItem, store)),
    returnConsumedCapacity: data.ReturnConsumedCapacity,
    clientRequestToken: data.ClientRequestToken,
    fingerprint,
  };
}

function planWrite(transactItem: Record<string, unknown>, store: Store): PlannedWrite {
  const kinds = WRITE_KINDS.filter((kind) => transactItem[kind] != null);
  const kind = kinds[0];
  if (kind === undefined || kinds.length > 1) {
    throw validationException('TransactItems can only contain one of Check, Put, Update or Delete');
  }
  const { ReturnValuesOnConditionCheckFailure, ...request } = transactItem[kind] as ItemRequest;
  rejectIfInvalid(WRITE_VALIDATIONS[kind].custom?.(request, store));
  return { kind, request, returnOldOnFailure: ReturnValuesOnConditionCheckFailure === 'ALL_OLD' };
}

export function validateTransactGet(body: unknown, store: Store): TransactGetRequest {
  const data = checkShape<CheckedTransactGet>(body, TRANSACT_GET_TYPES, store);
  const gets = data.TransactItems.map(({ Get }) => {
    const request = { ...Get };
    rejectIfInvalid(GET_VALIDATION.custom?.(request, store));
    return request;
  });
  return { gets, returnConsumedCapacity: data.ReturnConsumedCapacity };
}

function rejectIfInvalid(message: string | undefined): void {
  if (message) throw validationException(message);
}

export function rejectMultipleOperationsOnOneItem(itemIds: string[]): void {
  if (new Set(itemIds).size !== itemIds.length) {
    throw validationException('Transaction request cannot include multiple operations on one item');
  }
}

export async function loadTables(store: Store, names: string[]): Promise<Map<string, TableDescription>> {
  const unique = [...new Set(names)];
  const tables = await Promise.all(unique.map((name) => getTable(store, name)));
  return new Map(unique.map((name, i) => [name, tables[i] as TableDescription]));
}

export function tableOf(tables: Map<string, TableDescription>, request: ItemRequest): TableDescription {
  const table = tables.get(request.TableName);
  if (!table) throw new Error(`table ${request.TableName} was not loaded`);
  return table;
}
