/**
 * The embedded DynamoDB-compatible engine, served over HTTP like DynamoDB Local.
 *
 *   const engine = await startEngine();            // in memory, free loopback port
 *   new DynamoDBClient({ endpoint: engine.endpoint, region: 'us-east-1', credentials: ... });
 *   engine.wire.count('Query');                     // requests that reached the engine
 *   engine.faults.inject('Query', () => errorResponse('ThrottlingException'));
 *   await engine.close();
 *
 * The operations and their semantics are engine.ts's; this module is the HTTP transport, the wire
 * log and the fault hook. Each POST is one DynamoDB request: the `X-Amz-Target` header names the
 * operation, the body is its JSON. Signatures are not checked (any credentials work), but a request
 * must be signed (carry an Authorization header), as Amazon requires.
 */
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { crc32 } from 'node:zlib';
import type { ConflictCounts } from './conflicts';
import { Engine, type OpenOptions } from './engine';
import { CORAL_SERVICE, errorTypeOf, setEngineDebug, type EngineResponse } from './errors';
import { TtlSweeper } from './ttl-sweeper';
import { WireRecorder, type WireLog } from './wire';

export type { ConflictCounts } from './conflicts';
export type { EngineResponse } from './errors';
export { errorResponse } from './errors';
export type { WireListener, WireLog, WireRequest } from './wire';

/** What `Engine.open` takes (path, sync, GSI lag, conflicts, consistency: see OpenOptions), and how to serve it. */
export interface EngineOptions extends Omit<OpenOptions, 'tableStatusDelayMs'> {
  /** Interface to listen on; default 127.0.0.1. */
  host?: string;
  /** Port; 0 (the default) picks a free one. */
  port?: number;
  /** Print the stack of every internal failure (`ENGINE_DEBUG`); applies to every engine of the process. */
  debug?: boolean;
  /**
   * Delete expired items (TTL) every this many seconds (ttl-sweeper.ts). Default: off, so a test
   * never depends on when a background delete lands (Amazon takes up to days);
   * `npm run engine` sweeps every 60 s unless told otherwise.
   */
  ttlSweepSeconds?: number;
}

export interface EmbeddedEngine {
  /** e.g. http://127.0.0.1:PORT */
  endpoint: string;
  port: number;
  wire: WireLog;
  faults: Faults;
  /** Runs one TTL sweep now (whatever `ttlSweepSeconds`); resolves to the number of items deleted. */
  sweepExpiredItems(): Promise<number>;
  /** Resolves once every acknowledged write shows in the GSIs (immediately without `gsiLagMs`). */
  indexesSettled(): Promise<void>;
  /** Resolves once no eventually consistent read can return a previous version (immediately when 'strong'). */
  readsSettled(): Promise<void>;
  /** Transaction conflicts the engine produced (`conflicts`/`conflictChance`): cancelled transactions, forced ones, refused single writes. */
  conflicts(): ConflictCounts;
  /** Stops accepting requests, finishes those admitted, closes the HTTP server and LevelDB. */
  close(): Promise<void>;
}

/** A request offered to a fault before the engine sees it. */
export interface FaultRequest {
  seq: number;
  operation: string;
  /** The request body (parsed JSON); do not modify, pass a changed copy to `forward`. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a DynamoDB JSON body of any operation, read by fault scripts
  body: any;
  /** Lets the engine answer (this `body`, or a changed one) and returns its answer, e.g. to trim it. */
  forward(body?: unknown): Promise<EngineResponse>;
}

/**
 * Answers a request instead of the engine, or returns undefined to let it through. Examples:
 * `() => errorResponse('ThrottlingException')`, a BatchGetItem answer with UnprocessedKeys, a
 * Query page cut short: `async (req) => { const res = await req.forward({ ...req.body, Limit: 1 }); return res; }`.
 */
export type Fault = (request: FaultRequest) => EngineResponse | undefined | Promise<EngineResponse | undefined>;

export interface Faults {
  /**
   * Offers every request for `operation` ('*' for all) to `fault` until the returned function is
   * called. The latest injected fault is asked first; the first answer wins.
   */
  inject(operation: string, fault: Fault): () => void;
  /** Removes every fault. */
  clear(): void;
}

/**
 * `startEngine`'s refusal when another process holds the LevelDB directory `path` (LevelDB lets one
 * process open a directory at a time: a second open fails on the directory's LOCK file). The
 * commands say what to do about it (src/ops/connect.ts).
 */
export class DirectoryHeldError extends Error {
  constructor(readonly path: string) {
    super(`${path} is held by another process (LevelDB's lock)`);
    this.name = 'DirectoryHeldError';
  }
}

/** Requests larger than this are refused with HTTP 413 (dynalite's limit). */
const MAX_REQUEST_BYTES = 16 * 1024 * 1024;
/** DynamoDB's target prefix, and DynamoDB Streams' (served on the same port: streams-api.ts). */
const TARGET_PATTERN = /^(DynamoDB_20120810|DynamoDBStreams_20120810)\.([A-Za-z]+)$/;

export async function startEngine(opts: EngineOptions = {}): Promise<EmbeddedEngine> {
  if (opts.debug !== undefined) setEngineDebug(opts.debug);
  const { host: _host, port: _port, debug: _debug, ttlSweepSeconds: _sweep, ...open } = opts;
  const engine = Engine.open(open);
  if (open.path !== undefined) await confirmOpened(engine, open.path);
  const wire = new WireRecorder();
  const faults = new FaultRegistry();
  // The sweeper's deletes are DynamoDB's own: their stream records carry a service userIdentity.
  const sweeper = new TtlSweeper((operation, body) => engine.handle(operation, body, { asService: true }));
  const server = createServer((req, res) => {
    serveRequest(req, res, engine, wire, faults).catch((err: unknown) => {
      console.error('[engine] request failed:', err);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });

  try {
    await listen(server, opts.port ?? 0, opts.host ?? '127.0.0.1');
  } catch (err) {
    await engine.close();
    throw err;
  }
  const { port } = server.address() as AddressInfo;
  const host = opts.host ?? '127.0.0.1';
  const urlHost = host.includes(':') ? `[${host}]` : host;

  sweeper.start(opts.ttlSweepSeconds ?? 0);
  let closing: Promise<void> | undefined;
  return {
    endpoint: `http://${urlHost}:${port}`,
    port,
    wire,
    faults,
    sweepExpiredItems: () => sweeper.sweep(),
    indexesSettled: () => engine.indexesSettled(),
    readsSettled: () => engine.readsSettled(),
    conflicts: () => engine.conflictCounts,
    close: () => (closing ??= sweeper.stop().then(() => closeAll(server, engine))),
  };
}

/* ------------------------------------------------------------------------------------------------
 * HTTP
 * --------------------------------------------------------------------------------------------- */

async function serveRequest(
  req: IncomingMessage,
  res: ServerResponse,
  engine: Engine,
  wire: WireRecorder,
  faults: FaultRegistry,
): Promise<void> {
  const raw = await readBody(req);
  if (raw === undefined) {
    res.writeHead(413, { 'Content-Length': 0 }).end();
    return;
  }
  if (req.method === 'GET') {
    // DynamoDB's health check answer (load balancers, DynamoDB Local clients).
    const text = 'healthy: dynamodb.us-east-1.amazonaws.com ';
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': Buffer.byteLength(text) }).end(text);
    return;
  }

  const seq = wire.nextSeq();
  const startedAt = performance.now();
  const target = TARGET_PATTERN.exec(String(req.headers['x-amz-target'] ?? ''));
  const operation = target?.[2] ?? '';
  const service = target?.[1] === 'DynamoDBStreams_20120810' ? 'streams' : 'dynamodb';
  let body: unknown;
  let response: EngineResponse;
  try {
    body = raw.length ? JSON.parse(raw.toString('utf8')) : undefined;
    response = await answer(req, { operation, service }, body, seq, engine, faults);
  } catch (err) {
    response =
      err instanceof SyntaxError
        ? { status: 400, body: { __type: `${CORAL_SERVICE}SerializationException` } }
        : { status: 500, body: { __type: `${CORAL_SERVICE}InternalFailure`, message: String(err) } };
  }

  sendJson(req, res, response);
  const errorType = response.status >= 400 ? errorTypeOf(response.body) : undefined;
  wire.record({
    seq,
    operation,
    body,
    startedAt,
    endedAt: performance.now(),
    status: response.status,
    ...(errorType === undefined ? {} : { errorType }),
  });
}

async function answer(
  req: IncomingMessage,
  { operation, service }: { operation: string; service: 'dynamodb' | 'streams' },
  body: unknown,
  seq: number,
  engine: Engine,
  faults: FaultRegistry,
): Promise<EngineResponse> {
  if (req.method !== 'POST' || !operation) {
    return { status: 400, body: { __type: `${CORAL_SERVICE}UnknownOperationException` } };
  }
  if (!req.headers.authorization && !new URL(req.url ?? '/', 'http://engine').searchParams.has('X-Amz-Algorithm')) {
    return {
      status: 400,
      body: { __type: `${CORAL_SERVICE}MissingAuthenticationTokenException`, message: 'Request is missing Authentication Token' },
    };
  }
  const forward = (forwarded: unknown = body) => engine.handle(operation, forwarded, { service });
  return (await faults.answer({ seq, operation, body, forward })) ?? forward();
}

function sendJson(req: IncomingMessage, res: ServerResponse, response: EngineResponse): void {
  const text = JSON.stringify(response.body ?? {});
  const contentType =
    req.headers['content-type']?.split(';')[0]?.trim() === 'application/x-amz-json-1.0' ? 'application/x-amz-json-1.0' : 'application/json';
  res.writeHead(response.status, {
    'Content-Type': contentType,
    'Content-Length': Buffer.byteLength(text),
    'x-amzn-RequestId': randomBytes(39).toString('base64').toUpperCase().replace(/[+/]/g, '0'),
    'x-amz-crc32': String(crc32(text)),
  });
  res.end(text);
}

/** The whole body, or undefined when it exceeds MAX_REQUEST_BYTES. */
async function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size <= MAX_REQUEST_BYTES) chunks.push(chunk as Buffer); // past it: drain, keep nothing
  }
  return size > MAX_REQUEST_BYTES ? undefined : Buffer.concat(chunks);
}

/**
 * Waits until LevelDB has opened `path`. It opens in the background, and a failed open otherwise
 * shows only later, as "Database is closed" on every request. A directory another process holds
 * is a `DirectoryHeldError`; any other failure names the directory and LevelDB's reason.
 */
async function confirmOpened(engine: Engine, path: string): Promise<void> {
  // A point read, answered once the open has settled either way (a listing's iterator would instead
  // throw from the failed open as an unhandled stream error). Any table name will do.
  const probe = await engine.handle('DescribeTable', { TableName: 'engine-open-probe' });
  if (probe.status === 200 || errorTypeOf(probe.body) === 'ResourceNotFoundException') return;
  await engine.close().catch(() => undefined);
  if (await heldByAnotherProcess(path)) throw new DirectoryHeldError(path);
  throw new Error(
    `the embedded engine could not open ${path}: ${(probe.body as { message?: string } | undefined)?.message ?? probe.status}`,
  );
}

/**
 * Whether opening `path` fails on LevelDB's lock, asked of the LevelDB binding dynalite itself opens
 * the directory with (resolved from dynalite's package, so it is the same module). The error says
 * only "Database is closed"; this open keeps its cause (`LEVEL_LOCKED`).
 */
async function heldByAnotherProcess(path: string): Promise<boolean> {
  const requireFromDynalite = createRequire(createRequire(import.meta.url).resolve('dynalite'));
  const { Level } = requireFromDynalite('level') as { Level: new (path: string) => { open(): Promise<void>; close(): Promise<void> } };
  const db = new Level(path);
  try {
    await db.open();
    await db.close();
    return false;
  } catch (error) {
    return (error as { cause?: { code?: unknown } }).cause?.code === 'LEVEL_LOCKED';
  }
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/**
 * Stops new connections, lets the engine finish what it admitted (idle keep-alive connections are
 * dropped at once, busy ones once answered), then closes LevelDB.
 */
async function closeAll(server: Server, engine: Engine): Promise<void> {
  const serverClosed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  await engine.close();
  server.closeAllConnections();
  await serverClosed;
}

/* ------------------------------------------------------------------------------------------------
 * Faults
 * --------------------------------------------------------------------------------------------- */

class FaultRegistry implements Faults {
  private injected: { operation: string; fault: Fault }[] = [];

  inject(operation: string, fault: Fault): () => void {
    const entry = { operation, fault };
    this.injected.push(entry);
    return () => {
      this.injected = this.injected.filter((e) => e !== entry);
    };
  }

  clear(): void {
    this.injected = [];
  }

  async answer(request: FaultRequest): Promise<EngineResponse | undefined> {
    const candidates = this.injected.filter((e) => e.operation === '*' || e.operation === request.operation).reverse();
    for (const { fault } of candidates) {
      const response = await fault(request);
      if (response !== undefined) return response;
    }
    return undefined;
  }
}
