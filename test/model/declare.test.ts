import { describe, expect, it } from 'vitest';
import {
  accessPatterns,
  addressToItem,
  customerEntity,
  customerToItem,
  defineEntity,
  emailGuardItem,
  entities,
  entityOf,
  headerToItem,
  idempotencyToItem,
  indexedLineToItem,
  keyTemplate,
  lineToItem,
  newId,
  orderLineEntity,
  orderSummaryEntity,
  productToItem,
  shardOf,
  summaryToItem,
  customerByEmail,
  customerProfile,
  MAX_STORED_LINES,
  orderDetail,
  orderInputs,
  products,
  readsOf,
  requestsOf,
  DEFAULT_WRITE_SHARDS,
  type GetRequest,
  type OrderRecord,
  type QueryRequest,
} from '../../src/model';
import type { Table } from '../../src/dynamo/table';
import { renderAccessPatterns } from '../../src/ops/access-patterns';

const order: OrderRecord = {
  id: newId(),
  customerId: newId(),
  placedAt: '2026-09-01T10:00:00.000Z',
  status: 'PAID',
  totalCents: 100,
  lineCount: 1,
};
const line = { lineNo: 7, sku: 'MUG-1', quantity: 1, unitPriceCents: 100 };

describe('key templates', () => {
  const parts = {
    id: { shape: '[0-9]{3}', doc: 'orderId' },
    n: { shape: '\\d{4}', format: (value: string | number) => String(value).padStart(4, '0') },
  };

  it('build, parse and document one text', () => {
    const template = keyTemplate('A#{id}#{n}', parts);
    expect(template.build({ id: '123', n: 7 })).toBe('A#123#0007');
    expect(template.parse('A#123#0007')).toEqual({ id: '123', n: '0007' });
    expect(template.parse('A#123#7')).toBeUndefined();
    expect(template.parse('A#123#0007#')).toBeUndefined();
    expect(template.parse(42)).toBeUndefined();
    expect(template.doc).toBe('A#<orderId>#<n>');
    expect(template.prefix).toBe('A#');
    expect(template.claims('A#anything')).toBe(true);
    expect(template.claims('B#123#0007')).toBe(false);
    expect(template.head(1).text).toBe('A#{id}');
  });

  it('a constant template parses and claims only itself', () => {
    const template = keyTemplate('PROFILE', parts);
    expect(template.parse('PROFILE')).toEqual({});
    expect(template.claims('PROFILE#ADDRESS#home')).toBe(false);
  });

  it('refuses a template naming an undeclared part, or a part twice', () => {
    expect(() => keyTemplate('A#{missing}', parts)).toThrow(/undeclared part/);
    expect(() => keyTemplate('A#{id}#{id}', parts)).toThrow(/twice/);
    expect(() => defineEntity({ name: 'Broken', type: 'BROKEN', parts: {}, table: { PK: 'X#{id}', SK: 'Y' }, expires: false })).toThrow(
      /undeclared part/,
    );
  });
});

describe('entity declarations', () => {
  const items = {
    'Customer profile': customerToItem({ id: newId(), name: 'Ana', email: 'Ana@Example.com', createdAt: '2026-01-01T00:00:00.000Z' }),
    'Email guard': emailGuardItem('Ana@Example.com', newId()),
    Address: addressToItem(newId(), { label: 'home', street: 's', city: 'c', postalCode: 'p', country: 'ES' }),
    'Order summary': summaryToItem(order, DEFAULT_WRITE_SHARDS),
    'Order header': headerToItem(order),
    'Order line': indexedLineToItem(order, line),
    'Idempotency record': idempotencyToItem({ customerId: newId(), key: 'k-1', orderId: newId(), fingerprint: 'f', expiresAt: 1 }),
    Product: productToItem({ sku: 'MUG-1', name: 'Mug', priceCents: 100, active: true }),
  };

  it('every codec writes the keys and type its entity declares, and only that entity claims them', () => {
    for (const [name, item] of Object.entries(items)) {
      const entity = entityOf(item);
      expect(entity?.name, name).toBe(name);
      expect(item.type, name).toBe(entity!.type);
      expect(entity!.parseKey({ PK: item.PK, SK: item.SK }), name).toBeDefined();
      expect(
        entities()
          .filter((other) => other.matches(item))
          .map((other) => other.name),
      ).toEqual([name]);
    }
  });

  it('matches by the keys and, when the item carries one, by its type', () => {
    const profile = items['Customer profile'];
    expect(customerEntity.matches(profile)).toBe(true);
    expect(customerEntity.matches({ PK: profile.PK, SK: profile.SK })).toBe(true);
    expect(customerEntity.matches({ ...profile, type: 'ADDRESS' })).toBe(false);
    expect(customerEntity.claims({ ...profile, type: 'ADDRESS' })).toBe(true);
  });

  it('derives the GSI1 keys an item must carry from its own attributes', () => {
    expect(orderSummaryEntity.gsi1Of!(items['Order summary'], { writeShards: DEFAULT_WRITE_SHARDS })).toEqual({
      GSI1PK: `STATUS#PAID#${shardOf(order.id, DEFAULT_WRITE_SHARDS)}`,
      GSI1SK: `${order.placedAt}#${order.id}`,
    });
    expect(
      orderSummaryEntity.gsi1Of!({ ...items['Order summary'], status: 'LOST' }, { writeShards: DEFAULT_WRITE_SHARDS }),
    ).toBeUndefined();
    expect(customerEntity.gsi1Of!(items['Customer profile'], { writeShards: DEFAULT_WRITE_SHARDS })).toEqual({
      GSI1PK: items['Customer profile'].GSI1PK,
      GSI1SK: items['Customer profile'].GSI1SK,
    });
    // A line's order position is its order's, not its own attribute: no gsi1Of.
    expect(orderLineEntity.gsi1Of).toBeUndefined();
    expect(orderLineEntity.requiresGsi1).toBe(true);
    expect(lineToItem(order.id, line).GSI1PK).toBeUndefined();
  });

  it('parses a key exactly, or not at all (cursors)', () => {
    const key = { PK: `CUSTOMER#${order.customerId}`, SK: `ORDER#${order.placedAt}#${order.id}` };
    expect(orderSummaryEntity.parseKey(key)).toEqual({ customerId: order.customerId, placedAt: order.placedAt, id: order.id });
    expect(orderSummaryEntity.parseKey({ PK: key.PK })).toBeUndefined();
    expect(orderSummaryEntity.parseKey({ ...key, other: 'x' })).toBeUndefined();
    expect(orderSummaryEntity.parseKey({ ...key, SK: `ORDER#2026-09-01T10:00:00Z#${order.id}` })).toBeUndefined();
    expect(orderSummaryEntity.parseKey({ ...key, SK: `ORDER#${order.placedAt}#${order.id.toLowerCase()}` })).toBeUndefined();
  });

  it('declares a codec with every entity whose items are written whole', () => {
    for (const entity of entities()) {
      if (entity.type.startsWith('MIGRATION')) expect(entity.codec, entity.name).toBeUndefined();
      else
        expect(
          [entity.codec?.toItem.name, entity.codec?.fromItem.name].every((name) => /(ToItem|Item)$/.test(name ?? '')),
          entity.name,
        ).toBe(true);
    }
  });

  it('documents every entity from its templates', () => {
    expect(customerEntity.keys).toEqual({
      PK: 'CUSTOMER#<customerId>',
      SK: 'PROFILE',
      GSI1PK: 'EMAIL#<email NFKC, lower-case>',
      GSI1SK: 'CUSTOMER#<customerId>',
    });
    expect(orderLineEntity.keys.GSI1SK).toBe('<placedAt ISO>#<orderId>#<lineNo, 4 digits>');
  });
});

describe('access-pattern declarations', () => {
  it('each has a unique name and a bound computed from its arguments', () => {
    const names = accessPatterns().map((p) => p.name);
    expect(new Set(names).size).toBe(names.length);
    for (const p of accessPatterns()) expect(typeof p.bound, p.name).toBe('function');
  });

  const built = accessPatterns().filter((p) => p.request !== undefined);
  const lineOf = (name: string) =>
    renderAccessPatterns()
      .split('\n')
      .find((line) => line.startsWith(`| \`${name}\` |`)) ?? '';

  it('every pattern, the collection’s planned Queries included, is built by a request builder', () => {
    expect(built.length).toBeGreaterThanOrEqual(22);
    expect(accessPatterns().filter((p) => typeof p.request !== 'function' || p.example === undefined)).toEqual([]);
  });

  it('documents the expressions it sends, verbatim, and derives index, operation and order from them', () => {
    for (const p of built) {
      const requests = requestsOf(p.request!(...p.example!));
      const line = lineOf(p.name);
      for (const request of requests) {
        expect(request.kind, p.name).toBe(p.operation);
        if (request.kind === 'Query') {
          expect(line, p.name).toContain(request.input.KeyConditionExpression!);
          expect(p.index, p.name).toBe(request.input.IndexName ?? 'table');
        }
        if (request.kind === 'TransactWriteItems')
          for (const action of request.actions) if ('Put' in action) expect(line, p.name).toContain(action.Put.ConditionExpression!);
      }
      const first = requests[0]!;
      expect(p.order, p.name).toBe(first.kind !== 'Query' ? '—' : first.input.ScanIndexForward === false ? 'newest first' : 'by sort key');
    }
    // Values are shown as the key templates they are instances of, not as example data.
    expect(lineOf('customerByEmail')).toContain(':pk = EMAIL#<email NFKC, lower-case>');
    expect(lineOf('orderDetail')).toContain(':pk = ORDER#<orderId>');
    expect(lineOf('ordersByStatus')).toContain(':pk = STATUS#<status>#<shard>');
  });

  it('has the bound its requests’ Limits (or keys) give, where it sends one wave', () => {
    for (const p of built.filter((p) => !p.several)) {
      const requests = requestsOf(p.request!(...p.example!));
      expect(p.bound(...p.example!), p.name).toBe(requests.reduce((n, r) => n + readsOf(r), 0));
      for (const request of requests) if (request.kind === 'Query') expect(request.input.Limit, p.name).toBeGreaterThan(0);
      if (requests.length === 1 && requests[0]!.kind === 'Query') expect(lineOf(p.name), p.name).toContain(`| Limit `);
    }
    expect(products.pattern.bound({ first: 7 })).toBe(8);
    expect(orderDetail.pattern.bound('01J9ZQ4K3M5N6P7R8S9T0V1W2X')).toBe(1 + MAX_STORED_LINES);
    expect(orderInputs.pattern.bound('01J9ZQ4K3M5N6P7R8S9T0V1W2X', ['A', 'B', 'A'])).toBe(3);
    expect(lineOf('products')).toContain('| Limit first + 1 |');
    expect(lineOf('orderInputs')).toContain('| 1 item a key: SKUs + 1 |');
    expect(lineOf('partitionWindow')).toContain('| 3 Queries in one wave: Limit 40 + 5 + 5 = 50 |');
  });

  it('states a bound of its own only where it sends several dependent requests', () => {
    expect(built.filter((p) => p.several).map((p) => p.name)).toEqual(['ordersByStatus', 'ordersBySku']);
    expect(lineOf('ordersByStatus')).toContain(`| ≤ ${DEFAULT_WRITE_SHARDS} × first + ${DEFAULT_WRITE_SHARDS} items |`);
  });

  it('sends what its builder builds', async () => {
    const sent: unknown[] = [];
    const table = {
      get: async (input: unknown) => {
        sent.push(input);
        return undefined;
      },
      query: async (input: unknown) => {
        sent.push(input);
        return { Items: [] };
      },
    } as unknown as Table;
    await customerByEmail(table, 'Ana@Example.com');
    await customerProfile(table, '01J9ZQ4K3M5N6P7R8S9T0V1W2X', true);
    await orderDetail(table, '01J9ZQ4K3M5N6P7R8S9T0V1W2X');
    await products(table, { first: 5 });
    expect(sent).toEqual([
      (customerByEmail.pattern.request!('Ana@Example.com') as QueryRequest).input,
      (customerProfile.pattern.request!('01J9ZQ4K3M5N6P7R8S9T0V1W2X', true) as GetRequest).input,
      (orderDetail.pattern.request!('01J9ZQ4K3M5N6P7R8S9T0V1W2X') as QueryRequest).input,
      (products.pattern.request!({ first: 5 }) as QueryRequest).input,
    ]);
  });
});
