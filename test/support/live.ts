/**
 * Live-update helpers for the websocket suites: graphql-ws's own client on `ws`, a subscription's
 * results collected, and the estimate the server admits a subscription with (src/admission/cost.ts), so a
 * test sizes its buckets and budgets from the cost model instead of copying its figures.
 */
import WebSocket from 'ws';
import { createClient, type Client } from 'graphql-ws';
import { getOperationAST, parse } from 'graphql';
import { estimateOperation, type OperationEstimate } from '../../src/admission/cost';
import { buildSchema } from '../../src/schema';
import type { Stack } from './stack';
import { DEFAULT_WRITE_SHARDS, newId, type OutboxEvent } from '../../src/model';

const schema = buildSchema();

/**
 * The estimate of one operation, as the websocket server computes it (its variables already
 * coerced), on a table of `writeShards` (the stacks' default).
 */
export function estimateOf(query: string, variables: Record<string, unknown> = {}, writeShards = DEFAULT_WRITE_SHARDS): OperationEstimate {
  const document = parse(query);
  return estimateOperation(schema, document, getOperationAST(document)!, variables, { writeShards });
}

export interface LiveConnection {
  client: Client;
  closed: Promise<{ code: number; reason: string }>;
}

/** A lazy graphql-ws client of `stack` signed in with `token` (none: anonymous); the caller disposes it. */
export function connect(stack: Stack, token: string | undefined): LiveConnection {
  let onClosed!: (event: { code: number; reason: string }) => void;
  const closed = new Promise<{ code: number; reason: string }>((resolve) => (onClosed = resolve));
  const client = createClient({
    url: stack.server.url.replace(/^http/, 'ws'),
    webSocketImpl: WebSocket,
    retryAttempts: 0,
    lazy: true,
    connectionParams: token === undefined ? {} : { Authorization: `Bearer ${token}` },
    on: { closed: (event) => onClosed({ code: (event as { code: number }).code, reason: String((event as { reason: unknown }).reason) }) },
  });
  return { client, closed };
}

export interface LiveSubscription {
  events: any[];
  errors: any[];
  /** Resolves when the server ends the subscription (`complete` or `error`). */
  done: Promise<void>;
  /** The client's `complete`. */
  stop(): void;
}

export function subscribe(client: Client, query: string, variables: Record<string, unknown> = {}): LiveSubscription {
  const events: any[] = [];
  const errors: any[] = [];
  let stop!: () => void;
  const done = new Promise<void>((resolve) => {
    stop = client.subscribe(
      { query, variables },
      {
        next: (result) => (result.errors ? errors.push(...result.errors) : events.push(result.data)),
        error: (error) => {
          errors.push(...(Array.isArray(error) ? error : [error]));
          resolve();
        },
        complete: () => resolve(),
      },
    );
  });
  return { events, errors, done, stop };
}

export async function until(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Waits until the hub has `n` listeners (subscriptions started on the server). */
export const listening = (stack: Stack, n: number) => until(() => stack.hub.stats().listeners === n, `${n} listeners`);

let sequence = 1;
/** An OrderPlaced as the relay publishes it: the order's own aggregate, its sequence 1. */
export function placedEvent(customerId: string, orderId: string, totalCents = 1234): OutboxEvent {
  return {
    eventId: newId(),
    eventType: 'OrderPlaced',
    aggregateType: 'Order',
    aggregateId: orderId,
    sequence: 1,
    customerId,
    payload: { orderId, status: 'PENDING', totalCents, lineCount: 1, placedAt: new Date().toISOString() },
    occurredAt: new Date().toISOString(),
    actor: { kind: 'customer', subject: 'test' },
  };
}

/** An OrderStatusChanged as the relay publishes it (a sequence after the order's placement). */
export function movedEvent(customerId: string, orderId: string, from = 'PENDING', to = 'PAID'): OutboxEvent {
  return {
    eventId: newId(),
    eventType: 'OrderStatusChanged',
    aggregateType: 'Order',
    aggregateId: orderId,
    sequence: ++sequence,
    customerId,
    payload: { orderId, from, to },
    occurredAt: new Date().toISOString(),
    actor: { kind: 'staff', subject: 'test' },
  };
}
