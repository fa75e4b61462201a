/**
 * Hedged reads (src/dynamo/hedge.ts) through the real SDK over HTTP to the real engine, latency
 * injected only by the engine's fault hook: a fault holds the first copy of a read, so the copy
 * the hedger sends is what answers. Between the SDK and the engine a pass-through HTTP proxy notes
 * which requests the client hung up on, so "the loser is aborted" is seen on the wire.
 *
 * Counts and behaviour only, never timings. The engine is STRONG (no lag, no stale reads): these
 * tests compare answers of the same items read twice, and count requests exactly.
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startEngine, type EmbeddedEngine, type FaultRequest } from '@single-table/engine';
import { STRONG } from '@single-table/engine/profiles';
import { createDocumentClient } from '../src/dynamo/client';
import { ensureTable } from '../src/dynamo/definition';
import { Hedger, type HedgeSettings } from '../src/dynamo/hedge';
import { Meter } from '../src/dynamo/meter';
import { Table, type Item } from '../src/dynamo/table';
import { bootstrap } from '../src/boot/bootstrap';
import { readConfig } from '../src/boot/config';
import { startServer } from '../src/http/server';
import { bearer, testAuthenticator, tokens } from './support/auth';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it holds (a condition, not a duration: fails only after 10 s without it). */
async function until(check: () => boolean, what: string): Promise<void> {
  for (const deadline = Date.now() + 10_000; !check(); await sleep(2)) {
    if (Date.now() > deadline) throw new Error(`never happened: ${what}`);
  }
}

/** An HTTP hop in front of the engine recording, per request in arrival order, whether the client hung up before its answer. */
async function hangUpWatch(target: number) {
  const log: Array<{ operation: string; hungUp: boolean }> = [];
  const server: Server = createServer((req, res) => {
    const entry = { operation: String(req.headers['x-amz-target'] ?? '').split('.')[1] ?? '', hungUp: false };
    log.push(entry);
    res.on('close', () => {
      if (!res.writableFinished) entry.hungUp = true;
    });
    const upstream = request({ host: '127.0.0.1', port: target, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    log,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const item = (i: number): Item => ({ PK: `HEDGE#${i}`, SK: 'A', type: 'TEST', n: i });
const key = (i: number) => ({ PK: `HEDGE#${i}`, SK: 'A' });
const keysOf = (request: { body: any }) => (request.body.RequestItems.app.Keys as Array<{ PK: { S: string } }>).map((k) => k.PK.S);

let engine: EmbeddedEngine;
let watch: Awaited<ReturnType<typeof hangUpWatch>>;
let doc: ReturnType<typeof createDocumentClient>;

beforeAll(async () => {
  engine = await startEngine({ host: '127.0.0.1', port: 0, ...STRONG });
  watch = await hangUpWatch(engine.port);
  doc = createDocumentClient({ endpoint: watch.endpoint, region: 'us-east-1' });
  await ensureTable(doc, 'app');
  await new Table('app', doc).putAll(Array.from({ length: 200 }, (_, i) => item(i)));
});
afterAll(async () => {
  doc?.destroy();
  await watch?.close();
  await engine?.close();
});
afterEach(() => {
  engine.faults.clear();
});

/** A table hedging with `settings` (warm from the first request: minSamples 0), and its own meter. */
function hedged(settings: Partial<HedgeSettings>) {
  const hedger = new Hedger({ minSamples: 0, ...settings });
  return { hedger, table: new Table('app', doc, { hedger, meter: new Meter() }) };
}

/** Holds the first request of `operation` that `matches` until `release()`; every other one passes. */
function holdFirst(operation: string, matches: (request: FaultRequest) => boolean = () => true) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let held = 0;
  engine.faults.inject(operation, async (request) => {
    if (held === 0 && matches(request)) {
      held++;
      await released;
    }
    return undefined;
  });
  return { release: () => release() };
}

/** The engine's wire log, in arrival order, once `count` requests have been answered. */
async function wire(count: number) {
  await until(() => engine.wire.count() >= count, `${count} requests answered`);
  return engine.wire.requests().sort((a, b) => a.seq - b.seq);
}

describe('hedged reads in the Table seam', () => {
  it('hedges a slow first copy: 2 requests on the wire, the copy answers, the first is aborted, capacity counted twice', async () => {
    const plain = new Table('app', doc, { meter: new Meter() });
    expect(await plain.get({ Key: key(1) })).toEqual(item(1));
    const capacity = plain.meter.records()[0]!.capacity;

    const { hedger, table } = hedged({ floorMs: 20 });
    const hold = holdFirst('GetItem');
    engine.wire.reset();
    watch.log.length = 0;
    expect(await table.get({ Key: key(1) })).toEqual(item(1));
    expect(table.meter.records()).toEqual([
      expect.objectContaining({ operation: 'GetItem', hedge: { winner: 'hedge' }, capacity: 2 * capacity }),
    ]);
    expect(table.meter.summary()).toMatchObject({ requests: 2, hedges: 1, hedgesWon: 1, byOperation: { GetItem: 2 } });
    await until(() => hedger.stats().abortedLosers === 1, 'the first copy aborted');
    await until(() => watch.log[0]?.hungUp === true, 'the client hung up on the first copy');
    hold.release();
    const requests = await wire(2);
    expect(requests.map((r) => [r.operation, r.body.Key.PK.S])).toEqual([
      ['GetItem', 'HEDGE#1'],
      ['GetItem', 'HEDGE#1'],
    ]);
    expect(watch.log).toEqual([
      { operation: 'GetItem', hungUp: true },
      { operation: 'GetItem', hungUp: false },
    ]);
    expect(hedger.stats()).toMatchObject({ requests: 1, hedges: 1, wonByHedge: 1, abortedLosers: 1 });
  });

  it('never hedges a request that answers before the delay (GetItem, Query, BatchGetItem)', async () => {
    const { hedger, table } = hedged({ floorMs: 1_000 });
    engine.wire.reset();
    for (let i = 0; i < 30; i++) expect(await table.get({ Key: key(i) })).toEqual(item(i));
    for (let i = 0; i < 10; i++)
      expect((await table.query({ KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': `HEDGE#${i}` } })).Items).toEqual(
        [item(i)],
      );
    for (let i = 0; i < 5; i++) expect(await table.batchGet([key(i), key(i + 50)])).toHaveLength(2);
    expect(engine.wire.count()).toBe(45);
    expect(table.meter.summary()).toMatchObject({ requests: 45, hedges: 0 });
    expect(hedger.stats()).toMatchObject({ requests: 45, hedges: 0, denied: 0 });
    expect(hedger.delayFor('GetItem')).toBe(1_000); // the floor: every latency it saw was below it
  });

  it('hedges a BatchGetItem call with only the keys still missing: the slow call’s, never the answered one’s', async () => {
    const { hedger, table } = hedged({ floorMs: 400 });
    const keys = Array.from({ length: 150 }, (_, i) => key(i));
    const hold = holdFirst('BatchGetItem', (request) => keysOf(request).length === 50);
    engine.wire.reset();
    const found = await table.batchGet(keys);
    expect(new Set(found.map((f) => f.PK))).toEqual(new Set(keys.map((k) => k.PK)));
    hold.release();
    const [first, second, copy] = await wire(3);
    expect([first, second, copy].map((r) => keysOf(r!).length)).toEqual([100, 50, 50]);
    expect(keysOf(copy!)).toEqual(keysOf(second!));
    expect(keysOf(copy!).filter((pk) => keysOf(first!).includes(pk))).toEqual([]);
    expect(hedger.stats()).toMatchObject({ requests: 2, hedges: 1 });

    // Keys left unprocessed: the retry asks the 3 missing keys, and so does its copy.
    let cut = 0;
    engine.faults.inject('BatchGetItem', async (request) => {
      if (cut++ > 0) return undefined;
      const ask = request.body.RequestItems.app as { Keys: unknown[] };
      const answered = await request.forward({ ...request.body, RequestItems: { app: { ...ask, Keys: ask.Keys.slice(0, 7) } } });
      return { ...answered, body: { ...(answered.body as object), UnprocessedKeys: { app: { ...ask, Keys: ask.Keys.slice(7) } } } };
    });
    const retry = holdFirst('BatchGetItem', (request) => keysOf(request).length === 3);
    engine.wire.reset();
    const ten = keys.slice(0, 10);
    expect(new Set((await table.batchGet(ten)).map((f) => f.PK))).toEqual(new Set(ten.map((k) => k.PK)));
    retry.release();
    const answered = await wire(3);
    expect(answered.map((r) => keysOf(r).length)).toEqual([10, 3, 3]);
    expect(keysOf(answered[2]!)).toEqual(['HEDGE#7', 'HEDGE#8', 'HEDGE#9']);
  });

  it('never hedges a write (PutItem, UpdateItem, DeleteItem, TransactWriteItems, BatchWriteItem), however slow', async () => {
    const { hedger, table } = hedged({ floorMs: 20 });
    const seen = new Set<string>();
    engine.faults.inject('*', async (request) => {
      if (!seen.has(request.operation)) {
        seen.add(request.operation);
        await sleep(150); // 7 times the delay a read would be hedged after
      }
      return undefined;
    });
    engine.wire.reset();
    await table.put({ Item: item(900) });
    await table.update({ Key: key(900), UpdateExpression: 'SET n = :n', ExpressionAttributeValues: { ':n': 1 } });
    await table.delete({ Key: key(900) });
    await table.transactWrite([{ Put: { Item: item(901) } }]);
    await table.putAll([item(902), item(903)]);
    expect(engine.wire.requests().map((r) => r.operation)).toEqual([
      'PutItem',
      'UpdateItem',
      'DeleteItem',
      'TransactWriteItems',
      'BatchWriteItem',
    ]);
    expect(hedger.stats().requests).toBe(0);
    expect(table.meter.summary().hedges).toBe(0);
  });

  it('caps hedges under a storm of slow requests: the burst, then 5% of the requests', async () => {
    const { hedger, table } = hedged({ floorMs: 20, budget: 0.05, burst: 2 });
    const decided = () => hedger.stats().hedges + hedger.stats().denied;
    // The first copy of key i waits until the hedger has decided about i + 1 requests; its copy (if any) passes.
    const firsts = new Set<string>();
    engine.faults.inject('GetItem', async (request) => {
      const pk = request.body.Key.PK.S as string;
      if (firsts.has(pk)) return undefined;
      firsts.add(pk);
      const n = Number(pk.slice('HEDGE#'.length));
      await until(() => decided() >= (n < 40 ? 40 : n + 1), 'the hedger decided');
      return undefined;
    });
    engine.wire.reset();
    // 40 at once: all slow.
    const storm = await Promise.all(Array.from({ length: 40 }, (_, i) => table.get({ Key: key(i) })));
    expect(storm).toEqual(Array.from({ length: 40 }, (_, i) => item(i)));
    expect(hedger.stats()).toMatchObject({ requests: 40, hedges: 2, denied: 38 });
    await wire(42);
    // Then 40 more, one at a time, all slow: 5% of them earn 2 copies.
    for (let i = 40; i < 80; i++) expect(await table.get({ Key: key(i) })).toEqual(item(i));
    expect(hedger.stats()).toMatchObject({ requests: 80, hedges: 4, denied: 76 });
    expect((await wire(84)).length).toBe(84);
    expect(table.meter.summary()).toMatchObject({ requests: 84, hedges: 4 });
  });
});

describe('HEDGE (src/boot/config.ts) and the bootstrap', () => {
  const production = {
    NODE_ENV: 'production',
    AUTH_JWKS_URL: 'https://idp.example/jwks.json',
    AUTH_ISSUER: 'https://idp.example',
    AUTH_AUDIENCE: 'api',
  };

  it('is on in production, off in development and under Vitest, and HEDGE decides when set', () => {
    expect(readConfig(production).hedging).toEqual({ enabled: true, settings: {} });
    expect(readConfig({}).hedging.enabled).toBe(false);
    expect(readConfig({ ...production, VITEST: 'true' }).hedging.enabled).toBe(false);
    expect(readConfig({ ...production, HEDGE: 'off' }).hedging.enabled).toBe(false);
    expect(readConfig({ HEDGE: 'on', HEDGE_BUDGET: '0.02', HEDGE_PERCENTILE: '99', HEDGE_FLOOR_MS: '8' }).hedging).toEqual({
      enabled: true,
      settings: { budget: 0.02, percentile: 99, floorMs: 8 },
    });
    expect(() => readConfig({ HEDGE: 'sometimes' })).toThrow(/HEDGE must be on or off/);
    expect(() => readConfig({ HEDGE_BUDGET: '5' })).toThrow(/HEDGE_BUDGET/);
  });

  it('HEDGE=off never hedges; HEDGE=on hedges once the operation is warm (20 latencies)', async () => {
    for (const setting of ['off', 'on'] as const) {
      const runtime = await bootstrap(
        readConfig({ ...production, DYNAMODB_ENDPOINT: engine.endpoint, HEDGE: setting, HEDGE_FLOOR_MS: '20' }),
      );
      try {
        expect(runtime.table.hedger === undefined).toBe(setting === 'off');
        for (let i = 0; i < 20; i++) await runtime.table.get({ Key: key(i) }); // never hedged: cold until the 20th
        let arrivals = 0;
        let release!: () => void;
        const released = new Promise<void>((resolve) => (release = resolve));
        engine.faults.inject('GetItem', async () => {
          // The first copy waits for a second one, or 300 ms (15 times the floor) when none comes.
          if (++arrivals === 1) await Promise.race([released, sleep(300)]);
          else release();
          return undefined;
        });
        engine.wire.reset();
        expect(await runtime.table.get({ Key: key(7) })).toEqual(item(7));
        await wire(arrivals);
        expect(engine.wire.count('GetItem')).toBe(setting === 'on' ? 2 : 1);
        expect(runtime.table.meter.summary().hedges).toBe(setting === 'on' ? 1 : 0);
      } finally {
        engine.faults.clear();
        await runtime.close();
      }
    }
  });
});

describe('the explain extension and the operation log line', () => {
  it('show the hedge: which copy won, 2 requests, the capacity counted twice', async () => {
    const lines: Array<Record<string, any>> = [];
    const server = await startServer({
      table: new Table('app', doc, { hedger: new Hedger({ floorMs: 250, minSamples: 0 }) }),
      authenticate: await testAuthenticator(),
      production: false,
      quotas: { readsPerMinute: 1e12, writesPerMinute: 1e12 },
      logger: pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) }),
      port: 0,
      host: '127.0.0.1',
    });
    try {
      const headers = { 'content-type': 'application/json', ...bearer(await tokens.staff()) };
      const gql = async (query: string, variables: Record<string, unknown>) =>
        (await (await fetch(server.url, { method: 'POST', headers, body: JSON.stringify({ query, variables }) })).json()) as any;
      const created = await gql('mutation($input: CreateCustomerInput!) { createCustomer(input: $input) { id } }', {
        input: { name: 'Hedged Hilda', email: `hilda-${Date.now()}@example.com` },
      });
      const screen = 'query Screen($id: ID!) { customer(id: $id) { name addresses { label } orders(first: 5) { nodes { id } } } }';
      const id = created.data.createCustomer.id as string;
      const plain = await gql(screen, { id });
      expect(plain.extensions.dynamodb.requests).toEqual([expect.objectContaining({ operation: 'Query', hedged: false })]);
      const capacity = plain.extensions.dynamodb.totals.consumedCapacity as number;

      const hold = holdFirst('Query');
      const answer = await gql(screen, { id });
      hold.release();
      expect(answer.data).toEqual(plain.data);
      expect(answer.extensions.dynamodb.requests).toEqual([
        expect.objectContaining({
          operation: 'Query',
          hedged: true,
          hedge: { winner: 'hedge', requests: 2, consumedCapacity: 'upper bound' },
          consumedCapacity: 2 * capacity,
        }),
      ]);
      expect(answer.extensions.dynamodb.totals).toMatchObject({ requests: 2, hedges: 1, consumedCapacity: 2 * capacity });
      const logged = lines.filter((line) => line.msg === 'operation' && line.operationName === 'Screen');
      expect(logged.map((line) => line.dynamodb)).toEqual([
        expect.objectContaining({ requests: 1, hedges: 0, hedgesWon: 0 }),
        expect.objectContaining({ requests: 2, hedges: 1, hedgesWon: 1, capacity: 2 * capacity }),
      ]);
    } finally {
      await server.close();
    }
  });
});
