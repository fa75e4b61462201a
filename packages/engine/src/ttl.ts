/**
 * UpdateTimeToLive and DescribeTimeToLive (dynalite has no UpdateTimeToLive, and its
 * DescribeTimeToLive always answers DISABLED).
 *
 * The setting is stored per table in the same LevelDB as the tables (key `engine-ttl~<table>`, a
 * prefix no dynalite sub-database uses), so an on-disk engine keeps it across restarts; DeleteTable
 * drops it. Expired items are deleted by the TTL sweeper (ttl-sweeper.ts) when the engine runs one:
 * Amazon deletes them in the background, typically within days of expiry, so code must not rely on
 * deletion anyway (filter on the TTL attribute when it matters). The status goes straight to
 * ENABLED/DISABLED, without Amazon's ENABLING/DISABLING.
 */
import { getTable, validations, type Store } from './dynalite-internals';
import { DYNAMODB_ERROR, apiError, validationException } from './errors';
import type { OperationHandler } from './operation';

interface TimeToLiveSetting {
  AttributeName: string;
}

const TABLE_NAME = { type: 'String', required: true, tableName: true, regex: '[a-zA-Z0-9_.-]+' };

const UPDATE_TYPES = {
  TableName: TABLE_NAME,
  TimeToLiveSpecification: {
    type: 'FieldStruct<TimeToLiveSpecification>',
    notNull: true,
    children: {
      AttributeName: { type: 'String', notNull: true, lengthGreaterThanOrEqual: 1, lengthLessThanOrEqual: 255 },
      Enabled: { type: 'Boolean', notNull: true },
    },
  },
};

const DESCRIBE_TYPES = { TableName: TABLE_NAME };

interface UpdateRequest {
  TableName: string;
  TimeToLiveSpecification: { AttributeName: string; Enabled: boolean };
}

export function createTimeToLiveHandlers(store: Store): Record<'UpdateTimeToLive' | 'DescribeTimeToLive', OperationHandler> {
  const validate = (types: Record<string, unknown>) => (body: unknown) => {
    const data = validations.checkTypes(body, types);
    validations.checkValidations(data, types, undefined, store);
    return data;
  };
  return {
    UpdateTimeToLive: {
      exclusive: true,
      validate: validate(UPDATE_TYPES),
      execute: (request: UpdateRequest) => updateTimeToLive(store, request),
    },
    DescribeTimeToLive: {
      exclusive: false,
      validate: validate(DESCRIBE_TYPES),
      execute: (request: { TableName: string }) => describeTimeToLive(store, request.TableName),
    },
  };
}

/** Removes a table's TTL setting (after DeleteTable). */
export async function forgetTimeToLive(store: Store, tableName: string): Promise<void> {
  await store.db.del(settingKey(tableName));
}

async function updateTimeToLive(store: Store, request: UpdateRequest): Promise<unknown> {
  const { TableName, TimeToLiveSpecification: spec } = request;
  const table = await getTable(store, TableName, false);
  if (table.TableStatus !== 'ACTIVE') {
    throw apiError(
      `${DYNAMODB_ERROR}ResourceInUseException`,
      `Attempt to change a resource which is still in use: Table is being ${table.TableStatus === 'CREATING' ? 'created' : 'updated'}: ${TableName}`,
    );
  }
  const current = await readSetting(store, TableName);
  if (spec.Enabled) {
    if (current?.AttributeName === spec.AttributeName) throw validationException('TimeToLive is already enabled');
    if (current) {
      throw validationException(`TimeToLive is active on a different AttributeName: current AttributeName is ${current.AttributeName}`);
    }
    const setting: TimeToLiveSetting = { AttributeName: spec.AttributeName };
    await store.db.put(settingKey(TableName), setting);
  } else {
    if (!current) throw validationException('TimeToLive is already disabled');
    // Amazon requires the enabled attribute's name to disable it.
    if (current.AttributeName !== spec.AttributeName) {
      throw validationException(`TimeToLive is active on a different AttributeName: current AttributeName is ${current.AttributeName}`);
    }
    await store.db.del(settingKey(TableName));
  }
  return { TimeToLiveSpecification: { AttributeName: spec.AttributeName, Enabled: spec.Enabled } };
}

async function describeTimeToLive(store: Store, tableName: string): Promise<unknown> {
  await getTable(store, tableName, false);
  const setting = await readSetting(store, tableName);
  return {
    TimeToLiveDescription: setting
      ? { TimeToLiveStatus: 'ENABLED', AttributeName: setting.AttributeName }
      : { TimeToLiveStatus: 'DISABLED' },
  };
}

function settingKey(tableName: string): string {
  return `engine-ttl~${tableName}`;
}

async function readSetting(store: Store, tableName: string): Promise<TimeToLiveSetting | undefined> {
  const value: unknown = await store.db.get(settingKey(tableName));
  return value && typeof value === 'object' && 'AttributeName' in value ? (value as TimeToLiveSetting) : undefined;
}
