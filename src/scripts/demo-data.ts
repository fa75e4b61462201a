/**
 * Demo data for `npm start` on the embedded engine: a few customers with addresses and months of
 * orders in every status, written through the model's own write path (the same transactions a
 * client's mutations make), so what Sandbox shows is what the product writes.
 */
import type { Table } from '../dynamo/table';
import { createCustomer, placeOrder, putAddress, updateOrderStatus, type OrderStatus } from '../model';

const PEOPLE = [
  { name: 'Ana García', email: 'ana@example.com', city: 'Madrid', country: 'ES' },
  { name: 'Bruno Costa', email: 'bruno@example.com', city: 'Lisboa', country: 'PT' },
  { name: 'Chloé Martin', email: 'chloe@example.com', city: 'Lyon', country: 'FR' },
  { name: 'Dmitri Ivanov', email: 'dmitri@example.com', city: 'Berlin', country: 'DE' },
];
const SKUS = ['BOOK-001', 'MUG-002', 'TEE-003', 'PEN-004', 'LAMP-005'];
const PATHS: OrderStatus[][] = [[], ['PAID'], ['PAID', 'SHIPPED'], ['PAID', 'SHIPPED', 'DELIVERED'], ['CANCELLED']];

/** Writes the demo data; returns the ids it created. Deterministic in shape, not in ids. */
export async function loadDemoData(table: Table, now = new Date()): Promise<{ customers: string[]; orders: number }> {
  const customers: string[] = [];
  let orders = 0;
  for (const [i, person] of PEOPLE.entries()) {
    const customer = await createCustomer(table, { name: person.name, email: person.email });
    customers.push(customer.id);
    await putAddress(table, customer.id, { label: 'home', street: `Calle ${i + 1}`, city: person.city, postalCode: `2800${i}`, country: person.country });
    if (i % 2 === 0) await putAddress(table, customer.id, { label: 'work', street: `Avenida ${i + 10}`, city: person.city, postalCode: `2801${i}`, country: person.country });
    const count = 6 + i * 3;
    for (let n = 0; n < count; n++) {
      const placedAt = new Date(now.getTime() - (n * 11 + i) * 24 * 3600 * 1000).toISOString();
      const order = await placeOrder(table, {
        customerId: customer.id,
        idempotencyKey: `demo-${customer.id}-${n}`,
        placedAt,
        lines: Array.from({ length: 1 + ((n + i) % 3) }, (_, k) => ({
          sku: SKUS[(n + k + i) % SKUS.length] as string,
          quantity: 1 + ((n + k) % 4),
          unitPriceCents: 499 + 250 * ((n * 7 + k) % 9),
        })),
      });
      orders++;
      // Older orders have travelled further along the status machine.
      const path = n < 2 ? [] : (PATHS[(n + i) % PATHS.length] as OrderStatus[]);
      for (const status of path) await updateOrderStatus(table, order.id, status);
    }
  }
  return { customers, orders };
}
