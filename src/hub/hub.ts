/**
 * The in-process event hub: where the relay (src/relay/relay.ts) hands the outbox's events, and
 * where every live subscription (GraphQL subscriptions over graphql-ws, src/live/websocket.ts) hears them.
 *
 * - **At most once per event.** Delivery upstream is at least once (the relay may publish a record
 *   again after a crash or a retry), so `publish` drops an event whose `eventId` it has seen among
 *   the last `dedupeWindow` ids (a bounded window: memory stays constant; an event repeated after
 *   more than that many others would pass again, which the relay's checkpoint makes unlikely).
 * - **In order.** Listeners are called synchronously, in publish order.
 * - **Bounded per subscriber.** A listener is synchronous and must not block; a consumer that is
 *   slow (a websocket whose peer does not read) takes an `EventStream` (./stream.ts), whose buffer
 *   holds at most `maxBuffered` events: one more and the stream is dropped (unsubscribed, buffer
 *   freed) and its `onOverflow` closes the connection (src/live/websocket.ts: close code 1013).
 * - A listener that throws is reported (`onListenerError`) and the others still hear the event.
 */
import type { OutboxEvent } from '../model/events';
import { EventStream, type StreamOptions } from './stream';

export type { StreamOptions } from './stream';
export { EventStream } from './stream';

export type Listener = (event: OutboxEvent) => void;

export interface HubOptions {
  /** How many recent event ids are remembered to drop duplicates (default 10,000). */
  dedupeWindow?: number;
  /** Called when a listener throws (the event still reaches the other listeners). */
  onListenerError?: (error: unknown, event: OutboxEvent) => void;
}

export interface HubStats {
  /** Events delivered to the listeners (duplicates excluded). */
  published: number;
  /** Events dropped as duplicates of a recent eventId. */
  duplicates: number;
  /** Listeners subscribed now (each live subscription is one). */
  listeners: number;
}

export const DEFAULT_DEDUPE_WINDOW = 10_000;

export class EventHub {
  private readonly listeners = new Set<Listener>();
  private readonly seen = new Set<string>();
  /** The ids of `seen` in arrival order, as a ring: the oldest is forgotten first. */
  private readonly ring: string[] = [];
  private next = 0;
  private readonly window: number;
  private readonly onListenerError: ((error: unknown, event: OutboxEvent) => void) | undefined;
  private published = 0;
  private duplicates = 0;

  constructor(options: HubOptions = {}) {
    this.window = options.dedupeWindow ?? DEFAULT_DEDUPE_WINDOW;
    if (!Number.isInteger(this.window) || this.window < 1) throw new Error(`dedupeWindow must be a positive integer, got ${this.window}`);
    this.onListenerError = options.onListenerError;
  }

  /** Delivers `event` to every listener, in order, unless its eventId was published recently. */
  publish(event: OutboxEvent): void {
    if (this.seen.has(event.eventId)) {
      this.duplicates++;
      return;
    }
    this.remember(event.eventId);
    this.published++;
    // A copy: a listener that unsubscribes (or subscribes) while hearing does not disturb the round.
    for (const listener of [...this.listeners]) {
      if (!this.listeners.has(listener)) continue;
      try {
        listener(event);
      } catch (error) {
        this.onListenerError?.(error, event);
      }
    }
  }

  /** Calls `listener` for every later event; returns its unsubscribe (idempotent). */
  subscribe(listener: Listener): () => void {
    // Each subscription is its own entry, even for a function subscribed twice.
    const own: Listener = (event) => listener(event);
    this.listeners.add(own);
    return () => {
      this.listeners.delete(own);
    };
  }

  /** A bounded, pull-based stream of later events (see ./stream.ts); not subscribed until `start()`. */
  stream(options: StreamOptions): EventStream {
    return new EventStream(this, options);
  }

  stats(): HubStats {
    return { published: this.published, duplicates: this.duplicates, listeners: this.listeners.size };
  }

  private remember(eventId: string): void {
    if (this.ring.length < this.window) this.ring.push(eventId);
    else {
      this.seen.delete(this.ring[this.next] as string);
      this.ring[this.next] = eventId;
      this.next = (this.next + 1) % this.window;
    }
    this.seen.add(eventId);
  }
}
