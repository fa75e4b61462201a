/**
 * How migrations are run and found: the rate limit a run is held to (the runner's use of a limiter,
 * and the token bucket itself, on a virtual clock), the registry of migrations, and
 * `npm run migrate`, the command line, as a child process against DYNAMODB_ENDPOINT.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { findMigration, migrations, RateLimiter, runMigration, type Clock, type Limiter } from '../../src/ops/migrations';
import { migration as m0001 } from '../../src/ops/migrations/0001-order-lines-by-sku';
import { BY_SKU, bySkuData, linesOf, loadLegacy, sortItems, useFreshStacks, virtualClock } from '../support/migrations';

const root = fileURLToPath(new URL('../..', import.meta.url));

const freshStack = useFreshStacks();

describe('migration rate limits', () => {
  it('ask the limiter for one token per scanned item, before the page is rewritten', async () => {
    const stack = await freshStack();
    await loadLegacy(stack, 3, 8);
    const events: string[] = [];
    const taken: number[] = [];
    const limiter: Limiter = {
      take: async (n) => {
        taken.push(n);
        events.push(`take ${n}`);
      },
    };
    const stop = stack.engine.wire.onRequest((request) => {
      if (request.operation === 'UpdateItem' && String(request.body.Key.PK.S).startsWith('ORDER#')) events.push('rewrite');
    });
    const report = await runMigration(stack.table, m0001, { segments: 1, pageSize: 10, limiter });
    stop();
    expect(taken.reduce((a, b) => a + b, 0)).toBe(report.run.scanned);
    expect(taken).toHaveLength(report.scanRequests);
    expect(events[0]).toMatch(/^take/);
    // With one segment, pages follow each other: a page's rewrites never outnumber the tokens taken for it.
    let budget = 0;
    for (const event of events) {
      if (event === 'rewrite') expect(--budget).toBeGreaterThanOrEqual(0);
      else budget = Number(event.split(' ')[1]);
    }
  });

  it('hold the whole run to the rate, counted on a virtual clock', async () => {
    const stack = await freshStack();
    await loadLegacy(stack, 3, 8);
    const clock = virtualClock();
    const limiter = new RateLimiter(40, { clock });
    const report = await runMigration(stack.table, m0001, { segments: 3, pageSize: 10, limiter });
    // 40 items a second, 40 saved up at the start: the last token was granted no earlier than this.
    expect(clock.now()).toBeGreaterThanOrEqual(((report.run.scanned - 40) / 40) * 1000 - 1);
    expect(clock.now()).toBeLessThanOrEqual(((report.run.scanned - 40) / 40) * 1000 + 1000);
  });
});

describe('the rate limiter (token bucket, pure)', () => {
  /** Takes `requests` one after another and records when each was granted, on a virtual clock. */
  async function grantTimes(limiter: RateLimiter, clock: Clock, requests: number[]) {
    const granted: Array<{ at: number; total: number }> = [];
    let total = 0;
    for (const n of requests) {
      await limiter.take(n);
      total += n;
      granted.push({ at: clock.now(), total });
    }
    return granted;
  }

  it('grants at most burst + rate × elapsed tokens at any moment', async () => {
    const clock = virtualClock();
    const limiter = new RateLimiter(100, { burst: 50, clock });
    const granted = await grantTimes(limiter, clock, Array(1000).fill(1));
    for (const { at, total } of granted) expect(total).toBeLessThanOrEqual(50 + (100 * at) / 1000 + 1e-9);
    expect(granted.at(-1)!.at).toBeCloseTo(((1000 - 50) / 100) * 1000, 6);
  });

  it('grants a request larger than the burst once its debt is paid, and holds the long-run rate', async () => {
    const clock = virtualClock();
    const limiter = new RateLimiter(10, { clock });
    const granted = await grantTimes(limiter, clock, [100, 100, 5]);
    expect(granted.map((g) => g.at)).toEqual([9000, 19000, 19500]);
  });

  it('refills while idle, never beyond the burst', async () => {
    let time = 0;
    const slept: number[] = [];
    const clock: Clock = {
      now: () => time,
      sleep: async (ms) => {
        slept.push(ms);
        time += ms;
      },
    };
    const limiter = new RateLimiter(10, { burst: 20, clock });
    await limiter.take(20);
    time += 60_000; // a minute idle refills 20 tokens, not 600
    await limiter.take(20);
    expect(slept).toEqual([]);
    await limiter.take(10);
    expect(slept).toEqual([1000]);
  });

  it('shares the rate between concurrent takers (segments)', async () => {
    const time = 0;
    const wakeUps: number[] = [];
    const clock: Clock = {
      now: () => time,
      sleep: async (ms) => {
        wakeUps.push(time + ms);
      },
    };
    const limiter = new RateLimiter(10, { burst: 10, clock });
    await Promise.all([limiter.take(10), limiter.take(10), limiter.take(10), limiter.take(10)]);
    // The first is covered by the burst; the others wait 1 s, 2 s and 3 s: 10 tokens a second.
    expect(wakeUps).toEqual([1000, 2000, 3000]);
  });

  it('refuses a rate that is not a positive number', () => {
    expect(() => new RateLimiter(0)).toThrow();
    expect(() => new RateLimiter(Number.NaN)).toThrow();
  });
});

describe('the migration registry', () => {
  it('finds a migration by name or number, in file order, with names unique', () => {
    expect(findMigration('0001-order-lines-by-sku')).toBe(m0001);
    expect(findMigration('0001')).toBe(m0001);
    expect(findMigration('0002')?.name).toBe('0002-status-index-shards');
    expect(findMigration('0003')?.name).toBe('0003-customer-stats');
    expect(findMigration('0004')).toBeUndefined();
    const names = migrations.map((m) => m.name);
    expect(names).toEqual([...names].sort());
    expect(new Set(names).size).toBe(names.length);
  });
});

// ---- the command line ------------------------------------------------------------------------------

describe('npm run migrate (the command line)', () => {
  const exec = promisify(execFile);
  const env = (endpoint: string) => ({
    ...process.env,
    DYNAMODB_ENDPOINT: endpoint,
    TABLE_NAME: 'app',
    NODE_ENV: 'development',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  });
  /** The script itself, as `npm run migrate` starts it (without npm's own start-up). */
  async function migrate(endpoint: string, ...args: string[]) {
    return (
      await exec(process.execPath, ['--import', 'tsx', 'src/entry/cli/migrate.ts', ...args], {
        cwd: root,
        env: env(endpoint),
        timeout: 60_000,
      })
    ).stdout;
  }
  /** Through npm, once: the `migrate` script of package.json. */
  async function npmRunMigrate(endpoint: string, ...args: string[]) {
    return (await exec('npm', ['run', '--silent', 'migrate', '--', ...args], { cwd: root, env: env(endpoint), timeout: 60_000 })).stdout;
  }

  it('lists, dry-runs and applies a migration against DYNAMODB_ENDPOINT, from a child process', { timeout: 90_000 }, async () => {
    const stack = await freshStack();
    const fixtures = await loadLegacy(stack, 2, 6);
    const lines = linesOf(fixtures).length;

    expect(JSON.parse(await migrate(stack.engine.endpoint, '--list', '--json'))).toMatchObject([
      { name: '0001-order-lines-by-sku', status: 'pending' },
      // The legacy fixtures' summaries already carry sharded keys: 0002's dry run selects nothing.
      { name: '0002-status-index-shards', status: 'not needed' },
      // Legacy customers have no stats baseline: 0003 would count their orders.
      { name: '0003-customer-stats', status: 'pending' },
    ]);
    const before = sortItems(await stack.items());
    const dry = JSON.parse(await migrate(stack.engine.endpoint, '0001', '--dry-run', '--json'));
    expect(dry).toMatchObject({ outcome: 'dry run', run: { scanned: before.length, selected: lines, updated: 0 } });
    expect(sortItems(await stack.items())).toEqual(before);

    const run = JSON.parse(
      await npmRunMigrate(
        stack.engine.endpoint,
        '0001-order-lines-by-sku',
        '--segments',
        '2',
        '--rate',
        '100000',
        '--page-size',
        '7',
        '--json',
      ),
    );
    expect(run).toMatchObject({ outcome: 'applied', segments: 2, total: { selected: lines, updated: lines } });
    expect(await migrate(stack.engine.endpoint, '--list')).toMatch(/0001-order-lines-by-sku {2}applied 20\d\d-/);
    const response = await stack.gql(BY_SKU, { sku: 'BOOK-001', first: 20 });
    expect({ data: response.data, errors: response.errors }).toEqual({ data: bySkuData(fixtures, 'BOOK-001'), errors: undefined });
  });
});
