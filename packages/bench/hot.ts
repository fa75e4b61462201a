/**
 * `npm run bench:hot`: one customer's concurrent orders (the pattern card's hot-key gotcha). Not a
 * test: it measures and prints. One process: the embedded engine with the FAITHFUL profile (its
 * transactions conflict by DynamoDB's rules), the real HTTP server, the real relay counting
 * Customer.stats from the stream.
 *
 *   npm run bench:hot [-- --orders 400] [--json]
 *
 * 1. **Orders per second** at 1, 4, 16 and 64 concurrent buyers, `--orders` placeOrders each (two
 *    lines, staff token, distinct idempotency keys), all for ONE customer, against the same buyers
 *    spreading the same orders over 64 customers; with the outcome of every request by code and
 *    the transactions the engine cancelled for a conflict.
 * 2. **Write units on the hottest partition** (the one customer's `CUSTOMER#<id>`), counted from the
 *    requests on the wire: each item a request writes costs ⌈size / 1 KB⌉ write units, twice in a
 *    transaction (DynamoDB's pricing), its size the stored item's. The order path and the relay
 *    (its stats transactions, one per customer and stream batch) apart, and the writes of the
 *    customer's profile item per order. From it: the order rate at which one customer's partition
 *    reaches DynamoDB's 1,000 WCU/s per partition, and the WCU/s the measured local rate would put there.
 * 3. **The doctor's view** of that table: the largest item collection and the issues it reports.
 */
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { startEngine, type WireRequest } from '@single-table/engine';
import { FAITHFUL } from '@single-table/engine/profiles';
import {
  createDocumentClient,
  ensureTable,
  Table,
  type Item,
  authenticatorFor,
  devClaims,
  openDevIssuer,
  readConfig,
  silenceSdkNodeVersionNotice,
  startServer,
  Relay,
  hubPublisher,
  streamsClientFor,
  customerToItem,
  guarded,
  itemSize,
  newId,
  productToItem,
  STATS_BASELINE,
  doctor,
} from 'single-table-graphql';

const { values } = parseArgs({ options: { orders: { type: 'string', default: '400' }, json: { type: 'boolean', default: false } } });
const ORDERS = Number(values.orders);
const BUYERS = [1, 4, 16, 64];
const SPREAD = 64;
/** DynamoDB's write throughput of one partition. */
const PARTITION_WCU = 1000;
const LINES = [
  { sku: 'HOT-1', quantity: 1 },
  { sku: 'HOT-2', quantity: 2 },
];
const PLACE = `mutation($input: PlaceOrderInput!) { placeOrder(input: $input) { id } }`;

type Run = {
  ordersPerSecond: number;
  seconds: number;
  outcomes: Record<string, number>;
  conflictCancellations: number;
  transactions: number;
};

/** Write units per partition key of the writes in `requests`, each item at its stored size. */
function writeUnits(requests: readonly WireRequest[], sizes: Map<string, number>) {
  const byPk = new Map<string, number>();
  const byItem = new Map<string, number>();
  const charge = (key: Record<string, never>, put: Record<string, never> | undefined, transactional: boolean) => {
    const { PK, SK } = unmarshall(key) as { PK: string; SK: string };
    const size = sizes.get(`${PK}|${SK}`) ?? (put ? itemSize(unmarshall(put)) : 1);
    byPk.set(PK, (byPk.get(PK) ?? 0) + Math.max(1, Math.ceil(size / 1024)) * (transactional ? 2 : 1));
    byItem.set(`${PK}|${SK}`, (byItem.get(`${PK}|${SK}`) ?? 0) + 1);
  };
  const keyOf = (item: Record<string, never>) => ({ PK: item.PK, SK: item.SK }) as unknown as Record<string, never>;
  for (const request of requests) {
    if (request.status !== 200) continue; // a cancelled transaction writes nothing (DynamoDB still charges it: not counted here)
    const body = request.body;
    if (request.operation === 'TransactWriteItems')
      for (const action of body.TransactItems) {
        if (action.Put) charge(keyOf(action.Put.Item), action.Put.Item, true);
        else if (action.Update) charge(action.Update.Key, undefined, true);
        else if (action.Delete) charge(action.Delete.Key, undefined, true);
      }
    else if (request.operation === 'PutItem') charge(keyOf(body.Item), body.Item, false);
    else if (request.operation === 'UpdateItem' || request.operation === 'DeleteItem') charge(body.Key, undefined, false);
    else if (request.operation === 'BatchWriteItem')
      for (const writes of Object.values(body.RequestItems) as Array<Array<{ PutRequest?: { Item: never } }>>)
        for (const write of writes) if (write.PutRequest) charge(keyOf(write.PutRequest.Item), write.PutRequest.Item, false);
  }
  return { byPk, byItem };
}

async function main() {
  silenceSdkNodeVersionNotice();
  const dir = mkdtempSync(join(tmpdir(), 'bench-hot-'));
  const config = readConfig({ DATA_DIR: dir });
  const engine = await startEngine({ host: '127.0.0.1', port: 0, ...FAITHFUL });
  const doc = createDocumentClient({ endpoint: engine.endpoint, region: 'us-east-1' });
  await ensureTable(doc, 'app');
  const table = new Table('app', doc);
  const server = await startServer({
    table,
    authenticate: await authenticatorFor(config.auth),
    production: false,
    logger: pino({ level: 'silent' }),
    quotas: { readsPerMinute: 1e12, writesPerMinute: 1e12 },
    port: 0,
    host: '127.0.0.1',
  });
  const issuer = await openDevIssuer(config.auth.devKeyFile);
  const staff = await issuer.sign(devClaims(config.auth, { staff: true }));
  const streams = streamsClientFor({ endpoint: engine.endpoint, config });
  const relay = new Relay({ tableName: 'app', doc, streams, table, publisher: hubPublisher(server.hub), name: 'hub', pollMillis: 50 });
  const place = async (customerId: string) => {
    const response = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${staff}` },
      body: JSON.stringify({ query: PLACE, variables: { input: { customerId, idempotencyKey: newId(), lines: LINES } } }),
    });
    const body = (await response.json()) as { errors?: Array<{ extensions?: { code?: string } }> };
    return body.errors ? (body.errors[0]?.extensions?.code ?? `HTTP ${response.status}`) : 'placed';
  };
  const results: Record<string, unknown> = { engine: 'FAITHFUL, in process (conflicts by DynamoDB rules)', ordersPerRun: ORDERS };
  try {
    const now = new Date().toISOString();
    const customers = Array.from({ length: SPREAD }, (_, i) => ({
      id: newId(),
      name: `Buyer ${i}`,
      email: `hot${i}.${Date.now()}@example.com`,
      createdAt: now,
    }));
    await guarded(table).putAll(
      customers.map((c) => ({ ...customerToItem(c), [STATS_BASELINE]: now })),
      { concurrency: 4 },
    );
    await guarded(table).putAll(
      LINES.map((line, i) => productToItem({ sku: line.sku, name: line.sku, priceCents: 500 + i, active: true })),
    );
    await relay.drain();

    const run = async (buyers: number, targets: readonly string[]): Promise<Run> => {
      const cancelledBefore = engine.conflicts().transactionsCancelled;
      const sentBefore = engine.wire.count('TransactWriteItems');
      const outcomes: Record<string, number> = {};
      let next = 0;
      const started = performance.now();
      await Promise.all(
        Array.from({ length: buyers }, async () => {
          for (let i = next++; i < ORDERS; i = next++) {
            const outcome = await place(targets[i % targets.length]!);
            outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
          }
        }),
      );
      const seconds = (performance.now() - started) / 1000;
      return {
        ordersPerSecond: Math.round((outcomes.placed ?? 0) / seconds),
        seconds: Math.round(seconds * 100) / 100,
        outcomes,
        conflictCancellations: engine.conflicts().transactionsCancelled - cancelledBefore,
        transactions: engine.wire.count('TransactWriteItems') - sentBefore,
      };
    };

    const rows: Array<Record<string, unknown>> = [];
    let hot: { requests: WireRequest[]; ordersPerSecond: number; customerId: string; orders: number } | undefined;
    for (const buyers of BUYERS) {
      const one = customers[BUYERS.indexOf(buyers)]!.id; // a fresh customer for each row
      engine.wire.reset();
      const single = await run(buyers, [one]);
      await relay.drain(); // the stats of these orders, counted
      if (buyers === BUYERS.at(-1))
        hot = {
          requests: engine.wire.requests(),
          ordersPerSecond: single.ordersPerSecond,
          customerId: one,
          orders: single.outcomes.placed ?? 0,
        };
      const spread = await run(
        buyers,
        customers.map((c) => c.id),
      );
      await relay.drain();
      rows.push({
        buyers,
        oneCustomer: single,
        [`${SPREAD}Customers`]: spread,
        ratio: Math.round((single.ordersPerSecond / spread.ordersPerSecond) * 100) / 100,
      });
    }
    results.throughput = rows;

    // 2. The hottest partition, from the 64-buyer one-customer run and the relay's counting of it.
    const pk = `CUSTOMER#${hot!.customerId}`;
    const { items: stored } = await table.queryAll({
      KeyConditionExpression: 'PK = :pk',
      ExpressionAttributeValues: { ':pk': pk },
      ConsistentRead: true,
    });
    const sizes = new Map(stored.map((item: Item) => [`${String(item.PK)}|${String(item.SK)}`, itemSize(item)]));
    const isRelay = (request: WireRequest) =>
      request.operation === 'TransactWriteItems' && request.body.TransactItems.every((action: { Update?: unknown }) => action.Update);
    const orderPath = writeUnits(
      hot!.requests.filter((request) => !isRelay(request)),
      sizes,
    );
    const relayPath = writeUnits(hot!.requests.filter(isRelay), sizes);
    const perOrder = (units: number) => Math.round((units / hot!.orders) * 100) / 100;
    const wcuPerOrder = perOrder((orderPath.byPk.get(pk) ?? 0) + (relayPath.byPk.get(pk) ?? 0));
    results.hottestPartition = {
      partition: 'CUSTOMER#<the one customer>',
      orders: hot!.orders,
      wcuPerOrder: { orderPath: perOrder(orderPath.byPk.get(pk) ?? 0), relay: perOrder(relayPath.byPk.get(pk) ?? 0), total: wcuPerOrder },
      profileWritesPerOrder: {
        orderPath: perOrder(orderPath.byItem.get(`${pk}|PROFILE`) ?? 0),
        relay: perOrder(relayPath.byItem.get(`${pk}|PROFILE`) ?? 0),
      },
      relayTransactions: hot!.requests.filter(isRelay).length,
      ordersPerSecondAtPartitionLimit: Math.floor(PARTITION_WCU / wcuPerOrder),
      measuredOrdersPerSecond: hot!.ordersPerSecond,
      wcuPerSecondAtMeasuredRate: Math.round(hot!.ordersPerSecond * wcuPerOrder),
      otherPartitionsPerOrder: 'each order also writes its own ORDER#, IDEMPOTENCY# and EVENT#Order# partitions (new keys: never hot)',
    };

    // 3. What the doctor says of this table.
    const report = await doctor({ table, doc });
    const mine = report.largestCollections.find((collection) => collection.PK === pk);
    results.doctor = {
      hotCollection: mine && {
        items: mine.items,
        share: mine.share,
        fullReadRCU: mine.fullReadRCU,
        rankBySize: report.largestCollections.indexOf(mine) + 1,
      },
      issues: report.issues.map((issue) => `${issue.code} (${issue.count})`),
    };
  } finally {
    await relay.stop();
    streams.destroy();
    await server.close();
    doc.destroy();
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  }
  if (values.json) console.log(JSON.stringify(results, null, 2));
  else {
    console.log(`hot-customer benchmark (${results.engine}, ${ORDERS} orders a run)`);
    for (const row of results.throughput as Array<Record<string, Run | number>>) {
      const one = row.oneCustomer as Run;
      const spread = row[`${SPREAD}Customers`] as Run;
      console.log(
        `  ${String(row.buyers).padStart(2)} buyers: one customer ${one.ordersPerSecond}/s ${JSON.stringify(one.outcomes)} conflicts ${one.conflictCancellations}` +
          ` | ${SPREAD} customers ${spread.ordersPerSecond}/s ${JSON.stringify(spread.outcomes)} conflicts ${spread.conflictCancellations} | ratio ${String(row.ratio)}`,
      );
    }
    console.log(`  hottest partition: ${JSON.stringify(results.hottestPartition)}`);
    console.log(`  doctor: ${JSON.stringify(results.doctor)}`);
  }
  process.exit(0);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
