/**
 * The world of the read-budget suites (test/read-budget*.int.test.ts): the same customers loaded
 * into each suite's stack (reads never change them), the customer-screen query, and the `data`
 * that screen should read back for a fixture.
 */
import { MAX_ADDRESSES } from '../../src/model';
import { ADDRESS_FIELDS, minutesBefore, ORDER_FIELDS, orderData, profileData, World, type CustomerFixture } from './fixtures';
import type { Stack } from './stack';

export interface ReadWorld {
  world: World;
  /** 2 addresses, 30 orders over Aug-Sep 2026. */
  ana: CustomerFixture;
  /** 10 addresses, 10,000 orders. */
  big: CustomerFixture;
  /** 10 addresses, 25 orders: just past one page, like `big`. */
  peer: CustomerFixture;
  /** 10 addresses, 10 orders. */
  small: CustomerFixture;
  /** 5 customers for the K-customers row. */
  crowd: CustomerFixture[];
  /** 4 customers whose PAID orders interleave in time. */
  payers: CustomerFixture[];
}

/** Loads the suite's customers into `stack` (a fresh one: `ordersByStatus` expectations cover the whole table). */
export async function loadReadWorld(stack: Stack): Promise<ReadWorld> {
  const world = new World(stack);
  const ana = await world.customer({
    name: 'Ana García',
    addresses: 2,
    orders: 30,
    newest: '2026-09-20T10:00:00.000Z',
    spacingMinutes: 36 * 60,
  });
  const big = await world.customer({
    name: 'Big Buyer',
    addresses: MAX_ADDRESSES,
    orders: 10_000,
    newest: '2026-09-29T00:00:00.000Z',
    spacingMinutes: 7,
    detail: false,
    status: () => 'DELIVERED',
  });
  const peer = await world.customer({ name: 'Peer', addresses: MAX_ADDRESSES, orders: 25, detail: false });
  const small = await world.customer({ name: 'Small', addresses: MAX_ADDRESSES, orders: 10, detail: false });
  const crowd: CustomerFixture[] = [];
  for (let i = 0; i < 5; i++)
    crowd.push(
      await world.customer({ name: `Crowd ${i}`, addresses: 1 + i, orders: 3 + 2 * i, newest: `2026-0${5 + (i % 4)}-1${i}T08:00:00.000Z` }),
    );
  const payers: CustomerFixture[] = [];
  for (let i = 0; i < 4; i++) {
    payers.push(
      await world.customer({
        name: `Payer ${i}`,
        addresses: 1,
        orders: 15,
        newest: minutesBefore('2026-10-01T00:00:00.000Z', i * 13),
        spacingMinutes: 61,
        status: () => 'PAID',
        detail: false,
      }),
    );
  }
  // The suites read these through GSI1 and eventually consistent reads: wait for them to show.
  await stack.settled();
  return { world, ana, big, peer, small, crowd, payers };
}

/** The customer screen: profile, addresses and the latest 20 orders. */
export const SCREEN = /* GraphQL */ `
  query Screen($id: ID!) {
    customer(id: $id) {
      id name email createdAt
      addresses { ${ADDRESS_FIELDS} }
      orders(first: 20) { nodes { ${ORDER_FIELDS} } pageInfo { hasNextPage } }
    }
  }`;

/** What SCREEN should answer for `fixture` (with `first` orders). */
export function screenData(fixture: CustomerFixture, first = 20) {
  return {
    ...profileData(fixture.customer),
    addresses: fixture.addresses,
    orders: { nodes: fixture.orders.slice(0, first).map(orderData), pageInfo: { hasNextPage: fixture.orders.length > first } },
  };
}
