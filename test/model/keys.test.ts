import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  addressKeys,
  checkAddress,
  checkEmail,
  checkId,
  checkTimestamp,
  compareUtf8,
  customerKeys,
  DomainError,
  emailGuardKey,
  idempotencyKeys,
  newId,
  orderKeys,
  productKeys,
} from '../../src/model';

const codeOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    return error instanceof DomainError ? error.code : `not a domain error: ${String(error)}`;
  }
  return 'no error';
};

describe('the key grammar', () => {
  it('lays out a customer collection so profile and addresses sort above every order', () => {
    const id = newId();
    const sks = [
      orderKeys.summary({ customerId: id, placedAt: '2026-09-01T10:00:00.000Z', id: newId() }).SK,
      orderKeys.summary({ customerId: id, placedAt: '9999-12-31T23:59:59.999Z', id: newId() }).SK,
      customerKeys.profile(id).SK,
      addressKeys.key(id, 'home').SK,
      addressKeys.key(id, ' ').SK,
    ];
    const descending = [...sks].sort().reverse();
    expect(descending.slice(0, 3).every((sk) => sk.startsWith('PROFILE'))).toBe(true);
    expect(descending.slice(3).every((sk) => sk.startsWith('ORDER#'))).toBe(true);
  });

  it('orders summaries by time, then id, as text', () => {
    const a = orderKeys.summarySk('2026-09-01T10:00:00.000Z', newId());
    const b = orderKeys.summarySk('2026-10-01T09:00:00.000Z', newId());
    expect([b, a].sort()).toEqual([a, b]);
  });

  it('keys every entity under its own prefix', () => {
    const id = newId();
    expect(customerKeys.profile(id)).toEqual({ PK: `CUSTOMER#${id}`, SK: 'PROFILE' });
    expect(orderKeys.header(id)).toEqual({ PK: `ORDER#${id}`, SK: 'ORDER' });
    expect(orderKeys.line(id, 7)).toEqual({ PK: `ORDER#${id}`, SK: 'LINE#0007' });
    expect(emailGuardKey('Ana@Example.com')).toEqual({ PK: 'EMAIL#ana@example.com', SK: 'EMAIL' });
    expect(emailGuardKey('\u212Aate@Example.com')).toEqual({ PK: 'EMAIL#kate@example.com', SK: 'EMAIL' });
    expect(idempotencyKeys.key(id, 'k-1')).toEqual({ PK: `IDEMPOTENCY#${id}#k-1`, SK: 'IDEMPOTENCY' });
    expect(productKeys.key('MUG-1')).toEqual({ PK: 'CATALOG', SK: 'PRODUCT#MUG-1' });
  });
});

describe('input validation', () => {
  it('accepts generated ids, in either letter case, and refuses anything else', () => {
    const id = newId();
    expect(checkId(id.toLowerCase(), 'id')).toBe(id);
    expect(codeOf(() => checkId(`${id}#`, 'id'))).toBe('BAD_USER_INPUT');
    expect(codeOf(() => checkId('CUSTOMER#1', 'id'))).toBe('BAD_USER_INPUT');
    expect(codeOf(() => checkId('', 'id'))).toBe('BAD_USER_INPUT');
    expect(codeOf(() => checkId(id + id, 'id'))).toBe('BAD_USER_INPUT');
  });

  it('normalises timestamps to the fixed-width UTC form that sorts as text', () => {
    expect(checkTimestamp('2026-09-01T10:00:00Z', 'at')).toBe('2026-09-01T10:00:00.000Z');
    expect(checkTimestamp('2026-09-01T10:00Z', 'at')).toBe('2026-09-01T10:00:00.000Z');
    expect(codeOf(() => checkTimestamp('2026-09-01', 'at'))).toBe('BAD_USER_INPUT');
    expect(codeOf(() => checkTimestamp('2026-02-30T10:00:00Z', 'at'))).toBe('BAD_USER_INPUT');
    expect(codeOf(() => checkTimestamp('1999-12-31T23:59:59Z', 'at'))).toBe('BAD_USER_INPUT');
  });

  it('refuses emails that are malformed or hold the key separator', () => {
    expect(checkEmail(' ana@example.com ')).toBe('ana@example.com');
    expect(codeOf(() => checkEmail('ana@example'))).toBe('BAD_USER_INPUT');
    expect(codeOf(() => checkEmail('a#na@example.com'))).toBe('BAD_USER_INPUT');
    // Checked after NFKC: compatibility forms become what they look like, then the shape is checked.
    expect(checkEmail('\u212Aate＠example.com')).toBe('Kate@example.com');
    expect(codeOf(() => checkEmail('a＃na@example.com'))).toBe('BAD_USER_INPUT');
  });

  it('refuses an address label holding the key separator', () => {
    const address = { label: 'home', street: 's', city: 'c', postalCode: 'p', country: 'ES' };
    expect(checkAddress(address)).toEqual(address);
    expect(codeOf(() => checkAddress({ ...address, label: 'a#b' }))).toBe('BAD_USER_INPUT');
  });
});

describe('compareUtf8: sort keys in DynamoDB order', () => {
  const bytes = (a: string, b: string) => Math.sign(Buffer.compare(Buffer.from(a), Buffer.from(b)));

  it('orders as the UTF-8 bytes do, where UTF-16 code units disagree', () => {
    // U+FF5E (3 UTF-8 bytes) sorts below U+1F600 (4 bytes, a surrogate pair in UTF-16): '<' says the opposite.
    const [bmp, astral] = ['ORDER#\uff5e', 'ORDER#\u{1f600}'];
    expect(bmp < astral).toBe(false);
    expect(Math.sign(compareUtf8(bmp, astral))).toBe(-1);
    expect(Math.sign(compareUtf8(astral, bmp))).toBe(1);
    expect(compareUtf8('PROFILE', 'PROFILE#ADDRESS#a')).toBeLessThan(0);
    expect(compareUtf8('a', 'a')).toBe(0);
  });

  it('agrees with Buffer.compare on any two strings', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), (a, b) => {
        expect(Math.sign(compareUtf8(a, b))).toBe(bytes(a, b));
      }),
      { numRuns: 2000 },
    );
  });
});
