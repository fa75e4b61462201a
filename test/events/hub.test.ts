/** The event hub alone: de-duplication window, order, isolation of listeners, bounded streams. */
import { describe, expect, it } from 'vitest';
import { EventHub } from '../../src/hub/hub';
import { SlowSubscriberError } from '../../src/hub/stream';
import type { OutboxEvent } from '../../src/model/events';

let n = 0;
const event = (eventId = `E${++n}`, customerId = 'C1'): OutboxEvent => ({
  eventId,
  eventType: 'OrderStatusChanged',
  aggregateType: 'Order',
  aggregateId: 'O1',
  sequence: n,
  customerId,
  payload: { status: 'PAID' },
  occurredAt: '2026-12-01T00:00:00.000Z',
  actor: { kind: 'system' },
});

describe('EventHub', () => {
  it('delivers in publish order, each eventId once within its window', () => {
    const hub = new EventHub({ dedupeWindow: 3 });
    const heard: string[] = [];
    hub.subscribe((e) => heard.push(e.eventId));
    for (const id of ['a', 'b', 'a', 'c', 'b', 'd', 'a']) hub.publish(event(id));
    // 'a' is forgotten once three newer ids (b, c, d) have arrived: the window is bounded.
    expect(heard).toEqual(['a', 'b', 'c', 'd', 'a']);
    expect(hub.stats()).toEqual({ published: 5, duplicates: 2, listeners: 1 });
  });

  it('keeps delivering to the others when a listener throws, and unsubscribes idempotently', () => {
    const errors: unknown[] = [];
    const hub = new EventHub({ onListenerError: (error) => errors.push(error) });
    const heard: string[] = [];
    hub.subscribe(() => {
      throw new Error('broken listener');
    });
    const off = hub.subscribe((e) => heard.push(e.eventId));
    hub.publish(event('x'));
    off();
    off();
    hub.publish(event('y'));
    expect(heard).toEqual(['x']);
    expect(errors).toHaveLength(2);
    expect(hub.stats().listeners).toBe(1);
  });

  it('streams only once started, and return() ends a waiting next() at once', async () => {
    const hub = new EventHub();
    const stream = hub.stream({ accept: (e) => e.customerId === 'C1' });
    hub.publish(event('before'));
    stream.start((e) => e.eventId !== 'hidden');
    hub.publish(event('other', 'C2'));
    hub.publish(event('hidden'));
    hub.publish(event('mine'));
    expect((await stream.next()).value?.eventId).toBe('mine');
    const waiting = stream.next();
    await stream.return();
    expect(await waiting).toEqual({ value: undefined, done: true });
    expect(hub.stats().listeners).toBe(0);
  });

  it('drops a stream whose consumer falls more than maxBuffered events behind', async () => {
    const hub = new EventHub();
    const overflows: number[] = [];
    const stream = hub.stream({ accept: () => true, maxBuffered: 2, onOverflow: (count) => overflows.push(count) }).start();
    hub.publish(event());
    hub.publish(event());
    expect(stream.buffered).toBe(2);
    hub.publish(event());
    expect(overflows).toEqual([2]);
    expect(stream.buffered).toBe(0);
    expect(hub.stats().listeners).toBe(0);
    await expect(stream.next()).rejects.toBeInstanceOf(SlowSubscriberError);
  });
});
