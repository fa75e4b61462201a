/**
 * Address: items in the customer's collection, sorting right above the profile; read with the
 * customer screen (collection.ts).
 *
 * Key and codec: `addressEntity` (src/model/entity/address.ts): PK = CUSTOMER#<customerId>, SK = PROFILE#ADDRESS#<label>. The label is the address's name
 * within the customer ("home", "work") and its identity: putting a label again replaces it.
 * At most `MAX_ADDRESSES` per customer, because every address rides in the customer screen's one
 * bounded read; the bound is a condition on the profile's `addressLabels` set.
 */
import type { Item, Table } from '../dynamo/table';
import { conflict } from './errors';
import { checkKeyPart, checkText } from './keys';
import { checkCustomerId, customerKeys, customerNotFound } from './customer';
import { writeTransaction } from './guards';
import { cancellationReasons, failedCondition } from './transactions';
import { addressEntity, addressToItem, type AddressRecord } from './entity/address';

export const MAX_ADDRESSES = 10;
export const ADDRESS_PREFIX = addressEntity.templates.SK.prefix;
const LABEL_MAX = 40;

export const addressKeys = {
  key: (customerId: string, label: string) => addressEntity.key({ customerId, label }),
};

// ---- codec (declared with the entity, src/model/entity/address.ts) -------------------------

export { addressFromItem, addressToItem, type AddressRecord } from './entity/address';

// ---- validation ----------------------------------------------------------------------------

export function checkLabel(value: string, field = 'label'): string {
  return checkKeyPart(value, field, LABEL_MAX);
}

export function checkAddress(input: AddressRecord): AddressRecord {
  return {
    label: checkLabel(input.label, 'input.label'),
    street: checkText(input.street, 'input.street', 200),
    city: checkText(input.city, 'input.city', 100),
    postalCode: checkText(input.postalCode, 'input.postalCode', 20),
    country: checkText(input.country, 'input.country', 60),
  };
}

// ---- writes --------------------------------------------------------------------------------

const PUT_ATTEMPTS = 5;

/**
 * putAddress: adds or replaces the address with this label, in one transaction with the profile's
 * label set. NOT_FOUND for a missing customer, CONFLICT when a new label would pass the bound.
 * A new label costs one request, a replaced one two.
 */
export async function putAddress(table: Table, customerId: string, input: AddressRecord): Promise<AddressRecord> {
  const id = checkCustomerId(customerId, 'customerId');
  const address = checkAddress(input);
  for (let attempt = 0; attempt < PUT_ATTEMPTS; attempt++) {
    const profile = await addLabel(table, id, address);
    if (profile === 'added') return address;
    if (profile === undefined) throw customerNotFound(id);
    if (!labelsOf(profile).has(address.label)) {
      if (labelsOf(profile).size >= MAX_ADDRESSES) {
        throw conflict(`customer ${id} already has ${MAX_ADDRESSES} addresses; remove one first`, 'input.label');
      }
      continue; // the set changed between our two reads
    }
    if (await replaceAddress(table, id, address)) return address;
  }
  throw conflict(`the addresses of customer ${id} are being changed concurrently; try again`);
}

/** Adds a new label: 'added', or the profile as it stood when the condition failed (undefined: none). */
async function addLabel(table: Table, customerId: string, address: AddressRecord): Promise<'added' | Item | undefined> {
  try {
    await writeTransaction(table, [
      {
        Update: {
          Key: customerKeys.profile(customerId),
          UpdateExpression: 'ADD addressLabels :labels',
          ConditionExpression:
            'attribute_exists(PK) AND NOT contains(addressLabels, :label) AND (attribute_not_exists(addressLabels) OR size(addressLabels) < :max)',
          ExpressionAttributeValues: { ':labels': new Set([address.label]), ':label': address.label, ':max': MAX_ADDRESSES },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        },
      },
      { Put: { Item: addressToItem(customerId, address) } },
    ]);
    return 'added';
  } catch (error) {
    const reason = cancellationReasons(error)?.[0];
    if (!failedCondition(reason)) throw error;
    return reason?.Item;
  }
}

/** Replaces an address whose label the profile holds; false when the label vanished meanwhile. */
async function replaceAddress(table: Table, customerId: string, address: AddressRecord): Promise<boolean> {
  try {
    await writeTransaction(table, [
      {
        ConditionCheck: {
          Key: customerKeys.profile(customerId),
          ConditionExpression: 'contains(addressLabels, :label)',
          ExpressionAttributeValues: { ':label': address.label },
        },
      },
      { Put: { Item: addressToItem(customerId, address) } },
    ]);
    return true;
  } catch (error) {
    if (failedCondition(cancellationReasons(error)?.[0])) return false;
    throw error;
  }
}

/**
 * removeAddress: true when the address existed and is gone, false when the customer has no such
 * label. NOT_FOUND for a missing customer. One request.
 */
export async function removeAddress(table: Table, customerId: string, label: string): Promise<boolean> {
  const id = checkCustomerId(customerId, 'customerId');
  const checkedLabel = checkLabel(label);
  try {
    await writeTransaction(table, [
      {
        Update: {
          Key: customerKeys.profile(id),
          UpdateExpression: 'DELETE addressLabels :labels',
          ConditionExpression: 'attribute_exists(PK) AND contains(addressLabels, :label)',
          ExpressionAttributeValues: { ':labels': new Set([checkedLabel]), ':label': checkedLabel },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        },
      },
      { Delete: { Key: addressKeys.key(id, checkedLabel) } },
    ]);
    return true;
  } catch (error) {
    const reason = cancellationReasons(error)?.[0];
    if (!failedCondition(reason)) throw error;
    if (!reason?.Item) throw customerNotFound(id);
    return false;
  }
}

function labelsOf(profile: Item): Set<string> {
  const labels = profile.addressLabels;
  return labels instanceof Set ? (labels as Set<string>) : new Set();
}
