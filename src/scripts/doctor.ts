/**
 * `npm run doctor [-- --json] [--segments N] [--top N] [--examples N]`
 *
 * Scans the configured table (`DYNAMODB_ENDPOINT`, Amazon DynamoDB with `NODE_ENV=production`,
 * or the embedded engine on disk in `DATA_DIR`, default `.data`) and reports items and bytes per
 * entity, the largest items and item collections, the partition keys most likely to run hot, and
 * every problem found (src/tools/doctor.ts says which are errors and which warnings).
 *
 * Exit status: 0 when healthy (warnings allowed), 1 when the report holds an error, 2 when the
 * doctor itself could not run (bad arguments, unreachable table). `--json` prints the report as a
 * stable JSON document on stdout (`report: "table-doctor"`, `version`); the human report goes to
 * stdout otherwise, and the progress bar to stderr.
 *
 * Against Amazon DynamoDB it needs `dynamodb:Scan`, `DescribeTable` and `DescribeTimeToLive` on
 * the table, and reads the whole table once (eventually consistent: about 0.5 RCU per 4 KB; the
 * report states the RCU consumed).
 */
import { parseArgs } from 'node:util';
import { connect } from '../tools/connect';
import { doctor, renderReport } from '../tools/doctor';

const USAGE = `usage: npm run doctor [-- --json] [--segments N] [--top N] [--examples N]

  --json         print the report as JSON on stdout
  --segments N   parallel Scan segments (default 4)
  --top N        entries in each "largest" list (default 10)
  --examples N   examples listed per issue (default 20)

Exit status: 0 healthy (warnings allowed), 1 errors found, 2 the doctor could not run.
Target: DYNAMODB_ENDPOINT, or Amazon DynamoDB with NODE_ENV=production, or the embedded engine
on disk in DATA_DIR (default .data); TABLE_NAME (default app).`;

class UsageError extends Error {}

function positive(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`--${name} must be an integer ≥ 1, got ${value}`);
  return n;
}

async function main(): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        json: { type: 'boolean', default: false },
        segments: { type: 'string' },
        top: { type: 'string' },
        examples: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const segments = positive('segments', values.segments);
  const top = positive('top', values.top);
  const maxExamples = positive('examples', values.examples);

  const connection = await connect();
  try {
    const report = await doctor(connection, {
      ...(segments === undefined ? {} : { segments }),
      ...(top === undefined ? {} : { top }),
      ...(maxExamples === undefined ? {} : { maxExamples }),
      progress: !values.json,
    });
    console.log(values.json ? JSON.stringify(report, null, 2) : renderReport(report, connection.where));
    return report.summary.exitCode;
  } finally {
    await connection.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof UsageError ? `${error.message}\n\n${USAGE}` : error instanceof Error ? (error.stack ?? error.message) : error);
    process.exit(2);
  },
);
