/**
 * Email guard: one item per taken email, so uniqueness is a condition on a key (a GSI cannot
 * enforce it). Written and moved only inside the customer's transactions (customer.ts).
 *
 * Keys and codec: `emailGuardEntity` (src/model/entity/customer.ts).
 *
 * The email in a key is `canonicalEmail`'s: Unicode NFKC, then lower-case. Two
 * spellings a person reads as the same address (`\u212Aate@…` with the KELVIN SIGN, `kate@…`)
 * must stand as one key, or one email could be taken twice; the guard, the profile's GSI1 key and
 * customerByEmail all use this one function.
 */
import type { Key } from '../dynamo/table';
import { emailGuardEntity } from './entity/customer';

export { canonicalEmail } from './entity/parts';
export { emailGuardFromItem, emailGuardItem } from './entity/customer';

export const EMAIL_PREFIX = emailGuardEntity.templates.PK.prefix;
export const EMAIL_SK = emailGuardEntity.templates.SK.text;

export function emailGuardKey(email: string): Key {
  return emailGuardEntity.key({ email });
}
