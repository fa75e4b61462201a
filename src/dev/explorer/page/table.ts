/// <reference lib="dom" />
/**
 * The Table view: what one operation touched, drawn as the single-table pattern card draws its
 * table (PK, SK, entity, a few attributes; rows coloured by entity). For each DynamoDB request, in
 * wave order: its operation, index, key condition, items and consumed capacity, and
 *
 * - a read of one partition (Query, GetItem): the rows of that partition around what it read
 *   (`GET /dev/partition`), the rows the request returned highlighted (`tr.hit`);
 * - a BatchGetItem: the rows it returned, by partition, all highlighted;
 * - a write (a transaction's actions, PutItem, UpdateItem, DeleteItem): the items it named, each
 *   with its action.
 *
 * A returned row the window does not hold (it cannot miss one: the window spans the returned range)
 * would still be drawn, highlighted, so the highlighted rows are exactly the items the request
 * returned.
 */
import { createElement as h, Fragment, useEffect, useState, type ReactNode } from 'react';
import {
  colourOf,
  fetchWindow,
  indexOf,
  keysOn,
  READS,
  type Explained,
  type PartitionWindow,
  type PlanKey,
  type PlanRequest,
} from './plan';

type WindowState = { status: 'loading' } | { status: 'ready'; window: PartitionWindow } | { status: 'failed'; message: string };

interface DrawnRow {
  PK: string;
  SK: string;
  GSI1PK?: string | undefined;
  GSI1SK?: string | undefined;
  entity: string | null;
  attributes: Record<string, string>;
  hit: boolean;
  action?: string | undefined;
}

/**
 * The narrowest Table view (px) with a column for a read row's attributes next to its whole keys
 * and entity (explorer.css's column widths); narrower, the attributes are the row's tooltip.
 */
export const ATTRIBUTES_FROM = 800;

export function TableView({ explained, width }: { explained: Explained | undefined; width: number }) {
  const [windows, setWindows] = useState<Record<number, WindowState>>({});
  const plan = explained?.plan;

  useEffect(() => {
    setWindows({});
    if (!plan || !explained) return;
    let current = true;
    plan.requests.forEach((request, i) => {
      if (!READS.has(request.operation) || request.partition === null || request.error) return;
      setWindows((all) => ({ ...all, [i]: { status: 'loading' } }));
      fetchWindow(explained.authorization, indexOf(request), request.partition, request.keys).then(
        (window) => current && setWindows((all) => ({ ...all, [i]: { status: 'ready', window } })),
        (error: Error) => current && setWindows((all) => ({ ...all, [i]: { status: 'failed', message: error.message } })),
      );
    });
    return () => {
      current = false;
    };
  }, [explained, plan]);

  if (!explained)
    return panel(h('p', { className: 'tv-empty' }, 'Run an operation: its DynamoDB requests and the rows they touched appear here.'));
  if (!plan)
    return panel(
      h(
        'p',
        { className: 'tv-empty' },
        'This response carries no plan (extensions.dynamodb): a refused operation, or one that read nothing visible to you.',
      ),
    );
  const { totals } = plan;
  const loading = Object.values(windows).some((state) => state.status === 'loading');
  return panel(
    h(
      'p',
      { className: 'tv-summary' },
      h('strong', null, explained.operationName ?? 'anonymous operation'),
      `: ${count(totals.requests, 'DynamoDB request')} in ${count(plan.waves, 'wave')}, ${count(totals.items, 'item')}, `,
      `${totals.consumedCapacity} capacity units`,
    ),
    plan.requests.length === 0 ? h('p', { className: 'tv-empty' }, 'No DynamoDB request: answered without reading the table.') : null,
    ...plan.requests.map((request, i) =>
      h(RequestCard, { key: `${explained.seq}-${i}`, request, window: windows[i], wide: width >= ATTRIBUTES_FROM }),
    ),
    legend(plan.requests),
    h('div', { className: 'tv-state', 'data-loading': loading ? 'true' : 'false' }),
  );
}

function panel(...children: ReactNode[]) {
  return h('aside', { className: 'table-view', 'data-testid': 'table-view' }, h('h2', null, 'Table'), ...children);
}

function RequestCard({ request, window, wide }: { request: PlanRequest; window: WindowState | undefined; wide: boolean }) {
  const index = indexOf(request);
  const rows = rowsOf(request, window);
  const isWrite = !READS.has(request.operation) && request.operation !== 'BatchGetItem' && request.operation !== 'Scan';
  return h(
    'section',
    { className: 'tv-request', 'data-operation': request.operation },
    h(
      'header',
      null,
      h('span', { className: 'tv-wave' }, `wave ${request.wave}`),
      h('strong', null, request.operation),
      h('span', { className: 'tv-index' }, index === 'GSI1' ? 'index GSI1' : 'table'),
      h('span', null, `${count(request.items, 'item')} ${isWrite ? 'written' : 'returned'}`),
      request.scanned !== request.items ? h('span', null, `${request.scanned} scanned`) : null,
      // Timings vary run to run; they are in the tooltip, so a screenshot of the view is repeatable.
      h('span', { title: `${request.ms} ms` }, `${request.consumedCapacity} capacity units`),
    ),
    request.keyCondition ? h('code', { className: 'tv-condition' }, request.keyCondition) : null,
    request.error ? h('p', { className: 'tv-error' }, `failed: ${request.error}`) : null,
    window?.status === 'failed' ? h('p', { className: 'tv-error' }, window.message) : null,
    window?.status === 'loading' ? h('p', { className: 'tv-empty' }, 'reading the partition…') : null,
    rows.length > 0 ? rowTable(index, rows, window, isWrite, descending(request), wide) : null,
    caption(request, rows),
  );
}

/** The rows drawn for one request: the window with the returned rows marked, or the keys themselves. */
function rowsOf(request: PlanRequest, window: WindowState | undefined): DrawnRow[] {
  const returned = new Set(request.keys.map((key) => `${key.PK}\u0000${key.SK}`));
  const fromKey = (key: PlanKey): DrawnRow => ({ ...key, attributes: {}, hit: true, action: key.action });
  if (!READS.has(request.operation) || request.partition === null) {
    return [...request.keys].sort((a, b) => cmp(a.PK, b.PK) || cmp(a.SK, b.SK)).map(fromKey);
  }
  if (window?.status !== 'ready') return [];
  const drawn = window.window.rows.map((row): DrawnRow => ({ ...row, hit: returned.has(`${row.PK}\u0000${row.SK}`) }));
  const shown = new Set(drawn.filter((row) => row.hit).map((row) => `${row.PK}\u0000${row.SK}`));
  const index = indexOf(request);
  for (const key of request.keys) if (!shown.has(`${key.PK}\u0000${key.SK}`)) drawn.push(fromKey(key));
  // In the order the request read them: a descending Query (newest first) lists its partition top down.
  const direction = descending(request) ? -1 : 1;
  return drawn.sort((a, b) => direction * cmp(keysOn(index, a).sk, keysOn(index, b).sk));
}

function descending(request: PlanRequest): boolean {
  return request.keyCondition?.includes('(descending') ?? false;
}

function rowTable(
  index: 'table' | 'GSI1',
  rows: DrawnRow[],
  window: WindowState | undefined,
  isWrite: boolean,
  reversed: boolean,
  wide: boolean,
) {
  // A write's action is short and always shown; a read's attributes only where there is room.
  const last = isWrite ? 'action' : wide ? 'attributes' : null;
  const ready = window?.status === 'ready' ? window.window : undefined;
  const [above, below] = reversed ? [ready?.moreAfter, ready?.moreBefore] : [ready?.moreBefore, ready?.moreAfter];
  const names = index === 'GSI1' ? ['GSI1PK', 'GSI1SK'] : ['PK', 'SK'];
  return h(
    'table',
    { className: 'tv-rows' },
    h(
      'colgroup',
      null,
      h('col', { className: 'tv-pk' }),
      h('col', { className: 'tv-sk' }),
      h('col', { className: 'tv-kind' }),
      last ? h('col') : null,
    ),
    h(
      'thead',
      null,
      h('tr', null, h('th', null, names[0]), h('th', null, names[1]), h('th', null, 'entity'), last ? h('th', null, last) : null),
    ),
    h(
      'tbody',
      null,
      above ? ellipsis(last ? 4 : 3) : null,
      ...rows.map((row, i) => {
        const { pk, sk } = keysOn(index, row);
        const colour = colourOf(row.entity);
        const attributes = index === 'GSI1' ? { PK: row.PK, SK: row.SK, ...row.attributes } : row.attributes;
        // The partition key once per run of rows that share it, as one cell (the card's item collection).
        const first = i === 0 || keysOn(index, rows[i - 1] as DrawnRow).pk !== pk;
        let run = 1;
        while (first && i + run < rows.length && keysOn(index, rows[i + run] as DrawnRow).pk === pk) run++;
        return h(
          'tr',
          {
            key: `${row.PK}\u0000${row.SK}`,
            className: row.hit ? 'hit' : 'miss',
            'data-pk': row.PK,
            'data-sk': row.SK,
            title: last === null ? attributeText(attributes) : undefined,
            style: row.hit ? { backgroundColor: `${colour}1f` } : {},
          },
          first ? h('td', { className: 'tv-partition', rowSpan: run }, pk) : null,
          h('td', { className: 'tv-sort', style: { borderLeftColor: colour }, title: sk }, sk),
          h('td', null, h('span', { className: 'tv-entity', style: { backgroundColor: colour } }, row.entity ?? row.action ?? 'unclaimed')),
          last
            ? h(
                'td',
                { className: 'tv-attributes', title: attributeText(attributes) },
                isWrite ? (row.action ?? '') : attributeText(attributes),
              )
            : null,
        );
      }),
      below ? ellipsis(last ? 4 : 3) : null,
    ),
  );
}

function caption(request: PlanRequest, rows: DrawnRow[]) {
  const hits = rows.filter((row) => row.hit).length;
  if (request.operation === 'Query' && request.partition !== null)
    return h(
      'p',
      { className: 'tv-caption' },
      `One Query on ${indexOf(request) === 'GSI1' ? 'GSI1PK' : 'PK'} = `,
      h('code', null, request.partition),
      ` returned the ${count(hits, 'highlighted row')}: one round trip. The other rows of the partition were not read.`,
    );
  if (request.operation === 'TransactWriteItems')
    return h(
      'p',
      { className: 'tv-caption' },
      `One transaction: these ${count(request.keys.length, 'item')} commit together or not at all.`,
    );
  return null;
}

function legend(requests: readonly PlanRequest[]) {
  const entities = [...new Set(requests.flatMap((request) => request.keys.map((key) => key.entity)))];
  if (entities.length === 0) return null;
  return h(
    'p',
    { className: 'tv-legend' },
    'Highlighted: the items a request returned or wrote. Entities: ',
    ...entities.map((entity) =>
      h(
        Fragment,
        { key: entity ?? '' },
        h('span', { className: 'tv-entity', style: { backgroundColor: colourOf(entity) } }, entity ?? 'unclaimed'),
        ' ',
      ),
    ),
  );
}

function ellipsis(columns: number) {
  return h('tr', { className: 'tv-more' }, h('td', { colSpan: columns }, '⋯ more rows of this partition, not shown'));
}

function attributeText(attributes: Record<string, string>): string {
  return Object.entries(attributes)
    .map(([name, value]) => `${name}: ${value}`)
    .join(', ');
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
