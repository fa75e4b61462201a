import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * The real `npm start` process (npm, then the server it runs), in memory and with DATA_DIR: it
 * exits, with 0, within a bounded time of SIGINT (sent to the process group, as Ctrl-C in a
 * terminal does) or SIGTERM (sent to npm alone, as a process manager does), even with a request
 * hanging past the shutdown grace period. The bounds are timeouts, not timing assertions.
 */
const root = fileURLToPath(new URL('..', import.meta.url));
const dataDirs: string[] = [];
afterAll(() => {
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

interface NpmStart {
  child: ChildProcess;
  url: string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  output(): string;
}

async function npmStart(env: Record<string, string> = {}): Promise<NpmStart> {
  const child = spawn('npm', ['start'], {
    cwd: root,
    // Its own process group, so a signal can go to the group as a terminal sends Ctrl-C.
    detached: true,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', NODE_ENV: 'development', LOG_LEVEL: 'warn', DYNAMODB_ENDPOINT: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => {
    output += String(chunk);
  });
  child.stderr!.on('data', (chunk) => {
    output += String(chunk);
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm start did not start:\n${output}`)), 45_000);
    child.stdout!.on('data', () => {
      const match = /GraphQL server ready at (\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    void exited.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`npm start exited with ${code}:\n${output}`));
    });
  });
  return { child, url, exited, output: () => output };
}

/** Waits for the exit, at most `ms`; on timeout kills the whole group and fails. */
async function exitWithin(npm: NpmStart, ms: number) {
  const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), ms).unref());
  const result = await Promise.race([npm.exited, timeout]);
  if (result === 'timeout') {
    process.kill(-npm.child.pid!, 'SIGKILL');
    throw new Error(`npm start still running ${ms} ms after the signal:\n${npm.output()}`);
  }
  return result;
}

/** True when nothing answers at `url` any more (no orphaned server left behind). */
async function gone(url: string): Promise<boolean> {
  try {
    await fetch(url.replace(/\/graphql$/, '/health'));
    return false;
  } catch {
    return true;
  }
}

const modes = [
  ['in memory', () => ({})],
  [
    'with DATA_DIR',
    () => {
      const dir = mkdtempSync(join(tmpdir(), 'npm-start-'));
      dataDirs.push(dir);
      return { DATA_DIR: dir };
    },
  ],
] as const;

describe.each(modes)('npm start %s', (_name, env) => {
  it('exits 0 on SIGINT to its process group (Ctrl-C)', async () => {
    const npm = await npmStart(env());
    expect((await fetch(npm.url.replace(/\/graphql$/, '/health'))).status).toBe(200);
    process.kill(-npm.child.pid!, 'SIGINT');
    expect(await exitWithin(npm, 15_000)).toEqual({ code: 0, signal: null });
    expect(await gone(npm.url)).toBe(true);
  }, 70_000);

  it('exits 0 on SIGTERM to npm alone (a process manager)', async () => {
    const npm = await npmStart(env());
    npm.child.kill('SIGTERM');
    expect(await exitWithin(npm, 15_000)).toEqual({ code: 0, signal: null });
    expect(await gone(npm.url)).toBe(true);
  }, 70_000);
});

describe('npm start with a request hanging past the grace period', () => {
  it('closes the hung connection after SHUTDOWN_GRACE_MS and exits 0', async () => {
    const npm = await npmStart({ SHUTDOWN_GRACE_MS: '500' });
    const { hostname, port } = new URL(npm.url);
    // A request whose body never arrives: the server waits for it for ever.
    const socket = connect(Number(port), hostname);
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.on('error', () => undefined);
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    // `Expect: 100-continue`: the server's `100 Continue` says it has parsed the headers and waits
    // for the body, which then arrives only in part.
    const parsed = new Promise<void>((resolve) => socket.on('data', (chunk) => String(chunk).includes('100 Continue') && resolve()));
    socket.write(
      `POST /graphql HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\nExpect: 100-continue\r\n\r\n`,
    );
    await parsed;
    socket.write('{"query":');
    npm.child.kill('SIGTERM');
    expect(await exitWithin(npm, 15_000)).toEqual({ code: 0, signal: null });
    await closed;
  }, 70_000);
});
