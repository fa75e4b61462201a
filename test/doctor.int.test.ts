/**
 * `npm run doctor`: a parallel Scan checked against the model's entity declarations and the table
 * definition. A healthy seeded table passes; each problem injected into it is reported with its
 * entity and key and fails the gate (exit status 1), while warnings alone do not.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CreateTableCommand, DeleteTableCommand, DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { GSI1, GSI1_PROJECTED_ATTRIBUTES, TTL_ATTRIBUTE } from '../src/dynamo/definition';
import { Table, type Item } from '../src/dynamo/table';
import {
  DEFAULT_WRITE_SHARDS,
  addressToItem,
  customerToItem,
  eventToItem,
  itemSize,
  MAX_ITEM_BYTES,
  outboxEvent,
  summaryToItem,
  SYSTEM_ACTOR,
  type OrderRecord,
} from '../src/model';
import { diagnose, doctor, expectedTableFacts, renderReport, type DoctorReport, type Issue } from '../src/ops/doctor';
import { seed, type SeedResult } from '../src/ops/seed';
import { seededCustomerAt } from '../src/ops/seed-data';
import { startStack, type Stack } from './support/stack';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const SEEDED = { customers: 25, orders: 400, seed: 'doctor' };
const CUSTOMER_ID = '01J0000000000000000000000C';
const ORDER_ID = '01J0000000000000000000000D';

let stack: Stack;
let seeded: SeedResult;
/** Items a test injected, removed after it so every test starts from the healthy table. */
let injected: Item[] = [];

beforeAll(async () => {
  stack = await startStack();
  seeded = await seed(stack, SEEDED);
});
afterAll(async () => {
  await stack?.close();
});
afterEach(async () => {
  for (const item of injected) await stack.doc.send(new DeleteCommand({ TableName: stack.tableName, Key: { PK: item.PK, SK: item.SK } }));
  injected = [];
});

async function inject(...items: Item[]): Promise<void> {
  injected.push(...items);
  // Corrupt on purpose (the doctor must find it): written without the write guards.
  await stack.load(items, { guard: false });
}

function issue(report: DoctorReport, code: Issue['code']): Issue {
  const found = report.issues.find((i) => i.code === code);
  expect(found, `${code} in ${JSON.stringify(report.issues.map((i) => i.code))}`).toBeDefined();
  return found!;
}

const anOrder = (overrides: Partial<OrderRecord> = {}): OrderRecord => ({
  id: ORDER_ID,
  customerId: CUSTOMER_ID,
  placedAt: '2025-12-01T10:00:00.000Z',
  status: 'PAID',
  totalCents: 999,
  lineCount: 1,
  ...overrides,
});

describe('Table doctor', () => {
  it('finds a healthy seeded table healthy: every item accounted for by entity, no issue, exit status 0', async () => {
    const report = await doctor(stack, { segments: 3 });
    expect(report.summary).toEqual({ errors: 0, warnings: 0, exitCode: 0 });
    expect(report.issues).toEqual([]);

    const items = Object.fromEntries(report.entities.map((e) => [e.type, e.items]));
    expect(items).toMatchObject({
      CUSTOMER: SEEDED.customers,
      EMAIL: SEEDED.customers,
      ADDRESS: seeded.counts.addresses,
      ORDER: SEEDED.orders,
      ORDER_HEADER: SEEDED.orders,
      LINE: seeded.counts.lines,
    });
    const all = await stack.items();
    expect(report.totals.items).toBe(all.length);
    expect(report.totals.bytes).toBe(all.reduce((sum, item) => sum + itemSize(item), 0));
    expect(report.scan).toMatchObject({ segments: 3, items: all.length });
    expect(report.scan!.consumedRCU).toBeGreaterThan(0);
  });

  it('describes the table: GSI1 with its INCLUDE projection, no LSI, TTL on the TTL attribute', async () => {
    const report = await doctor(stack);
    expect(report.table.gsis).toEqual([
      {
        name: GSI1,
        partitionKey: 'GSI1PK',
        sortKey: 'GSI1SK',
        projection: { type: 'INCLUDE', attributes: [...GSI1_PROJECTED_ATTRIBUTES] },
        status: 'ACTIVE',
      },
    ]);
    expect(report.table.lsis).toEqual([]);
    expect(report.table.ttl).toEqual({ attribute: TTL_ATTRIBUTE, status: 'ENABLED' });
  });

  it('ranks the largest item collections and the GSI1 keys holding the most items', async () => {
    const report = await doctor(stack);
    const busiest = Array.from({ length: SEEDED.customers }, (_, i) => seededCustomerAt(SEEDED, i)).sort(
      (a, b) => b.orders.length - a.orders.length,
    )[0]!;
    // The seeded catalogue (500 products under PK = CATALOG) is one collection; the busiest customer's leads the customers'.
    expect(report.largestCollections.find((c) => c.PK === 'CATALOG')).toMatchObject({ items: 500 });
    expect(report.largestCollections.filter((c) => c.PK.startsWith('CUSTOMER#'))[0]).toMatchObject({
      PK: `CUSTOMER#${busiest.customer.id}`,
      items: 1 + busiest.addresses.length + busiest.orders.length,
    });
    const bytes = report.largestCollections.map((c) => c.bytes);
    expect(bytes).toEqual([...bytes].sort((a, b) => b - a));
    // Order summaries sit under STATUS#<status>#<shard>: the most common status leads.
    expect(report.largestIndexKeys[0]!.GSI1PK).toMatch(/^STATUS#DELIVERED#\d$/);
    expect(report.largestIndexKeys[0]!.wcuPerWrite).toBe(1);
    // 1,000 writes/s on the key, reached when the whole index takes 1,000 / share writes/s.
    expect(report.largestIndexKeys[0]!.indexWritesPerSecondAtLimit).toBe(
      Math.round((1000 * report.totals.gsi1Items) / report.largestIndexKeys[0]!.items),
    );
  });

  it('reports an item whose keys no entity claims as an error, with its key', async () => {
    await inject({ PK: 'WIDGET#1', SK: 'WIDGET', type: 'WIDGET' });
    const report = await doctor(stack);
    expect(issue(report, 'UNKNOWN_ENTITY')).toMatchObject({
      level: 'error',
      count: 1,
      examples: [{ entity: null, key: { PK: 'WIDGET#1', SK: 'WIDGET' } }],
    });
    expect(report.summary).toEqual({ errors: 1, warnings: 0, exitCode: 1 });
  });

  it('reports the TTL attribute on a customer profile as an error: DynamoDB would delete the customer', async () => {
    const profile = {
      ...customerToItem({ id: CUSTOMER_ID, name: 'Temp', email: 'temp@example.com', createdAt: '2025-01-01T00:00:00.000Z' }),
      [TTL_ATTRIBUTE]: 1_800_000_000,
    };
    await inject(profile);
    const report = await doctor(stack);
    expect(issue(report, 'TTL_ON_NON_EXPIRING')).toMatchObject({
      level: 'error',
      count: 1,
      examples: [
        { entity: 'Customer profile', key: { PK: `CUSTOMER#${CUSTOMER_ID}`, SK: 'PROFILE' }, detail: `${TTL_ATTRIBUTE} = 1800000000` },
      ],
    });
    expect(report.summary.exitCode).toBe(1);
  });

  it('accepts an outbox event with its TTL, and warns of one without it: it would never be deleted', async () => {
    const draft = { eventType: 'ProductPut', aggregateType: 'Product', aggregateId: 'DOC-1', payload: {} } as const;
    const event = eventToItem(outboxEvent(draft, 1, SYSTEM_ACTOR));
    const forever: Item = { ...eventToItem(outboxEvent(draft, 2, SYSTEM_ACTOR)), [TTL_ATTRIBUTE]: undefined };
    await inject(event, forever);
    const report = await doctor(stack);
    expect(report.issues.find((i) => i.code === 'TTL_ON_NON_EXPIRING')).toBeUndefined();
    const examples = [
      { entity: 'Outbox event', key: { PK: 'EVENT#Product#DOC-1', SK: 'SEQ#0000000002' }, detail: `${TTL_ATTRIBUTE} = null` },
    ];
    expect(issue(report, 'TTL_MISSING')).toMatchObject({ level: 'warning', count: 1, examples });
    expect(report.summary).toEqual({ errors: 0, warnings: 1, exitCode: 0 });
  });

  it('reports an order summary without its GSI1 keys as an error: ordersByStatus would never list it', async () => {
    const { GSI1PK: _pk, GSI1SK: _sk, ...summary } = summaryToItem(anOrder(), DEFAULT_WRITE_SHARDS);
    await inject(summary);
    const report = await doctor(stack);
    expect(issue(report, 'MISSING_GSI1_KEYS')).toMatchObject({
      level: 'error',
      count: 1,
      examples: [
        {
          entity: 'Order summary',
          key: { PK: `CUSTOMER#${CUSTOMER_ID}`, SK: `ORDER#2025-12-01T10:00:00.000Z#${ORDER_ID}` },
          detail: 'missing GSI1PK and GSI1SK',
        },
      ],
    });
    expect(report.summary).toEqual({ errors: 1, warnings: 0, exitCode: 1 });
  });

  it('warns about an item above 300 KB, lists it first among the largest, and still exits 0', async () => {
    const address = addressToItem(CUSTOMER_ID, {
      label: 'huge',
      street: 'x'.repeat(350 * 1024),
      city: 'Madrid',
      postalCode: '28001',
      country: 'ES',
    });
    await inject(address);
    const report = await doctor(stack);
    const size = itemSize(address);
    expect(issue(report, 'ITEM_NEAR_LIMIT')).toMatchObject({
      level: 'warning',
      count: 1,
      examples: [{ entity: 'Address', key: { PK: `CUSTOMER#${CUSTOMER_ID}`, SK: 'PROFILE#ADDRESS#huge' }, bytes: size }],
    });
    expect(report.largestItems[0]).toEqual({
      entity: 'Address',
      key: { PK: `CUSTOMER#${CUSTOMER_ID}`, SK: 'PROFILE#ADDRESS#huge' },
      bytes: size,
      percentOfLimit: Math.round((1000 * size) / MAX_ITEM_BYTES) / 10,
    });
    expect(report.summary).toEqual({ errors: 0, warnings: 1, exitCode: 0 });
  });

  it('reports an item above 400 KB as an error (the engine refuses to store one, so on the report of items)', () => {
    const huge = addressToItem(CUSTOMER_ID, {
      label: 'huge',
      street: 'x'.repeat(401 * 1024),
      city: 'Madrid',
      postalCode: '28001',
      country: 'ES',
    });
    const report = diagnose([
      huge,
      customerToItem({ id: CUSTOMER_ID, name: 'A', email: 'a@example.com', createdAt: '2025-01-01T00:00:00.000Z' }),
    ]);
    expect(issue(report, 'ITEM_OVER_LIMIT')).toMatchObject({
      level: 'error',
      count: 1,
      examples: [{ entity: 'Address', key: { SK: 'PROFILE#ADDRESS#huge' }, bytes: itemSize(huge) }],
    });
    expect(report.issues.find((i) => i.code === 'ITEM_NEAR_LIMIT')).toBeUndefined();
    expect(report.summary.exitCode).toBe(1);
  });

  it('warns when one GSI1 key holds half the index or more (a status left unsharded, say)', () => {
    const items = Array.from({ length: 1200 }, (_, i) => ({
      ...summaryToItem(anOrder({ id: `01J${String(i).padStart(23, '0')}` }), DEFAULT_WRITE_SHARDS),
      GSI1PK: 'STATUS#PAID',
    }));
    const report = diagnose(items);
    expect(issue(report, 'HOT_INDEX_KEY')).toMatchObject({
      level: 'warning',
      count: 1,
      examples: [{ entity: null, GSI1PK: 'STATUS#PAID', detail: '1200 of 1200 index items (100.0%)' }],
    });
    expect(issue(report, 'DOMINANT_COLLECTION')).toMatchObject({ level: 'warning', examples: [{ PK: `CUSTOMER#${CUSTOMER_ID}` }] });
    expect(report.largestIndexKeys[0]).toMatchObject({
      GSI1PK: 'STATUS#PAID',
      items: 1200,
      share: 1,
      keyWritesPerSecondAtLimit: 1000,
      indexWritesPerSecondAtLimit: 1000,
    });
    // An unsharded status key is also the wrong key for today's layout: an error, until migration 0002.
    expect(issue(report, 'STALE_GSI1_KEYS')).toMatchObject({ level: 'error', count: 1200 });
    expect(report.summary).toEqual({ errors: 1200, warnings: 2, exitCode: 1 });
  });

  it('reports a local secondary index as an error, and a table without GSI1', async () => {
    await stack.doc.send(
      new CreateTableCommand({
        TableName: 'with-lsi',
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [
          { AttributeName: 'PK', AttributeType: 'S' },
          { AttributeName: 'SK', AttributeType: 'S' },
          { AttributeName: 'LSI1SK', AttributeType: 'S' },
        ],
        KeySchema: [
          { AttributeName: 'PK', KeyType: 'HASH' },
          { AttributeName: 'SK', KeyType: 'RANGE' },
        ],
        LocalSecondaryIndexes: [
          {
            IndexName: 'LSI1',
            KeySchema: [
              { AttributeName: 'PK', KeyType: 'HASH' },
              { AttributeName: 'LSI1SK', KeyType: 'RANGE' },
            ],
            Projection: { ProjectionType: 'KEYS_ONLY' },
          },
        ],
      }),
    );
    try {
      await waitActive('with-lsi');
      const report = await doctor({ table: new Table('with-lsi', stack.doc), doc: stack.doc });
      expect(report.table.lsis).toEqual([
        { name: 'LSI1', partitionKey: 'PK', sortKey: 'LSI1SK', projection: { type: 'KEYS_ONLY', attributes: [] }, status: null },
      ]);
      expect(issue(report, 'LSI_PRESENT')).toMatchObject({
        level: 'error',
        count: 1,
        examples: [{ entity: null, detail: 'LSI1: PK / LSI1SK, projection KEYS_ONLY' }],
      });
      expect(issue(report, 'GSI1_MISSING').level).toBe('error');
      expect(issue(report, 'TTL_NOT_ENABLED').level).toBe('warning');
      expect(report.summary.exitCode).toBe(1);
      expect(renderReport(report)).toContain('LSI LSI1: PK / LSI1SK');
    } finally {
      await stack.doc.send(new DeleteTableCommand({ TableName: 'with-lsi' }));
    }
  });

  it('reports the same document for the same table, apart from how the scan went', async () => {
    await inject({ PK: 'WIDGET#2', SK: 'WIDGET' }, { PK: 'WIDGET#1', SK: 'WIDGET' });
    const withoutTimings = (report: DoctorReport) => ({ ...report, scan: { ...report.scan, seconds: 0 } });
    const [a, b] = [await doctor(stack, { segments: 1 }), await doctor(stack, { segments: 7 })];
    // Requests and consumed capacity depend on the segmentation (capacity is rounded per page).
    expect(withoutTimings(b)).toEqual({
      ...withoutTimings(a),
      scan: { ...withoutTimings(a).scan, segments: 7, requests: b.scan!.requests, consumedRCU: b.scan!.consumedRCU },
    });
    // Examples come in key order whatever order the segments returned the items in.
    expect(issue(a, 'UNKNOWN_ENTITY').examples.map((e) => e.key?.PK)).toEqual(['WIDGET#1', 'WIDGET#2']);
    expect(JSON.parse(JSON.stringify(a))).toEqual(a);
  });

  it('checks the report of a table exactly as defined: nothing to say about an empty one', () => {
    expect(diagnose([], expectedTableFacts('app')).summary).toEqual({ errors: 0, warnings: 0, exitCode: 0 });
  });
});

describe('The seed and doctor command lines', () => {
  const root = fileURLToPath(new URL('..', import.meta.url));

  function run(script: string, args: string[], tableName: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
    return new Promise((resolve, reject) => {
      // Asynchronous on purpose: the engine answering the child runs in this process.
      const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
        cwd: root,
        env: {
          ...process.env,
          DYNAMODB_ENDPOINT: stack.engine.endpoint,
          TABLE_NAME: tableName,
          NODE_ENV: 'development',
          AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk) => {
        stdout += String(chunk);
      });
      child.stderr.on('data', (chunk) => {
        stderr += String(chunk);
      });
      child.once('error', reject);
      child.once('exit', (code) => resolve({ code, stdout, stderr }));
    });
  }

  it('seeds through DYNAMODB_ENDPOINT; the doctor then exits 0, and 1 once an error is injected, with a JSON report', async () => {
    const seeding = await run('src/entry/cli/seed.ts', ['--customers', '8', '--orders', '60', '--seed', 'cli', '--json'], 'cli');
    expect(seeding.code, seeding.stderr).toBe(0);
    const seededByCli = JSON.parse(seeding.stdout);
    expect(seededByCli).toMatchObject({ table: 'cli', counts: { customers: 8, orders: 60 }, tableWasEmpty: true });

    const healthy = await run('src/entry/cli/doctor.ts', ['--json', '--segments', '2'], 'cli');
    expect(healthy.code, healthy.stderr).toBe(0);
    const report = JSON.parse(healthy.stdout) as DoctorReport;
    expect(report).toMatchObject({
      report: 'table-doctor',
      version: 1,
      summary: { errors: 0, exitCode: 0 },
      totals: { items: seededByCli.counts.items },
    });

    await stack.doc.send(new PutCommand({ TableName: 'cli', Item: { PK: 'WIDGET#9', SK: 'WIDGET' } }));
    const sick = await run('src/entry/cli/doctor.ts', [], 'cli');
    expect(sick.code).toBe(1);
    expect(sick.stdout).toContain('ERROR UNKNOWN_ENTITY: 1 items whose keys no declared entity claims');
    expect(sick.stdout).toContain('WIDGET#9 / WIDGET');
    expect(sick.stdout).toMatch(/1 error, 0 warnings: NOT healthy \(exit 1\)/);

    const usage = await run('src/entry/cli/doctor.ts', ['--segments', 'many'], 'cli');
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('--segments must be an integer');
  });
});

async function waitActive(tableName: string): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const { Table: description } = await stack.doc.send(new DescribeTableCommand({ TableName: tableName }));
    if (description?.TableStatus === 'ACTIVE') return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`${tableName} did not become ACTIVE`);
}
