/**
 * A FIFO readers-writer lock for async work in one process.
 *
 * Contract: any number of shared holders, or exactly one exclusive holder, never both. Waiters are
 * granted strictly in arrival order (a reader that arrives behind a waiting writer waits for it),
 * so a steady stream of readers cannot starve a writer, nor writers a reader.
 */
export type Release = () => void;

interface Waiter {
  exclusive: boolean;
  grant: () => void;
}

export class ReadWriteLock {
  private sharedHolders = 0;
  private exclusiveHeld = false;
  private readonly waiters: Waiter[] = [];

  /** Resolves once the lock is held; call the returned function exactly once to let it go. */
  acquire(exclusive: boolean): Promise<Release> {
    return new Promise<Release>((resolve) => {
      this.waiters.push({ exclusive, grant: () => resolve(this.releaser(exclusive)) });
      this.grantWaiting();
    });
  }

  /** Runs `work` holding the lock (shared or exclusive) and releases it however `work` ends. */
  async with<T>(exclusive: boolean, work: () => Promise<T>): Promise<T> {
    const release = await this.acquire(exclusive);
    try {
      return await work();
    } finally {
      release();
    }
  }

  private releaser(exclusive: boolean): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (exclusive) this.exclusiveHeld = false;
      else this.sharedHolders--;
      this.grantWaiting();
    };
  }

  private grantWaiting(): void {
    for (let next = this.waiters[0]; next; next = this.waiters[0]) {
      if (next.exclusive) {
        if (this.exclusiveHeld || this.sharedHolders > 0) return;
        this.exclusiveHeld = true;
      } else {
        if (this.exclusiveHeld) return;
        this.sharedHolders++;
      }
      this.waiters.shift();
      next.grant();
    }
  }
}
