/**
 * Amazon's ClientRequestToken: a TransactWriteItems that succeeded is not applied again when
 * repeated with the same token within 10 minutes; the repeat gets the first answer. The same token
 * with a different request is an IdempotentParameterMismatchException. (The AWS SDK fills the token
 * in and reuses it when it retries.) Failed transactions are not remembered: a retry runs again.
 *
 * One window per engine, kept in the engine's own LevelDB under the key prefix
 * `engine-idempotency~` (beside dynalite's sub-databases, like ttl.ts's `engine-ttl~`): on disk when
 * the engine runs on a path, so a restarted engine still honours a token used before the restart.
 * The entry is written in the transaction's own batch (`operations`), so a crash keeps both the
 * transaction and its token or neither. Expired entries are treated as absent and swept at most
 * once a minute; every call runs under the engine's exclusive lock.
 */
import type { BatchOperation, Store } from './dynalite-internals';
import { DYNAMODB_ERROR, apiError } from './errors';
import type { TransactWriteRequest } from './transaction-requests';

interface Entry {
  fingerprint: string;
  result: unknown;
  expiresAt: number;
}

const KEY_PREFIX = 'engine-idempotency~';

/** The slice of abstract-level's iterator API the sweep uses. */
interface Iterable {
  iterator(options: { gte: string; lt: string }): AsyncIterable<[string, Entry]>;
}

export class IdempotencyWindow {
  static readonly WINDOW_MS = 10 * 60 * 1000;
  private static readonly SWEEP_EVERY_MS = 60 * 1000;
  private lastSweepAt = 0;

  constructor(
    private readonly store: Store,
    private readonly now: () => number = Date.now,
  ) {}

  /** The first answer of a remembered token, or undefined; throws on a token reused for another request. */
  async replay(request: TransactWriteRequest): Promise<unknown> {
    await this.sweep();
    if (request.clientRequestToken === undefined) return undefined;
    const entry = (await this.store.db.get(KEY_PREFIX + request.clientRequestToken)) as Entry | undefined;
    if (!entry || entry.expiresAt <= this.now()) return undefined;
    if (entry.fingerprint !== request.fingerprint) {
      throw apiError(
        `${DYNAMODB_ERROR}IdempotentParameterMismatchException`,
        'The request uses the same client token as a previous, but non-identical request.',
      );
    }
    return entry.result;
  }

  /** The LevelDB operations that remember `result` for the request's token, for the transaction's batch. */
  operations(request: TransactWriteRequest, result: unknown): BatchOperation[] {
    if (request.clientRequestToken === undefined) return [];
    const entry: Entry = { fingerprint: request.fingerprint, result, expiresAt: this.now() + IdempotencyWindow.WINDOW_MS };
    return [{ type: 'put', key: KEY_PREFIX + request.clientRequestToken, value: entry }];
  }

  /** Deletes expired entries, at most once every SWEEP_EVERY_MS. */
  private async sweep(): Promise<void> {
    const now = this.now();
    if (now - this.lastSweepAt < IdempotencyWindow.SWEEP_EVERY_MS) return;
    this.lastSweepAt = now;
    const expired: BatchOperation[] = [];
    const range = { gte: KEY_PREFIX, lt: `${KEY_PREFIX}\uffff` };
    for await (const [key, entry] of (this.store.db as unknown as Iterable).iterator(range)) {
      if (entry.expiresAt <= now) expired.push({ type: 'del', key });
    }
    if (expired.length) await this.store.db.batch(expired);
  }
}
