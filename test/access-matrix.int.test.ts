/**
 * The access matrix, on the wire: every query and mutation field × every kind of caller, with the
 * outcome each must get and the DynamoDB requests it costs. Refusals that the arguments decide
 * cost 0 requests; another customer's data found only by reading (an order id) answers exactly
 * like a missing one. A root field of the served schema without a row here fails the suite.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type GraphQLResponse, type Stack } from './support/stack';
import { bearer, tokens } from './support/auth';
import { dataOf } from './support/graphql';
import { buildSchema } from '../src/schema';
import { addressNodeId, newId } from '../src/model';

const PRINCIPALS = ['anonymous', 'newcomer', 'customerA', 'customerB', 'staff'] as const;
type PrincipalName = (typeof PRINCIPALS)[number];

/** What a caller gets: data (`ok`), `null` for the field (a list of nothing but nulls), or an error code. */
type Outcome = 'ok' | 'null' | 'UNAUTHENTICATED' | 'FORBIDDEN' | 'NOT_FOUND' | 'CONFLICT';
type Cell = [Outcome, number];

interface Row {
  /** The operation, and its variables made fresh for each cell (run as staff, before measuring). */
  operation: string;
  variables(): Promise<Record<string, unknown>>;
  expect: Record<PrincipalName, Cell>;
}

let stack: Stack;
let seq = 0;
const fresh = (tag: string) => `${tag}-${++seq}-${newId().slice(-8).toLowerCase()}`;
const world = { a: '', b: '', aEmail: '', aHome: '', sku: '' };

async function staff(query: string, variables: Record<string, unknown> = {}) {
  return dataOf(await stack.gql(query, variables));
}

async function createCustomer(): Promise<{ id: string; email: string }> {
  const email = `${fresh('c')}@example.com`;
  const { createCustomer } = await staff(`mutation($input: CreateCustomerInput!) { createCustomer(input: $input) { id email } }`, {
    input: { name: 'Someone', email },
  });
  return createCustomer;
}

async function orderOf(customerId: string): Promise<string> {
  const input = { customerId, idempotencyKey: fresh('k'), lines: [{ sku: world.sku, quantity: 1 }] };
  return (await staff(`mutation($input: PlaceOrderInput!) { placeOrder(input: $input) { id } }`, { input })).placeOrder.id;
}

/** An order of `customerId`, once order(id)'s eventually consistent read shows it, as a client would wait. */
async function settledOrderOf(customerId: string): Promise<string> {
  const id = await orderOf(customerId);
  await stack.settled();
  return id;
}

const address = (label: string) => ({ label, street: 'Calle Mayor 1', city: 'Madrid', postalCode: '28013', country: 'ES' });

/** Outcome row helpers: U = UNAUTHENTICATED (always 0 requests), F = FORBIDDEN decided by the arguments. */
const U: Cell = ['UNAUTHENTICATED', 0];
const F: Cell = ['FORBIDDEN', 0];
const staffOnly = (requests: number): Record<PrincipalName, Cell> => ({
  anonymous: U,
  newcomer: F,
  customerA: F,
  customerB: F,
  staff: ['ok', requests],
});

const MATRIX: Record<string, Row> = {
  'Query.me': {
    operation: `{ me { id name } }`,
    variables: async () => ({}),
    // Staff tokens name no customer: null without a read.
    expect: { anonymous: U, newcomer: ['null', 1], customerA: ['ok', 1], customerB: ['ok', 1], staff: ['null', 0] },
  },
  'Query.customer': {
    operation: `query($id: ID!) { customer(id: $id) { id name } }`,
    variables: async () => ({ id: world.a }),
    expect: { anonymous: U, newcomer: F, customerA: ['ok', 1], customerB: F, staff: ['ok', 1] },
  },
  'Query.customerByEmail': {
    operation: `query($email: String!) { customerByEmail(email: $email) { id } }`,
    // GSI1 is eventually consistent: wait for A's create to show there, as a client would.
    variables: async () => {
      await stack.settled();
      return { email: world.aEmail };
    },
    expect: staffOnly(1),
  },
  'Query.order': {
    operation: `query($id: ID!) { order(id: $id) { id } }`,
    variables: async () => ({ id: await settledOrderOf(world.a) }),
    // Whose order it is is known only by reading it: anyone else's reads as missing, for the same 1 request.
    expect: { anonymous: U, newcomer: ['null', 1], customerA: ['ok', 1], customerB: ['null', 1], staff: ['ok', 1] },
  },
  'Query.ordersByStatus': {
    // first: 1: each shard's first read holds the whole page (no shard is read past first + 1), so
    // one Query a shard whatever the hashing of the ids; a larger page may need a top-up wave.
    operation: `{ ordersByStatus(status: PENDING, first: 1) { nodes { id } } }`,
    variables: async () => ({}),
    expect: staffOnly(4),
  },
  'Query.ordersBySku': {
    operation: `query($sku: String!) { ordersBySku(sku: $sku, first: 5) { nodes { id } } }`,
    // The orders placed by the rows above, through GSI1 (eventually consistent): a Query, then their headers.
    variables: async () => {
      await stack.settled();
      return { sku: world.sku };
    },
    expect: staffOnly(2),
  },
  'Query.product': {
    operation: `query($sku: ID!) { product(sku: $sku) { sku priceCents } }`,
    variables: async () => ({ sku: world.sku }),
    expect: { anonymous: U, newcomer: ['ok', 1], customerA: ['ok', 1], customerB: ['ok', 1], staff: ['ok', 1] },
  },
  'Query.products': {
    operation: `{ products(first: 5) { nodes { sku } } }`,
    variables: async () => ({}),
    expect: { anonymous: U, newcomer: ['ok', 1], customerA: ['ok', 1], customerB: ['ok', 1], staff: ['ok', 1] },
  },
  'Query.node': {
    operation: `query($id: ID!) { node(id: $id) { id } }`,
    variables: async () => ({ id: await settledOrderOf(world.a) }),
    // A bare id names a customer or an order: staff read both candidates in one wave; a customer
    // only what it could see (any id but its own can only be one of its orders), so another
    // customer's order reads as missing, for the same 1 request.
    expect: { anonymous: U, newcomer: ['null', 1], customerA: ['ok', 1], customerB: ['null', 1], staff: ['ok', 2] },
  },
  'Query.nodes': {
    operation: `query($ids: [ID!]!) { nodes(ids: $ids) { id } }`,
    variables: async () => ({ ids: [world.a, world.aHome, await settledOrderOf(world.a)] }),
    // 'null': every node null. A's customer and address share one collection read; an address of
    // another customer is never read; staff also read each bare id's other candidate.
    expect: { anonymous: U, newcomer: ['null', 2], customerA: ['ok', 2], customerB: ['null', 2], staff: ['ok', 4] },
  },
  'Mutation.createCustomer': {
    operation: `mutation($input: CreateCustomerInput!) { createCustomer(input: $input) { id } }`,
    variables: async () => ({ input: { name: 'New', email: `${fresh('n')}@example.com` } }),
    // A and B already have their customer: one per identity, enforced by the transaction.
    expect: { anonymous: U, newcomer: ['ok', 1], customerA: ['CONFLICT', 1], customerB: ['CONFLICT', 1], staff: ['ok', 1] },
  },
  'Mutation.updateCustomer': {
    operation: `mutation($id: ID!, $name: String!) { updateCustomer(id: $id, input: { name: $name }) { id name } }`,
    variables: async () => ({ id: world.a, name: fresh('Renamed') }),
    // The profile read (its event sequence), then the profile and its CustomerUpdated event in one transaction.
    expect: { anonymous: U, newcomer: F, customerA: ['ok', 2], customerB: F, staff: ['ok', 2] },
  },
  'Mutation.putAddress': {
    operation: `mutation($id: ID!, $input: AddressInput!) { putAddress(customerId: $id, input: $input) { label } }`,
    variables: async () => ({ id: (await createCustomer()).id, input: address('home') }),
    // The profile read (labels, event sequence), then one transaction with the AddressPut event.
    expect: { anonymous: U, newcomer: F, customerA: F, customerB: F, staff: ['ok', 2] },
  },
  'Mutation.removeAddress': {
    operation: `mutation($id: ID!) { removeAddress(customerId: $id, label: "nowhere") }`,
    variables: async () => ({ id: world.a }),
    // No such label: the profile read tells, and nothing is written (no event).
    expect: { anonymous: U, newcomer: F, customerA: ['ok', 1], customerB: F, staff: ['ok', 1] },
  },
  'Mutation.placeOrder': {
    operation: `mutation($input: PlaceOrderInput!) { placeOrder(input: $input) { id totalCents } }`,
    variables: async () => ({ input: { customerId: world.a, idempotencyKey: fresh('k'), lines: [{ sku: world.sku, quantity: 2 }] } }),
    // The catalog read (with the customer's profile: its event sequence), then the one transaction.
    expect: { anonymous: U, newcomer: F, customerA: ['ok', 2], customerB: F, staff: ['ok', 2] },
  },
  'Mutation.updateOrderStatus': {
    operation: `mutation($id: ID!) { updateOrderStatus(id: $id, status: CANCELLED) { id status } }`,
    variables: async () => ({ id: await orderOf(world.a) }),
    // A customer may cancel its own order; anyone else's is NOT_FOUND, as a missing one is (1 read).
    expect: { anonymous: U, newcomer: ['NOT_FOUND', 1], customerA: ['ok', 2], customerB: ['NOT_FOUND', 1], staff: ['ok', 2] },
  },
  'Mutation.putProduct': {
    operation: `mutation($input: ProductInput!) { putProduct(input: $input) { sku } }`,
    variables: async () => ({ input: { sku: fresh('SKU').toUpperCase(), name: 'Lamp', priceCents: 1999, active: true } }),
    // A new SKU: one transaction (the product and its ProductPut event).
    expect: staffOnly(1),
  },
};

const headers: Record<PrincipalName, Record<string, string>> = {
  anonymous: { authorization: '' },
  newcomer: {},
  customerA: {},
  customerB: {},
  staff: {},
};

beforeAll(async () => {
  stack = await startStack();
  world.sku = fresh('SKU').toUpperCase();
  await staff(`mutation($input: ProductInput!) { putProduct(input: $input) { sku } }`, {
    input: { sku: world.sku, name: 'Mug', priceCents: 899, active: true },
  });
  const a = await createCustomer();
  world.a = a.id;
  world.aEmail = a.email;
  world.b = (await createCustomer()).id;
  const put = `mutation($id: ID!, $input: AddressInput!) { putAddress(customerId: $id, input: $input) { id } }`;
  world.aHome = (await staff(put, { id: world.a, input: address('home') })).putAddress.id;
  headers.customerA = bearer(await tokens.customer(world.a));
  headers.customerB = bearer(await tokens.customer(world.b));
  headers.staff = bearer(await tokens.staff());
});
afterAll(async () => {
  await stack?.close();
});

/** Sends one operation as `principal` and returns the response with the requests it cost. */
async function as(
  principal: PrincipalName,
  query: string,
  variables: Record<string, unknown>,
): Promise<{ response: GraphQLResponse; requests: number }> {
  // A newcomer is a fresh identity each time: signed in, no customer yet.
  const sent = principal === 'newcomer' ? bearer(await tokens.subject(fresh('newcomer'))) : headers[principal];
  // Staff wrote the cell's data: another principal's screens read it eventually (docs/consistency.md).
  await stack.settled();
  stack.engine.wire.reset();
  const response = await stack.gql(query, variables, sent);
  return { response, requests: stack.engine.wire.requests().length };
}

function outcomeOf(response: GraphQLResponse): Outcome {
  if (response.errors?.length) return response.errors[0]!.extensions?.code as Outcome;
  const value = Object.values(response.data ?? {})[0];
  return value === null || (Array.isArray(value) && value.every((node) => node === null)) ? 'null' : 'ok';
}

describe('the access matrix', () => {
  it('has a row for every query and mutation field of the served schema', () => {
    const schema = buildSchema();
    const fields = [schema.getQueryType()!, schema.getMutationType()!].flatMap((type) =>
      Object.keys(type.getFields()).map((field) => `${type.name}.${field}`),
    );
    expect(Object.keys(MATRIX).sort()).toEqual(fields.sort());
  });

  for (const [field, row] of Object.entries(MATRIX)) {
    it.each(PRINCIPALS)(`${field} as %s`, async (principal) => {
      const [outcome, requests] = row.expect[principal];
      const measured = await as(principal, row.operation, await row.variables());
      expect({ outcome: outcomeOf(measured.response), requests: measured.requests }).toEqual({ outcome, requests });
      if (outcome === 'UNAUTHENTICATED') {
        expect(measured.response.status).toBe(401);
        expect(measured.response.headers.get('www-authenticate')).toBe('Bearer');
      }
    });
  }
});

/** What a caller can observe of a response: data, errors (ids masked), status, extensions, and the requests it cost. */
const seen = ({ response, requests }: Awaited<ReturnType<typeof as>>) => ({
  data: response.data,
  errors: response.errors?.map(({ message, extensions }) => ({
    message: message.replace(/[0-9A-Z]{26}/g, '<id>'),
    code: extensions?.code,
  })),
  status: response.status,
  extensions: response.extensions,
  requests,
});

describe('what the matrix does not show', () => {
  it.each([
    ['reading', `query($id: ID!) { order(id: $id) { id status } }`],
    ['cancelling', `mutation($id: ID!) { updateOrderStatus(id: $id, status: CANCELLED) { id } }`],
  ])("another customer's order reads exactly like a missing one when %s it, the plan included", async (_, query) => {
    const order = await orderOf(world.a);
    const foreign = seen(await as('customerB', query, { id: order }));
    const missing = seen(await as('customerB', query, { id: newId() }));
    expect(foreign).toEqual(missing);
    expect(foreign.extensions?.dynamodb).toBeUndefined();
  });

  it.each([
    ['customer', async () => world.a, async () => newId()],
    ['order', () => settledOrderOf(world.a), async () => newId()],
    ['address', async () => world.aHome, async () => addressNodeId({ customerId: world.a, label: 'nowhere' })],
  ])("node of another customer's %s reads exactly like a missing id, the plan included", async (_, foreignId, missingId) => {
    const query = `query($id: ID!) { node(id: $id) { id ... on Customer { name } ... on Order { status } ... on Address { city } } }`;
    const foreign = seen(await as('customerB', query, { id: await foreignId() }));
    const missing = seen(await as('customerB', query, { id: await missingId() }));
    expect(foreign).toEqual(missing);
    expect(foreign.data).toEqual({ node: null });
    expect(foreign.extensions?.dynamodb).toBeUndefined();
  });

  it("nodes of another customer's customer, order and address read exactly like missing ids, the plan included", async () => {
    const query = `query($ids: [ID!]!) { nodes(ids: $ids) { id } }`;
    const ids = [world.a, await settledOrderOf(world.a), world.aHome];
    const foreign = seen(await as('customerB', query, { ids }));
    const missing = seen(
      await as('customerB', query, { ids: [newId(), newId(), addressNodeId({ customerId: world.a, label: 'nowhere' })] }),
    );
    expect(foreign).toEqual(missing);
    expect(foreign.data).toEqual({ nodes: [null, null, null] });
    expect(foreign.extensions?.dynamodb).toBeUndefined();
    // The same ids as their owner: every one found.
    expect((await as('customerA', query, { ids })).response.data).toEqual({ nodes: ids.map((id) => ({ id })) });
  });

  it('a customer may only cancel: any other move of its own order is FORBIDDEN before a read', async () => {
    const order = await orderOf(world.a);
    const moved = await as('customerA', `mutation($id: ID!) { updateOrderStatus(id: $id, status: PAID) { status } }`, { id: order });
    expect({ outcome: outcomeOf(moved.response), requests: moved.requests }).toEqual({ outcome: 'FORBIDDEN', requests: 0 });
  });

  it('placedAt is for staff imports: a customer sending it is FORBIDDEN before a read', async () => {
    const input = { idempotencyKey: fresh('k'), lines: [{ sku: world.sku, quantity: 1 }], placedAt: '2026-01-01T00:00:00Z' };
    const placed = await as('customerA', `mutation($input: PlaceOrderInput!) { placeOrder(input: $input) { id } }`, { input });
    expect({ outcome: outcomeOf(placed.response), requests: placed.requests }).toEqual({ outcome: 'FORBIDDEN', requests: 0 });
  });

  it('a customer orders for itself without naming its id', async () => {
    const input = { idempotencyKey: fresh('k'), lines: [{ sku: world.sku, quantity: 3 }] };
    const placed = await as(
      'customerA',
      `mutation($input: PlaceOrderInput!) { placeOrder(input: $input) { customer { id } totalCents } }`,
      { input },
    );
    expect(placed.response.data).toEqual({ placeOrder: { customer: { id: world.a }, totalCents: 3 * 899 } });
  });

  it('a newcomer creates its customer once, and `me` answers for the same token at once, in 1 request', async () => {
    const token = bearer(await tokens.subject(fresh('signup')));
    const email = `${fresh('me')}@example.com`;
    const create = `mutation($input: CreateCustomerInput!) { createCustomer(input: $input) { id } }`;
    const created = dataOf(await stack.gql(create, { input: { name: 'Newcomer', email } }, token)).createCustomer;
    stack.engine.wire.reset();
    const me = await stack.gql(`{ me { id name email addresses { label } orders(first: 5) { nodes { id } } } }`, {}, token);
    expect(stack.engine.wire.requests()).toHaveLength(1);
    expect(me.data).toEqual({ me: { id: created.id, name: 'Newcomer', email, addresses: [], orders: { nodes: [] } } });
    const again = await stack.gql(create, { input: { name: 'Twice', email: `${fresh('me')}@example.com` } }, token);
    expect(again.errors?.map((error) => error.extensions?.code)).toEqual(['CONFLICT']);
  });

  it('anonymous callers may introspect in development, and nothing else', async () => {
    const typename = await stack.gql(`{ __typename }`, {}, { authorization: '' });
    expect({ status: typename.status, data: typename.data }).toEqual({ status: 200, data: { __typename: 'Query' } });
    const mixed = await stack.gql(`{ __typename me { id } }`, {}, { authorization: '' });
    expect({ status: mixed.status, codes: mixed.errors?.map((error) => error.extensions?.code), data: mixed.data }).toEqual({
      status: 401,
      codes: ['UNAUTHENTICATED'],
      data: undefined,
    });
  });
});
