/**
 * Email guard: one item per taken email, so uniqueness is a condition on a key (a GSI cannot
 * enforce it). Written and moved only inside the customer's transactions (customer.ts).
 *
 * | pattern    | index | key                                 |
 * | ---------- | ----- | ----------------------------------- |
 * | emailGuard | table | PK = EMAIL#<email lower-case>, SK = EMAIL |
 */
import type { Item, Key } from '../dynamo/table';
import { SEP } from './keys';
import { declareEntity, pkOf, skOf } from './declare';

export const EMAIL_PREFIX = `EMAIL${SEP}`;
export const EMAIL_SK = 'EMAIL';

export function emailGuardKey(email: string): Key {
  return { PK: `${EMAIL_PREFIX}${email.toLowerCase()}`, SK: EMAIL_SK };
}

export function emailGuardItem(email: string, customerId: string): Item {
  return { ...emailGuardKey(email), type: 'EMAIL', customerId };
}

export const emailGuardEntity = declareEntity({
  name: 'Email guard',
  type: 'EMAIL',
  keys: { PK: 'EMAIL#<email lower-case>', SK: 'EMAIL' },
  matches: (item) => pkOf(item).startsWith(EMAIL_PREFIX) && skOf(item) === EMAIL_SK,
  requiresGsi1: false,
  expires: false,
});
