/**
 * Relay global ids (`Node.id`, `Query.node`, `Query.nodes`), derived from the entity declarations:
 * no key format is written down twice.
 *
 * - **Customer and Order keep their ids**, the ULIDs of the contract (stored by clients, carried in
 *   tokens' `custom:customerId`, passed to `customer(id)`, `order(id)`, …). A ULID is unique
 *   across both types, which is all Relay asks of an id; what it cannot tell is which of the two it
 *   names, so `node` reads both candidates in one wave (staff), or only the one the caller could
 *   see (a customer: its own id is its customer, any other id can only be one of its orders).
 * - **Address and Product ids are their item's table key**, as an opaque cursor is:
 *   `base64url(JSON [PK, SK])`. The type comes from the declaration that claims the key and its
 *   parts are checked against the declared shapes (`parseKey`), so an address id names its
 *   customer and label (stable while the address exists, the same after `putAddress` replaces it)
 *   and a product id its SKU. Only the canonical encoding of a key is accepted, so one node has
 *   exactly one id.
 *
 * A malformed id is BAD_USER_INPUT before any read, as a malformed `customer(id)` is.
 */
import type { EntityDeclaration } from './declare';
import { addressEntity } from './entity/address';
import { productEntity } from './entity/product';
import type { AddressRecord } from './entity/address';
import { badInput } from './errors';
import { checkId } from './keys';
import { packToken, unpackToken } from './cursor';

/** The most ids one `nodes` call takes; more is BAD_USER_INPUT before any read. */
export const NODES_MAX = 100;

/** An address as GraphQL serves it: with the customer it belongs to, which its id names. */
export type AddressRef = AddressRecord & { customerId: string };

/** The entities whose GraphQL type has an id made of its table key. */
const KEYED = [addressEntity, productEntity] as const;

/** What a node id names: a bare id (a customer or an order), an address, or a product. */
export type NodeRef =
  { type: 'Customer|Order'; id: string } | { type: 'Address'; customerId: string; label: string } | { type: 'Product'; sku: string };

function keyedId(entity: EntityDeclaration, values: Record<string, unknown>): string {
  const { PK, SK } = entity.key(values);
  return packToken([PK, SK]);
}

/** The id of an address: its table key, so its customer and label. */
export function addressNodeId(address: { customerId: string; label: string }): string {
  return keyedId(addressEntity, address);
}

/** The id of a product: its table key, so its SKU. */
export function productNodeId(product: { sku: string }): string {
  return keyedId(productEntity, product);
}

/** What `id` names; throws BAD_USER_INPUT (naming `field`) for anything else. */
export function decodeNodeId(id: string, field = 'id'): NodeRef {
  if (id.length === 26) return { type: 'Customer|Order', id: checkId(id, field) };
  const invalid = () => badInput(`${field} is not an id of this API`, field);
  const key = unpackToken(id);
  if (!Array.isArray(key) || key.length !== 2 || !key.every((part) => typeof part === 'string')) throw invalid();
  const [PK, SK] = key as [string, string];
  for (const entity of KEYED) {
    const parts = entity.matches({ PK, SK }) ? entity.parseKey({ PK, SK }) : undefined;
    // Canonical only: the id this key encodes to, and no other spelling of it.
    if (!parts || keyedId(entity, parts) !== id) continue;
    if (entity === addressEntity) return { type: 'Address', customerId: parts.customerId!, label: parts.label! };
    return { type: 'Product', sku: parts.sku! };
  }
  throw invalid();
}

/** The refs of a `nodes` list: at most NODES_MAX, every one well-formed, or BAD_USER_INPUT before any read. */
export function decodeNodeIds(ids: readonly string[], field = 'ids'): NodeRef[] {
  if (ids.length > NODES_MAX) throw badInput(`${field} may hold at most ${NODES_MAX} ids`, field);
  return ids.map((id, i) => decodeNodeId(id, `${field}[${i}]`));
}
