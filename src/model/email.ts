/**
 * Email guard: one item per taken email, so uniqueness is a condition on a key (a GSI cannot
 * enforce it). Written and moved only inside the customer's transactions (customer.ts).
 *
 * | pattern    | index | key                                 |
 * | ---------- | ----- | ----------------------------------- |
 * | emailGuard | table | PK = EMAIL#<email NFKC, lower-case>, SK = EMAIL |
 *
 * The email in a key is `canonicalEmail`'s: Unicode NFKC, then lower-case. Two
 * spellings a person reads as the same address (`\u212Aate@…` with the KELVIN SIGN, `kate@…`)
 * must stand as one key, or one email could be taken twice; the guard, the profile's GSI1 key and
 * customerByEmail all use this one function.
 */
import type { Item, Key } from '../dynamo/table';
import { SEP } from './keys';
import { declareEntity, pkOf, skOf } from './declare';

export const EMAIL_PREFIX = `EMAIL${SEP}`;
export const EMAIL_SK = 'EMAIL';

/**
 * The form of an email that stands in keys: Unicode NFKC (compatibility characters become their
 * plain forms: `\u212A` → `K`, fullwidth `＠` → `@`), then lower-case. checkEmail validates the
 * NFKC form, so a fullwidth `＃` is refused like `#`.
 */
export function canonicalEmail(email: string): string {
  return email.normalize('NFKC').toLowerCase();
}

export function emailGuardKey(email: string): Key {
  return { PK: `${EMAIL_PREFIX}${canonicalEmail(email)}`, SK: EMAIL_SK };
}

export function emailGuardItem(email: string, customerId: string): Item {
  return { ...emailGuardKey(email), type: 'EMAIL', customerId };
}

export const emailGuardEntity = declareEntity({
  name: 'Email guard',
  type: 'EMAIL',
  keys: { PK: 'EMAIL#<email NFKC, lower-case>', SK: 'EMAIL' },
  matches: (item) => pkOf(item).startsWith(EMAIL_PREFIX) && skOf(item) === EMAIL_SK,
  requiresGsi1: false,
  expires: false,
});
