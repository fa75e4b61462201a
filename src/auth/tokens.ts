/**
 * Bearer tokens: verified with `jose` against a JWKS (signature, `iss`, `aud`, `exp` with a small
 * clock skew, RS256/ES256 only), then read as Amazon Cognito writes its claims: the customer id
 * in `custom:customerId`, staff when `cognito:groups` holds `staff`, and `sub` always. The claim
 * names and the staff group are configuration, so any OIDC provider that can put such claims in
 * its tokens works too.
 *
 * `alg: none`, HS256 (even one "signed" with the public key), a wrong issuer or audience, an
 * expired token, an unknown key or a tampered payload are all refused the same way: an
 * `AuthenticationFailed` whose message says what was wrong with the token, never whose it was.
 */
import { createLocalJWKSet, decodeJwt, errors, jwtVerify, type JWK, type JWTPayload } from 'jose';
import { ANONYMOUS, customerIdOf, type Principal } from './principal';
import { IdentityProviderUnavailable, KEY_SET_DEFAULTS, remoteKeySet } from './key-set';

export interface ClaimNames {
  /** The claim holding the customer id (`custom:customerId`). */
  customer: string;
  /** The claim holding the caller's groups (`cognito:groups`). */
  groups: string;
  /** The group that makes a caller staff (`staff`). */
  staffGroup: string;
}

export interface VerifierSettings extends ClaimNames {
  issuer: string;
  audience: string;
  /** Where the signing keys are: a JWKS URL (production; bounds in src/auth/key-set.ts), or a local key set (the dev issuer). */
  keys: { url: string; cooldownMs?: number; failureCooldownMs?: number } | { jwks: { keys: JWK[] } };
  /** Added to every refusal of a token that does not verify (the development issuer: where its key is, how to get a token). */
  hint?: string;
}

/** A token was presented and does not verify. */
export class AuthenticationFailed extends Error {
  override readonly name = 'AuthenticationFailed';
}

export const ALGORITHMS = ['RS256', 'ES256'];
/** Clock skew tolerated on `exp`, `nbf` and `iat`. */
export const CLOCK_TOLERANCE_SECONDS = 30;
const TOKEN_MAX = 8192;
const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;

export type Authenticate = (authorization: string | undefined) => Promise<Principal>;

/**
 * The request authenticator: no `Authorization` header is the anonymous principal; anything else
 * must be `Bearer <a token that verifies>`. Remote keys are cached for 30 s and fetched again when
 * a token names an unknown `kid` (key rotation), at most once per `cooldownMs`; a key set that
 * cannot be fetched is an `IdentityProviderUnavailable` (src/auth/key-set.ts), never a refusal.
 */
export function createAuthenticator(settings: VerifierSettings): Authenticate {
  const keySet =
    'url' in settings.keys
      ? remoteKeySet(new URL(settings.keys.url), {
          ...KEY_SET_DEFAULTS,
          ...(settings.keys.cooldownMs === undefined ? {} : { cooldownMs: settings.keys.cooldownMs }),
          ...(settings.keys.failureCooldownMs === undefined ? {} : { failureCooldownMs: settings.keys.failureCooldownMs }),
        })
      : createLocalJWKSet(settings.keys.jwks);
  return async (authorization) => {
    if (authorization === undefined || authorization.trim() === '') return ANONYMOUS;
    const match = /^Bearer +([A-Za-z0-9_.-]+)$/i.exec(authorization.trim());
    if (!match || (match[1] as string).length > TOKEN_MAX)
      throw new AuthenticationFailed('the Authorization header must be "Bearer <token>"');
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(match[1] as string, keySet, {
        issuer: settings.issuer,
        audience: settings.audience,
        algorithms: ALGORITHMS,
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
        requiredClaims: ['exp', 'sub'],
      }));
    } catch (error) {
      const reason = reasonOf(error);
      throw new AuthenticationFailed(settings.hint ? `${reason} (${settings.hint})` : reason);
    }
    return principalOf(payload, settings);
  };
}

/** The principal a verified payload names. */
export function principalOf(payload: JWTPayload, settings: ClaimNames & { issuer: string }): Principal {
  const subject = payload.sub;
  if (typeof subject !== 'string' || subject.length === 0 || subject.length > 256)
    throw new AuthenticationFailed('the token has no usable subject');
  const claimed = payload[settings.customer];
  if (claimed !== undefined && (typeof claimed !== 'string' || !ULID.test(claimed))) {
    throw new AuthenticationFailed(`the token's ${settings.customer} claim is not a customer id`);
  }
  const groups = payload[settings.groups];
  // Only a list counts (Cognito always writes one): a plain string is not read as a group.
  const staff = Array.isArray(groups) && groups.includes(settings.staffGroup);
  if (staff) return { kind: 'staff', subject, customerId: claimed };
  return { kind: 'customer', subject, customerId: claimed ?? customerIdOf(settings.issuer, subject) };
}

/** What was wrong with a token, in words safe to show its bearer. */
function reasonOf(error: unknown): string {
  // The key set could not be had: not the token's fault (IdentityProviderUnavailable: 503), or a bug.
  if (error instanceof IdentityProviderUnavailable) throw error;
  if (error instanceof errors.JWKSTimeout || error instanceof errors.JWKSInvalid || !(error instanceof errors.JOSEError)) throw error;
  if (error instanceof errors.JWTExpired) return 'the token has expired';
  if (error instanceof errors.JWTClaimValidationFailed) return `the token's ${error.claim} claim is not accepted here`;
  if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported)
    return `the token must be signed with ${ALGORITHMS.join(' or ')}`;
  if (error instanceof errors.JWKSNoMatchingKey) return 'the token was not signed by a key of the issuer';
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'the token signature does not verify';
  return 'the token is malformed';
}

/**
 * The `exp` claim (seconds) of the bearer token in an Authorization value, read with `jose`'s
 * `decodeJwt` (no verification: call it on a token `authenticate` has just verified); undefined
 * when there is no bearer token or no finite numeric `exp`.
 */
export function tokenExpiry(authorization: string | undefined): number | undefined {
  const token = /^Bearer +(\S+)$/i.exec(authorization?.trim() ?? '')?.[1];
  if (!token) return undefined;
  try {
    const { exp } = decodeJwt(token);
    return typeof exp === 'number' && Number.isFinite(exp) ? exp : undefined;
  } catch {
    return undefined; // not a JWT: the authenticator refused it already
  }
}
