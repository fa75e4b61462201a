/**
 * DynamoDB error responses. Errors travel inside the engine in dynalite's own shape
 * (`{ statusCode, body: { __type, message } }`) so dynalite's errors and ours are handled alike.
 */
import type { DynaliteError } from './dynalite-internals';

/** What the engine answers to one request: an HTTP status and a JSON body. */
export interface EngineResponse {
  status: number;
  body: unknown;
}

/** Namespaces Amazon uses in `__type`. */
export const DYNAMODB_ERROR = 'com.amazonaws.dynamodb.v20120810#';
export const CORAL_VALIDATE = 'com.amazon.coral.validate#';
export const CORAL_SERVICE = 'com.amazon.coral.service#';
export const CORAL_AVAILABILITY = 'com.amazon.coral.availability#';

/** An error as dynalite raises it; `extra` adds members next to `__type` (e.g. CancellationReasons). */
export function apiError(qualifiedType: string, message: string, extra: Record<string, unknown> = {}, status = 400): DynaliteError {
  const err: DynaliteError = new Error(message);
  err.statusCode = status;
  err.body = { __type: qualifiedType, message, ...extra };
  return err;
}

export function validationException(message: string): DynaliteError {
  return apiError(`${CORAL_VALIDATE}ValidationException`, message);
}

export function resourceNotFound(message = 'Requested resource not found'): DynaliteError {
  return apiError(`${DYNAMODB_ERROR}ResourceNotFoundException`, message);
}

/** `__type` without its namespace, e.g. `ConditionalCheckFailedException`. */
export function errorTypeOf(body: unknown): string | undefined {
  if (body === null || typeof body !== 'object' || !('__type' in body)) return undefined;
  const type = String((body as { __type: unknown }).__type);
  return type.slice(type.lastIndexOf('#') + 1);
}

export function isApiError(err: unknown): err is DynaliteError & { statusCode: number; body: NonNullable<DynaliteError['body']> } {
  return err instanceof Error && typeof (err as DynaliteError).statusCode === 'number' && (err as DynaliteError).body != null;
}

/** Whether internal failures (500s) are printed with their stack: `ENGINE_DEBUG`, via startEngine's `debug`. */
let printInternalFailures = false;

/** Turns printing of internal failures on or off, for every engine of the process. */
export function setEngineDebug(on: boolean): void {
  printInternalFailures = on;
}

/** The response for an error thrown inside the engine; anything not an API error is a 500. */
export function toErrorResponse(err: unknown): EngineResponse {
  if (isApiError(err)) return { status: err.statusCode, body: err.body };
  if (printInternalFailures) console.error(err);
  return {
    status: 500,
    body: { __type: `${CORAL_SERVICE}InternalFailure`, message: err instanceof Error ? err.message : String(err) },
  };
}

/** A ready-made error response, for fault handlers: `errorResponse('ThrottlingException')`. */
export function errorResponse(type: string, message?: string, extra: Record<string, unknown> = {}): EngineResponse {
  const known: Record<string, [namespace: string, defaultMessage: string]> = {
    ThrottlingException: [CORAL_AVAILABILITY, 'Rate of requests exceeds the allowed throughput.'],
    ProvisionedThroughputExceededException: [
      DYNAMODB_ERROR,
      'The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API.',
    ],
    RequestLimitExceeded: [DYNAMODB_ERROR, 'Throughput exceeds the current throughput limit for your account.'],
    InternalServerError: [DYNAMODB_ERROR, 'Internal server error'],
    ValidationException: [CORAL_VALIDATE, 'Validation error'],
  };
  const [namespace, defaultMessage] = known[type] ?? [DYNAMODB_ERROR, type];
  const status = type === 'InternalServerError' ? 500 : 400;
  return { status, body: { __type: `${namespace}${type}`, message: message ?? defaultMessage, ...extra } };
}

/**
 * Runs a request's validation; a crash inside it (a TypeError: a member of a shape it cannot read,
 * such as a BatchWriteItem write request that is `null`, which dynalite and our checks read
 * without looking) is a SerializationException, as coral answers a body that does not fit the
 * operation's shape, instead of an InternalFailure (HTTP 500). Alternator's
 * test_batch_write_item_invalid_payload.
 */
export function readableShape<T>(validate: () => T): T {
  try {
    return validate();
  } catch (err) {
    if (err instanceof TypeError)
      throw apiError(`${CORAL_SERVICE}SerializationException`, "The request does not fit the operation's shape");
    throw err;
  }
}
