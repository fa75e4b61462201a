/**
 * The benchmark's processes. The engine, the latency proxy and each server under test run in a
 * child process of their own (the servers compiled, compile.ts; the others through tsx), so the server being measured has its own event
 * loop and its own CPU account, and can be profiled alone (`--cpu-prof`). Parent and child talk
 * over the IPC channel: the child announces `ready` with its endpoint, and answers `call`s.
 * A child exits when the channel closes, so nothing outlives the benchmark.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { compiledChild } from './compile';

const here = dirname(fileURLToPath(import.meta.url));

export type Role = 'engine' | 'proxy' | 'single' | 'multi' | 'raw';
const SERVER_ROLES: ReadonlySet<Role> = new Set(['single', 'multi', 'raw']);

export interface ChildHandle {
  role: Role;
  pid: number;
  /** What the child announced when ready (its endpoint or URL). */
  endpoint: string;
  call<T = unknown>(method: string, args?: unknown): Promise<T>;
  /** Asks the child to close its servers and exit; waits for the exit. */
  stop(): Promise<void>;
}

export interface CpuSample {
  /** process.cpuUsage() of the child, microseconds. */
  user: number;
  system: number;
  rssBytes: number;
}

interface Reply {
  type: 'reply';
  id: number;
  result?: unknown;
  error?: string;
}
interface Ready {
  type: 'ready';
  endpoint: string;
}

export async function spawnChild(
  role: Role,
  options: { env?: Record<string, string>; args?: string[]; execArgv?: string[] } = {},
): Promise<ChildHandle> {
  // A server under test runs compiled (compile.ts); the engine and the proxy, which stand in for
  // DynamoDB and the network, run through tsx.
  const server = SERVER_ROLES.has(role);
  const child: ChildProcess = fork(server ? await compiledChild() : join(here, 'child.ts'), [role, ...(options.args ?? [])], {
    execArgv: [...(server ? [] : ['--import', 'tsx']), '--no-warnings', ...(options.execArgv ?? [])],
    // Production settings for every library (graphql-js skips its dev-only checks, as in production).
    env: { ...process.env, NODE_ENV: 'production', ...options.env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let nextId = 1;
  const pending = new Map<number, { resolve: (value: any) => void; reject: (error: Error) => void }>();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ready = new Promise<string>((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`${role} process exited (${code}) before it was ready`));
    child.once('exit', onExit);
    child.on('message', (message: Ready | Reply) => {
      if (message.type === 'ready') {
        child.off('exit', onExit);
        resolve(message.endpoint);
      } else if (message.type === 'reply') {
        const waiter = pending.get(message.id);
        pending.delete(message.id);
        if (message.error !== undefined) waiter?.reject(new Error(`${role}: ${message.error}`));
        else waiter?.resolve(message.result);
      }
    });
  });
  child.once('exit', () => {
    for (const waiter of pending.values()) waiter.reject(new Error(`${role} process exited`));
    pending.clear();
  });
  const endpoint = await ready;
  const call = <T>(method: string, args?: unknown) =>
    new Promise<T>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      child.send({ type: 'call', id, method, args });
    });
  return {
    role,
    pid: child.pid as number,
    endpoint,
    call,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      try {
        await call('stop').catch(() => undefined);
        if (child.connected) child.disconnect();
        await exited;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/** The child's side: announce readiness, answer calls, exit when told or when the parent is gone. */
export function serveParent(endpoint: string, handlers: Record<string, (args: any) => unknown>, close: () => Promise<void>): void {
  const send = process.send?.bind(process);
  if (!send) throw new Error('packages/bench/child.ts runs as a forked child of run.ts');
  let closing: Promise<void> | undefined;
  const shutdown = () =>
    (closing ??= close()
      .catch((error) => console.error(error))
      .finally(() => {
        // A clean exit, so --cpu-prof writes its profile.
        setTimeout(() => process.exit(0), 10).unref();
      }));
  let profiler: Session | undefined;
  const all: Record<string, (args: any) => unknown> = {
    ...handlers,
    cpu: (): CpuSample => ({ ...process.cpuUsage(), rssBytes: process.memoryUsage.rss() }),
    // CPU profile of this process's main thread between two calls (bench --cpu-prof).
    'profile-start': async () => {
      profiler = new Session();
      profiler.connect();
      await profiler.post('Profiler.enable');
      await profiler.post('Profiler.setSamplingInterval', { interval: 200 });
      await profiler.post('Profiler.start');
      return true;
    },
    'profile-stop': async (path: string) => {
      if (!profiler) throw new Error('no profile started');
      const { profile } = await profiler.post('Profiler.stop');
      profiler.disconnect();
      profiler = undefined;
      writeFileSync(path, JSON.stringify(profile));
      return path;
    },
    stop: () => {
      void shutdown();
      return true;
    },
  };
  process.on('message', (message: { type: string; id: number; method: string; args: unknown }) => {
    if (message.type !== 'call') return;
    const handler = all[message.method];
    Promise.resolve()
      .then(() => {
        if (!handler) throw new Error(`no method ${message.method}`);
        return handler(message.args);
      })
      .then(
        (result) => send({ type: 'reply', id: message.id, result }),
        (error: Error) => send({ type: 'reply', id: message.id, error: error.stack ?? String(error) }),
      );
  });
  process.on('disconnect', () => void shutdown());
  send({ type: 'ready', endpoint });
}
