/**
 * Request checks DynamoDB makes and dynalite 4.0.0 does not, added to dynalite's own validation of
 * each operation (`withRequestValidation`, applied by dynalite-internals.ts's `loadValidation`, so
 * the engine's dynalite handlers and every TransactWriteItems/TransactGetItems action get them).
 * Each refusal is a ValidationException with the message Amazon answers:
 *
 * - Attribute names (Item, Key, AttributeUpdates, ExclusiveStartKey, BatchWriteItem/BatchGetItem
 *   items and keys): empty, or 64 KB or longer in UTF-8 ("Attribute names must be at least one
 *   character long and less than 64 KB"). An empty ExpressionAttributeNames value: "…contains
 *   invalid value: Empty attribute name for key #n" (dynalite answered "…is not defined").
 * - Key attribute names of a table or index, and names projected by an index: 1–255 characters
 *   (the API's length constraint on AttributeName and NonKeyAttributes), as coral reports it.
 * - DeleteItem's ReturnValues: only NONE or ALL_OLD (dynalite checked it only for PutItem).
 * - Legacy AttributeUpdates' Action: ADD, PUT or DELETE (dynalite took anything as PUT).
 * - `list_append` directly inside `list_append`: refused by DynamoDB after parsing ("The function
 *   is not allowed to be used this way in an expression"); `list_append(if_not_exists(…), …)` is
 *   allowed. (A nested function as if_not_exists' first operand dynalite already refuses.)
 * - Query/Scan `Select` against ProjectionExpression/AttributesToGet and IndexName. Query carries
 *   coral's "1 validation error detected: " prefix on these, Scan does not (as Amazon answers).
 * - Legacy `Expected` operands of a type their ComparisonOperator does not take.
 * - Secondary indexes on CreateTable and in UpdateTable's `Create`: INCLUDE needs NonKeyAttributes,
 *   only INCLUDE takes them, no duplicates among them; one definition per attribute; UpdateTable's
 *   new index keys need a definition in the request's AttributeDefinitions (dynalite dropped that
 *   member unread).
 * More, found with ScyllaDB's Alternator suite, are request-checks.ts's.
 */
import { createRequire } from 'node:module';
import type { OperationValidation } from 'dynalite/db/index.js';
import { INVALID, MAX_ATTRIBUTE_NAME_BYTES, MORE_CHECKS_AFTER, MORE_CHECKS_BEFORE, attributeNames } from './request-checks';

// dynalite's validations module, required when a check runs (it is loaded by then; importing it
// from dynalite-internals.ts would be a cycle, since that module loads this one first).
const requireDynalite = createRequire(import.meta.url);

/** The API's bound on key attribute names and index-projected names. */
export const MAX_KEY_ATTRIBUTE_NAME_LENGTH = 255;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- dynalite's typed request, narrowed by each check
type Data = Record<string, any>;
type Check = (data: Data) => string | undefined;

const NAME = { type: 'String', notNull: true, lengthGreaterThanOrEqual: 1, lengthLessThanOrEqual: MAX_KEY_ATTRIBUTE_NAME_LENGTH };
const ATTRIBUTE_DEFINITIONS = {
  type: 'List',
  children: {
    type: 'ValueStruct<AttributeDefinition>',
    children: { AttributeName: NAME, AttributeType: { type: 'String', notNull: true, enum: ['B', 'N', 'S'] } },
  },
};

/** dynalite's validation of `operation` with the checks above: constraints on its types, and checks before and after its own. */
export function withRequestValidation(operation: string, validation: OperationValidation): OperationValidation {
  const before = [...(CHECKS_BEFORE[operation] ?? []), ...(MORE_CHECKS_BEFORE[operation] ?? [])];
  const after = [...(CHECKS_AFTER[operation] ?? []), ...(MORE_CHECKS_AFTER[operation] ?? [])];
  if (!before.length && !after.length && !TYPE_CONSTRAINTS[operation]) return validation;
  return {
    types: TYPE_CONSTRAINTS[operation]?.(structuredClone(validation.types)) ?? validation.types,
    custom: (data: Data, store) => {
      for (const check of before) {
        const message = check(data);
        if (message) return message;
      }
      const message = validation.custom?.(data, store);
      if (message) return message;
      for (const check of after) {
        const later = check(data);
        if (later) return later;
      }
      return undefined;
    },
  };
}

/* Constraints the API declares on members dynalite leaves unconstrained. */

const TYPE_CONSTRAINTS: Record<string, (types: Data) => Data> = {
  UpdateItem: (types) => {
    types.AttributeUpdates.children.children.Action = { type: 'String', enum: ['ADD', 'PUT', 'DELETE'] };
    return types;
  },
  CreateTable: (types) => {
    types.AttributeDefinitions.children.children.AttributeName = NAME;
    types.KeySchema.children.children.AttributeName = NAME;
    for (const indexes of ['GlobalSecondaryIndexes', 'LocalSecondaryIndexes']) constrainIndex(types[indexes].children.children);
    return types;
  },
  UpdateTable: (types) => {
    const create = types.GlobalSecondaryIndexUpdates.children.children.Create.children;
    constrainIndex(create);
    // Optional, as the API declares it: required on a provisioned table only (index-updates.ts checks it).
    delete create.ProvisionedThroughput.notNull;
    return { ...types, AttributeDefinitions: ATTRIBUTE_DEFINITIONS };
  },
};

function constrainIndex(index: Data): void {
  index.KeySchema.children.children.AttributeName = NAME;
  index.Projection.children.NonKeyAttributes.children = NAME;
}

/* Checks on the typed request: before dynalite's (so its messages do not pre-empt Amazon's), and after (on its parse). */

const CHECKS_BEFORE: Record<string, Check[]> = {
  PutItem: [(data) => attributeNames(data.Item), expressionNames],
  GetItem: [(data) => attributeNames(data.Key), expressionNames],
  DeleteItem: [(data) => attributeNames(data.Key), expressionNames, deleteReturnValues],
  UpdateItem: [(data) => attributeNames(data.Key) ?? attributeNames(data.AttributeUpdates), expressionNames],
  Query: [(data) => attributeNames(data.ExclusiveStartKey), expressionNames, (data) => selection(data, '1 validation error detected: ')],
  Scan: [(data) => attributeNames(data.ExclusiveStartKey), expressionNames, (data) => selection(data, '')],
  BatchWriteItem: [batchWriteNames],
  BatchGetItem: [batchGetNames],
  CreateTable: [(data) => definitions(data.AttributeDefinitions) ?? createTableIndexes(data)],
  UpdateTable: [updateTableIndexes],
};

const CHECKS_AFTER: Record<string, Check[]> = {
  PutItem: [expectedOperandTypes],
  DeleteItem: [expectedOperandTypes],
  UpdateItem: [nestedListAppend, expectedOperandTypes],
};

/**
 * Legacy `Expected` operands of a type their ComparisonOperator does not take (BEGINS_WITH a
 * Number, CONTAINS a set, LE a set, ...): "ComparisonOperator <op> is not valid for <type>
 * AttributeValue type". Amazon checks Expected as it checks QueryFilter and ScanFilter; dynalite
 * checked only those two, so its check (`validateConditions`) is run on Expected too.
 */
function expectedOperandTypes(data: Data): string | undefined {
  const compared = Object.entries((data.Expected ?? {}) as Record<string, Data>).filter(([, condition]) => condition.ComparisonOperator);
  if (compared.length === 0) return undefined;
  const conditions = Object.fromEntries(
    compared.map(([name, condition]) => [
      name,
      {
        ComparisonOperator: condition.ComparisonOperator,
        AttributeValueList: condition.AttributeValueList ?? (condition.Value ? [condition.Value] : []),
      },
    ]),
  );
  const validations = requireDynalite('dynalite/validations/index.js') as { validateConditions(conditions: Data): string | undefined };
  return validations.validateConditions(conditions);
}

function expressionNames(data: Data): string | undefined {
  for (const [placeholder, name] of Object.entries((data.ExpressionAttributeNames ?? {}) as Record<string, string>)) {
    if (name === '') return `ExpressionAttributeNames contains invalid value: Empty attribute name for key ${placeholder}`;
    if (Buffer.byteLength(name, 'utf8') > MAX_ATTRIBUTE_NAME_BYTES) {
      return `ExpressionAttributeNames contains invalid value: Attribute name exceeds the maximum size limit of ${MAX_ATTRIBUTE_NAME_BYTES} bytes for key ${placeholder}`;
    }
  }
  return undefined;
}

function deleteReturnValues(data: Data): string | undefined {
  if (data.ReturnValues && data.ReturnValues !== 'ALL_OLD' && data.ReturnValues !== 'NONE')
    return 'ReturnValues can only be ALL_OLD or NONE';
  return undefined;
}

function batchWriteNames(data: Data): string | undefined {
  for (const requests of Object.values((data.RequestItems ?? {}) as Record<string, Data[]>)) {
    for (const request of requests) {
      const message = attributeNames(request.PutRequest?.Item) ?? attributeNames(request.DeleteRequest?.Key);
      if (message) return message;
    }
  }
  return undefined;
}

function batchGetNames(data: Data): string | undefined {
  for (const request of Object.values((data.RequestItems ?? {}) as Record<string, Data>)) {
    for (const key of (request.Keys ?? []) as Data[]) {
      const message = attributeNames(key);
      if (message) return message;
    }
    const message = expressionNames(request);
    if (message) return message;
  }
  return undefined;
}

/** Select against the request's projection and index; `prefix` is coral's, which Query carries and Scan does not. */
function selection(data: Data, prefix: string): string | undefined {
  const projection =
    data.ProjectionExpression != null ? 'ProjectionExpression' : data.AttributesToGet != null ? 'AttributesToGet' : undefined;
  const select = data.Select as string | undefined;
  if (select === 'SPECIFIC_ATTRIBUTES' && !projection) {
    return `${prefix}Must specify the AttributesToGet or ProjectionExpression when choosing to get SPECIFIC_ATTRIBUTES`;
  }
  if (select === 'ALL_PROJECTED_ATTRIBUTES' && data.IndexName == null) {
    return 'ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName';
  }
  if (projection && (select === 'ALL_ATTRIBUTES' || select === 'ALL_PROJECTED_ATTRIBUTES' || select === 'COUNT')) {
    return `${prefix}Cannot specify the ${projection} when choosing to get ${select === 'COUNT' ? 'only the Count' : select}`;
  }
  return undefined;
}

interface IndexDefinition {
  IndexName: string;
  KeySchema: { AttributeName: string }[];
  Projection: { ProjectionType?: string; NonKeyAttributes?: string[] };
}

function definitions(attributeDefinitions: { AttributeName: string }[] | undefined): string | undefined {
  const seen = new Set<string>();
  for (const { AttributeName } of attributeDefinitions ?? []) {
    if (seen.has(AttributeName)) return `${INVALID}Duplicate AttributeName in AttributeDefinitions: ${AttributeName}`;
    seen.add(AttributeName);
  }
  return undefined;
}

function createTableIndexes(data: Data): string | undefined {
  const indexes = [...(data.GlobalSecondaryIndexes ?? []), ...(data.LocalSecondaryIndexes ?? [])] as IndexDefinition[];
  for (const index of indexes) {
    const message = projection(index);
    if (message) return message;
  }
  return undefined;
}

function updateTableIndexes(data: Data): string | undefined {
  const defined = (data.AttributeDefinitions ?? []) as { AttributeName: string }[];
  const duplicate = definitions(defined);
  if (duplicate) return duplicate;
  for (const update of (data.GlobalSecondaryIndexUpdates ?? []) as { Create?: IndexDefinition }[]) {
    const index = update.Create;
    if (!index) continue;
    const message = projection(index);
    if (message) return message;
    const keys = index.KeySchema.map((element) => element.AttributeName);
    const names = defined.map((definition) => definition.AttributeName);
    if (keys.some((key) => !names.includes(key))) {
      return `${INVALID}Some index key attributes are not defined in AttributeDefinitions. Keys: [${keys.join(', ')}], AttributeDefinitions: [${names.join(', ')}]`;
    }
  }
  return undefined;
}

/** An index's Projection: NonKeyAttributes with INCLUDE and only then, without duplicates. */
function projection(index: IndexDefinition): string | undefined {
  const { ProjectionType: type, NonKeyAttributes: nonKey } = index.Projection ?? {};
  if (type === 'INCLUDE' && !nonKey?.length) return `${INVALID}ProjectionType is INCLUDE, but NonKeyAttributes is not specified`;
  if (nonKey && type !== 'INCLUDE') return `${INVALID}ProjectionType is ${type}, but NonKeyAttributes is specified`;
  const duplicate = nonKey?.find((name, i) => nonKey.indexOf(name) !== i);
  if (duplicate !== undefined) return `${INVALID}Duplicate value in NonKeyAttributes: ${duplicate}, IndexName: ${index.IndexName}`;
  return undefined;
}

interface UpdateValue {
  type?: string;
  name?: string;
  args?: unknown[];
}

/** dynalite's parsed UpdateExpression (`_updates`): a list_append with a list_append operand is refused. */
function nestedListAppend(data: Data): string | undefined {
  const sections = (data._updates?.sections ?? []) as { type: string; val?: UpdateValue }[];
  const nests = (value: unknown): boolean => {
    const node = value as UpdateValue | undefined;
    if (!node || Array.isArray(node) || !node.args) return false;
    if (node.name === 'list_append' && node.args.some((arg) => (arg as UpdateValue | undefined)?.name === 'list_append')) return true;
    return node.args.some(nests);
  };
  if (sections.some((section) => section.type === 'set' && nests(section.val))) {
    return 'Invalid UpdateExpression: The function is not allowed to be used this way in an expression; function: list_append';
  }
  return undefined;
}
