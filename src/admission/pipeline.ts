/**
 * The one admission pipeline: what decides, before anything executes, whether an operation runs,
 * for every transport (HTTP and Lambda through Apollo, src/http/admission.ts; WebSocket through
 * graphql-ws's onSubscribe, src/live/websocket.ts). Each step returns its refusal as a value
 * (`Refused`: the errors to answer with, HTTP's status in their `extensions.http`, left out on
 * WebSocket); nothing here throws but a bug. A refused operation makes no DynamoDB request.
 *
 * The steps, in order:
 * 1. **Document** (`document`): trusted documents and persisted queries resolve the text to run
 *    (src/admission/documents.ts); over HTTP a subscription is then refused, saying where to go.
 * 2. **Parse and validate** (`subscription`, WebSocket only: Apollo does both for HTTP): graphql-js's
 *    parser with the token limit, the specified rules and graphql-armor's (depth, aliases, directives).
 * 3. **Transport**: over WebSocket only subscriptions run, one named operation.
 * 4. **Variables and estimate**: variables coerced (BAD_USER_INPUT), the operation's estimate
 *    (src/admission/cost.ts), remembered per parsed document, operation name and variables.
 * 5. **Sign-in**: an anonymous caller whose operation selects data, not only introspection, is
 *    refused (HTTP 401, UNAUTHENTICATED), before any limit or quota is looked at. (WebSocket signs in
 *    per connection, in `connection_init`: an anonymous socket is closed before it subscribes.)
 * 6. **Limits**: at most `maxMutationFields` root mutation fields and `maxCost` (HTTP), or
 *    `maxEventCost` per event (WebSocket), GRAPHQL_VALIDATION_FAILED.
 * 7. **Quota** (`checkQuota`, `takeQuota`): HTTP takes the cost and the writes at once (429,
 *    RATE_LIMITED, `Retry-After`), never for a refusal; a subscription pays its start and each
 *    event later, before each read (src/live/paid.ts), with the same two functions.
 */
import type { GraphQLRequest } from '@apollo/server';
import {
  getOperationAST,
  getVariableValues,
  GraphQLError,
  Kind,
  parse,
  specifiedRules,
  validate,
  type DocumentNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type ValidationRule,
} from 'graphql';
import { quotaKey, type Principal } from '../auth';
import { Code } from '../errors/codes';
import { refusal, withoutHttp } from '../errors/refusal';
import { HTTP_STATUS, isDomainError } from '../model/errors';
import { unauthenticated } from '../request/context';
import { estimateOperation, type OperationEstimate } from './cost';
import { resolveDocument, type TrustedDocuments } from './documents';
import { LIMITS } from './limits';
import type { Quotas, Take } from './quotas';

/** Where an operation arrived: Apollo over node:http, Apollo on AWS Lambda, graphql-ws. */
export type Transport = 'server' | 'lambda' | 'websocket';

export interface AdmissionOptions {
  transport: Transport;
  /** Production: refusals do not print limits, costs or quotas; a trusted-documents manifest is enforced. */
  production: boolean;
  trusted?: TrustedDocuments | undefined;
  /** The server's buckets (its websockets share them). */
  buckets: Quotas;
  /** graphql-armor's validation rules (WebSocket validates here; Apollo validates HTTP itself). */
  validationRules?: readonly ValidationRule[];
  /** The status index's shard count of the server's table (`Table.writeShards`): what ordersByStatus is charged for. */
  writeShards: number;
}

/** An admitted operation: its estimate (`Context.cost`, what the log line, the plan and paid subscriptions read). */
export interface Admitted {
  estimate: OperationEstimate;
}
/** A refused one: what to answer with, and its estimate when it got that far (the log line and the plan show it). */
export interface Refused {
  refused: readonly GraphQLError[];
  estimate?: OperationEstimate;
}

/** One operation, once its document is parsed and validated. */
export interface OperationRequest {
  schema: GraphQLSchema;
  document: DocumentNode;
  /** The operation `operationName` selects (`getOperationAST`); none when it selects none: refused. */
  operation: OperationDefinitionNode | null | undefined;
  operationName: string | null | undefined;
  variables: Record<string, unknown> | null | undefined;
  principal: Principal;
  clientAddress: string;
}

/** What graphql-ws hands onSubscribe. */
export interface SubscribePayload {
  query?: string;
  variables?: Record<string, unknown> | null;
  operationName?: string | null;
  extensions?: Record<string, unknown> | null;
}

/** Estimates remembered per parsed document, one per operation name and variables. */
const ESTIMATES_PER_DOCUMENT = 1_000;

export type Admission = ReturnType<typeof createAdmission>;

export function createAdmission(options: AdmissionOptions) {
  const { transport, production, buckets } = options;
  const http = transport !== 'websocket';
  const enforce = production && options.trusted !== undefined;
  const known = new WeakMap<DocumentNode, Map<string, OperationEstimate>>();
  /** As the transport answers: HTTP keeps its status, WebSocket has none. */
  const refuse = (...errors: GraphQLError[]): Refused => ({ refused: http ? errors : errors.map(withoutHttp) });
  const refuseEstimated = (estimate: OperationEstimate, error: GraphQLError): Refused => ({ ...refuse(error), estimate });

  /** Step 1: resolves the request's document in place (the manifest's text for a hash); its refusal, if any. */
  function document(request: GraphQLRequest): Refused | undefined {
    const refused = resolveDocument(request, options.trusted, enforce);
    if (refused) return refuse(refused);
    if (http && selectsSubscription(request.query, request.operationName)) return refuse(subscriptionsElsewhere(transport));
    return undefined;
  }

  /** Steps 3 to 6 (and the quota, over HTTP) for an operation whose document is parsed and valid. */
  function operation(request: OperationRequest): Admitted | Refused {
    const { operation, principal } = request;
    if (!operation) return refuse(noOperation(request.document, request.operationName));
    if (!http && operation.operation !== 'subscription')
      return refuse(refusal(Code.BAD_REQUEST, `Only subscriptions run over WebSocket: send the ${operation.operation} over HTTP (POST)`));
    const estimated = estimate(request, operation);
    const anonymous = principal.kind === 'anonymous';
    if (anonymous && ('refused' in estimated || estimated.estimate.dataFields > 0)) {
      const signIn = unauthenticated('sign in first: send Authorization: Bearer <token>');
      return 'refused' in estimated ? refuse(signIn) : refuseEstimated(estimated.estimate, signIn);
    }
    if ('refused' in estimated) return estimated;
    const limited = limits(estimated.estimate);
    if (limited) return refuseEstimated(estimated.estimate, limited);
    if (!http) return estimated; // a subscription pays later, before each read (src/live/paid.ts)
    const caller = quotaKey(principal, request.clientAddress);
    const amounts = { reads: estimated.estimate.cost, writes: estimated.estimate.writes };
    const unpaid = checkQuota(buckets, caller, amounts, production);
    if (unpaid) return refuseEstimated(estimated.estimate, unpaid);
    takeQuota(buckets, caller, amounts);
    return estimated;
  }

  /** Step 4: the variables coerced, the estimate (remembered: it depends on the document and variables only). */
  function estimate(request: OperationRequest, operation: OperationDefinitionNode): Admitted | Refused {
    const { schema, document } = request;
    const variables = request.variables ?? {};
    const key = `${request.operationName ?? ''}|${JSON.stringify(variables)}`;
    let estimates = known.get(document);
    if (!estimates) known.set(document, (estimates = new Map()));
    const remembered = estimates.get(key);
    if (remembered) return { estimate: remembered };
    const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], variables, { maxErrors: 1 });
    if (coerced.errors) return refuse(refusal(Code.BAD_USER_INPUT, coerced.errors[0]!.message));
    let estimate: OperationEstimate;
    try {
      estimate = estimateOperation(schema, document, operation, coerced.coerced, { writeShards: options.writeShards });
    } catch (error) {
      // An argument graphql cannot coerce (validation passes most of these already).
      if (error instanceof GraphQLError) return refuse(refusal(Code.BAD_USER_INPUT, error.message));
      // An argument the model refuses (`first` outside 1..100, a bad month): refused before any read.
      if (isDomainError(error))
        return refuse(refusal(error.code, error.message, error.field ? { extensions: { field: error.field } } : {}));
      throw error;
    }
    // Bounded per document; the oldest set of variables makes room (a screen cycles through many ids).
    if (estimates.size >= ESTIMATES_PER_DOCUMENT) estimates.delete(estimates.keys().next().value as string);
    estimates.set(key, estimate);
    return { estimate };
  }

  /** Step 6: the limits decided from the estimate. */
  function limits(estimate: OperationEstimate): GraphQLError | undefined {
    if (!http) {
      // Per event, far below HTTP's maxCost: an event fans out to every subscriber (LIMITS.maxEventCost says why).
      if (estimate.cost <= LIMITS.maxEventCost) return undefined;
      return refusal(
        Code.GRAPHQL_VALIDATION_FAILED,
        production
          ? 'Subscription too costly: each event may read more than an event may; select less below the event, and query the rest over HTTP'
          : `Subscription too costly: each event may cost ${estimate.cost}, more than the limit of ${LIMITS.maxEventCost} an event (an upper bound of the items it may read, ${estimate.reads}, plus 1 a resolved object); select less below the event, and query the rest over HTTP`,
      );
    }
    if (estimate.mutationFields > LIMITS.maxMutationFields) {
      return refusal(
        Code.GRAPHQL_VALIDATION_FAILED,
        production
          ? 'Too many mutation fields in one operation; send them in separate requests'
          : `An operation may hold at most ${LIMITS.maxMutationFields} mutation fields, this one holds ${estimate.mutationFields}; send them in separate requests`,
        { extensions: production ? {} : { mutationFields: estimate.mutationFields, maxMutationFields: LIMITS.maxMutationFields } },
      );
    }
    if (estimate.cost > LIMITS.maxCost) {
      return refusal(
        Code.GRAPHQL_VALIDATION_FAILED,
        production
          ? 'Operation too costly: it may read more items than one operation may; lower `first` or split the operation'
          : `Operation cost ${estimate.cost} exceeds the limit of ${LIMITS.maxCost} (an upper bound of the items it may read, ${estimate.reads}, plus 1 a resolved object; lower \`first\` or split the operation)`,
        { extensions: production ? {} : { cost: estimate.cost, reads: estimate.reads, maxCost: LIMITS.maxCost } },
      );
    }
    return undefined;
  }

  /** Every step of a WebSocket operation (1 to 6), from graphql-ws's payload: its document and estimate, or its refusal. */
  function subscription(
    payload: SubscribePayload,
    principal: Principal,
    clientAddress: string,
    schema: GraphQLSchema,
  ): (Admitted & { document: DocumentNode }) | Refused {
    // graphql-ws's `query` is required: a client sending a hash alone sends it empty.
    const request: GraphQLRequest = { query: payload.query || undefined, extensions: payload.extensions ?? undefined };
    const refused = document(request);
    if (refused) return refused;
    if (request.query === undefined) return refuse(refusal(Code.BAD_REQUEST, 'Send the subscription as query text'));
    let parsed: DocumentNode;
    try {
      parsed = parse(request.query, { maxTokens: LIMITS.maxTokens });
    } catch (error) {
      return refuse(refusal(Code.GRAPHQL_PARSE_FAILED, (error as Error).message));
    }
    const invalid = validate(schema, parsed, [...specifiedRules, ...(options.validationRules ?? [])]);
    if (invalid.length > 0) return refuse(...invalid.map((error) => refusal(Code.GRAPHQL_VALIDATION_FAILED, error.message)));
    const admitted = operation({
      schema,
      document: parsed,
      operation: getOperationAST(parsed, payload.operationName ?? undefined),
      operationName: payload.operationName,
      variables: payload.variables,
      principal,
      clientAddress,
    });
    return 'refused' in admitted ? admitted : { ...admitted, document: parsed };
  }

  return { document, operation, subscription };
}

/** Why `operationName` selects no operation of `document`: nothing ran, nothing was read. */
function noOperation(document: DocumentNode, operationName: string | null | undefined): GraphQLError {
  const names = document.definitions.flatMap((definition) =>
    definition.kind === Kind.OPERATION_DEFINITION ? [definition.name?.value ?? '(anonymous)'] : [],
  );
  const listed = names.map((name) => `"${name}"`).join(', ');
  if (names.length === 0) return refusal(Code.BAD_REQUEST, 'The document has no operation to run');
  if (operationName) return refusal(Code.BAD_REQUEST, `The document has no operation named "${operationName}" (it has ${listed})`);
  return refusal(Code.BAD_REQUEST, `The document has several operations (${listed}): name the one to run in operationName`);
}

/** Whether the text's operation is a subscription (a cheap screen first; a syntax error is reported by the parse). */
function selectsSubscription(query: string | undefined, operationName: string | undefined): boolean {
  if (typeof query !== 'string' || !/\bsubscription\b/.test(query)) return false;
  try {
    return getOperationAST(parse(query, { maxTokens: LIMITS.maxTokens }), operationName)?.operation === 'subscription';
  } catch {
    return false; // Apollo reports the syntax error itself
  }
}

/** Over HTTP, a subscription is refused with where to subscribe instead. */
function subscriptionsElsewhere(transport: Transport): GraphQLError {
  return refusal(
    Code.GRAPHQL_VALIDATION_FAILED,
    transport === 'lambda'
      ? 'Subscriptions are not supported by this deployment: AWS Lambda behind an API Gateway HTTP API has no WebSocket. Consume the order events from the EventBridge bus, or subscribe on the long-running server (npm start)'
      : 'Subscriptions are not supported over HTTP: subscribe over WebSocket at this same URL (ws:// or wss://, the graphql-transport-ws protocol of graphql-ws)',
  );
}

/** Step 7: whether `key`'s buckets hold the amounts now; the RATE_LIMITED refusal when not. Takes nothing. */
export function checkQuota(
  buckets: Quotas,
  key: string,
  amounts: { reads: number; writes: number },
  production: boolean,
): GraphQLError | undefined {
  const reads = buckets.reads.check(key, amounts.reads);
  if (!reads.ok) return rateLimited('read', amounts.reads, buckets.reads.perMinute, reads, production);
  const writes = buckets.writes.check(key, amounts.writes);
  if (!writes.ok) return rateLimited('write', amounts.writes, buckets.writes.perMinute, writes, production);
  return undefined;
}

/** Takes the amounts from `key`'s buckets (checked first with `checkQuota`). */
export function takeQuota(buckets: Quotas, key: string, amounts: { reads: number; writes: number }): void {
  buckets.reads.take(key, amounts.reads);
  buckets.writes.take(key, amounts.writes);
}

/**
 * HTTP 429, RATE_LIMITED, and `Retry-After` (whole seconds until the bucket holds the amount). An
 * operation larger than a whole bucket can never pass: its message says so, and it carries no
 * Retry-After, since waiting would not help.
 */
export function rateLimited(kind: 'read' | 'write', amount: number, perMinute: number, take: Take, production: boolean): GraphQLError {
  const unit = kind === 'read' ? 'read cost units' : 'items written';
  const never = take.retryAfterSeconds === undefined;
  const message = never
    ? production
      ? `This operation is larger than a whole minute's ${kind} quota: it can never pass; lower \`first\` or split it`
      : `This operation needs ${amount} ${unit}, more than a whole minute's ${kind} quota of ${perMinute}: it can never pass; lower \`first\` or split it`
    : production
      ? `${kind === 'read' ? 'Read' : 'Write'} quota exceeded; retry in ${take.retryAfterSeconds} s`
      : `${kind === 'read' ? 'Read' : 'Write'} quota exceeded: this operation needs ${amount} ${unit} of ${perMinute} a minute; retry in ${take.retryAfterSeconds} s`;
  return refusal(Code.RATE_LIMITED, message, {
    status: HTTP_STATUS.RATE_LIMITED,
    headers: never ? [] : [['retry-after', String(take.retryAfterSeconds)]],
    extensions: { quota: kind, ...(never ? { retryable: false } : { retryAfterSeconds: take.retryAfterSeconds }) },
  });
}
