/** Identity for the server and the Lambda handler: one authenticator per process, from configuration. */
import { relative } from 'node:path';
import { devIssuerHint, openDevIssuer } from './dev-issuer';
import { createAuthenticator, type Authenticate, type ClaimNames } from './tokens';

export { AuthenticationFailed, tokenExpiry, type Authenticate } from './tokens';
export { IdentityProviderUnavailable, KEY_SET_DEFAULTS } from './key-set';
export { ANONYMOUS, ownCustomerId, quotaKey, type Principal } from './principal';

/** Identity settings (src/boot/config.ts reads them; declared here so that src/auth imports nothing of the app). */
export interface AuthConfig extends ClaimNames {
  /** Remote key set (production or any real identity provider); undefined: the dev issuer. */
  jwksUrl: string | undefined;
  issuer: string | undefined;
  audience: string | undefined;
  /** The dev issuer's key file (used when `jwksUrl` is undefined). */
  devKeyFile: string;
}

/** Verifies against the configured JWKS, or (development only) against the local dev issuer. */
export async function authenticatorFor(
  auth: AuthConfig,
  options: { jwksCooldownMs?: number; jwksFailureCooldownMs?: number } = {},
): Promise<Authenticate> {
  const names = { customer: auth.customer, groups: auth.groups, staffGroup: auth.staffGroup };
  if (auth.jwksUrl) {
    return createAuthenticator({
      ...names,
      issuer: auth.issuer!,
      audience: auth.audience!,
      keys: {
        url: auth.jwksUrl,
        ...(options.jwksCooldownMs === undefined ? {} : { cooldownMs: options.jwksCooldownMs }),
        ...(options.jwksFailureCooldownMs === undefined ? {} : { failureCooldownMs: options.jwksFailureCooldownMs }),
      },
    });
  }
  const dev = await openDevIssuer(auth.devKeyFile);
  return createAuthenticator({
    ...names,
    issuer: dev.issuer,
    audience: dev.audience,
    keys: { jwks: dev.jwks },
    hint: devIssuerHint(relativeToCwd(auth.devKeyFile)),
  });
}

/** A path as a developer typed it from the checkout (absolute when it is elsewhere). */
function relativeToCwd(file: string): string {
  const near = relative(process.cwd(), file);
  return near.startsWith('..') ? file : near;
}
