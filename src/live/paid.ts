/**
 * How a subscription pays for what it reads: before it reads, as HTTP's admission (src/admission/pipeline.ts)
 * takes an operation's cost before it executes. src/live/websocket.ts has admitted the operation (its
 * estimate, src/admission/cost.ts, is `contextValue.cost`; at most `LIMITS.maxEventCost` an event) and hands
 * it to `paidSubscribe`, graphql-ws's `subscribe`, which runs it in three steps:
 *
 * 1. **Held.** A principal's open subscriptions, over all its sockets on this server, hold the sum
 *    of their per-event estimates (`cost`). One that would take the sum past `maxHeldEventCost` is
 *    refused, TOO_MANY_SUBSCRIPTIONS (not RATE_LIMITED: waiting frees nothing, completing one does),
 *    before any read. Its share is released when it ends, however it ends: completed, errored,
 *    refused later, the client's `complete`, its socket closed, the server drained.
 * 2. **Start.** Its start cost (`startCost`: what the root field's own `subscribe` reads, one order
 *    for `orderUpdated`) is checked, then taken, from the principal's read bucket, HTTP's; refused,
 *    it is RATE_LIMITED (`retryAfterSeconds`) and nothing is read, so the answer never depends on
 *    whether the order exists or whose it is. An event larger than a whole bucket, which could never
 *    be paid, is refused here too (`retryable: false`).
 * 3. **Each event** takes the per-event estimate from the bucket before it executes (graphql-js's
 *    `createSourceEventStream`, then one `execute` per event, with fresh loaders and meter, so
 *    `order` reads the order as it is now and nothing accumulates). Past the quota, that event is a
 *    RATE_LIMITED result, read nothing, and the subscription ends (it leaves the hub).
 */
import { createSourceEventStream, execute, type ExecutionArgs, type ExecutionResult, type GraphQLError } from 'graphql';
import { quotaKey } from '../auth';
import type { Context } from '../request/context';
import type { OperationEstimate } from '../admission/cost';
import { Meter } from '../dynamo/meter';
import type { Table } from '../dynamo/table';
import { checkQuota, rateLimited, takeQuota } from '../admission/pipeline';
import { Code } from '../errors/codes';
import { refusal, withoutHttp } from '../errors/refusal';
import { createLoaders } from '../loaders';
import type { Quotas } from '../admission/quotas';

/** The per-event estimates each principal's open subscriptions hold (one ledger per server). */
export class HeldCosts {
  private readonly held = new Map<string, number>();

  constructor(readonly budget: number) {}

  /** What `key`'s open subscriptions hold together. */
  of(key: string): number {
    return this.held.get(key) ?? 0;
  }

  /** Principals holding anything (0 once every subscription has ended: no leak). */
  get principals(): number {
    return this.held.size;
  }

  /** Holds `cost` for `key`: its release (idempotent), or undefined when the sum would pass the budget. */
  hold(key: string, cost: number): (() => void) | undefined {
    const sum = this.of(key) + cost;
    if (sum > this.budget) return undefined;
    this.held.set(key, sum);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = this.of(key) - cost;
      if (left > 0) this.held.set(key, left);
      else this.held.delete(key);
    };
  }
}

export interface PaidOptions {
  /** The unmetered table: each event gets its own meter over it. */
  table: Table;
  /** The server's buckets (HTTP's too). */
  quotas: Quotas;
  held: HeldCosts;
  /** Production: refusals do not print costs, budgets or quotas. */
  production: boolean;
}

type Outcome = AsyncIterableIterator<ExecutionResult> | ExecutionResult;

/** graphql-ws's `subscribe`: held, start and each event paid before they read (see the file comment). */
export function paidSubscribe(options: PaidOptions): (args: ExecutionArgs) => Promise<Outcome> {
  const { quotas, held, production } = options;
  /** Checks, then takes, `amount` from `key`'s read bucket (the pipeline's quota step); the refusal when it cannot pay. */
  const pay = (key: string, amount: number): GraphQLError | undefined => {
    const amounts = { reads: amount, writes: 0 };
    const unpaid = checkQuota(quotas, key, amounts, production);
    if (unpaid) return withoutHttp(unpaid);
    takeQuota(quotas, key, amounts);
    return undefined;
  };
  return async (args) => {
    const context = args.contextValue as Context;
    const estimate: OperationEstimate | undefined = context.cost;
    if (!estimate) throw new Error('a subscription runs once src/live/websocket.ts has admitted it (contextValue.cost)');
    const key = quotaKey(context.principal, context.clientAddress);
    if (estimate.cost > quotas.reads.capacity)
      return { errors: [withoutHttp(rateLimited('read', estimate.cost, quotas.reads.perMinute, { ok: false }, production))] };
    const release = held.hold(key, estimate.cost);
    if (!release) return { errors: [heldRefusal(held, key, estimate.cost, production)] };
    const refused = pay(key, estimate.startCost);
    if (refused) {
      release();
      return { errors: [refused] };
    }
    let source: Awaited<ReturnType<typeof createSourceEventStream>>;
    try {
      source = await createSourceEventStream(args);
    } catch (error) {
      release();
      throw error;
    }
    if (!(Symbol.asyncIterator in source)) {
      release(); // refused by its access rule, or not found: it never started
      return source;
    }
    const step: Step = (event) => {
      const unpaid = pay(key, estimate.cost);
      if (unpaid) return { unpaid };
      return { result: execute({ ...args, rootValue: event, contextValue: eventContext(context, options.table) }) };
    };
    return new PaidEvents(source[Symbol.asyncIterator](), step, release);
  };
}

const DONE: IteratorResult<ExecutionResult> = { done: true, value: undefined };

/** Pays for one event, then executes it; the refusal, with nothing executed, when the quota cannot pay. */
type Step = (event: unknown) => { unpaid: GraphQLError } | { result: ExecutionResult | Promise<ExecutionResult> };

/**
 * The subscription's results: each event pulled from the source stream, paid, then executed. Not
 * an async generator: graphql-ws's `return()` (the client's `complete`, the socket's close) must end
 * it at once, even while it waits for an event, as graphql-js's own mapping of the stream does.
 */
class PaidEvents implements AsyncIterableIterator<ExecutionResult> {
  private ended = false;

  constructor(
    private readonly source: AsyncIterator<unknown>,
    private readonly step: Step,
    private readonly release: () => void,
  ) {}

  async next(): Promise<IteratorResult<ExecutionResult>> {
    if (this.ended) return DONE;
    try {
      const event = await this.source.next();
      if (event.done || this.ended) {
        await this.end();
        return DONE;
      }
      const paid = this.step(event.value);
      if ('unpaid' in paid) {
        await this.end(); // leaves the hub; the next pull is done, so graphql-ws sends `complete`
        return { done: false, value: { errors: [paid.unpaid] } };
      }
      return { done: false, value: await paid.result };
    } catch (error) {
      await this.end();
      throw error;
    }
  }

  async return(): Promise<IteratorResult<ExecutionResult>> {
    await this.end();
    return DONE;
  }

  async throw(error?: unknown): Promise<IteratorResult<ExecutionResult>> {
    await this.end();
    throw error instanceof Error ? error : new Error(String(error));
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  private async end(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    this.release();
    await this.source.return?.();
  }
}

/** One event's context: the subscription's principal, with a new meter and loaders (nothing cached from the last event). */
function eventContext(context: Context, base: Table): Context {
  const meter = Meter.counters(); // totals only: nothing explains an event
  const table = base.withMeter(meter);
  return { ...context, meter, table, loaders: createLoaders(table) };
}

function heldRefusal(held: HeldCosts, key: string, cost: number, production: boolean): GraphQLError {
  const message = production
    ? 'Too many subscriptions held at once: your open subscriptions may read too much per event together; complete one first'
    : `Too many subscriptions held at once: with this one your open subscriptions may cost ${held.of(key) + cost} an event together, more than ${held.budget}; complete one first`;
  return withoutHttp(refusal(Code.TOO_MANY_SUBSCRIPTIONS, message));
}
