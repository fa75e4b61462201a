/**
 * The latency proxy: an HTTP hop between the servers' AWS SDK clients and the engine that
 *
 * - delays every DynamoDB request by a seeded random latency (see `latencySampler`) before
 *   forwarding it, so a round trip costs what it would over a network to DynamoDB;
 * - is the benchmark's measuring instrument, the same for every design: it records each request
 *   (operation, tables, index, arrival and answer times) and reads the answer's `Count`,
 *   `ScannedCount`, `Item`, `Responses` and `ConsumedCapacity`.
 *
 * The bytes are forwarded unchanged both ways (the SDK checks the engine's `x-amz-crc32`).
 *
 * A request the client hangs up on before its answer (the loser of a hedged read, aborted) is
 * recorded at once as `aborted`, its capacity unknown (0), and is not forwarded if it was still
 * waiting out its latency. `drain` waits for the requests in flight to be answered or aborted, so
 * every request is attributed to the operation that sent it.
 */
import { createHash } from 'node:crypto';
import { createServer, request as httpRequest, Agent, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { latencySampler, type LatencyModel } from './rng';

export interface ProxyRecord {
  seq: number;
  operation: string;
  /** Tables the request names (TableName, or the keys of RequestItems). */
  tables: string[];
  index: string | undefined;
  /** Epoch ms (performance.timeOrigin + now), comparable across the benchmark's processes. */
  startedAt: number;
  endedAt: number;
  /** The latency drawn for this request, and the delay really applied (timers are not exact). */
  delayMs: number;
  appliedMs: number;
  /** Whether the drawn latency included the long tail. */
  tail: boolean;
  status: number;
  /** Items returned: Query/Scan Count, GetItem 0/1, BatchGetItem the Responses. */
  items: number;
  /** Items read: ScannedCount for Query/Scan, else `items`. */
  scanned: number;
  /** Sum of ConsumedCapacity.CapacityUnits the engine reported. */
  capacity: number;
  /** Whether the request asked for ReturnConsumedCapacity. */
  askedCapacity: boolean;
  /** The client hung up before the answer (a hedged read's loser): nothing was answered, capacity unknown. */
  aborted: boolean;
  /** A digest of the request body: a hedged copy has the same one as its original. */
  bodyKey: string;
}

export interface ProxyCounters {
  requests: number;
  errors: number;
  /** Requests the client hung up on before their answer. */
  aborted: number;
}

export interface LatencyProxy {
  endpoint: string;
  /** Records kept since the last `reset` (only while recording is on). */
  records(): ProxyRecord[];
  /**
   * The records kept since the last drain or reset, forgotten as they are returned, once every
   * request in flight is answered or aborted; with `next`, also starts the next operation as
   * `operation(next)` does (null: back to the shared stream).
   */
  drain(next?: string | null): Promise<ProxyRecord[]>;
  /**
   * Starts an operation of a sequential run: forgets the records, and draws the latencies of the
   * requests that follow from a stream seeded with `key` (the shared stream when undefined).
   */
  operation(key: string | undefined): void;
  reset(record: boolean): void;
  counters(): ProxyCounters;
  close(): Promise<void>;
}

const TARGET = /^DynamoDB_20120810\.([A-Za-z]+)$/;

export function epochNow(): number {
  return performance.timeOrigin + performance.now();
}

export async function startLatencyProxy(options: {
  target: string;
  latency: LatencyModel;
  host?: string;
  port?: number;
}): Promise<LatencyProxy> {
  // One stream of draws for the run, and (sequential runs) one per operation key, so operation i
  // of every design draws the same latencies: common random numbers, a paired comparison.
  const shared = latencySampler(options.latency);
  let perOperation: ReturnType<typeof latencySampler> | undefined;
  const target = new URL(options.target);
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  let records: ProxyRecord[] = [];
  let recording = false;
  let seq = 0;
  let inFlight = 0;
  const counters: ProxyCounters = { requests: 0, errors: 0, aborted: 0 };

  const server: Server = createServer(async (req, res) => {
    const body = await readAll(req);
    const startedAt = epochNow();
    const operation = TARGET.exec(String(req.headers['x-amz-target'] ?? ''))?.[1] ?? '';
    const { ms: delayMs, tail } = (perOperation ?? shared)();
    const mySeq = ++seq;
    counters.requests++;
    inFlight++;
    let done = false;
    const finish = (record: () => Omit<ProxyRecord, 'seq' | 'operation' | 'startedAt' | 'delayMs' | 'tail'>) => {
      if (done) return;
      done = true;
      inFlight--;
      if (recording) records.push({ seq: mySeq, operation, startedAt, delayMs, tail, ...record() });
    };
    res.on('close', () => {
      if (res.writableFinished || done) return;
      counters.aborted++;
      const endedAt = epochNow();
      finish(() => ({
        endedAt,
        appliedMs: endedAt - startedAt,
        status: 0,
        ...describe(operation, body, Buffer.alloc(0)),
        items: 0,
        scanned: 0,
        capacity: 0,
        aborted: true,
      }));
    });
    // Node's timers count from the event loop's cached clock, so one can fire a little early:
    // top it up until the drawn latency has really passed (to within a quarter millisecond).
    const deadline = startedAt + delayMs;
    for (let left = delayMs; left > 0.25 && !done; left = deadline - epochNow()) await sleep(left);
    if (done) return; // the client gave up while it waited: never forwarded
    const appliedMs = epochNow() - startedAt;
    const headers = { ...req.headers, host: target.host };
    const upstream = httpRequest(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers, agent },
      async (answer) => {
        const payload = await readAll(answer);
        if (done) return; // the client hung up meanwhile (recorded as aborted)
        const out: Record<string, string | string[]> = {};
        for (const [name, value] of Object.entries(answer.headers))
          if (value !== undefined && name !== 'connection' && name !== 'keep-alive') out[name] = value;
        res.writeHead(answer.statusCode ?? 502, out);
        res.end(payload);
        const endedAt = epochNow();
        const status = answer.statusCode ?? 502;
        if (status >= 400) counters.errors++;
        finish(() => ({ endedAt, appliedMs, status, ...describe(operation, body, payload), aborted: false }));
      },
    );
    upstream.on('error', (error) => {
      counters.errors++;
      finish(() => ({ endedAt: epochNow(), appliedMs, status: 502, ...describe(operation, body, Buffer.alloc(0)), aborted: false }));
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(String(error));
    });
    upstream.end(body);
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    records: () => records,
    async drain(next) {
      for (const until = epochNow() + 2_000; inFlight > 0 && epochNow() < until;) await sleep(1);
      const out = records;
      records = [];
      if (next !== undefined) perOperation = next === null ? undefined : latencySampler(options.latency, next);
      return out;
    },
    operation(key) {
      records = [];
      perOperation = key === undefined ? undefined : latencySampler(options.latency, key);
    },
    reset(record) {
      records = [];
      recording = record;
    },
    counters: () => ({ ...counters }),
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      agent.destroy();
    },
  };
}

/** What a request asked and what its answer says, for the counts. */
function describe(
  operation: string,
  requestBody: Buffer,
  answerBody: Buffer,
): Pick<ProxyRecord, 'tables' | 'index' | 'items' | 'scanned' | 'capacity' | 'askedCapacity' | 'bodyKey'> {
  let input: any = {};
  let output: any = {};
  try {
    input = JSON.parse(requestBody.toString('utf8'));
  } catch {
    /* not JSON */
  }
  try {
    output = JSON.parse(answerBody.toString('utf8'));
  } catch {
    /* not JSON */
  }
  const tables = typeof input.TableName === 'string' ? [input.TableName] : Object.keys(input.RequestItems ?? {});
  let items = 0;
  let scanned: number | undefined;
  if (operation === 'Query' || operation === 'Scan') {
    items = Number(output.Count ?? 0);
    scanned = Number(output.ScannedCount ?? items);
  } else if (operation === 'GetItem') {
    items = output.Item ? 1 : 0;
  } else if (operation === 'BatchGetItem') {
    for (const list of Object.values(output.Responses ?? {})) items += (list as unknown[]).length;
  } else if (operation === 'TransactGetItems') {
    items = (output.Responses ?? []).filter((r: any) => r?.Item).length;
  }
  const consumed = output.ConsumedCapacity;
  const capacities: any[] = Array.isArray(consumed) ? consumed : consumed ? [consumed] : [];
  return {
    tables,
    index: typeof input.IndexName === 'string' ? input.IndexName : undefined,
    items,
    scanned: scanned ?? items,
    capacity: capacities.reduce((sum, c) => sum + Number(c?.CapacityUnits ?? 0), 0),
    askedCapacity: input.ReturnConsumedCapacity !== undefined && input.ReturnConsumedCapacity !== 'NONE',
    bodyKey: createHash('sha1').update(requestBody).digest('base64').slice(0, 12),
  };
}

function readAll(stream: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });
}

function sleep(ms: number): Promise<void> {
  return ms <= 0 ? Promise.resolve() : new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Waves of the requests of one operation: a request's wave is 1 + the highest wave among the
 * requests that had been answered before it arrived. Returns the number of waves (the critical
 * path), 0 for no request.
 */
export function countWaves(records: readonly Pick<ProxyRecord, 'startedAt' | 'endedAt'>[]): number {
  const sorted = [...records].sort((a, b) => a.startedAt - b.startedAt);
  const waves: number[] = [];
  let max = 0;
  for (let i = 0; i < sorted.length; i++) {
    const r = sorted[i] as ProxyRecord;
    let wave = 1;
    for (let j = 0; j < i; j++) {
      const earlier = sorted[j] as ProxyRecord;
      if (earlier.endedAt <= r.startedAt) wave = Math.max(wave, (waves[j] as number) + 1);
    }
    waves.push(wave);
    max = Math.max(max, wave);
  }
  return max;
}
