/**
 * `npm run doctor [-- --json] [--segments N] [--top N] [--examples N]`
 *
 * Scans the configured table (`DYNAMODB_ENDPOINT`, Amazon DynamoDB with `NODE_ENV=production`,
 * or the embedded engine on disk in `DATA_DIR`, default `.data`) and reports items and bytes per
 * entity, the largest items and item collections, the partition keys most likely to run hot, and
 * every problem found (src/ops/doctor.ts says which are errors and which warnings).
 *
 * Exit status (src/ops/cli.ts, `EXIT`): 0 when healthy (warnings allowed), 1 when the report holds
 * an error, 2 on bad arguments, 3 when the doctor could not run (no table, a DATA_DIR another
 * process holds, a crash: the message says which). `--json` prints the report as a
 * stable JSON document on stdout (`report: "table-doctor"`, `version`); the human report goes to
 * stdout otherwise, and the progress bar to stderr.
 *
 * Against Amazon DynamoDB it needs `dynamodb:Scan`, `DescribeTable` and `DescribeTimeToLive` on
 * the table, and reads the whole table once (eventually consistent: about 0.5 RCU per 4 KB; the
 * report states the RCU consumed).
 */
import { parseArgs } from 'node:util';
import { EXIT, integerOption, parseOptions, runCli, TOOL_TARGET } from '../../ops/cli';
import { connect } from '../../ops/connect';
import { doctor, renderReport } from '../../ops/doctor';

const USAGE = `usage: npm run doctor [-- --json] [--segments N] [--top N] [--examples N]

  --json         print the report as JSON on stdout
  --segments N   parallel Scan segments (default 4)
  --top N        entries in each "largest" list (default 10)
  --examples N   examples listed per issue (default 20)

Exit status: 0 healthy (warnings allowed), 1 errors found, 2 bad arguments, 3 the doctor could not run.
${TOOL_TARGET}`;

async function main(): Promise<number> {
  const { values } = parseOptions(() =>
    parseArgs({
      options: {
        json: { type: 'boolean', default: false },
        segments: { type: 'string' },
        top: { type: 'string' },
        examples: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }),
  );
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const segments = integerOption('segments', values.segments, { min: 1 });
  const top = integerOption('top', values.top, { min: 1 });
  const maxExamples = integerOption('examples', values.examples, { min: 1 });

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

// The doctor's own failure is 2: 1 means "the table has errors".
runCli(USAGE, main, EXIT.CANNOT_RUN);
