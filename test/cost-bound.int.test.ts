/**
 * The cost estimate is an upper bound of the items DynamoDB reads (src/admission/cost.ts), whatever the data.
 *
 * Property: for every generated operation the server accepts, the items its reads scanned
 * (`extensions.dynamodb` in development, summed over Query, GetItem and BatchGetItem) are at most
 * the `reads` it was admitted with (`extensions.cost.reads`), and so at most its cost. The data is
 * adversarial and loaded once: orders repeating one SKU on all 96 lines, orders alternating 1 and
 * 96 lines of another, customers at the 10-address cap, one customer with 2,000 orders that are
 * all in one status, the newest 300 of them on one status shard (so pages read shards again).
 */
import fc from 'fast-check';
import { getNamedType, isListType, isNonNullType, isObjectType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from './support/stack';
import { buildAdversarialCustomers, MIXED_SKU, REPEAT_SKU } from './support/adversarial';
import { bearer, tokens } from './support/auth';
import { buildCustomer, customerItems, loadItems, type CustomerFixture } from './support/fixtures';
import { buildSchema } from '../src/schema';
import { FIELD_READS, LIST_SIZES, MUTATION_WRITES, SUBSCRIBE_READS } from '../src/admission/cost';
import { newId } from '../src/model';

interface Seen {
  query: string;
  measured: number;
  reads: number;
  cost: number;
}

describe('the cost estimate bounds the items read', () => {
  let stack: Stack;
  let big: CustomerFixture;
  const others: CustomerFixture[] = [];
  let customerHeaders: Record<string, string>;
  const seen: Seen[] = [];
  const logged = new Map<string, Record<string, unknown>>();
  let refused = 0;

  beforeAll(async () => {
    // Figures come from the server's operation log line (what it read, what it admitted the
    // operation with), not from the response: a customer's plan is hidden where it would tell
    // whether another customer's order exists.
    stack = await startStack({
      log: (line) => {
        if (line.msg === 'operation') logged.set(String(line.requestId), line);
      },
    });
    // test/support/adversarial.ts: the 2,000-order customer, 96-line orders repeating one SKU, mixed ones.
    const adversarial = buildAdversarialCustomers();
    const { repeat, mixed } = adversarial;
    big = adversarial.big;
    others.push(repeat, mixed, buildCustomer({ addresses: 0, orders: 3 }));
    for (const fixture of [big, ...others]) await loadItems(stack, customerItems(fixture), 8);
    customerHeaders = bearer(await tokens.customer(big.customer.id));
  }, 120_000);

  afterAll(async () => {
    if (seen.length > 0) {
      const worst = seen.reduce((a, b) => (b.measured / b.reads > a.measured / a.reads ? b : a));
      console.log(
        `cost bound: ${seen.length} accepted operations, ${refused} refused by cost; largest measured/reads ${(worst.measured / worst.reads).toFixed(3)}` +
          ` (${worst.measured} items of ${worst.reads}; cost ${worst.cost}, measured/cost ${(worst.measured / worst.cost).toFixed(3)}) for ${worst.query}`,
      );
    }
    await stack?.close();
  });

  /** Sends one operation; checks the bound when it was accepted. */
  async function check(query: string, asCustomer: boolean): Promise<void> {
    const response = await stack.gql(query, undefined, asCustomer ? customerHeaders : {});
    if (response.status === 400 && /cost \d+ exceeds/.test(response.errors?.[0]?.message ?? '')) {
      refused++;
      return;
    }
    expect(response.errors, query).toBeUndefined();
    const line = logged.get(response.headers.get('x-request-id') ?? '') as
      { dynamodb: { read: number }; cost: { reads: number; estimate: number } } | undefined;
    expect(line, `the log line of ${query}`).toBeDefined();
    const measured = line!.dynamodb.read;
    const { reads, estimate } = line!.cost;
    seen.push({ query, measured, reads, cost: estimate });
    expect(measured, query).toBeLessThanOrEqual(reads);
    expect(reads).toBeLessThanOrEqual(estimate);
  }

  it('over the worst cases by construction', async () => {
    const worst = [
      `{ ordersBySku(sku: "${REPEAT_SKU}", first: 100) { nodes { id } } }`,
      `{ ordersBySku(sku: "${MIXED_SKU}", first: 90) { nodes { id } } }`,
      `{ ordersByStatus(status: PAID, first: 100) { nodes { id } } }`,
      `{ ordersByStatus(status: PAID, first: 1) { nodes { id } } }`,
      `{ customer(id: "${big.customer.id}") { name addresses { label } orders(first: 100) { nodes { id } } } }`,
      `{ customer(id: "${big.customer.id}") { orders(first: 10, month: "1999-01") { nodes { id } } } }`,
      `{ order(id: "${others[0]!.orders[0]!.id}") { id } }`, // 96 lines: the header and every line, exactly the bound
      `{ order(id: "${others[0]!.orders[0]!.id}") { lines { sku } customer { addresses { city } } } }`,
      `{ ordersBySku(sku: "${REPEAT_SKU}", first: 50) { nodes { lines { sku } } } }`,
    ];
    for (const query of worst) await check(query, false);
    await check(`{ me { name addresses { label } orders(first: 30) { nodes { id lines { sku } } } } }`, true);
    expect(refused).toBe(0);
  });

  it('over mutations, replays included', async () => {
    const small = others[2]!;
    const place = `mutation { placeOrder(input: { customerId: "${small.customer.id}", idempotencyKey: "cost-${newId()}", lines: [{ sku: "COST-1", quantity: 2 }, { sku: "COST-2", quantity: 1 }] }) { id lines { sku } customer { name addresses { label } } } }`;
    await check(
      `mutation { a: putProduct(input: { sku: "COST-1", name: "One", priceCents: 150, active: true }) { sku } b: putProduct(input: { sku: "COST-2", name: "Two", priceCents: 99, active: true }) { sku } }`,
      false,
    );
    await check(place, false);
    await check(place, false); // the idempotent replay reads the order back
    const orderId = small.orders.find((order) => order.status === 'PENDING')!.id;
    await check(`mutation { updateOrderStatus(id: "${orderId}", status: CANCELLED) { status lines { sku } customer { name } } }`, false);
    await check(
      `mutation { updateCustomer(id: "${small.customer.id}", input: { email: "moved-${newId().toLowerCase()}@example.com" }) { name addresses { label } orders(first: 5, month: "2026-09") { nodes { id } } } }`,
      false,
    );
  });

  it('over generated operations', async () => {
    const months = ['2026-09', '2026-08', '2026-06', '1999-01'];
    const first = fc.oneof(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 100 }), fc.constantFrom(1, 20, 99, 100));
    const orderSelection = (depth: number): fc.Arbitrary<string> =>
      fc
        .tuple(fc.boolean(), fc.boolean(), depth < 2 ? fc.option(customerSelection(depth + 1), { nil: undefined }) : fc.constant(undefined))
        .map(([status, lines, customer]) =>
          ['id', status ? 'status totalCents' : '', lines ? 'lines { sku quantity }' : '', customer ? `customer { ${customer} }` : ''].join(
            ' ',
          ),
        );
    const customerSelection = (depth: number): fc.Arbitrary<string> =>
      fc
        .tuple(
          fc.boolean(),
          fc.boolean(),
          fc.array(
            fc.tuple(
              first,
              fc.option(fc.constantFrom(...months), { nil: undefined }),
              depth < 2 ? orderSelection(depth + 1) : fc.constant('id'),
            ),
            { maxLength: depth === 0 ? 2 : 1 },
          ),
        )
        .map(([name, addresses, windows]) =>
          [
            'id',
            name ? 'name email' : '',
            addresses ? 'addresses { label city }' : '',
            // The second window takes an alias; few aliases keep the document under the alias limit.
            ...windows.map(
              ([n, month, nodes], i) =>
                `${i > 0 ? `w${i}: ` : ''}orders(first: ${n}${month ? `, month: "${month}"` : ''}) { nodes { ${nodes} } pageInfo { hasNextPage } }`,
            ),
          ].join(' '),
        );
    const customerIds = () => fc.constantFrom(big.customer.id, ...others.map((o) => o.customer.id), newId());
    const orderIds = () =>
      fc.constantFrom(big.orders[0]!.id, big.orders[1500]!.id, others[0]!.orders[3]!.id, others[1]!.orders[0]!.id, newId());
    const staffRoot = fc.oneof(
      fc.tuple(customerIds(), customerSelection(0)).map(([id, s]) => `customer(id: "${id}") { ${s} }`),
      fc
        .tuple(fc.constantFrom(big.customer.email, 'nobody@example.com'), customerSelection(0))
        .map(([email, s]) => `customerByEmail(email: "${email}") { ${s} }`),
      fc.tuple(orderIds(), orderSelection(0)).map(([id, s]) => `order(id: "${id}") { ${s} }`),
      fc
        .tuple(fc.constantFrom('PAID', 'PENDING', 'DELIVERED'), first, orderSelection(1))
        .map(([status, n, s]) => `ordersByStatus(status: ${status}, first: ${n}) { nodes { ${s} } pageInfo { hasNextPage } }`),
      fc
        .tuple(fc.constantFrom(REPEAT_SKU, MIXED_SKU, 'BOOK-001'), first, orderSelection(1))
        .map(([sku, n, s]) => `ordersBySku(sku: "${sku}", first: ${n}) { nodes { ${s} } }`),
    );
    const customerRoot = fc.oneof(
      customerSelection(0).map((s) => `me { ${s} }`),
      fc.tuple(orderIds(), orderSelection(0)).map(([id, s]) => `order(id: "${id}") { ${s} }`),
    );
    const operation = fc.oneof(
      {
        weight: 3,
        arbitrary: fc.array(staffRoot, { minLength: 1, maxLength: 3 }).map((roots) => ({ query: aliased(roots), asCustomer: false })),
      },
      {
        weight: 1,
        arbitrary: fc.array(customerRoot, { minLength: 1, maxLength: 2 }).map((roots) => ({ query: aliased(roots), asCustomer: true })),
      },
    );
    await fc.assert(
      fc.asyncProperty(operation, async ({ query, asCustomer }) => check(query, asCustomer)),
      { numRuns: 150 },
    );
    expect(seen.length).toBeGreaterThan(80);
  }, 120_000);
});

describe('the cost model covers the schema', () => {
  it('every root field reads by a rule (a subscription’s per event), every mutation writes by one, every list of objects has a size', () => {
    const schema = buildSchema();
    for (const type of [schema.getQueryType()!, schema.getMutationType()!, schema.getSubscriptionType()!]) {
      for (const name of Object.keys(type.getFields()))
        expect(FIELD_READS, `${type.name}.${name}`).toHaveProperty([`${type.name}.${name}`]);
    }
    for (const name of Object.keys(schema.getMutationType()!.getFields())) expect(MUTATION_WRITES, name).toHaveProperty([name]);
    // A subscription's start (its `subscribe`, before the first event) is estimated apart, and paid before it reads.
    for (const name of Object.keys(schema.getSubscriptionType()!.getFields()))
      expect(SUBSCRIBE_READS, `Subscription.${name}`).toHaveProperty([`Subscription.${name}`]);
    for (const type of Object.values(schema.getTypeMap())) {
      if (!isObjectType(type) || type.name.startsWith('__') || type.name.endsWith('Connection')) continue;
      for (const field of Object.values(type.getFields())) {
        const list = isNonNullType(field.type) ? field.type.ofType : field.type;
        if (isListType(list) && isObjectType(getNamedType(field.type)))
          expect(LIST_SIZES, `${type.name}.${field.name}`).toHaveProperty([`${type.name}.${field.name}`]);
      }
    }
  });
});

function aliased(roots: readonly string[]): string {
  return `{ ${roots.map((root, i) => `r${i}: ${root}`).join(' ')} }`;
}
