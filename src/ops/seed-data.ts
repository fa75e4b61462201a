/**
 * Generated data for `npm run seed`: a product catalog, customers, addresses and orders,
 * deterministic for a seed, built into items by the model's own codecs (`productToItem`,
 * `customerToItem`, `emailGuardItem`, `addressToItem`, `summaryToItem`, `headerToItem`,
 * `indexedLineToItem`), exactly as the write path stores them (lines with their SKU index keys,
 * as placeOrder writes them).
 *
 * Determinism: every random draw comes from a seeded stream (tools/random.ts), and every id is a
 * ULID-shaped id made from the entity's own timestamp (`createdAt`, `placedAt`) and that stream,
 * so the same options always produce the same items, byte for byte. Streams are per purpose and
 * per customer (`<seed>:customer:<i>`, `<seed>:orders:<i>`), so customer i is the same whatever
 * `--orders` says, and any one customer can be generated alone.
 *
 * Shape, chosen to look like a shop's table and to exercise the design:
 * - customers sign up over the three years before `until`; each has 0..`addresses` addresses
 *   (most have one or two; never more than the model's 10), labelled from a fixed list;
 * - orders are spread over customers by Zipf's law over a seeded ranking (the k-th most active
 *   customer places about 1/k of the top customer's orders), apportioned so the total is exactly
 *   `orders`: with 1,000 customers and 100,000 orders the top customer has about 13,000 orders
 *   and the least active about 13, which is what the bounded customer screen is for;
 * - an order is placed between its customer's sign-up and `until`, skewed towards recent dates
 *   (a growing shop), and its status follows its age along the status machine: recent orders
 *   are PENDING or PAID, then SHIPPED, then DELIVERED; some PENDING or PAID ones are CANCELLED;
 * - 1..12 lines (about 2.2 on average) of a 500-SKU catalogue whose popularity is skewed, each
 *   SKU with a fixed price; `totalCents` and `lineCount` are computed as `placeOrder` does;
 * - when there are orders, the catalogue itself: 500 active products `SKU-0000`..`SKU-0499`
 *   (`PK = CATALOG`) at the prices the lines carry, so `placeOrder` works against seeded data.
 *   The catalogue (seed-catalogue.ts) does not depend on the seed: two seeds loaded into one
 *   table agree on it.
 *
 * Not generated: idempotency records. `placeOrder` writes one per order with a 24-hour TTL;
 * generated orders are back-dated, so theirs would long have expired (Amazon would delete them;
 * the embedded engine keeps expired items, and the model treats them as absent).
 */
import {
  addressToItem,
  emailGuardItem,
  productToItem,
  headerToItem,
  indexedLineToItem,
  MAX_ADDRESSES,
  countedStats,
  customerToItem,
  STATS_BASELINE,
  statsOf,
  summaryToItem,
  type AddressRecord,
  type CustomerRecord,
  type OrderLineRecord,
  type OrderRecord,
  type OrderStatus,
  type ProductRecord,
} from '../model';
import type { Item } from '../dynamo/table';
import { intBetween, pick, seededRandom, shuffle, ulidAt, weighted, type Random } from './random';
import { CATALOGUE_SIZE, catalogueProducts, seededPrice, seededSku } from './seed-catalogue';

export interface SeedDataOptions {
  /** How many customers (≥ 0). */
  customers: number;
  /** How many orders in total, spread over the customers (≥ 0; needs a customer when > 0). */
  orders: number;
  /** The seed: the same seed (and options) gives the same items. Default '1'. */
  seed?: string | number;
  /** At most this many addresses per customer, 0..10. Default 3. */
  addresses?: number;
  /** The newest possible timestamp (ISO-8601 UTC); data lies in the three years before it. */
  until?: string;
}

/** The default end of the generated history: fixed, so a seed means the same data every day. */
export const DEFAULT_UNTIL = '2026-01-01T00:00:00.000Z';
export const DEFAULT_SEED = '1';
export const DEFAULT_ADDRESSES = 3;

export interface SeededOrder extends OrderRecord {
  lines: OrderLineRecord[];
}

export interface SeededCustomer {
  /** The customer's position in the generation order (0-based). */
  index: number;
  customer: CustomerRecord;
  /** By label. */
  addresses: AddressRecord[];
  /** In generation order (not sorted). */
  orders: SeededOrder[];
}

interface Resolved {
  customers: number;
  orders: number;
  seed: string;
  addresses: number;
  untilMs: number;
}

const DAY_MS = 24 * 3600 * 1000;
const HISTORY_MS = 3 * 365 * DAY_MS;

export function resolveSeedOptions(options: SeedDataOptions): Resolved {
  const { customers, orders } = options;
  if (!Number.isInteger(customers) || customers < 0) throw new RangeError(`customers must be an integer ≥ 0, got ${customers}`);
  if (!Number.isInteger(orders) || orders < 0) throw new RangeError(`orders must be an integer ≥ 0, got ${orders}`);
  if (orders > 0 && customers === 0) throw new RangeError('orders need at least one customer');
  const addresses = options.addresses ?? DEFAULT_ADDRESSES;
  if (!Number.isInteger(addresses) || addresses < 0 || addresses > MAX_ADDRESSES) {
    throw new RangeError(`addresses must be an integer 0..${MAX_ADDRESSES} (a customer holds at most ${MAX_ADDRESSES}), got ${addresses}`);
  }
  const until = options.until ?? DEFAULT_UNTIL;
  const untilMs = Date.parse(until);
  if (
    Number.isNaN(untilMs) ||
    new Date(untilMs).toISOString().length !== 24 ||
    untilMs - HISTORY_MS < Date.parse('2000-01-01T00:00:00.000Z')
  ) {
    throw new RangeError(`until must be an ISO-8601 UTC timestamp after 2003, got ${until}`);
  }
  return { customers, orders, seed: String(options.seed ?? DEFAULT_SEED), addresses, untilMs };
}

/**
 * How many orders each customer gets (by customer index): Zipf's law (weight 1/k for the k-th
 * most active) over a seeded ranking, apportioned by largest remainder so the counts add up to
 * exactly `orders`.
 */
export function orderCounts(options: SeedDataOptions): number[] {
  const { customers, orders, seed } = resolveSeedOptions(options);
  if (customers === 0) return [];
  const random = seededRandom(`${seed}:ranking`);
  const rankOf = shuffle(
    random,
    Array.from({ length: customers }, (_, i) => i + 1),
  );
  const weights = rankOf.map((rank) => 1 / rank);
  const total = weights.reduce((sum, w) => sum + w, 0);
  const exact = weights.map((w) => (orders * w) / total);
  const counts = exact.map(Math.floor);
  let left = orders - counts.reduce((sum, n) => sum + n, 0);
  const byRemainder = exact
    .map((value, index) => ({ index, remainder: value - Math.floor(value) }))
    .sort((a, b) => b.remainder - a.remainder || a.index - b.index);
  for (const { index } of byRemainder) {
    if (left-- <= 0) break;
    counts[index]! += 1;
  }
  return counts;
}

/** Every generated customer, one at a time (memory stays bounded by the largest customer). */
export function* seededCustomers(options: SeedDataOptions): Generator<SeededCustomer> {
  const resolved = resolveSeedOptions(options);
  const counts = orderCounts(options);
  for (let index = 0; index < resolved.customers; index++) yield seededCustomer(resolved, index, counts[index] ?? 0);
}

/** Customer `index` alone, as `seededCustomers` would generate it. */
export function seededCustomerAt(options: SeedDataOptions, index: number): SeededCustomer {
  const resolved = resolveSeedOptions(options);
  if (!Number.isInteger(index) || index < 0 || index >= resolved.customers) throw new RangeError(`no customer ${index}`);
  return seededCustomer(resolved, index, orderCounts(options)[index] ?? 0);
}

/** One customer's items in write order: profile, email guard, addresses, per order summary (on `shards` shards), header, lines. */
export function customerItems(seeded: SeededCustomer, shards: number): Item[] {
  const { customer, addresses, orders } = seeded;
  const profile = customerToItem(customer);
  // putAddress keeps the labels on the profile, in the same transaction as the address.
  if (addresses.length > 0) profile.addressLabels = new Set(addresses.map((address) => address.label));
  // No OrderPlaced event is seeded: the profile carries its orders' count as migration 0003 makes it
  // (sequence 0), or, without orders, the baseline createCustomer writes (the creation).
  const stats = statsOf(orders);
  Object.assign(profile, stats.asOf === null ? { [STATS_BASELINE]: customer.createdAt } : countedStats(stats, 0, stats.asOf));
  const items: Item[] = [profile, emailGuardItem(customer.email, customer.id)];
  for (const address of addresses) items.push(addressToItem(customer.id, address));
  for (const order of orders) {
    items.push(summaryToItem(order, shards), headerToItem(order));
    for (const line of order.lines) items.push(indexedLineToItem(order, line));
  }
  return items;
}

/** Every generated item, in write order: the catalogue (when there are orders), then each customer's (`shards`: the table's writeShards). */
export function* seedItems(options: SeedDataOptions, shards: number): Generator<Item> {
  for (const product of seededCatalogue(options)) yield productToItem(product);
  for (const seeded of seededCustomers(options)) yield* customerItems(seeded, shards);
}

/** The products the generated orders draw from: the whole catalogue, or none when there are no orders. */
export function seededCatalogue(options: SeedDataOptions): ProductRecord[] {
  return resolveSeedOptions(options).orders === 0 ? [] : catalogueProducts();
}

export interface SeedCounts {
  /** Catalogue products (500 when there are orders, else 0). */
  products: number;
  customers: number;
  addresses: number;
  orders: number;
  lines: number;
  /** All items: products, profiles, email guards, addresses, summaries, headers, lines. */
  items: number;
}

/** What `seedItems` will produce, counted without keeping it (a dry run of the generator). */
export function countSeedItems(options: SeedDataOptions): SeedCounts {
  const counts: SeedCounts = { products: seededCatalogue(options).length, customers: 0, addresses: 0, orders: 0, lines: 0, items: 0 };
  for (const seeded of seededCustomers(options)) {
    counts.customers += 1;
    counts.addresses += seeded.addresses.length;
    counts.orders += seeded.orders.length;
    for (const order of seeded.orders) counts.lines += order.lines.length;
  }
  counts.items = counts.products + 2 * counts.customers + counts.addresses + 2 * counts.orders + counts.lines;
  return counts;
}

// ---- one customer ------------------------------------------------------------------------------

const FIRST_NAMES = [
  'Ana',
  'Bruno',
  'Chloé',
  'Dmitri',
  'Elena',
  'Farid',
  'Greta',
  'Hugo',
  'Inés',
  'Jonas',
  'Kenji',
  'Lucía',
  'Marta',
  'Nils',
  'Olga',
  'Pablo',
  'Quentin',
  'Rosa',
  'Sven',
  'Teresa',
  'Umar',
  'Valeria',
  'Wen',
  'Xavier',
  'Yara',
  'Zoë',
];
const LAST_NAMES = [
  'García',
  'Costa',
  'Martin',
  'Ivanov',
  'Rossi',
  'Müller',
  'Silva',
  'Novak',
  'Kowalski',
  'Dubois',
  'Fernández',
  'Jensen',
  'Horvat',
  'Papadopoulos',
  'Nakamura',
  'Okafor',
  'Larsen',
  'Moreau',
  'Santos',
  'Weber',
];
const LABELS = ['home', 'work', 'parents', 'office', 'holiday', 'warehouse', 'billing', 'studio', 'partner', 'pickup-point'];
const STREETS = [
  'Calle Mayor',
  'Rua Augusta',
  'Rue de la République',
  'Hauptstraße',
  'Via Roma',
  'High Street',
  'Avenida da Liberdade',
  'Gran Vía',
  'Karl-Marx-Allee',
  'Corso Buenos Aires',
];
const CITIES: ReadonlyArray<readonly [string, string]> = [
  ['Madrid', 'ES'],
  ['Barcelona', 'ES'],
  ['Lisboa', 'PT'],
  ['Porto', 'PT'],
  ['Lyon', 'FR'],
  ['Paris', 'FR'],
  ['Berlin', 'DE'],
  ['Hamburg', 'DE'],
  ['Milano', 'IT'],
  ['Dublin', 'IE'],
];
const MAX_SEEDED_LINES = 12;

function seededCustomer(options: Resolved, index: number, orderCount: number): SeededCustomer {
  const random = seededRandom(`${options.seed}:customer:${index}`);
  // Signed up between three years and a day before `until`.
  const createdAtMs = options.untilMs - DAY_MS - Math.floor(random() * (HISTORY_MS - DAY_MS));
  const first = pick(random, FIRST_NAMES);
  const last = pick(random, LAST_NAMES);
  const id = ulidAt(createdAtMs, random);
  const customer: CustomerRecord = {
    id,
    name: `${first} ${last}`,
    // Unique within a seed by the index, and across seeds by the id's random tail, so two seeds
    // loaded into one table never share an email (which would break the email guard's invariant).
    email: `${ascii(first)}.${ascii(last)}.${index}.${id.slice(-6).toLowerCase()}@example.com`,
    createdAt: new Date(createdAtMs).toISOString(),
  };
  const addressCount =
    options.addresses === 0 || random() < 0.1 ? 0 : Math.min(options.addresses, 1 + Math.floor(random() * random() * options.addresses));
  const labels = shuffle(random, [...LABELS])
    .slice(0, addressCount)
    .sort();
  const addresses = labels.map((label): AddressRecord => {
    const [city, country] = pick(random, CITIES);
    return {
      label,
      street: `${pick(random, STREETS)} ${intBetween(random, 1, 250)}`,
      city,
      postalCode: String(intBetween(random, 10000, 99999)),
      country,
    };
  });

  const orderRandom = seededRandom(`${options.seed}:orders:${index}`);
  const orders: SeededOrder[] = [];
  for (let n = 0; n < orderCount; n++) orders.push(seededOrder(orderRandom, customer.id, createdAtMs, options.untilMs));
  return { index, customer, addresses, orders };
}

function seededOrder(random: Random, customerId: string, createdAtMs: number, untilMs: number): SeededOrder {
  // Skewed towards recent dates: the age is the customer's lifetime times u³.
  const ageMs = Math.floor((untilMs - createdAtMs) * random() ** 3);
  const placedAtMs = untilMs - ageMs;
  const id = ulidAt(placedAtMs, random);
  let lineCount = 1;
  while (lineCount < MAX_SEEDED_LINES && random() < 0.55) lineCount++;
  const lines = Array.from({ length: lineCount }, (_, k): OrderLineRecord => {
    const sku = Math.floor(CATALOGUE_SIZE * random() ** 2); // popular SKUs first
    return {
      lineNo: k + 1,
      sku: seededSku(sku),
      quantity: weighted(random, [
        [1, 70],
        [2, 20],
        [3, 6],
        [4, 2],
        [5, 2],
      ]),
      unitPriceCents: seededPrice(sku),
    };
  });
  return {
    id,
    customerId,
    placedAt: new Date(placedAtMs).toISOString(),
    status: statusByAge(random, ageMs),
    totalCents: lines.reduce((sum, line) => sum + line.quantity * line.unitPriceCents, 0),
    lineCount,
    lines,
  };
}

/** Older orders have travelled further along PENDING → PAID → SHIPPED → DELIVERED (or were CANCELLED). */
function statusByAge(random: Random, ageMs: number): OrderStatus {
  if (ageMs < DAY_MS)
    return weighted<OrderStatus>(random, [
      ['PENDING', 70],
      ['PAID', 25],
      ['CANCELLED', 5],
    ]);
  if (ageMs < 3 * DAY_MS)
    return weighted<OrderStatus>(random, [
      ['PENDING', 10],
      ['PAID', 50],
      ['SHIPPED', 35],
      ['CANCELLED', 5],
    ]);
  if (ageMs < 10 * DAY_MS)
    return weighted<OrderStatus>(random, [
      ['PAID', 5],
      ['SHIPPED', 60],
      ['DELIVERED', 30],
      ['CANCELLED', 5],
    ]);
  return weighted<OrderStatus>(random, [
    ['DELIVERED', 93],
    ['CANCELLED', 7],
  ]);
}

function ascii(text: string): string {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase();
}
