/**
 * The doctor's report for humans (`npm run doctor` without `--json`): the table's facts, the scan,
 * tables of entities, the largest items, item collections and GSI1 partition keys, how to read the
 * heat figures (a Scan sees what is stored, never the traffic), then every issue with its examples
 * and the verdict. Pure: a `DoctorReport` in, text out.
 */
import { GSI1 } from '../dynamo/definition';
import { MAX_ITEM_BYTES } from '../model';
import { bytes, clip, num, pct } from './doctor-figures';
import { WARN_ITEM_BYTES, type DoctorReport, type IndexFacts } from './doctor-report';

/** The report for humans: tables, the heat figures and how to read them, then the issues. */
export function renderReport(report: DoctorReport, where?: string): string {
  const lines: string[] = [];
  const t = report.table;
  lines.push(
    `Table ${t.name}${where ? ` at ${where}` : ''}: ${t.status ?? '?'}, ${t.billingMode ?? 'billing mode unknown'}, keys ${t.keySchema.partitionKey} / ${t.keySchema.sortKey}`,
  );
  for (const gsi of t.gsis)
    lines.push(
      `  GSI ${gsi.name}: ${gsi.partitionKey} / ${gsi.sortKey}, projection ${projectionText(gsi)}${gsi.status ? `, ${gsi.status}` : ''}`,
    );
  if (t.gsis.length === 0) lines.push('  GSI: none');
  for (const lsi of t.lsis)
    lines.push(`  LSI ${lsi.name}: ${lsi.partitionKey} / ${lsi.sortKey}, projection ${projectionText(lsi)}  <- error: no LSI belongs here`);
  if (t.lsis.length === 0) lines.push('  LSI: none');
  lines.push(`  TTL: ${t.ttl.status}${t.ttl.attribute ? ` on ${t.ttl.attribute}` : ''}`);
  if (report.scan) {
    const s = report.scan;
    lines.push(
      '',
      `Scanned ${num(s.items)} items, ${bytes(report.totals.bytes)}, in ${s.seconds.toFixed(1)} s: ${s.segments} segments, ${num(s.requests)} Scan requests, ${num(s.consumedRCU)} RCU consumed`,
    );
  }

  lines.push('', 'Items by entity');
  lines.push(
    ...table(
      ['entity', 'items', 'bytes', 'average', 'largest'],
      report.entities.map((e) => [e.name, num(e.items), bytes(e.bytes), bytes(e.averageBytes), bytes(e.largestBytes)]),
    ),
  );
  lines.push(
    `  total: ${num(report.totals.items)} items, ${bytes(report.totals.bytes)} in ${num(report.totals.collections)} item collections; ${num(report.totals.gsi1Items)} items in ${GSI1} under ${num(report.totals.gsi1Keys)} keys`,
  );

  lines.push('', `Largest items (limit ${MAX_ITEM_BYTES / 1024} KB; warning above ${WARN_ITEM_BYTES / 1024} KB)`);
  lines.push(
    ...table(
      ['size', 'of limit', 'entity', 'PK', 'SK'],
      report.largestItems.map((i) => [bytes(i.bytes), `${i.percentOfLimit}%`, i.entity ?? '(unknown)', clip(i.key.PK), clip(i.key.SK)]),
    ),
  );

  lines.push('', 'Largest item collections (one partition key each: at most 3,000 RCU and 1,000 WCU per second)');
  lines.push(
    ...table(
      ['PK', 'items', 'bytes', 'share', 'full read', 'full reads/s to 3,000 RCU'],
      report.largestCollections.map((c) => [
        clip(c.PK),
        num(c.items),
        bytes(c.bytes),
        pct(c.share),
        `${num(c.fullReadRCU)} RCU`,
        num(c.fullReadsPerSecondAtLimit),
      ]),
    ),
  );

  lines.push('', `${GSI1} partition keys with the most items`);
  lines.push(
    ...table(
      ['GSI1PK', 'items', 'share', 'WCU/write', 'key writes/s to 1,000 WCU', 'index writes/s to get there*'],
      report.largestIndexKeys.map((k) => [
        clip(k.GSI1PK),
        num(k.items),
        pct(k.share),
        String(k.wcuPerWrite),
        num(k.keyWritesPerSecondAtLimit),
        num(k.indexWritesPerSecondAtLimit),
      ]),
    ),
  );
  lines.push(
    '  How to read these: a Scan sees what is stored, not the traffic. A full read of a collection costs its',
    '  bytes / 4 KB / 2 RCU (eventually consistent), so the table above says how few full reads per second',
    "  reach a partition's 3,000 RCU; the model reads customer collections with a Limit, so a big one only",
    '  hurts unbounded readers. *For an index key: the table-wide index write rate at which that key alone',
    '  reaches 1,000 WCU, IF writes were spread over keys like the stored items. They are not: every order',
    '  is written under PENDING first, and nothing leaves DELIVERED, so PENDING shards run hotter and',
    '  DELIVERED shards cooler than their share suggests. Measure the traffic (CloudWatch Contributor',
    '  Insights) before acting on a share.',
  );

  lines.push('', 'Issues');
  if (report.issues.length === 0) lines.push('  none');
  for (const issue of report.issues) {
    lines.push(`  ${issue.level.toUpperCase()} ${issue.code}: ${num(issue.count)} ${issue.message}`);
    for (const e of issue.examples) {
      const where = e.key ? `${e.key.PK} / ${e.key.SK}` : e.PK ? `PK ${e.PK}` : e.GSI1PK ? `GSI1PK ${e.GSI1PK}` : '';
      lines.push(
        `    ${[e.entity ?? (e.key ? '(unknown entity)' : ''), where, e.bytes !== undefined ? bytes(e.bytes) : '', e.detail ?? ''].filter(Boolean).join('  ')}`,
      );
    }
    if (issue.count > issue.examples.length) lines.push(`    … and ${num(issue.count - issue.examples.length)} more`);
  }
  const { errors, warnings, exitCode } = report.summary;
  lines.push(
    '',
    `${num(errors)} error${errors === 1 ? '' : 's'}, ${num(warnings)} warning${warnings === 1 ? '' : 's'}: ${exitCode === 0 ? 'healthy' : 'NOT healthy'} (exit ${exitCode})`,
  );
  return lines.join('\n');
}

function projectionText(index: IndexFacts): string {
  return index.projection.type === 'INCLUDE' ? `INCLUDE (${index.projection.attributes.join(', ')})` : index.projection.type;
}

function table(header: string[], rows: string[][]): string[] {
  if (rows.length === 0) return ['  (none)'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? '').length)));
  // Columns of figures (with or without a unit) align right, text left.
  const numeric = header.map((_, i) => rows.every((row) => /^[\d.,]+(\s?[A-Za-z%]+)?$/.test(row[i] ?? '')));
  const format = (row: string[]) =>
    `  ${row.map((cell, i) => (numeric[i] ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!))).join('  ')}`.trimEnd();
  return [format(header), ...rows.map(format)];
}
