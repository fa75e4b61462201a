/**
 * The AWS Lambda entry point: the same Apollo server as `server.ts` (`createApollo`), behind an API
 * Gateway HTTP API (payload format 2.0), through `@as-integrations/aws-lambda`.
 *
 * Per container, not per invocation: the configuration is read, and the DynamoDB client (which
 * owns the keep-alive connection pool), the `Table` (both by the one bootstrap, src/boot/bootstrap.ts),
 * the logger and the started Apollo server are made once, on the first invocation, and reused by
 * every later one. Apollo gets every setting the HTTP server gets (`serverSettings`: introspection,
 * explain, quotas, trusted documents); CORS is API Gateway's. Each invocation gets its own
 * context (meter and loaders), exactly as an HTTP request does in `server.ts`.
 *
 * The embedded engine is never started here: with `DYNAMODB_ENDPOINT` the function talks to that
 * endpoint, without it to Amazon DynamoDB in `AWS_REGION` (set by the Lambda runtime).
 */
import { randomUUID } from 'node:crypto';
import { handlers, startServerAndCreateLambdaHandler } from '@as-integrations/aws-lambda';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context as LambdaContext } from 'aws-lambda';
import { readConfig } from '../boot/config';
import { requestContext } from '../request/context';
import { CONSISTENCY_HEADER, READ_AFTER_HEADER, sessionFor } from '../request/consistency';
import { authenticatorFor, type Authenticate } from '../auth';
import { bootstrap, loggerFor, serverSettings } from '../boot/bootstrap';
import { createApollo } from '../http/apollo';

type Invoke = (event: APIGatewayProxyEventV2, context: LambdaContext) => Promise<APIGatewayProxyStructuredResultV2>;

let container: Promise<Invoke> | undefined;

/** The Lambda handler (`lambda.handler` in template.yaml). */
export async function handler(event: APIGatewayProxyEventV2, context: LambdaContext): Promise<APIGatewayProxyStructuredResultV2> {
  container ??= createContainer().catch((error: unknown) => {
    container = undefined; // a failed start (the JWKS unreachable, say) is tried again next time
    throw error;
  });
  return (await container)(event, context);
}

async function createContainer(): Promise<Invoke> {
  const config = readConfig();
  const logger = loggerFor(config);
  const { table } = await bootstrap(config); // never the embedded engine: not even in the bundle
  const authenticate: Authenticate = await authenticatorFor(config.auth);
  // Subscriptions are refused here with a clear message (src/admission/pipeline.ts, transport lambda): an HTTP API has no WebSocket.
  // The session remembers this container's writes; the tokens it hands out hold across containers.
  const base = serverSettings(config);
  const settings = { ...base, session: sessionFor(base) };
  const apollo = createApollo({ table, authenticate, logger, ...settings }, [], 'lambda');

  const requestIds = new WeakMap<APIGatewayProxyEventV2, string>();
  const inner = startServerAndCreateLambdaHandler(apollo, httpApiRequests(), {
    context: ({ event, context }) =>
      requestContext(
        table,
        authenticate,
        config,
        {
          authorization: headerOf(event, 'authorization'),
          explainHeader: headerOf(event, 'x-explain'),
          readAfter: headerOf(event, READ_AFTER_HEADER),
          consistency: headerOf(event, CONSISTENCY_HEADER),
          requestId: requestIds.get(event) ?? requestIdOf(event, context),
          clientAddress: event.requestContext?.http?.sourceIp ?? 'unknown',
        },
        settings.session,
      ),
  });
  logger.info({ table: config.tableName, endpoint: config.endpoint ?? 'Amazon DynamoDB', region: config.region }, 'lambda container ready');
  return async (event, context) => {
    const requestId = requestIdOf(event, context);
    requestIds.set(event, requestId);
    const result = (await inner(event, context, () => undefined)) as APIGatewayProxyStructuredResultV2;
    // Like server.ts, every answer names its request id (the one in logs and masked errors).
    // Answers Apollo makes outside its pipeline (a malformed body) carry no-store too, as in server.ts.
    return { ...result, headers: { 'cache-control': 'no-store', ...result.headers, 'x-request-id': requestId } };
  };
}

/**
 * The integration's HTTP API (v2) handler, with one change: a body that claims JSON but does not
 * parse reaches Apollo as text (as in server.ts), so the client gets Apollo's usual JSON 400
 * (`BAD_REQUEST`) instead of the integration's plain-text `SyntaxError` message.
 */
function httpApiRequests() {
  const base = handlers.createAPIGatewayProxyEventV2RequestHandler();
  return {
    ...base,
    fromEvent(event: APIGatewayProxyEventV2) {
      try {
        return base.fromEvent(event);
      } catch (error) {
        if (!(error instanceof SyntaxError)) throw error;
        const { body, isBase64Encoded, ...rest } = event;
        const text = isBase64Encoded ? Buffer.from(body ?? '', 'base64').toString('utf8') : (body ?? '');
        return { ...base.fromEvent({ ...rest, isBase64Encoded: false }), body: text };
      }
    },
  };
}

/** API Gateway's request id (also in its access logs), else the Lambda request id. */
function requestIdOf(event: APIGatewayProxyEventV2, context?: LambdaContext): string {
  return event.requestContext?.requestId || context?.awsRequestId || randomUUID();
}

/** HTTP API lower-cases header names; this does not rely on it. */
function headerOf(event: APIGatewayProxyEventV2, name: string): string | undefined {
  for (const [key, value] of Object.entries(event.headers ?? {})) {
    if (key.toLowerCase() === name) return value;
  }
  return undefined;
}
