/**
 * Quotas per principal (src/admission/quotas.ts, taken by src/admission/pipeline.ts): token buckets of read cost
 * and items written, refused with HTTP 429, RATE_LIMITED and Retry-After before any DynamoDB
 * request. The buckets refill continuously, so the tests use operations whose cost dwarfs what
 * refills while they run, and assert counts, never timings.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type GraphQLResponse, type Stack } from './support/stack';
import { bearer, tokens } from './support/auth';
import { dataOf, expectError } from './support/graphql';
import { DEFAULT_WRITE_SHARDS, newId } from '../src/model';
import { TokenBuckets } from '../src/admission/quotas';
import { ANONYMOUS, quotaKey } from '../src/auth/principal';
import { statusPageReadBound } from '../src/model/status-index';

/** The status page's read cost: statusPageReadBound(100, DEFAULT_WRITE_SHARDS) (4 × 101 at 4 shards), plus 2 object fields. */
const COST = statusPageReadBound(100, DEFAULT_WRITE_SHARDS) + 2;
/** A read quota that admits one status page and not two. */
const READS_PER_MINUTE = Math.floor(1.5 * COST);
const STATUS_PAGE = '{ ordersByStatus(status: PAID, first: 100) { nodes { id } } }';
/** A staff token of its own subject: a principal with fresh buckets. */
const staffAs = async (subject: string) => bearer(await tokens.signed({ sub: `${subject}-${newId()}`, 'cognito:groups': ['staff'] }));
const createThree = () =>
  `mutation { ${[0, 1, 2].map((i) => `c${i}: createCustomer(input: { name: "Q${i}", email: "${newId()}@example.com" }) { id }`).join(' ')} }`;

describe('quotas per principal', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ quotas: { readsPerMinute: READS_PER_MINUTE, writesPerMinute: 10 } });
  });
  afterAll(async () => {
    await stack?.close();
  });

  function expectRateLimited(response: GraphQLResponse, quota: 'read' | 'write') {
    expect(response.status).toBe(429);
    expectError(response, 'RATE_LIMITED');
    expect(response.data).toBeUndefined();
    expect(response.errors![0]!.extensions).toMatchObject({ quota });
    const retryAfter = Number(response.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(response.errors![0]!.extensions!.retryAfterSeconds).toBe(retryAfter);
    expect(response.headers.get('cache-control')).toBe('no-store');
  }

  it('refuses reads over the quota with 429, RATE_LIMITED and Retry-After, before any request; principals have their own buckets', async () => {
    const a = await staffAs('reader-a');
    const admitted = await stack.measure(STATUS_PAGE, undefined, a);
    expect(admitted.response.status).toBe(200);
    expect(admitted.response.extensions?.cost?.estimate).toBe(COST);
    const refused = await stack.measure(STATUS_PAGE, undefined, a);
    expectRateLimited(refused.response, 'read');
    expect(refused.response.errors![0]!.message).toMatch(
      new RegExp(`^Read quota exceeded: this operation needs ${COST} read cost units of ${READS_PER_MINUTE} a minute; retry in \\d+ s$`),
    );
    expect(refused.wire).toEqual([]);
    // Another principal has a bucket of its own.
    expect(dataOf(await stack.gql(STATUS_PAGE, undefined, await staffAs('reader-b'))).ordersByStatus.nodes).toEqual([]);
  });

  it('refuses writes over the quota, counted in items written, before any request', async () => {
    const writer = await staffAs('writer-a');
    const first = await stack.measure(createThree(), undefined, writer);
    expect(Object.keys(dataOf(first.response))).toHaveLength(3);
    expect(first.response.extensions?.cost?.writes).toBe(9); // 3 × (profile + email guard + its CustomerCreated event)
    const before = (await stack.items()).length;
    const refused = await stack.measure(createThree(), undefined, writer);
    expectRateLimited(refused.response, 'write');
    expect(refused.response.errors![0]!.message).toMatch(
      /^Write quota exceeded: this operation needs 9 items written of 10 a minute; retry in \d+ s$/,
    );
    expect(refused.wire).toEqual([]);
    expect((await stack.items()).length).toBe(before);
    expect(Object.keys(dataOf(await stack.gql(createThree(), undefined, await staffAs('writer-b'))))).toHaveLength(3);
  });

  it('keys anonymous callers by their address', () => {
    expect(quotaKey(ANONYMOUS, '203.0.113.7')).toBe('address:203.0.113.7');
    expect(quotaKey({ kind: 'customer', subject: 's-1', customerId: newId() }, '203.0.113.7')).toBe('subject:s-1');
  });

  it('says an operation larger than a whole bucket can never pass, with no Retry-After', async () => {
    const small = await startStack({ quotas: { readsPerMinute: 100, writesPerMinute: 1000 } });
    try {
      const response = await small.measure(STATUS_PAGE);
      expect(response.response.status).toBe(429);
      expectError(response.response, 'RATE_LIMITED');
      expect(response.response.errors![0]!.message).toMatch(
        new RegExp(`needs ${COST} read cost units, more than a whole minute's read quota of 100: it can never pass`),
      );
      expect(response.response.headers.get('retry-after')).toBeNull();
      expect(response.wire).toEqual([]);
    } finally {
      await small.close();
    }
  });
});

describe('token buckets', () => {
  const clock = () => {
    let now = 1_000_000;
    return {
      now: () => now,
      advance: (ms: number) => {
        now += ms;
      },
    };
  };

  it('hold a minute, refill continuously and say when enough is back', () => {
    const time = clock();
    const buckets = new TokenBuckets(600, { now: time.now }); // 10 a second
    expect(buckets.check('a', 600)).toEqual({ ok: true });
    buckets.take('a', 600);
    expect(buckets.check('a', 1)).toEqual({ ok: false, retryAfterSeconds: 1 });
    expect(buckets.check('a', 250)).toEqual({ ok: false, retryAfterSeconds: 25 });
    time.advance(25_000);
    expect(buckets.check('a', 250)).toEqual({ ok: true });
    time.advance(10 * 60_000);
    expect(buckets.check('a', 601)).toEqual({ ok: false, retryAfterSeconds: undefined }); // never: more than a bucket
    expect(buckets.check('a', 600)).toEqual({ ok: true }); // refilled to one minute's worth, no more
    expect(buckets.check('b', 600)).toEqual({ ok: true });
  });

  it('keep memory bounded: full buckets go first, then the least recently used', () => {
    const time = clock();
    const buckets = new TokenBuckets(60, { now: time.now, maxKeys: 100 });
    for (let i = 0; i < 1000; i++) buckets.take(`k${i}`, 60);
    expect(buckets.size).toBeLessThanOrEqual(100);
    expect(buckets.check('k999', 1).ok).toBe(false); // the most recent caller is still held to its quota
    time.advance(60_000); // every bucket is full again
    buckets.take('late', 1);
    for (let i = 0; i < 50; i++) buckets.take(`n${i}`, 60);
    expect(buckets.size).toBeLessThanOrEqual(100);
  });
});
