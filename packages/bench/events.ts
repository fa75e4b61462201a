/**
 * `npm run bench:events`: the outbox relay's figures (README, "Events"; issue 13's note). Not a
 * test: it measures and prints. One process, as `npm start` runs them: the embedded engine with the
 * FAITHFUL profile and its stream, the real HTTP/websocket server, the real relay feeding the
 * server's hub (src/boot/relay.ts's wiring), a graphql-ws subscriber.
 *
 *   npm run bench:events [-- --backlog 20000] [--stats-backlog 2000] [--moves 300] [--stats 50] [--poll-ms 200] [--json]
 *
 * 1. **Throughput**: valid outbox items written straight to the table (BatchWriteItem), then the
 *    time the relay takes to publish them all from its checkpoint: events per second, for
 *    `--backlog` OrderStatusChanged (publish only) and `--stats-backlog` OrderPlaced (publish and
 *    count: one stats transaction per customer and page of records, 100 customers).
 * 2. **Live latency**: `--moves` sequential updateOrderStatus over HTTP as staff, each after a random
 *    pause of up to one poll interval (so arrivals fall anywhere in the relay's cycle); for each, the
 *    time from its answer (the transaction committed) to the subscriber (`orderUpdated(id)`) receiving it.
 * 3. **Stats lag**: `--stats` placeOrder as a customer; for each, the time from its answer until
 *    `me { stats }` (polled every 5 ms) counts it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import WebSocket from 'ws';
import { createClient } from 'graphql-ws';
import pino from 'pino';
import { startEngine } from '@single-table/engine';
import { percentile } from './measure';
import { FAITHFUL } from '@single-table/engine/profiles';
import {
  createDocumentClient,
  ensureTable,
  Table,
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
  eventToItem,
  guarded,
  newId,
  pendingStats,
  productToItem,
  summaryToItem,
  SYSTEM_ACTOR,
  type OutboxEvent,
} from 'single-table-graphql';

const { values } = parseArgs({
  options: {
    backlog: { type: 'string', default: '20000' },
    'stats-backlog': { type: 'string', default: '2000' },
    moves: { type: 'string', default: '300' },
    stats: { type: 'string', default: '50' },
    'poll-ms': { type: 'string', default: '200' },
    json: { type: 'boolean', default: false },
  },
});
const BACKLOG = Number(values.backlog);
const STATS_BACKLOG = Number(values['stats-backlog']);
const MOVES = Number(values.moves);
const STATS = Number(values.stats);
const POLL_MS = Number(values['poll-ms']);

const pause = () => new Promise((resolve) => setTimeout(resolve, Math.random() * POLL_MS));
const summary = (samples: number[]) => {
  const sorted = [...samples].sort((a, b) => a - b);
  const r = (n: number) => Math.round(n * 10) / 10;
  return {
    n: sorted.length,
    p50: r(percentile(sorted, 50)),
    p90: r(percentile(sorted, 90)),
    p99: r(percentile(sorted, 99)),
    max: r(sorted.at(-1) ?? NaN),
  };
};

async function main() {
  silenceSdkNodeVersionNotice();
  const dir = mkdtempSync(join(tmpdir(), 'bench-events-'));
  const config = readConfig({ DATA_DIR: dir, RELAY_POLL_MS: String(POLL_MS) });
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
  const relay = new Relay({ tableName: 'app', doc, streams, table, publisher: hubPublisher(server.hub), name: 'hub', pollMillis: POLL_MS });
  const gql = async (query: string, variables: Record<string, unknown>, token = staff) => {
    const res = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query, variables }),
    });
    const body = (await res.json()) as { data?: any; errors?: unknown[] };
    if (body.errors) throw new Error(JSON.stringify(body.errors));
    return body.data;
  };
  const results: Record<string, unknown> = { engine: 'FAITHFUL, in process', pollMs: POLL_MS };
  try {
    // 1. Throughput from a backlog.
    const customers = Array.from({ length: 100 }, (_, i) => ({
      id: newId(),
      name: `C${i}`,
      email: `c${i}.${Date.now()}@example.com`,
      createdAt: new Date().toISOString(),
    }));
    await guarded(table).putAll(customers.map(customerToItem), { concurrency: 4 });
    await relay.drain();
    const backlog = async (kind: 'OrderStatusChanged' | 'OrderPlaced') => {
      const items = Array.from({ length: kind === 'OrderPlaced' ? STATS_BACKLOG : BACKLOG }, (_, i) => {
        const customer = customers[i % customers.length]!;
        const orderId = newId();
        const placedAt = new Date().toISOString();
        const event: OutboxEvent =
          kind === 'OrderPlaced'
            ? {
                eventId: newId(),
                eventType: kind,
                aggregateType: 'Order',
                aggregateId: orderId,
                sequence: 1,
                customerId: customer.id,
                payload: { orderId, status: 'PENDING', totalCents: 1000, lineCount: 1, placedAt },
                occurredAt: placedAt,
                actor: SYSTEM_ACTOR,
              }
            : {
                eventId: newId(),
                eventType: kind,
                aggregateType: 'Order',
                aggregateId: orderId,
                sequence: 1,
                customerId: customer.id,
                payload: { orderId, from: 'PENDING', to: 'PAID' },
                occurredAt: new Date().toISOString(),
                actor: SYSTEM_ACTOR,
              };
        // An OrderPlaced is counted on its order's summary (statsPending, as placeOrder writes it).
        const summary = { id: orderId, customerId: customer.id, placedAt, status: 'PENDING' as const, totalCents: 1000, lineCount: 1 };
        return kind === 'OrderPlaced'
          ? [pendingStats(summaryToItem(summary, table.writeShards)), eventToItem(event)]
          : [eventToItem(event)];
      }).flat();
      await guarded(table).putAll(items, { concurrency: 4 });
      const before = relay.counters.published;
      const started = performance.now();
      await relay.drain();
      const seconds = (performance.now() - started) / 1000;
      const published = relay.counters.published - before;
      return { events: published, seconds: Math.round(seconds * 100) / 100, eventsPerSecond: Math.round(published / seconds) };
    };
    results.throughputStatusChanged = await backlog('OrderStatusChanged');
    results.throughputOrderPlacedWithStats = await backlog('OrderPlaced');

    // 2. Live: commit -> subscriber, through the relay polling as npm start runs it.
    relay.start();
    await guarded(table).put({ Item: productToItem({ sku: 'BENCH-1', name: 'Bench', priceCents: 500, active: true }) });
    const customer = (
      await gql(`mutation($i: CreateCustomerInput!) { createCustomer(input: $i) { id } }`, {
        i: { name: 'Bench', email: `bench.${Date.now()}@example.com` },
      })
    ).createCustomer;
    const customerToken = await issuer.sign(devClaims(config.auth, { customerId: customer.id }));
    const client = createClient({
      url: server.url.replace(/^http/, 'ws'),
      webSocketImpl: WebSocket,
      connectionParams: { Authorization: `Bearer ${staff}` },
    });
    const waiting = new Map<string, (at: number) => void>();
    const latencies: number[] = [];
    let lost = 0;
    const place = async (token = staff) =>
      (
        await gql(
          `mutation($input: PlaceOrderInput!) { placeOrder(input: $input) { id totalCents } }`,
          { input: { customerId: customer.id, idempotencyKey: newId(), lines: [{ sku: 'BENCH-1', quantity: 1 }] } },
          token,
        )
      ).placeOrder as { id: string; totalCents: number };
    for (let done = 0; done < MOVES;) {
      const order = await place();
      const unsubscribe = client.subscribe(
        { query: `subscription($id: ID!) { orderUpdated(id: $id) { status } }`, variables: { id: order.id } },
        {
          next: (r) => waiting.get(`${order.id}:${(r.data as any)?.orderUpdated?.status}`)?.(performance.now()),
          error: (e) => console.error(e),
          complete: () => undefined,
        },
      );
      await new Promise((resolve) => setTimeout(resolve, 50)); // the subscription is registered
      for (const status of ['PAID', 'SHIPPED', 'DELIVERED']) {
        if (done >= MOVES) break;
        await pause(); // arrivals at random points of the relay's poll cycle, not in step with it
        const received = new Promise<number>((resolve) => {
          waiting.set(`${order.id}:${status}`, resolve);
          setTimeout(() => resolve(Number.NaN), 10_000); // never heard: counted as lost
        });
        await gql(`mutation($id: ID!, $s: OrderStatus!) { updateOrderStatus(id: $id, status: $s) { id } }`, { id: order.id, s: status });
        const answered = performance.now();
        const at = await received;
        if (Number.isNaN(at)) lost++;
        else latencies.push(at - answered);
        done++;
      }
      unsubscribe();
    }
    results.commitToSubscriberMs = { ...summary(latencies), lost };
    await client.dispose();

    // 3. Stats lag: placeOrder's answer -> me { stats } counting it.
    const lags: number[] = [];
    for (let i = 0; i < STATS; i++) {
      const count = (await gql(`{ me { stats { orderCount } } }`, {}, customerToken)).me.stats.orderCount as number;
      await pause();
      await place(customerToken);
      const answered = performance.now();
      while ((await gql(`{ me { stats { orderCount } } }`, {}, customerToken)).me.stats.orderCount <= count)
        await new Promise((r) => setTimeout(r, 5));
      lags.push(performance.now() - answered);
    }
    results.placeOrderToStatsMs = summary(lags);
    results.relay = relay.counters.snapshot();
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
    console.log(`relay benchmark (${results.engine}, RELAY_POLL_MS=${POLL_MS})`);
    for (const [key, value] of Object.entries(results)) if (typeof value === 'object') console.log(`  ${key}: ${JSON.stringify(value)}`);
  }
  process.exit(0);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
