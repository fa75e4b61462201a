/**
 * The TTL sweeper: deletes expired items, as Amazon's background TTL process does.
 *
 * An item is expired when the table's TTL is ENABLED and the item's TTL attribute is a Number
 * (epoch seconds) less than the current time (Amazon: "less than the current time"), and not more
 * than five years in the past (Amazon ignores such values, per its Developer Guide). Anything else
 * (a String, a Map, a missing attribute, a time in the future) is never deleted.
 *
 * Every step is an ordinary request answered by the engine (`handle`, engine.ts): ListTables,
 * DescribeTimeToLive and DescribeTable, a Scan per table for expired keys, then one DeleteItem per
 * key whose ConditionExpression repeats the expiry test. So a delete takes the same path and lock
 * as a client's DeleteItem (indexes updated with the item), and an item updated between the Scan
 * and its delete (e.g. its TTL pushed into the future) is left alone. The sweeper's requests do not
 * go through the HTTP server, so they are not in the wire log nor offered to faults.
 *
 * Amazon deletes expired items within days, so code must not rely on deletion: the interval is
 * configurable (`startEngine({ ttlSweepSeconds })`, `npm run engine -- --ttl-sweep-seconds N`),
 * and a sweep can be run at once (`EmbeddedEngine.sweepExpiredItems()`).
 */
import type { EngineResponse } from './errors';

export type HandleRequest = (operation: string, body: unknown) => Promise<EngineResponse>;

const FIVE_YEARS_SECONDS = 5 * 366 * 24 * 60 * 60;

export class TtlSweeper {
  private timer: NodeJS.Timeout | undefined;
  /** The last sweep asked for; sweeps run one after the other. */
  private queue: Promise<number> = Promise.resolve(0);
  private pending = 0;
  private stopped = false;

  constructor(private readonly handle: HandleRequest) {}

  /** Sweeps every `seconds` (no timer for 0 or less); the timer does not keep the process alive. */
  start(seconds: number): void {
    if (!(seconds > 0) || this.stopped) return;
    this.timer = setInterval(() => {
      if (this.pending > 0) return; // still sweeping: skip this tick
      this.sweep().catch((err: unknown) => console.error('[engine] TTL sweep failed:', err));
    }, seconds * 1000);
    this.timer.unref();
  }

  /** Runs a sweep after the one under way, if any; resolves to the number of items deleted. */
  sweep(): Promise<number> {
    this.pending += 1;
    const run = this.queue
      .catch(() => 0)
      .then(() => (this.stopped ? 0 : this.sweepAll()))
      .finally(() => {
        this.pending -= 1;
      });
    this.queue = run;
    return run;
  }

  /** Stops the timer and waits for a sweep under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.queue.catch(() => undefined);
  }

  private async sweepAll(): Promise<number> {
    let deleted = 0;
    for (const tableName of await this.tableNames()) {
      if (this.stopped) break;
      deleted += await this.sweepTable(tableName);
    }
    return deleted;
  }

  private async tableNames(): Promise<string[]> {
    const names: string[] = [];
    let start: string | undefined;
    do {
      const page = await this.call<{ TableNames?: string[]; LastEvaluatedTableName?: string }>('ListTables', {
        ...(start === undefined ? {} : { ExclusiveStartTableName: start }),
      });
      names.push(...(page.TableNames ?? []));
      start = page.LastEvaluatedTableName;
    } while (start !== undefined);
    return names;
  }

  private async sweepTable(tableName: string): Promise<number> {
    const ttl = await this.call<{ TimeToLiveDescription?: { TimeToLiveStatus?: string; AttributeName?: string } }>('DescribeTimeToLive', {
      TableName: tableName,
    }).catch(() => undefined); // the table may have just been deleted
    const attribute = ttl?.TimeToLiveDescription?.AttributeName;
    if (ttl?.TimeToLiveDescription?.TimeToLiveStatus !== 'ENABLED' || !attribute) return 0;
    const { Table } = await this.call<{ Table: { TableStatus: string; KeySchema: { AttributeName: string }[] } }>('DescribeTable', {
      TableName: tableName,
    });
    if (Table.TableStatus !== 'ACTIVE') return 0;

    const now = Math.floor(Date.now() / 1000);
    const expiry = {
      ConditionExpression: '#ttl < :now AND #ttl >= :oldest',
      ExpressionAttributeNames: { '#ttl': attribute },
      ExpressionAttributeValues: { ':now': { N: String(now) }, ':oldest': { N: String(now - FIVE_YEARS_SECONDS) } },
    };
    const keyNames = Table.KeySchema.map((element) => element.AttributeName);
    const projection = Object.fromEntries(keyNames.map((name, i) => [`#k${i}`, name]));
    const keys: Record<string, unknown>[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.call<{ Items?: Record<string, unknown>[]; LastEvaluatedKey?: Record<string, unknown> }>('Scan', {
        TableName: tableName,
        ConsistentRead: true,
        FilterExpression: expiry.ConditionExpression,
        ProjectionExpression: Object.keys(projection).join(', '),
        ExpressionAttributeNames: { ...expiry.ExpressionAttributeNames, ...projection },
        ExpressionAttributeValues: expiry.ExpressionAttributeValues,
        ...(start === undefined ? {} : { ExclusiveStartKey: start }),
      });
      keys.push(...(page.Items ?? []));
      start = page.LastEvaluatedKey;
    } while (start !== undefined && !this.stopped);

    let deleted = 0;
    for (const key of keys) {
      if (this.stopped) break;
      const response = await this.handle('DeleteItem', { TableName: tableName, Key: key, ...expiry });
      if (response.status === 200) deleted += 1;
      // ConditionalCheckFailed: the item changed since the Scan (or is gone); anything else: next sweep.
    }
    return deleted;
  }

  private async call<T>(operation: string, body: unknown): Promise<T> {
    const response = await this.handle(operation, body);
    if (response.status !== 200) {
      throw new Error(`${operation} answered ${response.status}: ${JSON.stringify(response.body)}`);
    }
    return response.body as T;
  }
}
