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
 * condition on one item. GSI1 on the profile: GSI1PK = EMAIL#<email NFKC, lower-case>, GSI1SK =
 * CUSTOMER#<id>. Email uniqueness is guarded by a separate item (email.ts) written in the same
 * transaction. Every email key goes through `canonicalEmail` (email.ts); the profile displays
 * the email in its NFKC form, as checkEmail returns it.
 */
import type { Table, TransactAction } from '../dynamo/table';
import { GSI1 } from '../dynamo/definition';
import { setFields } from '../dynamo/update-expression';
import { badInput, conflict, notFound } from './errors';
import { checkId, checkText, newId, nowIso } from './keys';
import { emailGuardItem, emailGuardKey } from './email';
import { canonicalEmail } from './entity/parts';
import { customerEntity, customerFromItem, customerToItem, type CustomerRecord } from './entity/customer';
import { writeTransaction, writeUpdate } from './guards';
import { cancellationReasons, failedCondition, isConditionalCheckFailed } from './transactions';
import { pattern } from './declare';

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

/** customerProfile: the profile alone, or undefined when there is no such customer. */
export const customerProfile = pattern(
  {
    entity: 'Customer profile',
    graphql: ['Customer.name', 'Order.customer', 'Query.node'],
    index: 'table',
    operation: 'GetItem',
    keyCondition: 'PK = CUSTOMER#<id>, SK = PROFILE',
    order: '—',
    bound: () => 1,
    boundDoc: '1 item',
  },
  async function customerProfile(table: Table, customerId: string, consistent = false): Promise<CustomerRecord | undefined> {
    const item = await table.get({ Key: customerKeys.profile(customerId), ConsistentRead: consistent });
    return item ? customerFromItem(item) : undefined;
  },
);

/** customerByEmail: GSI1, by the canonical email (NFKC, case-insensitive); undefined when no customer has that email. */
export const customerByEmail = pattern(
  {
    entity: 'Customer profile',
    graphql: ['Query.customerByEmail'],
    index: 'GSI1',
    operation: 'Query',
    keyCondition: 'GSI1PK = EMAIL#<email NFKC, lower-case>, begins_with(GSI1SK, CUSTOMER#)',
    order: '—',
    bound: () => 1,
    boundDoc: 'Limit 1',
  },
  async function customerByEmail(table: Table, email: string): Promise<CustomerRecord | undefined> {
    const { Items = [] } = await table.query({
      IndexName: GSI1,
      KeyConditionExpression: 'GSI1PK = :pk AND begins_with(GSI1SK, :sk)',
      ExpressionAttributeValues: { ':pk': customerKeys.gsi1pk(email), ':sk': CUSTOMER_PREFIX },
      Limit: 1,
    });
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
 * createCustomer: profile and email guard in one transaction, one request. A taken email is
 * CONFLICT and writes nothing. `options.id` makes the customer of an identity (its id is derived
 * from the identity, src/auth/principal.ts): the profile's `attribute_not_exists` condition then
 * allows one customer per identity, in the same transaction (CONFLICT the second time). Without
 * it a new id is made. Returns what was written.
 */
export async function createCustomer(
  table: Table,
  input: CreateCustomerInput,
  options: { id?: string | undefined } = {},
): Promise<CustomerRecord> {
  const customer: CustomerRecord = {
    id: options.id === undefined ? newId() : checkCustomerId(options.id),
    name: checkName(input.name),
    email: checkEmail(input.email),
    createdAt: nowIso(),
  };
  try {
    await writeTransaction(table, [
      { Put: { Item: customerToItem(customer), ConditionExpression: 'attribute_not_exists(PK)' } },
      { Put: { Item: emailGuardItem(customer.email, customer.id), ConditionExpression: 'attribute_not_exists(PK)' } },
    ]);
  } catch (error) {
    const reasons = cancellationReasons(error);
    if (failedCondition(reasons?.[0])) throw conflict(`customer ${customer.id} already exists: an identity makes its customer once`);
    if (failedCondition(reasons?.[1])) throw emailTaken(customer.email);
    throw error;
  }
  return customer;
}

const UPDATE_ATTEMPTS = 5;

/**
 * updateCustomer: a name change is one conditional UpdateItem. An email change reads the profile,
 * then moves the email guard and the GSI1 key in one transaction conditioned on the email it
 * read; a concurrent change makes it read again (a few times at most). NOT_FOUND for a missing
 * customer, CONFLICT for a taken email; nothing partial is written. Returns the stored result.
 */
export async function updateCustomer(table: Table, id: string, input: UpdateCustomerInput): Promise<CustomerRecord> {
  const customerId = checkCustomerId(id);
  const name = input.name == null ? undefined : checkName(input.name);
  const email = input.email == null ? undefined : checkEmail(input.email);
  if (email === undefined) {
    if (name === undefined) return (await customerProfile(table, customerId, true)) ?? throwError(customerNotFound(customerId));
    const updated = await setProfileFields(table, customerId, { name }, 'attribute_exists(PK)');
    return updated ?? throwError(customerNotFound(customerId));
  }

  for (let attempt = 0; attempt < UPDATE_ATTEMPTS; attempt++) {
    const current = await customerProfile(table, customerId, true);
    if (!current) throw customerNotFound(customerId);
    if (canonicalEmail(email) === canonicalEmail(current.email)) {
      // Only the displayed spelling changes: the guard and GSI1 key stay where they are.
      const updated = await setProfileFields(table, customerId, { name, email }, 'GSI1PK = :gsi1pk', {
        ':gsi1pk': customerKeys.gsi1pk(email),
      });
      if (updated) return updated;
      continue;
    }
    const next: CustomerRecord = { ...current, name: name ?? current.name, email };
    const actions: TransactAction[] = [
      {
        Update: {
          Key: customerKeys.profile(customerId),
          UpdateExpression: 'SET #name = :name, email = :email, GSI1PK = :gsi1pk',
          ConditionExpression: 'email = :was',
          ExpressionAttributeNames: { '#name': 'name' },
          ExpressionAttributeValues: {
            ':name': next.name,
            ':email': next.email,
            ':gsi1pk': customerKeys.gsi1pk(next.email),
            ':was': current.email,
          },
        },
      },
      {
        Delete: {
          Key: emailGuardKey(current.email),
          ConditionExpression: 'customerId = :id',
          ExpressionAttributeValues: { ':id': customerId },
        },
      },
      { Put: { Item: emailGuardItem(next.email, customerId), ConditionExpression: 'attribute_not_exists(PK)' } },
    ];
    try {
      await writeTransaction(table, actions);
      return next;
    } catch (error) {
      const reasons = cancellationReasons(error);
      if (!reasons) throw error;
      if (failedCondition(reasons[2])) throw emailTaken(next.email);
      // The profile or its guard changed since we read it: read again.
    }
  }
  throw conflict(`customer ${customerId} is being changed concurrently; try again`);
}

/**
 * One conditional UpdateItem of profile fields that live in no key. Returns the stored profile,
 * or undefined when the condition failed (no such customer, or it changed under us).
 */
async function setProfileFields(
  table: Table,
  customerId: string,
  fields: { name?: string | undefined; email?: string | undefined },
  condition: string,
  conditionValues: Record<string, unknown> = {},
): Promise<CustomerRecord | undefined> {
  const set = setFields(fields);
  try {
    const { Attributes } = await writeUpdate(table, {
      Key: customerKeys.profile(customerId),
      UpdateExpression: set.expression,
      ConditionExpression: condition,
      ExpressionAttributeNames: set.names,
      ExpressionAttributeValues: { ...conditionValues, ...set.values },
      ReturnValues: 'ALL_NEW',
    });
    return customerFromItem(Attributes ?? {});
  } catch (error) {
    if (isConditionalCheckFailed(error)) return undefined;
    throw error;
  }
}

function throwError(error: Error): never {
  throw error;
}

export function customerNotFound(customerId: string) {
  return notFound(`no customer with id ${customerId}`);
}

function emailTaken(email: string) {
  return conflict(`the email ${email} is already taken`, 'input.email');
}
