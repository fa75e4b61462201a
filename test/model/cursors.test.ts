/**
 * A cursor is accepted only by the list it was made for (fast-check).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  customerCollection,
  type OrderPage,
  absorb,
  checkOrderWindow,
  emptyState,
  isSummarySk,
  orderKeys,
  ordersBySku,
  ordersByStatus,
  pageOf,
  planCollection,
  customerToItem,
  DEFAULT_WRITE_SHARDS,
  summaryToItem,
  type OrderRecord,
  type OrderStatus,
} from '../../src/model';
import { hostile, anyString, ulid, month, isoTime, status, outcome, outcomeAsync, indexTable } from './arbitraries';

// ---- 3. cursors -----------------------------------------------------------------------------

/** A page of customer A's orders as the model makes it (plan, absorb, pageOf), with its cursors. */
function customerPage(customerId: string, monthOf: string | undefined, orders: readonly OrderRecord[], first: number) {
  const window = checkOrderWindow(customerId, { first, month: monthOf ?? null });
  const [query] = planCollection(customerId, { profile: false, addresses: false, windows: [window] });
  const items = orders.map((order) => summaryToItem(order, DEFAULT_WRITE_SHARDS)).sort((a, b) => (String(a.SK) < String(b.SK) ? 1 : -1));
  const state = emptyState();
  absorb(
    customerCollection,
    customerId,
    state,
    query!,
    [
      ...(query!.readsTop
        ? [customerToItem({ id: customerId, name: 'A', email: 'a@example.com', createdAt: '2026-01-01T00:00:00.000Z' })]
        : []),
      ...items,
    ],
    true,
  );
  return pageOf(customerCollection, customerId, state, window) as OrderPage;
}

const ordersOf = (customerId: string, monthOf: string | undefined) =>
  fc.uniqueArray(
    fc.record({
      id: ulid,
      customerId: fc.constant(customerId),
      placedAt:
        monthOf === undefined
          ? isoTime
          : fc
              .tuple(fc.integer({ min: 1, max: 28 }), fc.integer({ min: 0, max: 86_399_999 }))
              .map(([d, ms]) => `${monthOf}-${String(d).padStart(2, '0')}T${new Date(ms).toISOString().slice(11)}`),
      status,
      totalCents: fc.nat(),
      lineCount: fc.integer({ min: 1, max: 5 }),
    }),
    { minLength: 1, maxLength: 8, selector: (o) => o.id },
  );

const pageOfA = fc
  .record({ a: ulid, month: fc.option(month, { nil: undefined }), first: fc.integer({ min: 1, max: 8 }) })
  .chain(({ a, month: m, first }) =>
    ordersOf(a, m).map((orders) => ({ a, month: m, first, orders, page: customerPage(a, m, orders, first) })),
  );

const refused = (run: () => unknown) => !outcome(run).ok;

describe('a cursor is accepted only by the list it was made for', () => {
  it("a customer's order cursors: accepted by their own list, refused for another customer and another month", () => {
    fc.assert(
      fc.property(pageOfA, ulid, fc.option(month, { nil: undefined }), ({ a, month: m, orders, page }, b, other) => {
        expect(page.cursors.length).toBeGreaterThan(0);
        page.cursors.forEach((cursor, i) => {
          const start = checkOrderWindow(a, { after: cursor, month: m ?? null }).start;
          expect(start).toEqual(orderKeys.summary(page.orders[i]!));
          expect(orders.map((order) => order.id)).toContain(page.orders[i]!.id);
          if (b !== a) expect(refused(() => checkOrderWindow(b, { after: cursor, month: m ?? null }))).toBe(true);
          if (other !== m) expect(refused(() => checkOrderWindow(a, { after: cursor, month: other ?? null }))).toBe(true);
        });
      }),
      { numRuns: 200 },
    );
  });

  it("a customer's order cursors are refused by the status and SKU lists, before any request", async () => {
    await fc.assert(
      fc.asyncProperty(pageOfA, status, async ({ page }, s) => {
        const { table, queries } = indexTable([]);
        for (const cursor of page.cursors) {
          expect((await outcomeAsync(() => ordersByStatus(table, s, { first: 5, after: cursor }))).ok).toBe(false);
          expect((await outcomeAsync(() => ordersBySku(table, 'SKU-1', { first: 5, after: cursor }))).ok).toBe(false);
        }
        expect(queries()).toBe(0);
      }),
      { numRuns: 100 },
    );
  });

  it('status cursors: accepted by their own status, refused by another status and by customer lists', async () => {
    const setup = fc.record({ s: status, other: status, first: fc.integer({ min: 1, max: 6 }), a: ulid }).chain((x) =>
      fc
        .uniqueArray(
          fc.record({
            id: ulid,
            customerId: ulid,
            placedAt: isoTime,
            status: fc.constant(x.s as OrderStatus),
            totalCents: fc.nat(),
            lineCount: fc.constant(1),
          }),
          { minLength: 1, maxLength: 12, selector: (o) => o.id },
        )
        .map((orders) => ({ ...x, orders })),
    );
    await fc.assert(
      fc.asyncProperty(setup, async ({ s, other, first, a, orders }) => {
        const { table, queries } = indexTable(orders.map((order) => summaryToItem(order, DEFAULT_WRITE_SHARDS)));
        const page = await ordersByStatus(table, s, { first });
        expect(page.orders.length).toBe(Math.min(first, orders.length));
        for (const cursor of page.cursors) {
          expect((await outcomeAsync(() => ordersByStatus(table, s, { first, after: cursor }))).ok).toBe(true);
          const before = queries();
          if (other !== s) expect((await outcomeAsync(() => ordersByStatus(table, other, { first, after: cursor }))).ok).toBe(false);
          expect(refused(() => checkOrderWindow(a, { after: cursor }))).toBe(true);
          expect((await outcomeAsync(() => ordersBySku(table, 'SKU-1', { after: cursor }))).ok).toBe(false);
          expect(queries()).toBe(before); // refused before any request
        }
        expect(DEFAULT_WRITE_SHARDS).toBeGreaterThanOrEqual(1);
      }),
      { numRuns: 100 },
    );
  });

  it("an arbitrary string is refused unless it decodes to a valid cursor of this customer's list (and month)", () => {
    /** The oracle, written apart from the model: what a valid cursor of customer A's list decodes to. */
    function decodesToValidCursor(cursor: string, customerId: string, monthOf: string | undefined): boolean {
      if (cursor.length === 0 || cursor.length > 1024 || !/^[A-Za-z0-9_-]+$/.test(cursor)) return false;
      let parsed: unknown;
      try {
        parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
      } catch {
        return false;
      }
      if (!Array.isArray(parsed) || parsed.length !== 3 || parsed[0] !== 1 || parsed[1] !== `orders:${customerId}:${monthOf ?? '*'}`)
        return false;
      const key = parsed[2] as Record<string, unknown>;
      if (typeof key !== 'object' || key === null || Array.isArray(key) || Object.keys(key).sort().join() !== 'PK,SK') return false;
      const sk = new RegExp(`^ORDER#${monthOf ?? ''}[\\d-]*T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z#[0-9A-HJKMNP-TV-Z]{26}$`);
      return (
        key.PK === `CUSTOMER#${customerId}` && typeof key.SK === 'string' && sk.test(key.SK) && /^ORDER#\d{4}-\d{2}-\d{2}T/.test(key.SK)
      );
    }

    const encode = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
    /** Forgeries of a real cursor: every field changed in turn, or left alone. */
    const forged = (a: string, m: string | undefined, cursor: string) => {
      const [version, scope, key] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [
        number,
        string,
        Record<string, string>,
      ];
      return fc.oneof(
        fc.constant(cursor),
        fc.constant(encode([version, scope, key])),
        fc.constantFrom(2, 0, '1', null).map((v) => encode([v, scope, key])),
        fc.oneof(ulid, anyString).map((x) => encode([version, `orders:${x}:${m ?? '*'}`, key])),
        fc.oneof(ulid, anyString).map((x) => encode([version, scope, { ...key, PK: `CUSTOMER#${x}` }])),
        fc.oneof(month, hostile, anyString).map((x) => encode([version, scope, { ...key, SK: `ORDER#${x}${key.SK!.slice(13)}` }])),
        fc.constantFrom('#PROFILE', '#', 'x', '').map((x) => encode([version, scope, { ...key, SK: `${key.SK}${x}` }])),
        fc
          .constantFrom({ GSI1PK: 'STATUS#PENDING#0' }, { extra: '' }, { PK: 1 as unknown as string })
          .map((x) => encode([version, scope, { ...key, ...x }])),
        fc.constant(encode([version, scope, [key.PK, key.SK]])),
        fc.constant(encode([version, scope, key, 'more'])),
        fc.nat({ max: cursor.length - 1 }).map((n) => cursor.slice(0, n)),
        fc
          .tuple(fc.nat({ max: cursor.length - 1 }), fc.constantFrom('A', '_', '-', '=', '+', '/', '%'))
          .map(([n, c]) => `${cursor.slice(0, n)}${c}${cursor.slice(n + 1)}`),
        fc.constant(Buffer.from(JSON.stringify([version, scope, key])).toString('base64')),
        fc.constant(`${cursor}${cursor}`),
      );
    };
    const candidates = pageOfA.chain(({ a, month: m, page }) =>
      fc.tuple(
        fc.constant(a),
        fc.constant(m),
        fc.oneof(
          anyString,
          fc.json().map((j) => Buffer.from(j).toString('base64url')),
          { arbitrary: fc.constantFrom(...page.cursors).chain((c) => forged(a, m, c)), weight: 3 },
        ),
      ),
    );

    fc.assert(
      fc.property(candidates, ([a, m, cursor]) => {
        const result = outcome(() => checkOrderWindow(a, { after: cursor, month: m ?? null }));
        expect(result.ok).toBe(decodesToValidCursor(cursor, a, m));
        if (result.ok) {
          const start = result.value.start!;
          expect(Object.keys(start).sort()).toEqual(['PK', 'SK']);
          expect(start.PK).toBe(`CUSTOMER#${a}`);
          expect(isSummarySk(start.SK) && start.SK.startsWith(orderKeys.summaryPrefix(m))).toBe(true);
        }
      }),
      { numRuns: 1000 },
    );
  });
});
