/**
 * The benchmark's scenarios: the operations each design answers, the request bodies (customers and
 * orders shuffled by the latency seed, so every run of one seed asks the same things in the same
 * order), and the answers the data set tells in advance.
 */
import { seededRandom } from './rng';
import { expectedCustomerScreen, STATUSES, type DataSet } from './data';
import type { BenchConfig } from './config';
import type { DesignName } from './results';

export const ORDERS_SHOWN = 20;

const ADDRESS = 'label street city postalCode country';
export const QUERIES = {
  customer: `query CustomerScreen($id: ID!) { customer(id: $id) { id name email createdAt addresses { ${ADDRESS} } orders(first: ${ORDERS_SHOWN}) { nodes { id placedAt status totalCents } } } }`,
  order: `query OrderDetail($id: ID!) { order(id: $id) { id placedAt status totalCents lines { lineNo sku quantity unitPriceCents } customer { name addresses { ${ADDRESS} } } } }`,
  status:
    'query OrdersByStatus($status: OrderStatus!) { ordersByStatus(status: $status, first: 50) { nodes { id placedAt status totalCents customer { name } } pageInfo { hasNextPage } } }',
};

export interface Scenario {
  id: string;
  name: string;
  query: string;
  bodies: string[];
  designs: DesignName[];
  /** Expected `data` for a body, when the data set tells it (else designs are compared to each other). */
  expected?: (index: number) => unknown;
  /**
   * Also measured with hedged reads (src/dynamo/hedge.ts) on the single table and the baseline, in
   * the same interleaved sequential run, and reported as a scenario of its own (`id`, `name`).
   */
  hedged?: { id: string; name: string };
  /**
   * Also measured with both status indexes unsharded (the product with STATUS_SHARDS=1 on a table of its
   * own, the baseline on its `byStatus` index), in the same interleaved run, reported as a scenario of its own.
   */
  unsharded?: { id: string; name: string };
  /** Request headers of this scenario's requests to the product, over the staff token (e.g. `x-consistency`). */
  headers?: Record<string, string>;
  /** Sequential operations and load rounds per design, when fewer than `--ops`/`--rounds` do (few bodies, fixed answers), to keep the run short. */
  ops?: number;
  rounds?: number;
}

export const body = (query: string, variables: Record<string, unknown>) => JSON.stringify({ query, variables });

function shuffled<T>(list: readonly T[], seed: string): T[] {
  const random = seededRandom(seed);
  const out = [...list];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

export function scenarios(data: DataSet, config: BenchConfig): Scenario[] {
  const seed = String(config.latency.seed);
  const customers = shuffled(data.ordinary, `customers:${seed}`);
  const big = data.growth.get(10_000);
  if (!big) throw new Error('no 10,000-order customer');
  const orders = shuffled(data.detailedOrders, `orders:${seed}`).slice(0, Math.max(50, Math.min(config.ops, 300)));
  const list: Scenario[] = [
    {
      id: 'customer',
      name: 'customer screen',
      query: QUERIES.customer,
      bodies: customers.map((c) => body(QUERIES.customer, { id: c.customer.id })),
      designs: ['singleTable', 'multiTable', 'raw'],
      expected: (i) => expectedCustomerScreen(customers[i % customers.length] as (typeof customers)[number], ORDERS_SHOWN),
      hedged: { id: 'customer-hedged', name: 'customer screen, hedged reads' },
    },
    {
      // The screen as it reads within the window after its reader's own write (docs/consistency.md):
      // ConsistentRead. `x-consistency: strong` makes exactly that request without a write before each read.
      id: 'customer-strong',
      name: 'customer screen right after its reader\u2019s own write (ConsistentRead)',
      query: QUERIES.customer,
      bodies: customers.map((c) => body(QUERIES.customer, { id: c.customer.id })),
      designs: ['singleTable'],
      expected: (i) => expectedCustomerScreen(customers[i % customers.length] as (typeof customers)[number], ORDERS_SHOWN),
      headers: { 'x-consistency': 'strong' },
    },
    {
      id: 'customer-10k',
      name: 'customer screen, 10,000-order customer',
      query: QUERIES.customer,
      bodies: [body(QUERIES.customer, { id: big.customer.id })],
      designs: ['singleTable', 'multiTable', 'raw'],
      expected: () => expectedCustomerScreen(big, ORDERS_SHOWN),
    },
    {
      id: 'order',
      name: 'order detail with its customer',
      query: QUERIES.order,
      bodies: orders.map((o) => body(QUERIES.order, { id: o.id })),
      designs: ['singleTable', 'multiTable'],
      hedged: { id: 'order-hedged', name: 'order detail with its customer, hedged reads' },
    },
    {
      id: 'status',
      name: 'ordersByStatus(first: 50) with customers\u2019 names',
      query: QUERIES.status,
      bodies: STATUSES.map((status) => body(QUERIES.status, { status })),
      designs: ['singleTable', 'multiTable'],
      unsharded: { id: 'status-unsharded', name: 'ordersByStatus(first: 50) with customers\u2019 names, both status indexes unsharded' },
      ops: Math.min(config.ops, 60),
      rounds: Math.min(config.rounds, 2),
    },
  ];
  return config.only.length === 0
    ? list
    : list.filter((s) => config.only.some((word) => [s.id, s.hedged?.id, s.unsharded?.id].some((id) => id?.includes(word))));
}
