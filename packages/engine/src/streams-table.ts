/**
 * DynamoDB Streams, the table side: `StreamSpecification` on CreateTable and UpdateTable, and
 * `StreamSpecification`/`LatestStreamArn`/`LatestStreamLabel` in every table description.
 *
 * dynalite 4.0.0 knows nothing of streams: its validation drops `StreamSpecification` (its
 * UpdateTable check even names an `UpdateStreamEnabled` no request can carry, so an UpdateTable
 * with only a StreamSpecification failed). Here the member is taken out of the request, checked as
 * DynamoDB checks it, the rest goes to dynalite's handler, and the stream is opened or closed in
 * streams.ts's log (stored beside the table, never inside dynalite's table record, which dynalite's
 * own status timers rewrite). DynamoDB's messages, as it answers them:
 * - enabling without a view type: "One or more parameter values were invalid: If stream is being
 *   enabled then UpdateViewType is required";
 * - disabling with one: "... If stream is being disabled, then UpdateViewType must not be specified";
 * - enabling a table whose stream is enabled (same view type or not): "Table already has an
 *   enabled stream: TableName: <name>"; disabling a table without one: "Table has no stream to
 *   disable: TableName: <name>".
 * After disabling, a table's description has no StreamSpecification but keeps LatestStreamArn and
 * LatestStreamLabel; enabling again makes a new stream (new ARN). DeleteTable closes the stream.
 * Unlike DynamoDB, the table does not pass through UPDATING when its stream changes.
 */
import { getTable, validations, type Store } from './dynalite-internals';
import { CORAL_VALIDATE, DYNAMODB_ERROR, apiError, validationException } from './errors';
import type { OperationHandler } from './operation';
import { STREAM_VIEW_TYPES, type KeySchemaElement, type StreamLog, type StreamViewType } from './streams';

interface StreamSpecification {
  StreamEnabled: boolean;
  StreamViewType?: StreamViewType;
}

const SPEC_TYPES = {
  StreamSpecification: {
    type: 'FieldStruct<StreamSpecification>',
    children: {
      StreamEnabled: { type: 'Boolean', notNull: true },
      StreamViewType: { type: 'String', enum: STREAM_VIEW_TYPES },
    },
  },
};

/** The request members UpdateTable changes a table with, besides its stream. */
const OTHER_UPDATES = [
  'ProvisionedThroughput',
  'GlobalSecondaryIndexUpdates',
  'SSESpecification',
  'ReplicaUpdates',
  'AttributeDefinitions',
];

type Handlers = Map<string, OperationHandler>;

/** Wraps dynalite's CreateTable, UpdateTable, DescribeTable and DeleteTable handlers in `handlers` with streams. */
export function addStreamsToTableHandlers(handlers: Handlers, store: Store, log: StreamLog): void {
  const wrap = (operation: string, make: (inner: OperationHandler) => OperationHandler) => {
    const inner = handlers.get(operation);
    if (!inner) throw new Error(`no ${operation} handler to add streams to`);
    handlers.set(operation, make(inner));
  };
  const withFields = async (result: unknown, member: 'TableDescription' | 'Table', tableName: string) => {
    await log.ready;
    const body = result as Record<string, Record<string, unknown> | undefined>;
    const description = body[member];
    // A copy: dynalite's status timers write its own object back to the table record later.
    return description ? { ...body, [member]: { ...description, ...log.tableFields(tableName) } } : result;
  };

  wrap('CreateTable', (inner) => ({
    exclusive: true,
    validate: (body) => {
      const spec = validateSpecification(body, store);
      const data = inner.validate(withoutSpecification(body)) as Record<string, unknown>;
      return { data, spec };
    },
    execute: async ({ data, spec }: { data: { TableName: string }; spec?: StreamSpecification }) => {
      const result = (await inner.execute(data)) as { TableDescription: { KeySchema: KeySchemaElement[] } };
      if (spec?.StreamEnabled) await log.enable(data.TableName, spec.StreamViewType as StreamViewType, result.TableDescription.KeySchema);
      return withFields(result, 'TableDescription', data.TableName);
    },
  }));

  wrap('UpdateTable', (inner) => ({
    exclusive: true,
    validate: (body) => {
      const spec = validateSpecification(body, store);
      const rest = withoutSpecification(body);
      const others = OTHER_UPDATES.filter((member) => rest[member] !== undefined);
      if (spec && (rest.ProvisionedThroughput !== undefined || rest.BillingMode === 'PROVISIONED')) {
        throw validationException('Cannot modify stream status while updating table IOPS');
      }
      if (!spec || others.length || rest.BillingMode !== undefined) return { data: inner.validate(rest), spec, others: true };
      const data = validations.checkTypes(rest, { TableName: TABLE_NAME });
      validations.checkValidations(data, { TableName: TABLE_NAME }, undefined, store);
      return { data, spec, others: false };
    },
    execute: async ({ data, spec, others }: { data: { TableName: string }; spec?: StreamSpecification; others: boolean }) => {
      if (spec) {
        await log.ready;
        const table = await getTable(store, data.TableName, false);
        if (table.TableStatus !== 'ACTIVE') {
          throw apiError(
            `${DYNAMODB_ERROR}ResourceInUseException`,
            `Attempt to change a resource which is still in use: Table is being ${table.TableStatus === 'CREATING' ? 'created' : 'updated'}: ${data.TableName}`,
          );
        }
        if (spec.StreamEnabled && log.enabledStream(data.TableName)) {
          throw validationException(`Table already has an enabled stream: TableName: ${data.TableName}`);
        }
        if (!spec.StreamEnabled && !log.enabledStream(data.TableName)) {
          throw validationException(`Table has no stream to disable: TableName: ${data.TableName}`);
        }
      }
      const result = others ? await inner.execute(data) : { TableDescription: await getTable(store, data.TableName, false) };
      if (spec?.StreamEnabled) {
        const { KeySchema } = await getTable(store, data.TableName, false);
        await log.enable(data.TableName, spec.StreamViewType as StreamViewType, KeySchema);
      } else if (spec) {
        await log.disable(data.TableName);
      }
      return withFields(result, 'TableDescription', data.TableName);
    },
  }));

  wrap('DescribeTable', (inner) => ({
    ...inner,
    execute: async (data: { TableName: string }) => withFields(await inner.execute(data), 'Table', data.TableName),
  }));

  wrap('DeleteTable', (inner) => ({
    ...inner,
    execute: async (data: { TableName: string }) => {
      const result = await withFields(await inner.execute(data), 'TableDescription', data.TableName);
      await log.disable(data.TableName, true); // the stream ends; a new table of that name starts without one
      return result;
    },
  }));
}

const TABLE_NAME = { type: 'String', required: true, tableName: true, regex: '[a-zA-Z0-9_.-]+' };

/** The request's StreamSpecification, checked as DynamoDB checks it (undefined when absent). */
function validateSpecification(body: Record<string, unknown>, store: Store): StreamSpecification | undefined {
  if (body.StreamSpecification === undefined) return undefined;
  const data = validations.checkTypes({ StreamSpecification: body.StreamSpecification }, SPEC_TYPES) as {
    StreamSpecification?: StreamSpecification;
  };
  validations.checkValidations(data, SPEC_TYPES, undefined, store);
  const spec = data.StreamSpecification;
  if (!spec) return undefined;
  if (spec.StreamEnabled && spec.StreamViewType === undefined) {
    throw invalid('If stream is being enabled then UpdateViewType is required');
  }
  if (!spec.StreamEnabled && spec.StreamViewType !== undefined) {
    throw invalid('If stream is being disabled, then UpdateViewType must not be specified');
  }
  return spec;
}

function invalid(reason: string) {
  return apiError(`${CORAL_VALIDATE}ValidationException`, `One or more parameter values were invalid: ${reason}`);
}

function withoutSpecification(body: Record<string, unknown>): Record<string, unknown> {
  const { StreamSpecification: _spec, ...rest } = body;
  return rest;
}
