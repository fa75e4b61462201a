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

/** Checks run before dynalite's own, per operation. */
export const MORE_CHECKS_BEFORE: Record<string, Check[]> = {
  Scan: [segments, attributesToGet],
  Query: [attributesToGet],
  GetItem: [attributesToGet],
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
