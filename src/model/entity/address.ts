/**
 * Address: keys, lifecycle and codec, declared once. Operations: src/model/address.ts.
 */
import type { Item } from '../../dynamo/table';
import { defineEntity } from '../declare';
import { str } from '../keys';
import { customerId, keyText } from './parts';

export const addressEntity = defineEntity({
  name: 'Address',
  type: 'ADDRESS',
  graphql: 'Address',
  parts: { customerId, label: { shape: keyText(40) } },
  table: { PK: 'CUSTOMER#{customerId}', SK: 'PROFILE#ADDRESS#{label}' },
  expires: false,
  codec: { toItem: addressToItem, fromItem: addressFromItem },
});

export function addressToItem(customerId: string, address: AddressRecord): Item {
  return { ...addressEntity.itemKeys({ customerId, label: address.label }), customerId, ...address };
}

export function addressFromItem(item: Item) {
  return {
    label: str(item, 'label'),
    street: str(item, 'street'),
    city: str(item, 'city'),
    postalCode: str(item, 'postalCode'),
    country: str(item, 'country'),
  };
}
export type AddressRecord = ReturnType<typeof addressFromItem>;
