/**
 * Closes the LevelDB iterators behind dynalite's streams, and counts the ones still open.
 *
 * dynalite 4.0.0 (db/index.js, `wrapWithCallbacks`) turns abstract-level iterators into Node
 * streams for Query, Scan and table deletion; the stream's `destroy` closes the iterator only
 * `if (iterator.return)`, a method abstract-level 3 iterators do not have (they have `close()`).
 * So every Query and Scan left its iterator open: still attached to the database (abstract-level
 * keeps every open iterator in a set, to close them with the database), holding its snapshot of
 * the data (memory-level) or a native LevelDB iterator and snapshot (classic-level). Memory grew
 * with every Query, never with GetItem.
 *
 * The fix wraps the store's `keys()`/`values()` so each iterator they make has the `return()`
 * dynalite looks for, which closes it. dynalite's streams are destroyed both when they end and
 * when a Query stops early (Limit, 1 MB), so every iterator is closed once its stream is done.
 */
import type { Store } from './dynalite-internals';

interface ClosableIterator {
  close(): Promise<void>;
  return?: () => Promise<unknown>;
}

type IteratorFactory = (options?: unknown) => ClosableIterator;

/** Iterators made through a wrapped store: still open, and ever opened. */
export interface IteratorCounts {
  open: number;
  opened: number;
}

const counts = new WeakMap<Store, IteratorCounts>();

/** Makes dynalite's streams close their iterators; call once per store, before it serves requests. */
export function closeIteratorsWithTheirStreams(store: Store): void {
  if (counts.has(store)) return;
  const gauge: IteratorCounts = { open: 0, opened: 0 };
  counts.set(store, gauge);
  const level = store.db as unknown as Record<'keys' | 'values', IteratorFactory>;
  for (const method of ['keys', 'values'] as const) {
    const make = level[method].bind(level);
    level[method] = (options) => {
      const iterator = make(options);
      gauge.open++;
      gauge.opened++;
      const close = iterator.close.bind(iterator);
      let closed = false;
      iterator.close = () => {
        if (!closed) {
          closed = true;
          gauge.open--;
        }
        return close();
      };
      iterator.return ??= async () => {
        await iterator.close();
        return { done: true, value: undefined };
      };
      return iterator;
    };
  }
}

/** The store's iterator counts (zeros when the store was never wrapped). */
export function iteratorCounts(store: Store): IteratorCounts {
  const { open, opened } = counts.get(store) ?? { open: 0, opened: 0 };
  return { open, opened };
}
