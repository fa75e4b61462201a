/**
 * Server processes for tests that need real separate processes: `src/entry/cli/start.ts` (what `npm start` runs), or the
 * compiled server, on a free loopback port; with `DYNAMODB_ENDPOINT` it never starts an engine of its own.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { GraphQLResponse } from './stack';
import { bearer, issuerFile, tokens } from './auth';

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  /** Resolves with the exit code once the process has exited. */
  exited: Promise<number | null>;
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

const root = fileURLToPath(new URL('../..', import.meta.url));

/** What `npm start` runs; a test of the compiled server passes its bundle instead (`[dist/start.mjs]`). */
const START = ['--import', 'tsx', 'src/entry/cli/start.ts'];

/** `endpoint` '' starts the process's own embedded engine (development). */
export async function startServerProcess(
  endpoint: string,
  env: Record<string, string> = {},
  argv: string[] = START,
): Promise<ServerProcess> {
  const child = spawn(process.execPath, argv, {
    cwd: root,
    env: {
      ...process.env,
      DYNAMODB_ENDPOINT: endpoint,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      NODE_ENV: 'development',
      // The test process's dev issuer: the process trusts its tokens.
      DEV_ISSUER_FILE: issuerFile,
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => {
    output += String(chunk);
  });
  child.stderr!.on('data', (chunk) => {
    output += String(chunk);
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server process did not start:\n${output}`)), 30_000);
    const onData = () => {
      const match = /GraphQL server ready at (\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout!.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server process exited with ${code}:\n${output}`));
    });
  });
  return {
    url,
    child,
    exited,
    output: () => output,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** Sends one GraphQL operation over HTTP to `url`, as staff unless `token` names someone else. */
export async function gqlAt(url: string, query: string, variables?: Record<string, unknown>, token?: string): Promise<GraphQLResponse> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...bearer(token ?? (await tokens.staff())) },
    body: JSON.stringify({ query, variables }),
  });
  return { status: res.status, headers: res.headers, ...((await res.json()) as Omit<GraphQLResponse, 'status' | 'headers'>) };
}
