/**
 * `npm run -s token -- --customer <id> | --staff | --subject <sub> [--hours H]`: prints one token
 * of the development issuer on stdout (nothing else), for `Authorization: Bearer <token>`. The
 * issuer's key file is the server's (`.auth/dev-issuer.json` of the checkout, or `DEV_ISSUER_FILE`),
 * created on first use. A development convenience: production verifies tokens of a real issuer.
 */
import { parseArgs } from 'node:util';
import { readConfig } from '../../boot/config';
import { devClaims, openDevIssuer } from '../../auth/dev-issuer';
import { checkCustomerId, isDomainError } from '../../model';
import { integerOption, parseOptions, runCli, UsageError } from '../../ops/cli';

const USAGE = `usage: npm run -s token -- (--customer <id> | --staff | --subject <sub>) [--hours H]
  --customer <id>   a customer's token (the id in custom:customerId)
  --staff           a staff token (cognito:groups: [staff])
  --subject <sub>   signed in with no customer yet: createCustomer makes its customer, me answers
  --hours H         validity, default 24`;

runCli(
  USAGE,
  async () => {
    const { values } = parseOptions(() =>
      parseArgs({
        options: { customer: { type: 'string' }, staff: { type: 'boolean' }, subject: { type: 'string' }, hours: { type: 'string' } },
        strict: true,
      }),
    );
    const chosen = [values.customer !== undefined, values.staff === true, values.subject !== undefined].filter(Boolean).length;
    if (chosen !== 1) throw new UsageError('give exactly one of --customer, --staff, --subject');
    const config = readConfig();
    if (config.production || config.auth.jwksUrl)
      throw new UsageError('tokens come from your identity provider here: the dev issuer is for development without AUTH_JWKS_URL');
    const hours = integerOption('hours', values.hours, { min: 1 }) ?? 24;
    const issuer = await openDevIssuer(config.auth.devKeyFile);
    const who = values.staff
      ? { staff: true }
      : values.customer !== undefined
        ? { customerId: customerIdOption(values.customer) }
        : { subject: values.subject! };
    process.stdout.write(`${await issuer.sign(devClaims(config.auth, who), hours * 3600)}\n`);
    return 0;
  },
  1,
);

function customerIdOption(value: string): string {
  try {
    return checkCustomerId(value, '--customer');
  } catch (error) {
    throw isDomainError(error) ? new UsageError(error.message) : error;
  }
}
