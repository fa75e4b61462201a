/**
 * `npm run migrate -- <name> [options]`: runs one migration of src/ops/migrations over the table
 * (`DYNAMODB_ENDPOINT`, Amazon DynamoDB in production, or the embedded engine in `DATA_DIR`; see
 * src/ops/connect.ts). `npm run migrate -- --list` shows which are applied, in progress, pending
 * (its dry run would rewrite items) or not needed (its dry run selects nothing to rewrite): each
 * migration neither applied nor started is dry-run to tell (read-only; the whole table is scanned
 * when nothing selects, the scan stops at the first page with an item to rewrite otherwise).
 *
 *   <name>            the migration's name or number (`0001-order-lines-by-sku`, `0001`)
 *   --dry-run         scan and decide, write nothing; prints the counts
 *   --force           run a migration already applied again (it changes only what still needs it)
 *   --segments N      parallel scan segments of a fresh run (1..64, default 4)
 *   --rate N          at most N items a second (scanned, and so written); unlimited by default
 *   --page-size N     items a Scan page (default 100)
 *   --json            the report as JSON on stdout
 *   --quiet           no progress bar
 *
 * Ctrl-C stops after the pages in flight (their checkpoints are written); the same command resumes.
 * Exit codes (src/ops/cli.ts, `EXIT`): 0 done (or nothing to do), 1 failed, 2 bad usage, 3 could not
 * run (no table, a DATA_DIR another process holds), 130 interrupted.
 */
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { parseArgs } from 'node:util';
import {
  findMigration,
  limiterFor,
  migrations,
  migrationStatuses,
  runMigration,
  type Migration,
  type MigrationStatus,
  type RunReport,
} from '../../ops/migrations';
import type { MigrationCounts } from '../../model/migration';
import { connect, type Connection } from '../../ops/connect';
import { progressBar } from '../../ops/progress';
import { EXIT, parseOptions, runCli, TOOL_TARGET, UsageError } from '../../ops/cli';

const usage = `usage: npm run migrate -- <name> [--dry-run] [--force] [--segments N] [--rate N] [--page-size N] [--json] [--quiet]
       npm run migrate -- --list [--json]
migrations: ${migrations.map((m) => m.name).join(', ')}

Exit status: 0 done (or nothing to do), 1 failed, 2 bad arguments, 3 could not run, 130 interrupted.
${TOOL_TARGET}`;

type Args = ReturnType<typeof parse>;

function parse() {
  const { values, positionals } = parseOptions(() =>
    parseArgs({
      allowPositionals: true,
      options: {
        list: { type: 'boolean', default: false },
        'dry-run': { type: 'boolean', default: false },
        force: { type: 'boolean', default: false },
        segments: { type: 'string' },
        rate: { type: 'string' },
        'page-size': { type: 'string' },
        json: { type: 'boolean', default: false },
        quiet: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }),
  );
  const number = (name: string, value: string | undefined) => {
    if (value === undefined) return undefined;
    const n = Number(value);
    if (!Number.isFinite(n) || n <= 0) throw new UsageError(`--${name} must be a positive number, got ${value}`);
    return n;
  };
  if (positionals.length > 1) throw new UsageError(`one migration at a time, got ${positionals.join(' ')}`);
  return {
    ...values,
    name: positionals[0],
    segments: number('segments', values.segments),
    rate: number('rate', values.rate),
    pageSize: number('page-size', values['page-size']),
  };
}

async function main(): Promise<number> {
  const args = parse();
  if (args.help) {
    console.log(usage);
    return EXIT.OK;
  }
  if (!args.list && args.name === undefined) throw new UsageError('name a migration, or --list');
  const migration = args.name === undefined ? undefined : findMigration(args.name);
  if (!args.list && !migration) throw new UsageError(`no migration named ${args.name}`);

  const connection = await connect();
  try {
    if (args.list) await list(connection, args);
    else return await run(connection, args, migration!);
    return 0;
  } catch (error) {
    console.error((error as Error).message);
    return 1;
  } finally {
    await connection.close();
  }
}

async function list({ table, where }: Connection, args: Args): Promise<void> {
  const statuses = await migrationStatuses(table, migrations, { probe: true });
  if (args.json) {
    console.log(JSON.stringify(statuses, null, 2));
    return;
  }
  console.log(`migrations of table ${table.name} (${where}):`);
  for (const status of statuses) {
    console.log(`  ${status.name}  ${describeStatus(status)}\n      ${status.description}`);
  }
}

function describeStatus(status: MigrationStatus): string {
  const { applied, progress, need } = status;
  switch (status.status) {
    case 'applied':
      return `applied ${applied!.appliedAt}${applied!.runs > 1 ? `, last run ${applied!.lastRunAt}` : ''} (${describeCounts(applied!.counts)})`;
    case 'in progress':
      return `in progress: ${progress!.done}/${progress!.segments} segments done, resume with npm run migrate -- ${status.name}`;
    case 'pending':
      return need!.complete
        ? `pending: its dry run would rewrite ${need!.wouldUpdate} of ${need!.counts.scanned} items`
        : `pending: its dry run found items to rewrite in the first ${need!.counts.scanned} scanned (--dry-run counts them all)`;
    case 'not needed': {
      const unresolved =
        need!.counts.unresolved > 0 ? `; ${need!.counts.unresolved} selected items cannot be rewritten, see its notes` : '';
      return `not needed: its dry run selects nothing to rewrite among ${need!.counts.scanned} items${unresolved}`;
    }
  }
}

async function run(connection: Connection, args: Args, migration: Migration): Promise<number> {
  const controller = new AbortController();
  const interrupt = () => {
    if (controller.signal.aborted) process.exit(EXIT.INTERRUPTED);
    console.error('\nstopping after the pages in flight (Ctrl-C again to quit at once)…');
    controller.abort();
  };
  process.on('SIGINT', interrupt);
  const bar = progressBar(`${migration.name}${args['dry-run'] ? ' (dry run)' : ''}`, await estimateItems(connection), {
    quiet: args.quiet || args.json,
  });
  let report: RunReport;
  try {
    report = await runMigration(connection.table, migration, {
      dryRun: args['dry-run'],
      force: args.force,
      ...(args.segments === undefined ? {} : { segments: args.segments }),
      ...(args.pageSize === undefined ? {} : { pageSize: args.pageSize }),
      limiter: limiterFor(args.rate),
      signal: controller.signal,
      onStart: ({ done }) => bar.increment(done.scanned),
      onPage: ({ page }) => bar.increment(page.scanned),
    });
  } finally {
    bar.stop();
    process.off('SIGINT', interrupt);
  }
  if (args.json) console.log(JSON.stringify(report, null, 2));
  else console.log(describeReport(report));
  return report.outcome === 'interrupted' ? EXIT.INTERRUPTED : EXIT.OK;
}

/** The table's approximate item count (DynamoDB updates it about every six hours), for the bar. */
async function estimateItems({ doc, table }: Connection): Promise<number> {
  try {
    const out = await doc.send(new DescribeTableCommand({ TableName: table.name }));
    return out.Table?.ItemCount ?? 0;
  } catch {
    return 0;
  }
}

function describeCounts(counts: MigrationCounts): string {
  return `scanned ${counts.scanned}, selected ${counts.selected}, updated ${counts.updated}, skipped ${counts.skipped}, unresolved ${counts.unresolved}`;
}

function describeReport(report: RunReport): string {
  switch (report.outcome) {
    case 'already applied':
      return `${report.name}: already applied ${report.applied?.appliedAt} (${describeCounts(report.total)}); nothing to do (--force runs it again)`;
    case 'dry run':
      return `${report.name}: dry run, nothing written: ${describeCounts(report.run)} (would update ${report.run.selected - report.run.unresolved})`;
    case 'interrupted':
      return `${report.name}: interrupted (${describeCounts(report.run)}); run the same command to resume from the checkpoints`;
    case 'applied': {
      const resumed = report.resumed ? ` (resumed from checkpoints; this run: ${describeCounts(report.run)})` : '';
      const warning =
        report.total.unresolved > 0
          ? `\nwarning: ${report.total.unresolved} selected items could not be rewritten; see the migration's notes`
          : '';
      return `${report.name}: applied over ${report.segments} segments: ${describeCounts(report.total)}${resumed}${warning}`;
    }
  }
}

runCli(usage, main);
