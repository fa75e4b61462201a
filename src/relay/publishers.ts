/**
 * Where the relay publishes outbox events, at least once, each carrying its `eventId` for
 * de-duplication downstream:
 *
 * - `eventBridgePublisher`: Amazon EventBridge `PutEvents` (in AWS, and `npm run relay` with
 *   `EVENT_BUS_NAME`): `Source` the configured source (`single-table-graphql`), `DetailType` the
 *   event type, `Detail` the event's JSON (its `eventId` inside), `Time` its `occurredAt`. At most
 *   10 entries a call (the API's limit); a partial failure (`FailedEntryCount`) is retried for the
 *   failed entries only, a few times with backoff; what still fails is reported per event, so the
 *   relay retries exactly those records (EventBridge keeps no order between entries anyway).
 * - `hubPublisher`: the long-running server's subscription hub (src/hub/hub.ts), in process.
 * - `logPublisher`: one JSON line per event on a stream (`npm run relay` without a bus).
 *
 * A publisher reports the events it could not publish; it throws only when it could not tell.
 */
import type { PutEventsCommandOutput, PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { PutEventsCommand } from '@aws-sdk/client-eventbridge';
import type { OutboxEvent } from '../model/events';
import { inRounds } from '../dynamo/backoff';

export interface PublishFailure {
  eventId: string;
  error: string;
}

export interface Publisher {
  /** For logs and the checkpoint's default name. */
  readonly name: string;
  /** Publishes `events` (in order where the destination keeps one); resolves with those that failed. */
  publish(events: readonly OutboxEvent[]): Promise<PublishFailure[]>;
}

/** What `eventBridgePublisher` needs of an EventBridge client (the SDK's, or a test's stub). */
export interface PutEventsSender {
  send(command: PutEventsCommand): Promise<PutEventsCommandOutput>;
}

export interface EventBridgeOptions {
  client: PutEventsSender;
  /** The bus's name or ARN. */
  eventBusName: string;
  /** The `Source` of every entry. */
  source: string;
  /** Extra rounds for entries a call reported failed (default 3). */
  entryRetries?: number;
}

/** PutEvents takes at most 10 entries a call. */
export const PUT_EVENTS_MAX_ENTRIES = 10;

/** The PutEvents entry of an event. */
export function eventBridgeEntry(event: OutboxEvent, options: Pick<EventBridgeOptions, 'eventBusName' | 'source'>): PutEventsRequestEntry {
  return {
    EventBusName: options.eventBusName,
    Source: options.source,
    DetailType: event.eventType,
    Detail: JSON.stringify(event),
    Time: new Date(event.occurredAt),
  };
}

export function eventBridgePublisher(options: EventBridgeOptions): Publisher {
  const retries = options.entryRetries ?? 3;
  return {
    name: 'eventbridge',
    async publish(events) {
      const failures: PublishFailure[] = [];
      for (let i = 0; i < events.length; i += PUT_EVENTS_MAX_ENTRIES) {
        failures.push(...(await putChunk(options, events.slice(i, i + PUT_EVENTS_MAX_ENTRIES), retries)));
      }
      return failures;
    },
  };
}

/** One chunk of at most 10: sent, then only its failed entries again, up to `retries` more rounds. */
async function putChunk(options: EventBridgeOptions, chunk: readonly OutboxEvent[], retries: number): Promise<PublishFailure[]> {
  type Pending = { event: OutboxEvent; error: string };
  const sendRound = async (pending: readonly Pending[]): Promise<readonly Pending[]> => {
    let output: PutEventsCommandOutput;
    try {
      output = await options.client.send(new PutEventsCommand({ Entries: pending.map(({ event }) => eventBridgeEntry(event, options)) }));
    } catch (error) {
      // The SDK already retried throttling and 5xx: every entry of the call failed.
      const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      return pending.map(({ event }) => ({ event, error: message }));
    }
    if (!output.FailedEntryCount) return [];
    // Entries answer in request order; a failed one has an ErrorCode and no EventId.
    const entries = output.Entries ?? [];
    return pending
      .map(({ event }, index) => ({ event, entry: entries[index] }))
      .filter(({ entry }) => !entry || entry.ErrorCode !== undefined || !entry.EventId)
      .map(({ event, entry }) => ({
        event,
        error: entry ? `${entry.ErrorCode ?? 'Failed'}: ${entry.ErrorMessage ?? ''}`.trim() : 'no entry',
      }));
  };
  const left = await inRounds(
    chunk.map((event) => ({ event, error: '' })),
    retries + 1,
    sendRound,
  );
  return left.map(({ event, error }) => ({ eventId: event.eventId, error }));
}

/** What the relay needs of the subscription hub (src/hub/hub.ts): nothing else is imported from it. */
export interface EventSink {
  publish(event: OutboxEvent): unknown;
}

/** Publishes to the server's subscription hub, in order; an event whose `publish` throws is reported failed. */
export function hubPublisher(hub: EventSink): Publisher {
  return {
    name: 'hub',
    async publish(events) {
      const failures: PublishFailure[] = [];
      for (const event of events) {
        try {
          await hub.publish(event);
        } catch (error) {
          failures.push({ eventId: event.eventId, error: error instanceof Error ? error.message : String(error) });
        }
      }
      return failures;
    },
  };
}

/** One JSON line per event (`npm run relay` without EVENT_BUS_NAME): pipe it anywhere. */
export function logPublisher(write: (line: string) => void = (line) => process.stdout.write(line)): Publisher {
  return {
    name: 'log',
    async publish(events) {
      for (const event of events) write(`${JSON.stringify(event)}\n`);
      return [];
    },
  };
}
