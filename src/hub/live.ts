/**
 * The root value of a subscription operation on the websocket server (src/live/websocket.ts makes one
 * per connection): the hub its streams listen on, and how they behave on that connection (their
 * buffer bound, and what a slow consumer's overflow does: close that socket). Subscription
 * resolvers reach the hub through it; outside the websocket server no subscription can run.
 */
import type { OutboxEvent } from '../model/events';
import type { EventHub } from './hub';
import type { EventStream } from './stream';

export interface LiveOptions {
  /** Events buffered per subscription before a slow consumer is dropped. */
  maxBuffered: number;
  /** A subscription of this connection overflowed: close the connection (src/live/websocket.ts). */
  onOverflow(buffered: number): void;
}

export class LiveConnection {
  constructor(
    readonly hub: EventHub,
    private readonly options: LiveOptions,
  ) {}

  /** A detached stream of the events `accept` takes; `subject` is what access decides on. */
  stream(accept: (event: OutboxEvent) => boolean, subject?: unknown): EventStream {
    return this.hub.stream({ accept, subject, maxBuffered: this.options.maxBuffered, onOverflow: this.options.onOverflow });
  }
}

/** The connection a subscription runs on; throws when it runs anywhere but the websocket server. */
export function liveConnection(root: unknown): LiveConnection {
  if (root instanceof LiveConnection) return root;
  throw new Error('subscriptions run only on the websocket server (src/live/websocket.ts), which gives them their root value');
}

/** The limits of live updates on the websocket server (src/boot/config.ts reads their overrides). */
export interface SubscriptionSettings {
  /** Subscriptions open at once on one connection; one more is refused (TOO_MANY_SUBSCRIPTIONS). */
  maxSubscriptionsPerConnection: number;
  /** Websocket connections open at once per principal (token subject); one more is closed with 1008. */
  maxConnectionsPerPrincipal: number;
  /** Events waiting per subscription for a slow consumer; one more closes its connection with 1013. */
  maxBufferedEvents: number;
  /**
   * The per-event estimates (src/admission/cost.ts `cost`) of one principal's open subscriptions, summed over
   * all its connections on this server: a subscription that would take the sum past this is refused
   * before it reads (TOO_MANY_SUBSCRIPTIONS: complete one first), so what one write can make the
   * table read for one principal's subscriptions is bounded up front.
   */
  maxHeldEventCost: number;
}

export const SUBSCRIPTION_DEFAULTS: SubscriptionSettings = {
  maxSubscriptionsPerConnection: 10,
  maxConnectionsPerPrincipal: 5,
  maxBufferedEvents: 1_000,
  // 2,000: eight subscriptions at the per-event bound (LIMITS.maxEventCost, 250: an order screen each),
  // or all 50 a principal may open (5 sockets × 10) at 40 an event. However they are made up, one write
  // they all hear reads at most 2,000 items for that principal (50 at the bound would be 12,500), 1/30
  // of its read bucket (60,000 a minute): its subscriptions can follow 30 such writes a minute before
  // the quota refuses their events, and its own HTTP requests keep the rest.
  maxHeldEventCost: 2_000,
};

/** The environment variables that override the defaults (positive integers; config.ts reads them). */
export const SUBSCRIPTION_VARIABLES = {
  SUBSCRIPTIONS_PER_CONNECTION: 'maxSubscriptionsPerConnection',
  SUBSCRIPTION_CONNECTIONS_PER_PRINCIPAL: 'maxConnectionsPerPrincipal',
  SUBSCRIPTION_BUFFER: 'maxBufferedEvents',
  SUBSCRIPTION_HELD_EVENT_COST: 'maxHeldEventCost',
} as const satisfies Record<string, keyof SubscriptionSettings>;
