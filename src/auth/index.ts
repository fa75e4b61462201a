/** Identity for the server and the Lambda handler: one authenticator per process, from configuration. */
import type { AuthConfig } from '../config';
import { openDevIssuer } from './dev-issuer';
import { createAuthenticator, type Authenticate } from './tokens';

export { AuthenticationFailed, type Authenticate } from './tokens';
export { ANONYMOUS, ownCustomerId, quotaKey, type Principal } from './principal';

/** Verifies against the configured JWKS, or (development only) against the local dev issuer. */
export async function authenticatorFor(auth: AuthConfig, options: { jwksCooldownMs?: number } = {}): Promise<Authenticate> {
  const names = { customer: auth.customer, groups: auth.groups, staffGroup: auth.staffGroup };
  if (auth.jwksUrl) {
    return createAuthenticator({ ...names, issuer: auth.issuer!, audience: auth.audience!, keys: { url: auth.jwksUrl, ...(options.jwksCooldownMs === undefined ? {} : { cooldownMs: options.jwksCooldownMs }) } });
  }
  const dev = await openDevIssuer(auth.devKeyFile);
  return createAuthenticator({ ...names, issuer: dev.issuer, audience: dev.audience, keys: { jwks: dev.jwks } });
}
