/**
 * The DynamoDB Streams API (target prefix `DynamoDBStreams_20120810.`), over streams.ts's log:
 * ListStreams, DescribeStream, GetShardIterator and GetRecords, with DynamoDB Streams' limits and
 * errors (ValidationException for a malformed ARN, iterator or sequence number;
 * ResourceNotFoundException for an unknown stream or shard; ExpiredIteratorException for an
 * iterator older than 15 minutes; TrimmedDataAccessException for a position whose records are past
 * the 24-hour retention). Every stream has one shard. All four read: they share the engine's lock.
 *
 * A shard iterator is `<stream ARN>|1|<base64url JSON>`: the shard, the position (after or at a
 * sequence number, or the trim horizon, resolved when read) and when it was issued.
 */
import { getTable, validations, type Store } from './dynalite-internals';
import { DYNAMODB_ERROR, apiError, validationException } from './errors';
import type { OperationHandler } from './operation';
import type { StoredRecord, StreamLog, StreamMeta } from './streams';

const ITERATOR_LIFETIME_MS = 15 * 60 * 1000;
const MAX_RECORDS = 1000;
const MAX_RESPONSE_BYTES = 1024 * 1024;
const ARN_PATTERN = /^arn:aws[a-z-]*:dynamodb:[a-z0-9-]+:\d*:table\/[a-zA-Z0-9_.-]{3,255}\/stream\/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}$/;

const STREAM_ARN = { type: 'String', lengthGreaterThanOrEqual: 37, lengthLessThanOrEqual: 1024 };
const SHARD_ID = { type: 'String', lengthGreaterThanOrEqual: 28, lengthLessThanOrEqual: 65 };

const TYPES = {
  ListStreams: {
    TableName: { type: 'String', tableName: true, regex: '[a-zA-Z0-9_.-]+' },
    Limit: { type: 'Integer', greaterThanOrEqual: 1, lessThanOrEqual: 100 },
    ExclusiveStartStreamArn: STREAM_ARN,
  },
  DescribeStream: {
    StreamArn: { ...STREAM_ARN, required: true },
    Limit: { type: 'Integer', greaterThanOrEqual: 1, lessThanOrEqual: 100 },
    ExclusiveStartShardId: SHARD_ID,
    // A filter filters by its Type, and CHILD_SHARDS (its only type) names the parent shard: a
    // ShardFilter without either filters nothing, and DynamoDB Streams refuses it.
    ShardFilter: {
      type: 'FieldStruct<ShardFilter>',
      children: { Type: { type: 'String', notNull: true, enum: ['CHILD_SHARDS'] }, ShardId: { ...SHARD_ID, notNull: true } },
    },
  },
  GetShardIterator: {
    StreamArn: { ...STREAM_ARN, required: true },
    ShardId: { ...SHARD_ID, required: true },
    ShardIteratorType: { type: 'String', required: true, enum: ['TRIM_HORIZON', 'LATEST', 'AT_SEQUENCE_NUMBER', 'AFTER_SEQUENCE_NUMBER'] },
    SequenceNumber: { type: 'String', lengthGreaterThanOrEqual: 21, lengthLessThanOrEqual: 40 },
  },
  GetRecords: {
    ShardIterator: { type: 'String', required: true, lengthGreaterThanOrEqual: 1, lengthLessThanOrEqual: 2048 },
    Limit: { type: 'Integer', greaterThanOrEqual: 1, lessThanOrEqual: MAX_RECORDS },
  },
};

type Operation = keyof typeof TYPES;

/** Where an iterator reads from: after (or at) a sequence number, or the oldest record kept. */
type Position = { after: string } | { at: string } | { trimHorizon: true };

interface Iterator {
  arn: string;
  shardId: string;
  position: Position;
  issuedAt: number;
}

function checkShardIteratorRequest(data: { ShardIteratorType: string; SequenceNumber?: string }): string | undefined {
  const needsNumber = data.ShardIteratorType.endsWith('_SEQUENCE_NUMBER');
  if (needsNumber && data.SequenceNumber === undefined) {
    return `Must specify a SequenceNumber when ShardIteratorType is ${data.ShardIteratorType}`;
  }
  if (!needsNumber && data.SequenceNumber !== undefined) {
    return `Must not specify a SequenceNumber when ShardIteratorType is ${data.ShardIteratorType}`;
  }
  return undefined;
}

export function createStreamsHandlers(store: Store, log: StreamLog): Record<Operation, OperationHandler> {
  const validate = (operation: Operation) => (body: unknown) => {
    const data = validations.checkTypes(body, TYPES[operation]);
    validations.checkValidations(data, TYPES[operation], operation === 'GetShardIterator' ? checkShardIteratorRequest : undefined, store);
    return data;
  };
  const handler = (operation: Operation, execute: (data: never) => Promise<unknown>): OperationHandler => ({
    exclusive: false,
    validate: validate(operation),
    execute: async (data: never) => {
      await log.ready;
      await log.sweep();
      return execute(data);
    },
  });
  return {
    ListStreams: handler('ListStreams', (data) => listStreams(store, log, data)),
    DescribeStream: handler('DescribeStream', (data) => describeStream(log, data)),
    GetShardIterator: handler('GetShardIterator', (data) => getShardIterator(log, data)),
    GetRecords: handler('GetRecords', (data) => getRecords(log, data)),
  };
}

async function listStreams(store: Store, log: StreamLog, data: { TableName?: string; Limit?: number; ExclusiveStartStreamArn?: string }) {
  let streams = log.listed();
  if (data.TableName !== undefined) {
    const name = data.TableName;
    streams = streams.filter((stream) => stream.tableName === name);
    if (!streams.length) await getTable(store, name, false); // ResourceNotFoundException for a table that is not there
  }
  if (data.ExclusiveStartStreamArn !== undefined) {
    const start = parseArn(data.ExclusiveStartStreamArn);
    streams = streams.filter((stream) =>
      stream.tableName === start.tableName ? stream.label > start.label : stream.tableName > start.tableName,
    );
  }
  const limit = data.Limit ?? 100;
  const page = streams.slice(0, limit);
  return {
    Streams: page.map((stream) => ({ StreamArn: stream.arn, TableName: stream.tableName, StreamLabel: stream.label })),
    ...(streams.length > limit ? { LastEvaluatedStreamArn: page[page.length - 1]?.arn } : {}),
  };
}

async function describeStream(
  log: StreamLog,
  data: { StreamArn: string; Limit?: number; ExclusiveStartShardId?: string; ShardFilter?: { Type?: string } },
) {
  const stream = findStream(log, data.StreamArn);
  const shard = {
    ShardId: stream.shardId,
    SequenceNumberRange: { StartingSequenceNumber: stream.start, ...(stream.end ? { EndingSequenceNumber: stream.end } : {}) },
  };
  // The one shard has no parent and no children.
  const listed = data.ShardFilter?.Type === 'CHILD_SHARDS' || (data.ExclusiveStartShardId ?? '') >= stream.shardId ? [] : [shard];
  return {
    StreamDescription: {
      StreamArn: stream.arn,
      StreamLabel: stream.label,
      StreamStatus: stream.end ? 'DISABLED' : 'ENABLED',
      StreamViewType: stream.viewType,
      CreationRequestDateTime: stream.createdAt / 1000,
      TableName: stream.tableName,
      KeySchema: stream.keySchema,
      Shards: listed,
    },
  };
}

async function getShardIterator(
  log: StreamLog,
  data: { StreamArn: string; ShardId: string; ShardIteratorType: string; SequenceNumber?: string },
) {
  const stream = findStream(log, data.StreamArn);
  if (data.ShardId !== stream.shardId) {
    throw apiError(`${DYNAMODB_ERROR}ResourceNotFoundException`, `Requested resource not found: Shard does not exist`);
  }
  let position: Position;
  if (data.ShardIteratorType === 'TRIM_HORIZON') position = { trimHorizon: true };
  else if (data.ShardIteratorType === 'LATEST') position = { after: stream.end ?? log.lastSequence };
  else {
    const sequence = data.SequenceNumber as string;
    if (!/^\d+$/.test(sequence)) throw validationException(`Invalid SequenceNumber: ${sequence}`);
    const last = BigInt(stream.end ?? log.lastSequence);
    if (BigInt(sequence) < BigInt(stream.start) || BigInt(sequence) > last) {
      throw validationException(`Invalid SequenceNumber for shard ${stream.shardId}: ${sequence} is outside its range`);
    }
    if (stream.trimmedThrough !== undefined && BigInt(sequence) <= BigInt(stream.trimmedThrough)) throw trimmed(stream);
    position = data.ShardIteratorType === 'AT_SEQUENCE_NUMBER' ? { at: sequence } : { after: sequence };
  }
  return { ShardIterator: encodeIterator({ arn: stream.arn, shardId: stream.shardId, position, issuedAt: log.now() }) };
}

async function getRecords(log: StreamLog, data: { ShardIterator: string; Limit?: number }) {
  const iterator = decodeIterator(data.ShardIterator);
  const now = log.now();
  if (now - iterator.issuedAt > ITERATOR_LIFETIME_MS) {
    throw apiError(
      `${DYNAMODB_ERROR}ExpiredIteratorException`,
      `Iterator expired. The iterator was created at time ${new Date(iterator.issuedAt).toUTCString()} while right now it is ${new Date(now).toUTCString()} which is further in the future than the tolerated delay of ${ITERATOR_LIFETIME_MS} milliseconds.`,
    );
  }
  const stream = findStream(log, iterator.arn);
  if (iterator.shardId !== stream.shardId) throw validationException('Invalid ShardIterator');
  const limit = data.Limit ?? MAX_RECORDS;
  const horizon = now - log.retentionMs;
  const { position } = iterator;

  let from = 'after' in position ? position.after : 'at' in position ? position.at : stream.start;
  let inclusive = 'at' in position;
  if (!('trimHorizon' in position) && stream.trimmedThrough !== undefined && BigInt(from) <= BigInt(stream.trimmedThrough)) {
    if (inclusive || BigInt(from) < BigInt(stream.trimmedThrough)) throw trimmed(stream);
  }
  const records: StoredRecord[] = [];
  let bytes = 0;
  let exhausted = false;
  while (!exhausted && records.length < limit && bytes < MAX_RESPONSE_BYTES) {
    const page = await log.read(stream, from, inclusive, limit - records.length, MAX_RESPONSE_BYTES - bytes);
    exhausted = page.end;
    for (const stored of page.records) {
      from = stored.record.dynamodb.SequenceNumber;
      inclusive = false;
      if (stored.at < horizon) {
        if ('trimHorizon' in position && !records.length) continue; // the trim horizon is past it
        throw trimmed(stream);
      }
      records.push(stored);
      bytes += stored.record.dynamodb.SizeBytes;
    }
  }
  const next: Position = records.length
    ? { after: records[records.length - 1]!.record.dynamodb.SequenceNumber }
    : 'trimHorizon' in position && from === stream.start
      ? position
      : inclusive
        ? { at: from }
        : { after: from };
  // A closed shard read to its end has no next iterator.
  const ended = stream.end !== undefined && exhausted;
  return {
    Records: records.map((stored) => stored.record),
    ...(ended ? {} : { NextShardIterator: encodeIterator({ arn: stream.arn, shardId: stream.shardId, position: next, issuedAt: now }) }),
  };
}

function parseArn(arn: string): { tableName: string; label: string } {
  if (!ARN_PATTERN.test(arn)) throw validationException(`Invalid StreamArn: ${arn}`);
  const [, tableName = '', label = ''] = /table\/([^/]+)\/stream\/(.+)$/.exec(arn) ?? [];
  return { tableName, label };
}

function findStream(log: StreamLog, arn: string): StreamMeta {
  parseArn(arn);
  const stream = log.stream(arn);
  if (!stream) throw apiError(`${DYNAMODB_ERROR}ResourceNotFoundException`, `Requested resource not found: Stream: ${arn} not found`);
  return stream;
}

function trimmed(stream: StreamMeta) {
  return apiError(
    `${DYNAMODB_ERROR}TrimmedDataAccessException`,
    `The requested position of shard ${stream.shardId} is beyond the trim horizon: its records are older than the retention period`,
  );
}

function encodeIterator(iterator: Iterator): string {
  const state = { s: iterator.shardId, p: iterator.position, t: iterator.issuedAt };
  return `${iterator.arn}|1|${Buffer.from(JSON.stringify(state)).toString('base64url')}`;
}

function decodeIterator(text: string): Iterator {
  const parts = text.split('|');
  try {
    if (parts.length !== 3 || parts[1] !== '1' || !ARN_PATTERN.test(parts[0] as string)) throw new Error('not an iterator');
    const state = JSON.parse(Buffer.from(parts[2] as string, 'base64url').toString('utf8')) as { s: string; p: Position; t: number };
    const position = state.p;
    const valid =
      typeof state.s === 'string' &&
      typeof state.t === 'number' &&
      position !== null &&
      typeof position === 'object' &&
      (('after' in position && /^\d+$/.test(position.after)) ||
        ('at' in position && /^\d+$/.test(position.at)) ||
        'trimHorizon' in position);
    if (!valid) throw new Error('not an iterator');
    return { arn: parts[0] as string, shardId: state.s, position, issuedAt: state.t };
  } catch {
    throw validationException('Invalid ShardIterator');
  }
}
