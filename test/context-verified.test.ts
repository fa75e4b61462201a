/**
 * `rememberVerified` (src/request/context.ts): a token that verified is not verified again until the
 * earlier of its `exp` and 30 s (with the key set's 30 s cache: a withdrawn key stops within a minute); failures, tokens without `exp` and anonymous calls are never
 * remembered, and the memo is bounded.
 */
import { describe, expect, it } from 'vitest';
import { rememberVerified, VERIFIED_TOKEN_TTL_MS } from '../src/request/context';
import { AuthenticationFailed, type Authenticate, type Principal } from '../src/auth';

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const jwt = (claims: Record<string, unknown>) => `Bearer ${b64url({ alg: 'ES256' })}.${b64url(claims)}.signature`;
const staff: Principal = { kind: 'staff', subject: 's', customerId: undefined };

function counting(verify: (authorization: string | undefined) => Principal): { calls: () => number; authenticate: Authenticate } {
  let calls = 0;
  return {
    calls: () => calls,
    authenticate: async (authorization) => {
      calls += 1;
      return verify(authorization);
    },
  };
}

describe('rememberVerified', () => {
  it('verifies a token once, then answers the same principal until the TTL', async () => {
    let now = 1_000_000;
    const inner = counting(() => staff);
    const authenticate = rememberVerified(inner.authenticate, () => now);
    const header = jwt({ sub: 's', exp: now / 1000 + 3600 });
    expect(await authenticate(header)).toBe(staff);
    expect(await authenticate(header)).toBe(staff);
    expect(inner.calls()).toBe(1);
    now += VERIFIED_TOKEN_TTL_MS;
    expect(await authenticate(header)).toBe(staff);
    expect(inner.calls()).toBe(2);
  });

  it('never past the token’s exp', async () => {
    let now = 1_000_000;
    const inner = counting(() => staff);
    const authenticate = rememberVerified(inner.authenticate, () => now);
    const header = jwt({ sub: 's', exp: now / 1000 + 10 });
    await authenticate(header);
    now += 9_999;
    await authenticate(header);
    expect(inner.calls()).toBe(1);
    now += 1;
    await authenticate(header);
    expect(inner.calls()).toBe(2);
  });

  it('does not remember failures, tokens without a numeric exp, or anonymous calls', async () => {
    const failing = counting(() => {
      throw new AuthenticationFailed('the token signature does not verify');
    });
    const refuse = rememberVerified(failing.authenticate);
    const header = jwt({ sub: 's', exp: Date.now() / 1000 + 3600 });
    await expect(refuse(header)).rejects.toThrow(AuthenticationFailed);
    await expect(refuse(header)).rejects.toThrow(AuthenticationFailed);
    expect(failing.calls()).toBe(2);

    const inner = counting((authorization) => (authorization === undefined ? { kind: 'anonymous' } : staff));
    const authenticate = rememberVerified(inner.authenticate);
    for (const given of [
      undefined,
      undefined,
      'Bearer opaque',
      'Bearer opaque',
      jwt({ sub: 's', exp: 'later' }),
      jwt({ sub: 's', exp: 'later' }),
    ])
      await authenticate(given);
    expect(inner.calls()).toBe(6);
  });

  it('keeps at most a bounded number of tokens, the oldest dropped first', async () => {
    const inner = counting(() => staff);
    const authenticate = rememberVerified(inner.authenticate);
    const exp = Date.now() / 1000 + 3600;
    const first = jwt({ sub: 'first', exp });
    await authenticate(first);
    for (let i = 0; i < 4_096; i++) await authenticate(jwt({ sub: `s${i}`, exp }));
    const calls = inner.calls();
    await authenticate(first);
    expect(inner.calls()).toBe(calls + 1);
  });
});
