/**
 * The identity provider's key set (JWKS), fetched over HTTP and cached, with bounds jose's
 * `createRemoteJWKSet` does not give: its cooldown starts only at a SUCCESSFUL fetch (an
 * identity provider that is down is fetched again by every request that needs it), and a stale
 * set is fetched again before anything verifies. Here:
 *
 * - a fetched set is used for `cacheMaxAgeMs`, then fetched again before it verifies anything (so a
 *   key withdrawn from the JWKS stops verifying within that, plus src/request/context.ts's memo);
 * - a token naming a `kid` the set does not hold (key rotation, or anyone's made-up kid) fetches
 *   again at most once per `cooldownMs` after a successful fetch: otherwise it is refused;
 * - a fetch that fails (network, timeout, a status but 200, a body that is not a key set) is an
 *   `IdentityProviderUnavailable`, and for `failureCooldownMs` after it nothing is fetched: a
 *   request that needs a fetch (a stale set, an unknown kid) fails fast with the same error, while
 *   tokens of keys the fresh set holds still verify;
 * - one fetch at a time: concurrent requests wait for the one in flight.
 */
import { createLocalJWKSet, errors, type JWTVerifyGetKey } from 'jose';

/** The key set could not be fetched: not the token's fault (src/request/context.ts answers 503 UNAVAILABLE). */
export class IdentityProviderUnavailable extends Error {
  override readonly name = 'IdentityProviderUnavailable';
  constructor(
    /** Whole seconds (≥ 1) until a fetch may be tried again. */
    readonly retryAfterSeconds: number,
    options?: { cause?: unknown },
  ) {
    // Generic on purpose: the cause (a fetch error naming hosts and ports) is for the log only.
    super("the identity provider's key set could not be fetched", options);
  }
}

export interface RemoteKeySetOptions {
  /** How long a fetched set is used before it is fetched again (ms). */
  cacheMaxAgeMs: number;
  /** After a successful fetch, how long an unknown `kid` is refused without fetching again (ms). */
  cooldownMs: number;
  /** After a failed fetch, how long nothing is fetched: requests needing a fetch fail fast (ms). */
  failureCooldownMs: number;
  /** How long one fetch may take (ms). */
  timeoutMs: number;
  now?: () => number;
}

/** Defaults: 30 s of cache (plus the 30 s memo of src/request/context.ts: a withdrawn key stops within a minute). */
export const KEY_SET_DEFAULTS: RemoteKeySetOptions = {
  cacheMaxAgeMs: 30_000,
  cooldownMs: 30_000,
  failureCooldownMs: 5_000,
  timeoutMs: 5_000,
};

type LocalKeySet = ReturnType<typeof createLocalJWKSet>;

export function remoteKeySet(url: URL, options: RemoteKeySetOptions = KEY_SET_DEFAULTS): JWTVerifyGetKey {
  const now = options.now ?? Date.now;
  let keys: LocalKeySet | undefined;
  let fetchedAt = -Infinity;
  let failedAt = -Infinity;
  let pending: Promise<LocalKeySet> | undefined;

  /** Within the cooldown of a failed fetch: the error a request that needs a fetch gets, at once. */
  const coolingFailure = (): IdentityProviderUnavailable | undefined => {
    const left = failedAt + options.failureCooldownMs - now();
    return left > 0 ? new IdentityProviderUnavailable(Math.max(1, Math.ceil(left / 1000))) : undefined;
  };
  const refresh = (): Promise<LocalKeySet> =>
    (pending ??= (async () => {
      try {
        const fetched = createLocalJWKSet((await fetchKeySet(url, options.timeoutMs)) as never);
        keys = fetched;
        fetchedAt = now();
        return fetched;
      } catch (cause) {
        failedAt = now();
        throw new IdentityProviderUnavailable(Math.max(1, Math.ceil(options.failureCooldownMs / 1000)), { cause });
      } finally {
        pending = undefined;
      }
    })());

  return async (header, token) => {
    let current = keys;
    if (!current || now() - fetchedAt >= options.cacheMaxAgeMs) {
      const failing = pending ? undefined : coolingFailure();
      if (failing) throw failing;
      current = await refresh();
    }
    try {
      return await current(header, token);
    } catch (error) {
      if (!(error instanceof errors.JWKSNoMatchingKey)) throw error;
      // An unknown kid: the keys may have rotated. Look again, at most once per cooldown.
      if (pending) return (await pending)(header, token);
      const failing = coolingFailure();
      if (failing) throw failing;
      if (now() - fetchedAt < options.cooldownMs) throw error;
      return (await refresh())(header, token);
    }
  };
}

async function fetchKeySet(url: URL, timeoutMs: number): Promise<unknown> {
  const response = await fetch(url, {
    redirect: 'manual',
    signal: AbortSignal.timeout(timeoutMs),
    headers: { accept: 'application/json, application/jwk-set+json' },
  });
  if (response.status !== 200) {
    await response.body?.cancel();
    throw new Error(`the key set answered HTTP ${response.status}`);
  }
  return response.json();
}
