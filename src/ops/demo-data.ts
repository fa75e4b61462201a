/**
 * Demo data for `npm start` on the embedded engine: a small catalog, a few customers with
 * addresses and months of orders in every status, written through the model's own write path
 * (the same requests a client's mutations make), so what Sandbox shows is what the product writes.
 * Orders name SKUs and quantities; their prices come from the catalog, as a client's do.
 */
import type { Table } from '../dynamo/table';
import {
  createCustomer,
  placeOrder,
  putAddress,
  putProduct,
  updateOrderStatus,
  SYSTEM_ACTOR,
  type OrderStatus,
  type ProductInput,
} from '../model';

/** The demo customer whose token `npm start` prints. */
export const DEMO_CUSTOMER_EMAIL = 'ana@example.com';
/**
 * `orders` placed `daysApart` days apart. Ana's partition holds more orders than her screen
 * (`orders(first: 5)`) reads in its one Query, which stops at its Limit, so the explorer's Table
 * view shows the rows read and the older ones the Query never reached.
 */
const PEOPLE = [
  { name: 'Ana García', email: 'ana@example.com', city: 'Madrid', country: 'ES', orders: 30, daysApart: 3 },
  { name: 'Bruno Costa', email: 'bruno@example.com', city: 'Lisboa', country: 'PT', orders: 9, daysApart: 11 },
  { name: 'Chloé Martin', email: 'chloe@example.com', city: 'Lyon', country: 'FR', orders: 12, daysApart: 11 },
  { name: 'Dmitri Ivanov', email: 'dmitri@example.com', city: 'Berlin', country: 'DE', orders: 15, daysApart: 11 },
];
const CATALOG: ProductInput[] = [
  { sku: 'BOOK-001', name: 'Designing Data-Intensive Applications', priceCents: 4299, active: true },
  { sku: 'MUG-002', name: 'Single-table mug', priceCents: 1250, active: true },
  { sku: 'TEE-003', name: 'Partition key T-shirt', priceCents: 1999, active: true },
  { sku: 'PEN-004', name: 'Sort key pen', priceCents: 499, active: true },
  { sku: 'LAMP-005', name: 'Hot partition lamp', priceCents: 3450, active: true },
  // Shown in `products`, refused by placeOrder.
  { sku: 'FAX-006', name: 'Fax machine', priceCents: 9900, active: false },
];
const SKUS = CATALOG.filter((product) => product.active).map((product) => product.sku);
const PATHS: OrderStatus[][] = [[], ['PAID'], ['PAID', 'SHIPPED'], ['PAID', 'SHIPPED', 'DELIVERED'], ['CANCELLED']];

/** Writes the demo data; returns the ids it created. Deterministic in shape, not in ids. */
export async function loadDemoData(table: Table, now = new Date()): Promise<{ customers: string[]; orders: number }> {
  const customers: string[] = [];
  let orders = 0;
  for (const product of CATALOG) await putProduct(table, product, SYSTEM_ACTOR);
  for (const [i, person] of PEOPLE.entries()) {
    const customer = await createCustomer(table, { name: person.name, email: person.email }, SYSTEM_ACTOR);
    customers.push(customer.id);
    await putAddress(
      table,
      customer.id,
      {
        label: 'home',
        street: `Calle ${i + 1}`,
        city: person.city,
        postalCode: `2800${i}`,
        country: person.country,
      },
      SYSTEM_ACTOR,
    );
    if (i % 2 === 0)
      await putAddress(
        table,
        customer.id,
        {
          label: 'work',
          street: `Avenida ${i + 10}`,
          city: person.city,
          postalCode: `2801${i}`,
          country: person.country,
        },
        SYSTEM_ACTOR,
      );
    for (let n = 0; n < person.orders; n++) {
      const placedAt = new Date(now.getTime() - (n * person.daysApart + i) * 24 * 3600 * 1000).toISOString();
      const order = await placeOrder(
        table,
        {
          customerId: customer.id,
          idempotencyKey: `demo-${customer.id}-${n}`,
          placedAt,
          lines: Array.from({ length: 1 + ((n + i) % 3) }, (_, k) => ({
            sku: SKUS[(n + k + i) % SKUS.length] as string,
            quantity: 1 + ((n + k) % 4),
          })),
        },
        SYSTEM_ACTOR,
      );
      orders++;
      // Older orders have travelled further along the status machine.
      const path = n < 2 ? [] : (PATHS[(n + i) % PATHS.length] as OrderStatus[]);
      for (const status of path) await updateOrderStatus(table, order.id, status, SYSTEM_ACTOR);
    }
  }
  return { customers, orders };
}
