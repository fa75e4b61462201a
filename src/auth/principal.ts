/**
 * Who is calling. Made once per request from its bearer token (tokens.ts) and read by the access
 * policy (src/schema/access.ts); the model never sees it, only the ids the policy let through.
 */
import { createHash } from 'node:crypto';

export type Principal = Anonymous | Customer | Staff;

/** No token: may see nothing but the schema (in development). */
export interface Anonymous {
  kind: 'anonymous';
}

/**
 * A signed-in customer. `customerId` comes from the token's customer claim when it has one, else
 * it is derived from the issuer and subject (`customerIdOf`), so a token signed in with no
 * customer yet names the customer its `createCustomer` will make, and `me` is one read either way.
 */
export interface Customer {
  kind: 'customer';
  subject: string;
  customerId: string;
}

/** Staff (the groups claim holds the staff group): may do everything. */
export interface Staff {
  kind: 'staff';
  subject: string;
  /** The staff member's own customer, when the token names one. */
  customerId: string | undefined;
}

export const ANONYMOUS: Anonymous = { kind: 'anonymous' };

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * The customer id of an identity that has no customer claim: 26 Crockford base-32 characters of
 * SHA-256(issuer, subject), shaped like a ULID (first character 0..7) so it passes every id check.
 * Stable for the identity, unguessable from outside it, and one per identity: `createCustomer`
 * conditions the profile on not existing, so an identity makes its customer once.
 */
export function customerIdOf(issuer: string, subject: string): string {
  const digest = createHash('sha256').update(`${issuer}\u0000${subject}`).digest();
  let id = CROCKFORD[(digest[0] as number) & 7] as string;
  for (let i = 1; i < 26; i++) id += CROCKFORD[(digest[i] as number) & 31];
  return id;
}

/** The customer whose data this principal owns, if any. */
export function ownCustomerId(principal: Principal): string | undefined {
  return principal.kind === 'anonymous' ? undefined : principal.customerId;
}

/** The key a principal's quota is kept under: its identity, or its client address when anonymous. */
export function quotaKey(principal: Principal, clientAddress: string): string {
  return principal.kind === 'anonymous' ? `address:${clientAddress}` : `subject:${principal.subject}`;
}
