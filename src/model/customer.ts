/**
 * Customer: the profile item and the item collection it heads. Its keys are declared in
 * entity/customer.ts (`customerEntity`), its access patterns on the functions below (`pattern`); both
 * are listed in docs/access-patterns.md. Collection reads are in collection.ts.
 *
 * Key layout of the collection `CUSTOMER#<id>` (SK, ascending):
 *   ORDER#<placedAt ISO>#<orderId>   order summaries (order.ts)
 *   PROFILE                           this file
 *   PROFILE#ADDRESS#<label>           addresses (address.ts)
 * Profile and addresses sort above every order, so a descending Query meets them first, then the
 * newest orders: a `Limit` bounds the customer screen however many orders exist.
 *
 * The profile carries `addressLabels` (a string set) so the address bound is enforced by a
 * condition on one item, and `eventSeq`, the customer aggregate's outbox sequence (outbox.ts):
 * every write of the customer (its profile, its addresses, its orders) is conditioned on it. GSI1 on the profile: GSI1PK = EMAIL#<email NFKC, lower-case>, GSI1SK =
 * CUSTOMER#<id>. Email uniqueness is guarded by a separate item (email.ts) written in the same
 * transaction. Every email key goes through `canonicalEmail` (email.ts); the profile displays
 * the email in its NFKC form, as checkEmail returns it.
 */
import type { Item, Table, TransactAction } from '../dynamo/table';
import { GSI1 } from '../dynamo/definition';
import { setFields } from '../dynamo/update-expression';
import type { EventActor, EventType } from './events';
import { EVENT_SEQ, eventPut, outboxEvent, sequenceOf, sequenceStep, type EventDraft } from './outbox';
import { badInput, conflict, notFound } from './errors';
import { checkId, checkText, EXAMPLE_ID, newId, nowIso } from './keys';
import { emailGuardItem, emailGuardKey } from './email';
import { canonicalEmail } from './entity/parts';
import { customerEntity, customerFromItem, customerToItem, type CustomerRecord } from './entity/customer';
import { optimisticWrite, writeTransaction } from './guards';
import { STATS_BASELINE } from './customer-stats';
import { cancellationReasons, failedCondition } from './transactions';
import { getRequest, pattern, queryRequest } from './declare';

export const CUSTOMER_PREFIX = customerEntity.templates.PK.prefix;
export const PROFILE_SK = customerEntity.templates.SK.text;
export const NAME_MAX = 200;
export const EMAIL_MAX = 254;

/** The customer's keys, built from its declaration (entity/customer.ts). */
export const customerKeys = {
  pk: (customerId: string) => customerEntity.templates.PK.build({ id: customerId }),
  profile: (customerId: string) => customerEntity.key({ id: customerId }),
  gsi1pk: (email: string) => customerEntity.templates.GSI1PK!.build({ email }),
  gsi1sk: (customerId: string) => customerEntity.templates.GSI1SK!.build({ id: customerId }),
  /** The customer id of a collection key, or undefined when the key is not a customer's. */
  idOf: (pk: string): string | undefined => (customerEntity.templates.PK.claims(pk) ? pk.slice(CUSTOMER_PREFIX.length) : undefined),
};

// ---- codec (declared with the entity, src/model/entity/customer.ts) ------------------------

export { customerFromItem, customerToItem, type CustomerRecord } from './entity/customer';

/**
 * A customer as GraphQL resolvers receive it: the id, and the profile when it is already known.
 * Field resolvers ask the request's collection loader for anything else.
 */
export interface CustomerRef {
  id: string;
  profile?: CustomerRecord | undefined;
}

// ---- validation ----------------------------------------------------------------------------

const EMAIL = /^[^\s@#]+@[^\s@#]+\.[^\s@#]+$/;

export function checkName(value: string, field = 'input.name'): string {
  return checkText(value, field, NAME_MAX);
}

/**
 * Returns an email in Unicode NFKC, trimmed, after checking its shape; `#` is refused because the
 * email stands in keys. The shape is checked AFTER NFKC, which turns compatibility characters into
 * plain ones (fullwidth `＃` into `#`, `＠` into `@`): what is checked is what the key holds.
 */
export function checkEmail(value: string, field = 'input.email'): string {
  const email = checkText(value.normalize('NFKC'), field, EMAIL_MAX);
  if (!EMAIL.test(email)) throw badInput(`${field} must be an email address such as ana@example.com`, field);
  return email;
}

export function checkCustomerId(value: string, field = 'id'): string {
  return checkId(value, field);
}

// ---- access patterns -----------------------------------------------------------------------

/**
 * The profile's GetItem: eventually consistent for screens; consistent before a write of the
 * customer (updateCustomer, the address writes), whose conditions name the `eventSeq` and label
 * set it holds.
 */
const profileGet = (customerId: string, consistent = false) =>
  getRequest({ Key: customerKeys.profile(customerId), ConsistentRead: consistent });

/**
 * customerProfile: the profile alone, or undefined when there is no such customer; `consistent`
 * for a write's read (the mutations listed use it so).
 */
export const customerProfile = pattern(
  {
    entity: 'Customer profile',
    graphql: ['Customer.name', 'Order.customer', 'Query.node', 'Mutation.updateCustomer', 'Mutation.putAddress', 'Mutation.removeAddress'],
    request: profileGet,
    example: [EXAMPLE_ID, true],
  },
  async function customerProfile(table: Table, customerId: string, consistent = false): Promise<CustomerRecord | undefined> {
    const item = await profileItem(table, customerId, consistent);
    return item ? customerFromItem(item) : undefined;
  },
);

/** The profile item as stored (its `eventSeq`, its label set): customerProfile's request, for the writes that condition on it. */
export async function profileItem(table: Table, customerId: string, consistent: boolean): Promise<Item | undefined> {
  return table.get(profileGet(customerId, consistent).input);
}

/** customerByEmail's Query: the one profile under the canonical email's GSI1 key. */
const byEmail = (email: string) =>
  queryRequest({
    IndexName: GSI1,
    KeyConditionExpression: 'GSI1PK = :pk AND begins_with(GSI1SK, :sk)',
    ExpressionAttributeValues: { ':pk': customerKeys.gsi1pk(email), ':sk': CUSTOMER_PREFIX },
    Limit: 1,
  });

/** customerByEmail: GSI1, by the canonical email (NFKC, case-insensitive); undefined when no customer has that email. */
export const customerByEmail = pattern(
  {
    entity: 'Customer profile',
    graphql: ['Query.customerByEmail'],
    request: byEmail,
    example: ['ana@example.com'],
  },
  async function customerByEmail(table: Table, email: string): Promise<CustomerRecord | undefined> {
    const { Items = [] } = await table.query(byEmail(email).input);
    const item = Items[0];
    return item ? customerFromItem(item) : undefined;
  },
);

// ---- writes --------------------------------------------------------------------------------

export interface CreateCustomerInput {
  name: string;
  email: string;
}
export interface UpdateCustomerInput {
  name?: string | null | undefined;
  email?: string | null | undefined;
}

/**
 * createCustomer: profile, email guard and its CustomerCreated event (sequence 1: the profile is
 * new, so its `eventSeq` starts at 1) in one transaction, one request. A taken email is CONFLICT
 * and writes nothing. `options.id` makes the customer of an identity (its id is derived from the
 * identity, src/auth/principal.ts): the profile's `attribute_not_exists` condition then allows one
 * customer per identity, in the same transaction (CONFLICT the second time). Without it a new id
 * is made. Returns what was written.
 */
export async function createCustomer(
  table: Table,
  input: CreateCustomerInput,
  actor: EventActor,
  options: { id?: string | undefined } = {},
): Promise<CustomerRecord> {
  const customer: CustomerRecord = {
    id: options.id === undefined ? newId() : checkCustomerId(options.id),
    name: checkName(input.name),
    email: checkEmail(input.email),
    createdAt: nowIso(),
  };
  try {
    await writeTransaction(table, createCustomerActions(customer, actor));
  } catch (error) {
    const reasons = cancellationReasons(error);
    if (failedCondition(reasons?.[0])) throw conflict(`customer ${customer.id} already exists: an identity makes its customer once`);
    if (failedCondition(reasons?.[1])) throw emailTaken(customer.email);
    throw error;
  }
  return customer;
}

/** createCustomer's transaction: the profile (sequence 1), its email guard and CustomerCreated. */
export function createCustomerActions(customer: CustomerRecord, actor: EventActor): TransactAction[] {
  const event = outboxEvent(customerEvent('CustomerCreated', customer.id, { name: customer.name, email: customer.email }), 1, actor);
  return [
    // The stats baseline is its creation: every order it will place has its OrderPlaced event.
    {
      Put: {
        Item: { ...customerToItem(customer), [EVENT_SEQ]: 1, [STATS_BASELINE]: customer.createdAt },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    },
    { Put: { Item: emailGuardItem(customer.email, customer.id), ConditionExpression: 'attribute_not_exists(PK)' } },
    eventPut(event),
  ];
}

/** A draft of an event of the customer aggregate (its id is the customer's). */
export function customerEvent(eventType: EventType, customerId: string, payload: Record<string, unknown>): EventDraft {
  return { eventType, aggregateType: 'Customer', aggregateId: customerId, customerId, payload };
}

/**
 * updateCustomer: reads the profile (customerProfile's consistent GetItem: its `eventSeq` and the
 * email it holds), then one transaction: the profile's new fields and sequence, conditioned on the sequence
 * read, and its CustomerUpdated event; an email change also moves the email guard and the GSI1 key
 * (conditioned on the email read). A concurrent write of the customer cancels it: the cancellation
 * returns the profile as it now stands (ALL_OLD), so it tries again from that without reading (a
 * few times at most, then UNAVAILABLE, retryable). NOT_FOUND for a missing customer, CONFLICT for a taken email;
 * nothing partial is written. Nothing to change (no field, or the values it already holds) writes
 * nothing and emits no event. Returns the stored result. Two requests.
 */
export async function updateCustomer(table: Table, id: string, input: UpdateCustomerInput, actor: EventActor): Promise<CustomerRecord> {
  const customerId = checkCustomerId(id);
  const name = input.name == null ? undefined : checkName(input.name);
  const email = input.email == null ? undefined : checkEmail(input.email);
  const root = await profileItem(table, customerId, true);
  return optimisticWrite<CustomerRecord>(
    table,
    root,
    (seen) => {
      if (!seen) throw customerNotFound(customerId);
      const current = customerFromItem(seen);
      const next: CustomerRecord = { ...current, name: name ?? current.name, email: email ?? current.email };
      if (next.name === current.name && next.email === current.email) return { done: current };
      const moves = canonicalEmail(next.email) !== canonicalEmail(current.email);
      return {
        write: updateCustomerActions(seen, current, next, actor),
        then: next,
        // The new email's guard (the fourth action) is another customer's.
        refused: (reasons) => (moves && failedCondition(reasons[3]) ? emailTaken(next.email) : undefined),
      };
    },
    `customer ${customerId} is being changed concurrently; try again`,
  );
}

/**
 * updateCustomer's transaction, from the profile item as read (`root`, its sequence), what it holds
 * (`current`) and what it becomes (`next`, differing in name or email): the profile's new fields
 * and sequence, CustomerUpdated, and, when the email's canonical form moves, the old guard's Delete
 * and the new guard's Put (the profile's GSI1 key moves with it).
 */
export function updateCustomerActions(root: Item, current: CustomerRecord, next: CustomerRecord, actor: EventActor): TransactAction[] {
  const customerId = current.id;
  const changed = {
    name: next.name === current.name ? undefined : next.name,
    email: next.email === current.email ? undefined : next.email,
  };
  const step = sequenceStep(sequenceOf(root));
  const event = outboxEvent(customerEvent('CustomerUpdated', customerId, changed), step.values[':seq'] as number, actor);
  // The email's key form moves only when its canonical form does; another spelling stays put.
  const moves = canonicalEmail(next.email) !== canonicalEmail(current.email);
  const set = setFields({ name: changed.name, email: changed.email });
  const actions: TransactAction[] = [
    {
      Update: {
        Key: customerKeys.profile(customerId),
        UpdateExpression: `${set.expression}, ${step.set}${moves ? ', GSI1PK = :gsi1pk' : ''}`,
        ConditionExpression: `attribute_exists(PK) AND email = :was AND ${step.condition}`,
        ExpressionAttributeNames: set.names,
        ExpressionAttributeValues: {
          ...set.values,
          ...step.values,
          ':was': current.email,
          ...(moves ? { ':gsi1pk': customerKeys.gsi1pk(next.email) } : {}),
        },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    },
    eventPut(event),
  ];
  if (moves)
    actions.push(
      {
        Delete: {
          Key: emailGuardKey(current.email),
          ConditionExpression: 'customerId = :id',
          ExpressionAttributeValues: { ':id': customerId },
        },
      },
      { Put: { Item: emailGuardItem(next.email, customerId), ConditionExpression: 'attribute_not_exists(PK)' } },
    );
  return actions;
}

export function customerNotFound(customerId: string) {
  return notFound(`no customer with id ${customerId}`);
}

function emailTaken(email: string) {
  return conflict(`the email ${email} is already taken`, 'input.email');
}
