/**
 * The newest `wanted` items across write shards, each shard sorted newest first: the read plan of
 * the status index (status-index.ts), pure of any table (the benchmark's sharded baseline runs the
 * same plan over its own index).
 *
 * Wave 1 reads each live shard's share of the page plus a margin (`firstWaveShare`). Once `wanted`
 * items are merged, the `wanted`-th newest of them is the cut: a shard whose last item read is still
 * newer than the cut may hold more of the page, and only that shard is read again, by range
 * (`sortKey > cut`), so the top-up reads only items newer than the cut (no guessed Limit, one wave).
 * While fewer than `wanted` items are merged, live shards are read for the missing count. No shard
 * is ever read past `wanted` items, so a page reads at most `shards × wanted` items.
 */

/** Where a shard starts in this call: from its start or a key (`next`), or exhausted. */
export interface ShardStart {
  next: Record<string, unknown> | undefined;
  exhausted: boolean;
}

/** One read of a shard: at most `limit` items from `next`, only those newer than `above` when set. */
export interface ShardQuery {
  limit: number;
  next: Record<string, unknown> | undefined;
  above: string | undefined;
}

/** What one read returned: `complete` when the (possibly bounded) key range was read to its end. */
export interface ShardAnswer<T> {
  items: T[];
  next: Record<string, unknown> | undefined;
  complete: boolean;
}

/** What has been read of one shard in this call. */
export interface ShardRead<T> {
  items: T[];
  next: Record<string, unknown> | undefined;
  exhausted: boolean;
  /** Every item of the shard newer than this has been read (set by a range read). */
  floor: string | undefined;
}

/**
 * Items asked of each shard in wave 1: its share ⌈W / shards⌉ plus ⌈√share⌉ (about 1.15 standard
 * deviations of a shard's count among W evenly hashed items), so most pages need one wave and the
 * over-read stays near a third of W at 4 shards; one shard reads W, exactly the page.
 */
export function firstWaveShare(wanted: number, shards: number): number {
  if (shards <= 1) return wanted;
  const share = Math.ceil(wanted / shards);
  return Math.min(wanted, share + Math.ceil(Math.sqrt(share)));
}

/** The most items `newestAcrossShards` reads for `wanted`, whatever the data. */
export function shardedReadBound(wanted: number, shards: number): number {
  return shards * wanted;
}

/**
 * `share` is wave 1's items a shard: the product's `firstWaveShare`; another value only to compare
 * plans (`npm run bench:shard-plan`).
 */
export async function newestAcrossShards<T>(
  starts: readonly ShardStart[],
  wanted: number,
  sortKey: (item: T) => string,
  read: (shard: number, query: ShardQuery) => Promise<ShardAnswer<T>>,
  share = firstWaveShare(wanted, starts.length),
): Promise<{ reads: ShardRead<T>[]; merged: Array<{ item: T; shard: number }> }> {
  const reads: ShardRead<T>[] = starts.map((start) => ({ items: [], next: start.next, exhausted: start.exhausted, floor: undefined }));
  let merged: Array<{ item: T; key: string; shard: number }> = [];
  let cut: string | undefined;
  let pending = reads.flatMap((r, shard) => (r.exhausted ? [] : [shard]));
  for (let wave = 0; pending.length > 0; wave++) {
    const missing = wanted - merged.length;
    await Promise.all(
      pending.map(async (shard) => {
        const r = reads[shard]!;
        const room = wanted - r.items.length;
        const limit = wave === 0 ? Math.min(share, room) : cut === undefined ? Math.min(missing, room) : room;
        const answer = await read(shard, { limit, next: r.next, above: cut });
        r.items.push(...answer.items);
        r.next = answer.next;
        if (cut === undefined) r.exhausted = answer.complete;
        else if (answer.complete) r.floor = cut; // read down to the cut; older items may remain
      }),
    );
    merged = reads
      .flatMap(({ items }, shard) => items.map((item) => ({ item, key: sortKey(item), shard })))
      .sort((a, b) => (a.key < b.key ? 1 : a.key > b.key ? -1 : 0));
    cut = merged.length >= wanted ? merged[wanted - 1]!.key : undefined;
    pending = pending.filter((shard) => {
      const r = reads[shard]!;
      if (r.exhausted || r.items.length >= wanted) return false;
      if (cut === undefined) return true;
      const covered = r.floor ?? (r.items.length > 0 ? sortKey(r.items.at(-1)!) : undefined);
      return covered === undefined || covered > cut;
    });
  }
  return { reads, merged: merged.map(({ item, shard }) => ({ item, shard })) };
}
