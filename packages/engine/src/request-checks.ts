/**
 * More of the requests DynamoDB refuses and dynalite 4.0.0 took, found with cases of ScyllaDB's
 * Alternator suite (written and run against Amazon): merged into request-validation.ts's checks,
 * so every dynalite handler and transaction action gets them. Each is a ValidationException unless
 * said otherwise.
 *
 * - Scan: `TotalSegments` at most 1,000,000 (coral's constraint message); a `Segment` without
 *   `TotalSegments`, Segment 0 included (dynalite tested `data.Segment` for truth).
 * - (A request whose shape validation cannot read, a BatchWriteItem write request that is `null`,
 *   is a SerializationException: errors.ts's `readableShape`.)
 * - `AttributesToGet` names: 1 to 65,535 bytes, as every other attribute name.
 * - A value nested deeper than DynamoDB's 32 levels (the attribute is level 1: at most 31 maps and
 *   lists one inside another), in an item, an AttributeUpdates value or an expression value:
 *   "Nesting Levels have exceeded supported limits: Attributes in the item have nested levels
 *   beyond supported limit" (captured against Amazon by the dynamodb-conformance project;
 *   Alternator's test_exceed_nested_level_a_little). dynalite had no limit.
 * - At most 300 operators and functions in a condition, filter or key condition: "Invalid
 *   ConditionExpression: The expression contains too many operators; operator count: 301"
 *   (Alternator's test_deeply_nested_expression_2 and _4). The nesting such a count allows (149
 *   levels) parses; dynalite, and the engine before, took any number.
 * - `ConditionalOperator` without an `Expected` to combine (absent or empty), in the words of
 *   AWS's own DAX client: "ConditionalOperator can only be used when Filter or Expected has two
 *   or more elements" (test_update_expected_empty, test_conditional_operator_expected_missing;
 *   dynalite evaluated `{}` under OR as false and under AND as true).
 * - Legacy EQ and NE (QueryFilter, ScanFilter, Expected) take a list, a map or a Boolean too
 *   (test_query_filter_eq, _ne: Amazon accepts them, though its API reference lists only scalars
 *   and sets); dynalite's `validateConditions` refused them (`installLegacyEqualityTypes`).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- dynalite's typed request, narrowed by each check
type Data = Record<string, any>;
type Check = (data: Data) => string | undefined;

export const INVALID = 'One or more parameter values were invalid: ';
/** Amazon's bound on attribute names: "less than 64 KB". */
export const MAX_ATTRIBUTE_NAME_BYTES = 65535;
const MAX_TOTAL_SEGMENTS = 1_000_000;

/** Names of `attributes` (an Item, a Key, AttributeUpdates, …): 1 to 65,535 bytes in UTF-8. */
export function attributeNames(attributes: Data | undefined): string | undefined {
  for (const name of Object.keys(attributes ?? {})) {
    if (name === '') return `${INVALID}An attribute name may not be empty`;
    if (Buffer.byteLength(name, 'utf8') > MAX_ATTRIBUTE_NAME_BYTES) {
      return `${INVALID}An attribute name exceeds the maximum size limit of ${MAX_ATTRIBUTE_NAME_BYTES} bytes`;
    }
  }
  return undefined;
}

function segments(data: Data): string | undefined {
  if (typeof data.TotalSegments === 'number' && data.TotalSegments > MAX_TOTAL_SEGMENTS) {
    return `1 validation error detected: Value '${data.TotalSegments}' at 'totalSegments' failed to satisfy constraint: Member must have value less than or equal to ${MAX_TOTAL_SEGMENTS}`;
  }
  if (data.Segment != null && data.TotalSegments == null) {
    return 'The TotalSegments parameter is required but was not present in the request when Segment parameter is present';
  }
  return undefined;
}

function attributesToGet(data: Data): string | undefined {
  const names = ((data.AttributesToGet ?? []) as unknown[]).filter((name): name is string => typeof name === 'string');
  return attributeNames(Object.fromEntries(names.map((name) => [name, true])));
}

/** Maps and lists one inside another in `value`, on its deepest path. */
function containerDepth(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  const { M, L } = value as { M?: Record<string, unknown>; L?: unknown[] };
  const children = M && typeof M === 'object' ? Object.values(M) : Array.isArray(L) ? L : undefined;
  if (!children) return 0;
  let deepest = 0;
  for (const child of children) deepest = Math.max(deepest, containerDepth(child));
  return 1 + deepest;
}

/** DynamoDB's document depth: the attribute is level 1, so 31 containers inside it at most. */
const MAX_CONTAINER_DEPTH = 31;

function nestedTooDeep(values: Record<string, unknown> | undefined): string | undefined {
  for (const value of Object.values(values ?? {})) {
    if (containerDepth(value) > MAX_CONTAINER_DEPTH) {
      return 'Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit';
    }
  }
  return undefined;
}

const expressionValuesDepth: Check = (data) => nestedTooDeep(data.ExpressionAttributeValues);
const updatesDepth: Check = (data) =>
  nestedTooDeep(
    Object.fromEntries(
      Object.entries((data.AttributeUpdates ?? {}) as Record<string, Data>).map(([name, update]) => [name, update?.Value]),
    ),
  );

const MAX_OPERATORS = 300;
/** The parse trees dynalite's validation leaves on a request, and the member each is parsed from. */
const PARSED_CONDITIONS = [
  ['_condition', 'ConditionExpression'],
  ['_filter', 'FilterExpression'],
  ['_keyCondition', 'KeyConditionExpression'],
] as const;

/** Operators (AND, OR, NOT, comparisons, BETWEEN, IN) and functions in a parsed condition. */
function operatorsIn(node: unknown): number {
  if (node === null || typeof node !== 'object' || Array.isArray(node)) return 0; // a path or a value
  const { type, args } = node as { type?: unknown; args?: unknown[] };
  if (typeof type !== 'string' || !Array.isArray(args)) return 0;
  return 1 + args.reduce<number>((sum, arg) => sum + operatorsIn(arg), 0);
}

const operatorCount: Check = (data) => {
  for (const [parsed, member] of PARSED_CONDITIONS) {
    const count = operatorsIn((data[parsed] as { expression?: unknown } | undefined)?.expression);
    if (count > MAX_OPERATORS) return `Invalid ${member}: The expression contains too many operators; operator count: ${MAX_OPERATORS + 1}`;
  }
  return undefined;
};

/** Checks run after dynalite's own (on its parse), per operation. */
export const MORE_CHECKS_AFTER: Record<string, Check[]> = {
  PutItem: [operatorCount],
  UpdateItem: [operatorCount],
  DeleteItem: [operatorCount],
  Query: [operatorCount],
  Scan: [operatorCount],
};

const operatorWithoutExpected: Check = (data) =>
  data.ConditionalOperator != null && Object.keys((data.Expected ?? {}) as Data).length === 0
    ? 'ConditionalOperator can only be used when Filter or Expected has two or more elements'
    : undefined;

/** Checks run before dynalite's own, per operation. */
export const MORE_CHECKS_BEFORE: Record<string, Check[]> = {
  Scan: [segments, attributesToGet, expressionValuesDepth],
  Query: [attributesToGet, expressionValuesDepth],
  GetItem: [attributesToGet],
  PutItem: [(data) => nestedTooDeep(data.Item), expressionValuesDepth, operatorWithoutExpected],
  UpdateItem: [updatesDepth, expressionValuesDepth, operatorWithoutExpected],
  DeleteItem: [expressionValuesDepth, operatorWithoutExpected],
  BatchWriteItem: [
    (data) => {
      for (const requests of Object.values((data.RequestItems ?? {}) as Record<string, Data[]>)) {
        for (const request of Array.isArray(requests) ? requests : []) {
          const message = nestedTooDeep(request?.PutRequest?.Item);
          if (message) return message;
        }
      }
      return undefined;
    },
  ],
};

interface Validations {
  validateConditions(conditions: Data | undefined): string | undefined;
  validateAttributeValue(value: unknown): string | undefined;
}

/** The value types EQ and NE take beyond those dynalite's `validateConditions` lets through. */
const EQUALITY_ONLY_TYPES = new Set(['L', 'M', 'BOOL']);
const wrapped = new WeakSet<object>();

/**
 * Wraps dynalite's exported `validateConditions` (its query, scan and request-validation.ts call it
 * through the module): an EQ or NE whose one value is a list, a map or a Boolean is validated as
 * that value, then checked with a String in its place, so every other rule still applies.
 */
export function installLegacyEqualityTypes(validations: Validations): void {
  if (wrapped.has(validations)) return;
  wrapped.add(validations);
  const validateConditions = validations.validateConditions.bind(validations);
  validations.validateConditions = (conditions) => {
    if (!conditions) return validateConditions(conditions);
    const checked: Data = {};
    for (const [name, condition] of Object.entries(conditions as Record<string, Data>)) {
      const values = condition?.AttributeValueList as unknown[] | undefined;
      const [value] = values ?? [];
      const equality = condition?.ComparisonOperator === 'EQ' || condition?.ComparisonOperator === 'NE';
      if (equality && values?.length === 1 && value && typeof value === 'object' && EQUALITY_ONLY_TYPES.has(Object.keys(value)[0] ?? '')) {
        const invalid = validations.validateAttributeValue(value);
        if (invalid) return invalid;
        checked[name] = { ...condition, AttributeValueList: [{ S: 'checked' }] };
      } else {
        checked[name] = condition;
      }
    }
    return validateConditions(checked);
  };
}
