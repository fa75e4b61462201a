/**
 * Address: items in the customer's collection, sorting right above the profile; read with the
 * customer screen (collection.ts).
 *
 * Key and codec: `addressEntity` (src/model/entity/address.ts): PK = CUSTOMER#<customerId>, SK = PROFILE#ADDRESS#<label>. The label is the address's name
 * within the customer ("home", "work") and its identity: putting a label again replaces it.
 * At most `MAX_ADDRESSES` per customer, because every address rides in the customer screen's one
 * bounded read; the bound is a condition on the profile's `addressLabels` set.
 */
import type { Item, Table, TransactAction } from '../dynamo/table';
import type { EventActor } from './events';
import { eventPut, outboxEvent, sequenceOf, sequenceStep } from './outbox';
import { conflict } from './errors';
import { checkKeyPart, checkText } from './keys';
import { checkCustomerId, customerEvent, customerKeys, customerNotFound, profileItem } from './customer';
import { optimisticWrite } from './guards';
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

/**
 * putAddress: adds or replaces the address with this label. Reads the profile (one consistent
 * GetItem: its label set and `eventSeq`), then one transaction: the profile's label set (a new
 * label, within the bound) and sequence, conditioned on the sequence read, the address, and its
 * AddressPut event. Two requests, a new label or a replaced one alike. A concurrent write of the
 * customer cancels it; the cancellation returns the profile as it now stands (ALL_OLD) and it goes
 * on from that without reading. NOT_FOUND for a missing customer, CONFLICT when a new label would
 * pass the bound (after the read alone: nothing written).
 */
export async function putAddress(table: Table, customerId: string, input: AddressRecord, actor: EventActor): Promise<AddressRecord> {
  const id = checkCustomerId(customerId, 'customerId');
  const address = checkAddress(input);
  // customerProfile's consistent read: its label set and sequence condition the transaction.
  return optimisticWrite<AddressRecord>(
    table,
    await profileItem(table, id, true),
    (profile) => {
      if (!profile) throw customerNotFound(id);
      const labels = labelsOf(profile);
      const adds = !labels.has(address.label);
      if (adds && labels.size >= MAX_ADDRESSES) {
        throw conflict(`customer ${id} already has ${MAX_ADDRESSES} addresses; remove one first`, 'input.label');
      }
      return { write: putAddressActions(profile, id, address, adds, actor), then: address };
    },
    busy(id),
  );
}

/**
 * removeAddress: true when the address existed and is gone, false when the customer has no such
 * label (after the read alone: nothing written, no event). NOT_FOUND for a missing customer. Reads
 * the profile, then one transaction: the label set and sequence, the address's Delete, and its
 * AddressRemoved event. Two requests.
 */
export async function removeAddress(table: Table, customerId: string, label: string, actor: EventActor): Promise<boolean> {
  const id = checkCustomerId(customerId, 'customerId');
  const checkedLabel = checkLabel(label);
  // customerProfile's consistent read: its label set and sequence condition the transaction.
  return optimisticWrite<boolean>(
    table,
    await profileItem(table, id, true),
    (profile) => {
      if (!profile) throw customerNotFound(id);
      if (!labelsOf(profile).has(checkedLabel)) return { done: false };
      return { write: removeAddressActions(profile, id, checkedLabel, actor), then: true };
    },
    busy(id),
  );
}

const busy = (id: string) => `the addresses of customer ${id} are being changed concurrently; try again`;

/**
 * putAddress's transaction from the profile as read: its label set (`adds`: a new label) and
 * sequence, conditioned on the sequence read, the address, and AddressPut.
 */
export function putAddressActions(profile: Item, id: string, address: AddressRecord, adds: boolean, actor: EventActor): TransactAction[] {
  const step = sequenceStep(sequenceOf(profile));
  const event = outboxEvent(customerEvent('AddressPut', id, { label: address.label }), step.values[':seq'] as number, actor);
  return [
    {
      Update: {
        Key: customerKeys.profile(id),
        // Every change of the label set moves the sequence, so the condition on the sequence read
        // vouches for the set read: the bound checked on it holds at commit.
        UpdateExpression: adds ? `ADD addressLabels :labels SET ${step.set}` : `SET ${step.set}`,
        ConditionExpression: `attribute_exists(PK) AND ${step.condition}`,
        ExpressionAttributeValues: { ...step.values, ...(adds ? { ':labels': new Set([address.label]) } : {}) },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    },
    { Put: { Item: addressToItem(id, address) } },
    eventPut(event),
  ];
}

/** removeAddress's transaction from the profile as read: its label set and sequence, the address's Delete, AddressRemoved. */
export function removeAddressActions(profile: Item, id: string, label: string, actor: EventActor): TransactAction[] {
  const step = sequenceStep(sequenceOf(profile));
  const event = outboxEvent(customerEvent('AddressRemoved', id, { label }), step.values[':seq'] as number, actor);
  return [
    {
      Update: {
        Key: customerKeys.profile(id),
        UpdateExpression: `DELETE addressLabels :labels SET ${step.set}`,
        ConditionExpression: `attribute_exists(PK) AND ${step.condition}`,
        ExpressionAttributeValues: { ...step.values, ':labels': new Set([label]) },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    },
    { Delete: { Key: addressKeys.key(id, label) } },
    eventPut(event),
  ];
}

function labelsOf(profile: Item): Set<string> {
  const labels = profile.addressLabels;
  return labels instanceof Set ? (labels as Set<string>) : new Set();
}
