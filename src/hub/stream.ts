/**
 * One live subscription's events, as the async iterator graphql-js's `subscribe` consumes: a
 * listener on the hub pushes the events it accepts into a bounded buffer, and `next()` pulls them
 * in order. graphql-ws pulls the next event only once the previous one has been written to the
 * socket, so a peer that does not read lets the buffer fill: at `maxBuffered` waiting events the
 * next one drops the stream (unsubscribed from the hub, buffer freed, iteration ended) and calls
 * `onOverflow`, which closes the connection (src/live/websocket.ts). Memory per subscriber is bounded.
 *
 * A stream is made detached and hears nothing until `start()`: the access rule of the field
 * (src/schema/access.ts) decides first, then starts it with the rule's own filter.
 */
import type { OutboxEvent } from '../model/events';

/** What a stream listens on (the hub's `subscribe`). */
export interface HubSource {
  subscribe(listener: (event: OutboxEvent) => void): () => void;
}

export interface StreamOptions {
  /** Which events this subscription is about (its topic: an order, a customer, a status). */
  accept: (event: OutboxEvent) => boolean;
  /** Events waiting for a slow consumer before it is dropped (default 100). */
  maxBuffered?: number;
  /** Called once when the stream is dropped for overflowing. */
  onOverflow?: (buffered: number) => void;
  /** What the subscription is about, read to decide access (e.g. the order of `orderUpdated(id)`). */
  subject?: unknown;
}

export const DEFAULT_MAX_BUFFERED = 100;

/** Thrown by `next()` of a stream dropped for overflowing (after `onOverflow` has run). */
export class SlowSubscriberError extends Error {
  constructor(readonly buffered: number) {
    super(`subscriber too slow: more than ${buffered} events waiting; dropped`);
    this.name = 'SlowSubscriberError';
  }
}

export class EventStream implements AsyncIterableIterator<OutboxEvent> {
  readonly subject: unknown;
  private readonly accepts: Array<(event: OutboxEvent) => boolean>;
  private readonly maxBuffered: number;
  private readonly buffer: OutboxEvent[] = [];
  private readonly waiting: Array<(result: IteratorResult<OutboxEvent>) => void> = [];
  private unsubscribe: (() => void) | undefined;
  private state: 'detached' | 'live' | 'done' | 'overflowed' = 'detached';

  constructor(
    private readonly source: HubSource,
    private readonly options: StreamOptions,
  ) {
    this.accepts = [options.accept];
    this.maxBuffered = options.maxBuffered ?? DEFAULT_MAX_BUFFERED;
    this.subject = options.subject;
  }

  /** Subscribes to the source; `also` narrows what the stream hears (an access rule's filter). */
  start(also?: (event: OutboxEvent) => boolean): this {
    if (this.state !== 'detached') throw new Error('an event stream starts once');
    if (also) this.accepts.push(also);
    this.state = 'live';
    this.unsubscribe = this.source.subscribe((event) => this.push(event));
    return this;
  }

  /** Events waiting to be pulled. */
  get buffered(): number {
    return this.buffer.length;
  }

  get live(): boolean {
    return this.state === 'live';
  }

  next(): Promise<IteratorResult<OutboxEvent>> {
    const event = this.buffer.shift();
    if (event) return Promise.resolve({ value: event, done: false });
    if (this.state === 'overflowed') return Promise.reject(new SlowSubscriberError(this.maxBuffered));
    if (this.state === 'done') return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** Ends the stream at once, even while a `next()` waits (the waiting call resolves done). */
  return(): Promise<IteratorResult<OutboxEvent>> {
    this.end('done');
    return Promise.resolve({ value: undefined, done: true });
  }

  throw(error?: unknown): Promise<IteratorResult<OutboxEvent>> {
    this.end('done');
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  private push(event: OutboxEvent): void {
    if (this.state !== 'live' || !this.accepts.every((accept) => accept(event))) return;
    const waiter = this.waiting.shift();
    if (waiter) return waiter({ value: event, done: false });
    if (this.buffer.length >= this.maxBuffered) {
      this.end('overflowed');
      this.options.onOverflow?.(this.maxBuffered);
      return;
    }
    this.buffer.push(event);
  }

  private end(state: 'done' | 'overflowed'): void {
    if (this.state === 'done' || this.state === 'overflowed') return;
    this.state = state;
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.buffer.length = 0;
    for (const resolve of this.waiting.splice(0)) resolve({ value: undefined, done: true });
  }
}
