/**
 * A Query or Scan stream of the table, as a read that sees some items' previous versions has it
 * (stale-reads.ts): dynalite's stream, in key order, with each remembered item replaced by its
 * previous version, dropped when that version is "no item" (just created), and inserted at its
 * place when the item is gone now but its previous version exists (just deleted).
 *
 * Keys are compared as LevelDB orders them (bytewise, UTF-8), in the stream's direction. The
 * underlying stream is read without its `limit`, since a dropped item must not shorten the page
 * (queryTable stops reading at the request's Limit itself).
 */
import { Readable } from 'node:stream';
import { db, type Item, type TableDescription } from './dynalite-internals';

export interface PreviousVersion {
  /** The item's key in its table's item store (dynalite's `createKey`, unprefixed). */
  key: string;
  /** Its previous version, or undefined when it did not exist. */
  item: Item | undefined;
}

interface StreamOptions extends Record<string, unknown> {
  gt?: string;
  gte?: string;
  lt?: string;
  lte?: string;
  reverse?: boolean;
}

/** The merged stream; `open` opens dynalite's own stream over the same options. */
export function withPreviousVersions(
  open: (options: Record<string, unknown>) => Readable,
  options: StreamOptions,
  versions: PreviousVersion[],
  table: TableDescription,
): Readable {
  const { limit: _limit, ...unbounded } = options;
  const direction = options.reverse ? -1 : 1;
  const inRange = versions.filter(({ key }) => within(key, options));
  inRange.sort((a, b) => direction * compareKeys(a.key, b.key));
  const source = open(unbounded);
  async function* merged(): AsyncGenerator<Item> {
    let next = 0;
    try {
      for await (const item of source as AsyncIterable<Item>) {
        const key = db.createKey(item, table);
        // Items gone now whose previous version sorts before this one.
        for (; next < inRange.length && direction * compareKeys(inRange[next]!.key, key) < 0; next++) {
          const gone = inRange[next]!.item;
          if (gone) yield structuredClone(gone);
        }
        if (next < inRange.length && inRange[next]!.key === key) {
          const previous = inRange[next++]!.item;
          if (previous) yield structuredClone(previous);
          continue;
        }
        yield item;
      }
      for (; next < inRange.length; next++) {
        const gone = inRange[next]!.item;
        if (gone) yield structuredClone(gone);
      }
    } finally {
      source.destroy();
    }
  }
  return Readable.from(merged(), { objectMode: true });
}

function within(key: string, { gt, gte, lt, lte }: StreamOptions): boolean {
  if (gt !== undefined && compareKeys(key, gt) <= 0) return false;
  if (gte !== undefined && compareKeys(key, gte) < 0) return false;
  if (lt !== undefined && compareKeys(key, lt) >= 0) return false;
  if (lte !== undefined && compareKeys(key, lte) > 0) return false;
  return true;
}

/** LevelDB's order: bytewise over UTF-8 (JS's `<` compares UTF-16 code units, which differs above U+FFFF). */
function compareKeys(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}
