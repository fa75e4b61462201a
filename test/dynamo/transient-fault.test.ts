/**
 * `transientFault` (src/dynamo/errors.ts), the one recogniser of faults of the moment: what the
 * SDK throws after its own retries, as it throws it (names, codes, `$metadata`, causes).
 */
import { describe, expect, it } from 'vitest';
import { transientFault } from '../../src/dynamo/errors';

const named = (name: string, extra: Record<string, unknown> = {}) => Object.assign(new Error(`${name}: details`), { name, ...extra });
const network = (code: string, message = `connect ${code} 127.0.0.1:8000`) => Object.assign(new Error(message), { code });

describe('transientFault', () => {
  it.each(['ProvisionedThroughputExceededException', 'ThrottlingException', 'RequestLimitExceeded'])('%s is throttled', (name) => {
    expect(transientFault(named(name))).toEqual({ reason: 'throttled', retryAfterSeconds: 1 });
  });

  it.each([
    ['ECONNREFUSED', network('ECONNREFUSED')],
    ['ECONNRESET', network('ECONNRESET', 'read ECONNRESET')],
    ['ETIMEDOUT', network('ETIMEDOUT')],
    ['EPIPE', network('EPIPE', 'write EPIPE')],
    ['socket hang up', new Error('socket hang up')],
    ["the SDK's TimeoutError", named('TimeoutError')],
    ['InternalServerError (500)', named('InternalServerError', { $metadata: { httpStatusCode: 500 } })],
    ['ServiceUnavailable (503)', named('ServiceUnavailable', { $metadata: { httpStatusCode: 503 } })],
    ['any 503', named('SomethingElse', { $metadata: { httpStatusCode: 503 } })],
    ['a refused connection to every address (AggregateError)', new AggregateError([network('ECONNREFUSED')], 'connect failed')],
    ['a network error as the cause', new TypeError('fetch failed', { cause: network('ECONNRESET') })],
  ])('%s is unreachable', (_case, error) => {
    expect(transientFault(error)).toEqual({ reason: 'unreachable', retryAfterSeconds: 2 });
  });

  it('a transaction cancelled for a conflict, and a single write refused for one, are contention', () => {
    const cancelled = named('TransactionCanceledException', { CancellationReasons: [{ Code: 'None' }, { Code: 'TransactionConflict' }] });
    expect(transientFault(cancelled)).toEqual({ reason: 'contention', retryAfterSeconds: 1 });
    expect(transientFault(named('TransactionConflictException'))).toEqual({ reason: 'contention', retryAfterSeconds: 1 });
  });

  it('anything else is not transient: a failed condition, a refused request, a bug', () => {
    const failed = named('TransactionCanceledException', { CancellationReasons: [{ Code: 'ConditionalCheckFailed' }, { Code: 'None' }] });
    for (const error of [
      failed,
      named('ConditionalCheckFailedException'),
      named('ValidationException', { $metadata: { httpStatusCode: 400 } }),
      named('ResourceNotFoundException'),
      new TypeError("Cannot read properties of undefined (reading 'PK')"),
      'not an error',
      undefined,
    ]) {
      expect(transientFault(error)).toBeUndefined();
    }
  });
});
