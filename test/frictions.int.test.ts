/**
 * The start-up frictions of issue 12, each seen from outside as a user meets it: the real entry
 * points (`src/entry/cli/*.ts`, what the npm scripts run) spawned as processes against the real embedded
 * engine, which this test process starts (in memory, or on disk to hold a DATA_DIR). Each expected
 * failure is one line on stderr with a stable wording, no stack, and a non-zero exit code; the
 * AWS SDK's Node-version notice is absent from every command's output unless asked for.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startEngine, type EmbeddedEngine } from '@single-table/engine';
import { gqlAt, startServerProcess } from './support/processes';
import { EXIT } from '../src/ops/cli';

const root = fileURLToPath(new URL('..', import.meta.url));
const SDK_NOTICE = 'NodeVersionSupportWarning';

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `src/entry/cli/<script>` as its npm script does, in development, with the environment of a
 * user's shell: no `DYNAMODB_ENDPOINT` unless given, and without the SDK switch the test runner
 * sets (so the notice would show if the commands did not silence it themselves).
 */
function run(script: string, args: string[], env: Record<string, string>): Promise<Outcome> {
  const {
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: _switch,
    DYNAMODB_ENDPOINT: _endpoint,
    DATA_DIR: _dir,
    ...inherited
  } = process.env;
  return new Promise((resolve, reject) => {
    // Asynchronous: the engine answering the child runs in this process.
    const child = spawn(process.execPath, ['--import', 'tsx', `src/entry/cli/${script}`, ...args], {
      cwd: root,
      env: { ...inherited, NODE_ENV: 'development', LOG_LEVEL: 'info', HOST: '127.0.0.1', PORT: '0', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += String(chunk)));
    child.stderr.on('data', (chunk) => (stderr += String(chunk)));
    const timer = setTimeout(() => child.kill('SIGKILL'), 45_000);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const engines: EmbeddedEngine[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(engines.splice(0).map((engine) => engine.close()));
});
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function engine(path?: string): Promise<EmbeddedEngine> {
  const started = await startEngine(path === undefined ? {} : { path });
  engines.push(started);
  return started;
}

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'frictions-'));
  dirs.push(dir);
  return dir;
}

describe('npm start on a port another process listens on', () => {
  let other: Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (other ? other.close(() => resolve()) : resolve())));

  it('exits 3 (could not run) with one line naming the port, before starting the engine or loading demo data', async () => {
    other = createServer();
    await new Promise<void>((resolve) => other!.listen(0, '127.0.0.1', () => resolve()));
    const port = (other.address() as { port: number }).port;

    const outcome = await run('start.ts', [], { PORT: String(port) });

    expect(outcome).toEqual({
      code: EXIT.CANNOT_RUN,
      // LOG_LEVEL=info: "embedded engine started" or "demo data loaded" would be here.
      stdout: '',
      stderr: `port ${port} is in use on 127.0.0.1: stop the other process or set PORT=<another port> (PORT=0 picks a free one)\n`,
    });
  });
});

describe('DYNAMODB_ENDPOINT without the table', () => {
  const missing = (endpoint: string) =>
    `table app does not exist at ${endpoint}: run npm run table:create with the same environment, or set CREATE_TABLE=1 to have npm start create it\n`;

  it('npm start exits 3 with one line naming table:create and CREATE_TABLE=1, after one DescribeTable and before "server ready"', async () => {
    const dynamo = await engine();
    const outcome = await run('start.ts', [], { DYNAMODB_ENDPOINT: dynamo.endpoint });
    expect(outcome).toEqual({ code: EXIT.CANNOT_RUN, stdout: '', stderr: missing(dynamo.endpoint) });
    expect(new Set(dynamo.wire.requests().map((request) => request.operation))).toEqual(new Set(['DescribeTable']));
  });

  it('the doctor and migrate say the same, with the same exit status (3, could not run)', async () => {
    const dynamo = await engine();
    expect(await run('doctor.ts', [], { DYNAMODB_ENDPOINT: dynamo.endpoint })).toEqual({
      code: EXIT.CANNOT_RUN,
      stdout: '',
      stderr: missing(dynamo.endpoint),
    });
    expect(await run('migrate.ts', ['--list'], { DYNAMODB_ENDPOINT: dynamo.endpoint })).toEqual({
      code: EXIT.CANNOT_RUN,
      stdout: '',
      stderr: missing(dynamo.endpoint),
    });
  });

  it('with CREATE_TABLE=1, npm start creates the table and serves queries', { timeout: 60_000 }, async () => {
    const dynamo = await engine();
    const server = await startServerProcess(dynamo.endpoint, { CREATE_TABLE: '1' });
    try {
      const response = await gqlAt(server.url, '{ product(sku: "NOPE-1") { sku } }');
      expect({ status: response.status, data: response.data, errors: response.errors }).toEqual({
        status: 200,
        data: { product: null },
        errors: undefined,
      });
      expect(dynamo.wire.requests().some((request) => request.operation === 'CreateTable')).toBe(true);
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });
});

describe('a DATA_DIR another process holds (LevelDB lets one process open a directory)', () => {
  const held = (dir: string) =>
    `DATA_DIR ${dir} is held by another process (LevelDB's lock; a running npm start?): stop it, or point this command at its engine with DYNAMODB_ENDPOINT=<the endpoint it logged at "embedded engine started">\n`;

  it('the doctor, migrate and npm start exit 3 (could not run), each with one line saying what to do; released, the doctor runs', async () => {
    const dir = tempDir();
    const holder = await engine(dir); // this process holds the directory, as a running npm start would

    for (const [command, args] of [
      ['doctor.ts', []],
      ['migrate.ts', ['--list']],
      ['seed.ts', ['--customers', '1', '--orders', '1']],
      ['start.ts', []],
    ] as const)
      expect(await run(command, [...args], { DATA_DIR: dir }), command).toEqual({ code: EXIT.CANNOT_RUN, stdout: '', stderr: held(dir) });

    // What the message suggests: the holder's engine through DYNAMODB_ENDPOINT (the doctor then
    // reports the table missing, since nothing created it), or stopping the holder.
    expect((await run('doctor.ts', [], { DYNAMODB_ENDPOINT: holder.endpoint })).stderr).toMatch(/^table app does not exist at /);
    await holder.close();
    const released = await run('doctor.ts', ['--json'], { DATA_DIR: dir });
    expect({ code: released.code, stderr: released.stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(released.stdout)).toMatchObject({ report: 'table-doctor', summary: { errors: 0 } });
  });
});

describe('one exit status per cause, the same in every tool (src/ops/cli.ts, EXIT)', () => {
  it('a wrong command line exits 2, printing the usage', async () => {
    for (const command of ['doctor.ts', 'migrate.ts', 'seed.ts', 'token.ts']) {
      const outcome = await run(command, ['--no-such-option'], {});
      expect({ command, code: outcome.code, stdout: outcome.stdout }).toEqual({ command, code: EXIT.USAGE, stdout: '' });
      expect(outcome.stderr).toMatch(/--no-such-option[^]*\n\nusage: npm run( -s)? /);
    }
  });
});

describe("the AWS SDK's Node-version notice", () => {
  it('is silenced in every command the repository runs, unless the environment asks for it', async () => {
    const dynamo = await engine();
    const created = await run('table-create.ts', [], { DYNAMODB_ENDPOINT: dynamo.endpoint });
    expect({ code: created.code, stderr: created.stderr }).toEqual({ code: 0, stderr: '' });

    const quiet = await run('migrate.ts', ['--list'], { DYNAMODB_ENDPOINT: dynamo.endpoint });
    expect({ code: quiet.code, stderr: quiet.stderr }).toEqual({ code: 0, stderr: '' });
    expect(quiet.stdout).toContain('migrations of table app');

    // The switch is the SDK's own, so the environment can turn the notice back on: the test would see it.
    const asked = await run('migrate.ts', ['--list'], {
      DYNAMODB_ENDPOINT: dynamo.endpoint,
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'false',
    });
    expect(asked.code).toBe(0);
    expect(asked.stderr).toContain(SDK_NOTICE);
  });
});
