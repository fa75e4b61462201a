/**
 * Transaction conflicts, as Amazon DynamoDB has them (opt-in: `conflicts`, `conflictChance`).
 *
 * DynamoDB's rules ("Transaction conflict handling in DynamoDB"), for requests in flight at once:
 * - a PutItem, UpdateItem or DeleteItem on an item an ongoing TransactWriteItems includes fails
 *   with `TransactionConflictException`;
 * - a TransactWriteItems with an item another ongoing TransactWriteItems includes is cancelled
 *   (`TransactionCanceledException`, reason `TransactionConflict` at that action, `None` elsewhere);
 * - a TransactGetItems with an item an ongoing TransactWriteItems, BatchWriteItem, PutItem,
 *   UpdateItem or DeleteItem writes is cancelled the same way.
 *
 * "In flight" here: from the moment the engine admits a request (validated, before it waits for
 * the engine's lock) until it is answered. The engine serialises writes, so two transactions on
 * one item overlap when the second arrives while the first is queued or running, which is what
 * concurrent clients produce. `conflictChance` (seeded) also cancels a TransactWriteItems with a
 * `TransactionConflict` at one random action, so a client's retry path runs on demand.
 */
import { db, getTable, type Item, type Store, type TableDescription } from './dynalite-internals';
import { DYNAMODB_ERROR, apiError } from './errors';
import { seededRandom } from './index-lag';
import { transactionCanceled } from './transact-write';
import type { TransactGetRequest, TransactWriteRequest } from './transaction-requests';

export interface ConflictOptions {
  /** Probability (0..1) that a TransactWriteItems is cancelled with a forced TransactionConflict. */
  chance: number;
  /** Seed of that draw. */
  seed: number;
}

/** What happened, for tests and the note: conflicts found between requests, and forced ones. */
export interface ConflictCounts {
  transactionsCancelled: number;
  forced: number;
  singleWritesRefused: number;
}

type Release = () => void;

const CONFLICT_MESSAGE = 'Transaction is ongoing for the item';
const SINGLE_ITEM_WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem']);

export class ConflictDetector {
  /** Item identity → in-flight TransactWriteItems holding it. */
  private readonly transacting = new Map<string, number>();
  /** Item identity → in-flight non-transactional writes of it. */
  private readonly writing = new Map<string, number>();
  private readonly random: () => number;
  readonly counts: ConflictCounts = { transactionsCancelled: 0, forced: 0, singleWritesRefused: 0 };

  constructor(
    private readonly store: Store,
    private readonly options: ConflictOptions,
  ) {
    this.random = seededRandom(options.seed);
  }

  /**
   * Admits a validated request: throws DynamoDB's conflict error, or marks its items in flight and
   * returns the function that releases them once it is answered.
   */
  async admit(operation: string, data: unknown): Promise<Release | undefined> {
    if (operation === 'TransactWriteItems') return this.admitTransactWrite(data as TransactWriteRequest);
    if (operation === 'TransactGetItems') return this.admitTransactGet(data as TransactGetRequest);
    if (SINGLE_ITEM_WRITES.has(operation)) return this.admitWrite(data as { TableName: string; Key?: Item; Item?: Item });
    if (operation === 'BatchWriteItem') return this.admitBatchWrite(data as { RequestItems: Record<string, BatchWriteRequest[]> });
    return undefined;
  }

  private async admitTransactWrite(request: TransactWriteRequest): Promise<Release | undefined> {
    const ids = await this.identities(request.writes.map((write) => write.request));
    if (!ids) return undefined;
    let reasons = ids.map((id) => (this.transacting.has(id) ? conflict() : none()));
    if (reasons.every((reason) => reason.Code === 'None') && this.options.chance > 0 && this.random() < this.options.chance) {
      const victim = Math.floor(this.random() * ids.length);
      reasons = ids.map((_, i) => (i === victim ? conflict() : none()));
      this.counts.forced++;
    }
    if (reasons.some((reason) => reason.Code !== 'None')) {
      this.counts.transactionsCancelled++;
      throw transactionCanceled(reasons);
    }
    return hold(this.transacting, ids);
  }

  private async admitTransactGet(request: TransactGetRequest): Promise<Release | undefined> {
    const ids = await this.identities(request.gets);
    if (!ids) return undefined;
    const reasons = ids.map((id) => (this.transacting.has(id) || this.writing.has(id) ? conflict() : none()));
    if (reasons.some((reason) => reason.Code !== 'None')) {
      this.counts.transactionsCancelled++;
      throw transactionCanceled(reasons);
    }
    return undefined;
  }

  private async admitWrite(request: { TableName: string; Key?: Item; Item?: Item }): Promise<Release | undefined> {
    const ids = await this.identities([request]);
    if (!ids) return undefined;
    if (ids.some((id) => this.transacting.has(id))) {
      this.counts.singleWritesRefused++;
      throw apiError(`${DYNAMODB_ERROR}TransactionConflictException`, CONFLICT_MESSAGE);
    }
    return hold(this.writing, ids);
  }

  private async admitBatchWrite(request: { RequestItems: Record<string, BatchWriteRequest[]> }): Promise<Release | undefined> {
    const items = Object.entries(request.RequestItems).flatMap(([TableName, writes]) =>
      writes.map((write) => ({ TableName, Item: write.PutRequest?.Item ?? write.DeleteRequest?.Key })),
    );
    const ids = await this.identities(items);
    return ids && hold(this.writing, ids);
  }

  /**
   * Each request's item as `table NUL dynalite key`; undefined when a table or key is not usable,
   * leaving the request to fail as it would without conflict detection.
   */
  private async identities(
    requests: { TableName: string; Key?: Item | undefined; Item?: Item | undefined }[],
  ): Promise<string[] | undefined> {
    try {
      const ids: string[] = [];
      const tables = new Map<string, TableDescription>();
      for (const request of requests) {
        let table = tables.get(request.TableName);
        if (!table) tables.set(request.TableName, (table = await getTable(this.store, request.TableName)));
        ids.push(`${request.TableName}\u0000${db.createKey((request.Key ?? request.Item) as Item, table)}`);
      }
      return ids;
    } catch {
      return undefined;
    }
  }
}

interface BatchWriteRequest {
  PutRequest?: { Item: Item };
  DeleteRequest?: { Key: Item };
}

function conflict(): { Code: 'TransactionConflict'; Message: string } {
  return { Code: 'TransactionConflict', Message: CONFLICT_MESSAGE };
}

function none(): { Code: 'None' } {
  return { Code: 'None' };
}

/** Counts `ids` in flight in `registry`; the returned function (idempotent) releases them. */
function hold(registry: Map<string, number>, ids: string[]): Release {
  for (const id of ids) registry.set(id, (registry.get(id) ?? 0) + 1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    for (const id of ids) {
      const left = (registry.get(id) ?? 1) - 1;
      if (left > 0) registry.set(id, left);
      else registry.delete(id);
    }
  };
}
