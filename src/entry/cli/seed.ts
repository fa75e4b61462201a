/**
 * `npm run seed -- --customers N --orders M [--seed S] [--addresses A] [--until ISO] [--concurrency C] [--json]`
 *
 * Writes N customers and M orders (spread unevenly over them), deterministic for the seed, into
 * the configured table: `DYNAMODB_ENDPOINT` when set, Amazon DynamoDB with `NODE_ENV=production`,
 * otherwise the embedded engine on disk in `DATA_DIR` (default `.data`). See src/ops/seed-data.ts
 * for the shape of the data, src/ops/seed.ts for the loading.
 *
 * Against Amazon DynamoDB it needs `dynamodb:BatchWriteItem` and `Scan` (one item, to tell whether
 * the table was empty), plus what `table:create` needs when the table is missing.
 */
import { parseArgs } from 'node:util';
import { integerOption, parseOptions, runCli, TOOL_TARGET } from '../../ops/cli';
import { connect } from '../../ops/connect';
import { seed, type SeedResult } from '../../ops/seed';
import { DEFAULT_ADDRESSES, DEFAULT_SEED, DEFAULT_UNTIL } from '../../ops/seed-data';

const USAGE = `usage: npm run seed -- --customers N --orders M [--seed S] [--addresses A] [--until ISO] [--concurrency C] [--json]

  --customers N    customers to create
  --orders M       orders in total, spread over the customers (a few with many, most with few)
  --seed S         the same seed writes the same items (default ${DEFAULT_SEED})
  --addresses A    at most A addresses per customer, 0..10 (default ${DEFAULT_ADDRESSES})
  --until ISO      the newest timestamp; data spans the three years before it (default ${DEFAULT_UNTIL})
  --concurrency C  BatchWriteItem calls in flight (default 8)
  --json           print the result as JSON on stdout

${TOOL_TARGET}`;

async function main(): Promise<number> {
  const { values } = parseOptions(() =>
    parseArgs({
      options: {
        customers: { type: 'string' },
        orders: { type: 'string' },
        seed: { type: 'string' },
        addresses: { type: 'string' },
        until: { type: 'string' },
        concurrency: { type: 'string' },
        json: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h' },
      },
    }),
  );
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const customers = integerOption('customers', values.customers, { required: true })!;
  const orders = integerOption('orders', values.orders, { required: true })!;
  const addresses = integerOption('addresses', values.addresses);
  const concurrency = integerOption('concurrency', values.concurrency, { min: 1 });

  // Creates the table and its index where missing (as `table:create`: changes nothing that exists).
  const connection = await connect({ createTable: true });
  try {
    if (!values.json) console.error(`seeding ${connection.where}, table ${connection.table.name}`);
    const result = await seed(connection, {
      customers,
      orders,
      ...(values.seed === undefined ? {} : { seed: values.seed }),
      ...(addresses === undefined ? {} : { addresses }),
      ...(values.until === undefined ? {} : { until: values.until }),
      ...(concurrency === undefined ? {} : { concurrency }),
      progress: !values.json,
    });
    console.log(
      values.json ? JSON.stringify({ where: connection.where, table: connection.table.name, ...result }, null, 2) : render(result),
    );
  } finally {
    await connection.close();
  }
  return 0;
}

function render(result: SeedResult): string {
  const { counts, write } = result;
  const n = (value: number) => Math.round(value).toLocaleString('en-US');
  return [
    `seed ${result.seed}: ${n(counts.products)} products, ${n(counts.customers)} customers (${n(counts.addresses)} addresses, ${n(counts.customers)} email guards), ${n(counts.orders)} orders (${n(counts.lines)} lines)`,
    `wrote ${n(write.items)} items in ${result.writeSeconds.toFixed(1)} s: ${n(result.itemsPerSecond)} items/s, ${n(result.ordersPerSecond)} orders/s`,
    `${n(write.requests)} BatchWriteItem calls (${n(write.retries)} retries of ${n(write.unprocessed)} unprocessed items), ${n(write.capacity)} WCU reported`,
    ...(result.tableWasEmpty ? [] : ['note: the table already held items; seeding added to them (the same seed rewrites the same items)']),
  ].join('\n');
}

runCli(USAGE, main);
