/**
 * Session consistency: a principal's exact screens (`me`, `customer`, `order`, `product`, `node`)
 * read eventually consistent (half the read capacity), except for a bounded window after that
 * principal's own write, when they read with ConsistentRead, so a screen opened right after a
 * mutation shows it. Cosmos DB calls this session consistency; DynamoDB's guidance is the same:
 * strong reads only where read-your-writes is needed.
 *
 * How a request learns it follows its principal's write, in this order:
 * 1. `x-consistency: strong` or `eventual` (the client decides; `eventual` also declines 2 and 3);
 * 2. `x-read-after: <token>`: the token a mutation's response carried (header `x-read-after`, and
 *    `extensions.readAfter.token`), honoured without state, so it holds across processes and
 *    Lambda containers: it names when the write was answered and whose it was (a digest of the
 *    principal), nothing else. It is not a credential and needs no signature: it can only make
 *    its own principal's reads strong, which `x-consistency: strong` asks for anyway; a token of
 *    another principal, or older than the window, is ignored;
 * 3. this process remembers its principals' recent writes (bounded), so a client that sends
 *    nothing still reads its own writes from the same server.
 *
 * The window (`READ_YOUR_WRITES_MS`, default 5 s) is counted from the write's answer: DynamoDB's
 * replicas are usually current within a second; the margin covers the tail. GSI1's reads (email
 * lookups, status and SKU lists) stay eventual whatever this says, since DynamoDB refuses
 * ConsistentRead on a GSI; the catalog's pages (`products`, a browsing list) stay eventual too.
 */
import { createHash } from 'node:crypto';
import { quotaKey, type Principal } from '../auth';

export const READ_AFTER_HEADER = 'x-read-after';
export const CONSISTENCY_HEADER = 'x-consistency';
export const DEFAULT_READ_YOUR_WRITES_MS = 5_000;
/** A token written up to this far in this server's future is honoured (clocks of two hosts differ a little). */
const CLOCK_SKEW_MS = 1_000;
/** Principals remembered at most; the oldest write is forgotten first. */
const REMEMBERED_MAX = 10_000;

/** Why a request reads its exact screens as it does (reported in the explain plan). */
export type ReadReason = 'default' | 'asked' | 'read-after' | 'own-write';

export interface Reads {
  /** The exact screens read with ConsistentRead. */
  strong: boolean;
  reason: ReadReason;
}

export const EVENTUAL_READS: Reads = { strong: false, reason: 'default' };

/** What a response that wrote carries: the token, and until when (epoch ms) it makes reads strong. */
export interface ReadAfter {
  token: string;
  until: number;
}

/** What a request said about consistency: its two headers, as sent (undefined when absent). */
export interface ConsistencyRequest {
  readAfter?: string | undefined;
  consistency?: string | undefined;
}

const TOKEN = /^rw1\.([0-9a-z]{1,11})\.([A-Za-z0-9_-]{11})$/;

export interface SessionConsistencyOptions {
  /** The read-your-writes window, ms (default `DEFAULT_READ_YOUR_WRITES_MS`). */
  windowMs?: number;
  now?: () => number;
}

/**
 * One per server process (or Lambda container): decides each request's reads and remembers its
 * principals' writes. `reads` returns a refusal message (for a 400) instead of throwing.
 */
export class SessionConsistency {
  readonly windowMs: number;
  readonly #now: () => number;
  /** Principal key → when its last write was answered; insertion order is write order. */
  readonly #recent = new Map<string, number>();

  constructor(options: SessionConsistencyOptions = {}) {
    this.windowMs = options.windowMs ?? DEFAULT_READ_YOUR_WRITES_MS;
    this.#now = options.now ?? Date.now;
  }

  reads(principal: Principal, request: ConsistencyRequest): Reads | { refused: string } {
    const asked = request.consistency?.trim().toLowerCase();
    if (asked === 'strong') return { strong: true, reason: 'asked' };
    if (asked === 'eventual') return EVENTUAL_READS;
    if (asked !== undefined && asked !== '')
      return { refused: `${CONSISTENCY_HEADER} must be strong or eventual, got ${JSON.stringify(request.consistency)}` };
    const key = principalKey(principal);
    const now = this.#now();
    if (request.readAfter !== undefined && request.readAfter !== '') {
      const token = TOKEN.exec(request.readAfter.trim());
      if (!token)
        return {
          refused: `${READ_AFTER_HEADER} is not a read-your-writes token: send back the ${READ_AFTER_HEADER} a mutation's response carried`,
        };
      const writtenAt = parseInt(token[1]!, 36);
      if (key !== undefined && token[2] === tagOf(key) && this.#fresh(writtenAt, now)) return { strong: true, reason: 'read-after' };
    }
    const remembered = key === undefined ? undefined : this.#recent.get(key);
    if (remembered !== undefined) {
      if (this.#fresh(remembered, now)) return { strong: true, reason: 'own-write' };
      this.#recent.delete(key!);
    }
    return EVENTUAL_READS;
  }

  /** A request of `principal` wrote: remember it, and return the token its response carries (none for anonymous). */
  wrote(principal: Principal): ReadAfter | undefined {
    const key = principalKey(principal);
    if (key === undefined) return undefined;
    const now = this.#now();
    this.#recent.delete(key);
    this.#recent.set(key, now);
    for (const [oldest, at] of this.#recent) {
      if (this.#recent.size <= REMEMBERED_MAX && this.#fresh(at, now)) break;
      this.#recent.delete(oldest);
    }
    return { token: `rw1.${now.toString(36)}.${tagOf(key)}`, until: now + this.windowMs };
  }

  #fresh(writtenAt: number, now: number): boolean {
    return writtenAt <= now + CLOCK_SKEW_MS && now < writtenAt + this.windowMs;
  }
}

/** The session of a server's settings: its `readYourWritesMs` window, else the default. */
export function sessionFor(settings: { readYourWritesMs?: number | undefined }): SessionConsistency {
  return new SessionConsistency(settings.readYourWritesMs === undefined ? {} : { windowMs: settings.readYourWritesMs });
}

/** Whose writes these are: the principal's identity, as its quota knows it; none for anonymous callers. */
function principalKey(principal: Principal): string | undefined {
  return principal.kind === 'anonymous' ? undefined : quotaKey(principal, '');
}

/** 66 bits of SHA-256 of the principal's key: ties a token to its principal without naming it. */
function tagOf(key: string): string {
  return createHash('sha256').update(`read-after\u0000${key}`).digest('base64url').slice(0, 11);
}
