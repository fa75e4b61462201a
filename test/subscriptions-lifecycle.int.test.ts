import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { createClient } from 'graphql-ws';
import { describe, expect, it } from 'vitest';

/**
 * The real `npm start` (as test/lifecycle.int.test.ts runs it) with a live subscription: SIGTERM
 * closes the subscription's socket with 1001 (going away), and the process exits 0 without waiting
 * for the socket (a subscription never ends by itself).
 */
const root = fileURLToPath(new URL('..', import.meta.url));

describe('npm start with a live subscription', () => {
  it('closes the subscription socket with 1001 on SIGTERM and exits 0', async () => {
    const child = spawn('npm', ['start'], {
      cwd: root,
      detached: true,
      env: {
        ...process.env,
        PORT: '0',
        HOST: '127.0.0.1',
        NODE_ENV: 'development',
        LOG_LEVEL: 'warn',
        DYNAMODB_ENDPOINT: '',
        SHUTDOWN_GRACE_MS: '2000',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (chunk) => (output += String(chunk)));
    child.stderr!.on('data', (chunk) => (output += String(chunk)));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal })),
    );
    try {
      const { url, token } = await new Promise<{ url: string; token: string }>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`npm start did not start:\n${output}`)), 45_000);
        child.stdout!.on('data', () => {
          const ready = /GraphQL server ready at (\S+)/.exec(output);
          const staff = /staff:\s+(\S+)/.exec(output);
          if (ready && staff) {
            clearTimeout(timer);
            resolve({ url: ready[1]!, token: staff[1]! });
          }
        });
        void exited.then(({ code }) => reject(new Error(`npm start exited with ${code}:\n${output}`)));
      });
      let closedWith!: (code: number) => void;
      const closed = new Promise<number>((resolve) => (closedWith = resolve));
      const client = createClient({
        url: url.replace(/^http/, 'ws'),
        webSocketImpl: WebSocket,
        retryAttempts: 0,
        connectionParams: { Authorization: `Bearer ${token}` },
        on: { closed: (event) => closedWith((event as { code: number }).code) },
      });
      let heard = 0;
      let hear = () => {};
      client.subscribe(
        { query: 'subscription { ordersByStatusEvents(status: PAID) { eventId } }' },
        {
          next: () => {
            heard++;
            hear();
          },
          error: () => undefined,
          complete: () => undefined,
        },
      );
      /** Resolves when an event is heard, or after `ms` without one. */
      const hearing = (ms: number) =>
        new Promise<void>((resolve) => {
          hear = resolve;
          setTimeout(resolve, ms);
        });
      // The subscription is live on the server once it hears an event: a demo order moved to PAID
      // (another, until one is heard: a move published before the subscription started is not).
      const gql = async (query: string, variables?: Record<string, unknown>) => {
        const response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body: JSON.stringify({ query, variables }),
        });
        return (await response.json()) as { data: any };
      };
      const pending = await gql('{ ordersByStatus(status: PENDING, first: 10) { nodes { id } } }');
      for (const { id } of pending.data.ordersByStatus.nodes as Array<{ id: string }>) {
        const heardOne = hearing(2_000);
        await gql('mutation($id: ID!) { updateOrderStatus(id: $id, status: PAID) { id } }', { id });
        await heardOne;
        if (heard > 0) break;
      }
      expect(heard).toBeGreaterThan(0);
      child.kill('SIGTERM');
      expect(await closed).toBe(1001);
      expect(await exited).toEqual({ code: 0, signal: null });
      await client.dispose();
    } finally {
      if (child.exitCode === null) process.kill(-child.pid!, 'SIGKILL');
    }
  }, 70_000);
});
