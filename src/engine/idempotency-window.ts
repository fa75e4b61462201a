/**
 * Amazon's ClientRequestToken: a TransactWriteItems that succeeded is not applied again when
 * repeated with the same token within 10 minutes; the repeat gets the first answer. The same token
 * with a different request is an IdempotentParameterMismatchException. (The AWS SDK fills the token
 * in and reuses it when it retries.) Failed transactions are not remembered: a retry runs again.
 * One window per engine, in memory.
 */
import { DYNAMODB_ERROR, apiError } from './errors';
import type { TransactWriteRequest } from './transaction-requests';

export class IdempotencyWindow {
  private static readonly WINDOW_MS = 10 * 60 * 1000;
  private readonly entries = new Map<string, { fingerprint: string; result: unknown; expiresAt: number }>();

  replay(request: TransactWriteRequest): unknown {
    this.forgetExpired();
    if (request.clientRequestToken === undefined) return undefined;
    const entry = this.entries.get(request.clientRequestToken);
    if (!entry) return undefined;
    if (entry.fingerprint !== request.fingerprint) {
      throw apiError(
        `${DYNAMODB_ERROR}IdempotentParameterMismatchException`,
        'The request uses the same client token as a previous, but non-identical request.',
      );
    }
    return entry.result;
  }

  remember(request: TransactWriteRequest, result: unknown): void {
    if (request.clientRequestToken === undefined) return;
    this.entries.set(request.clientRequestToken, {
      fingerprint: request.fingerprint,
      result,
      expiresAt: Date.now() + IdempotencyWindow.WINDOW_MS,
    });
  }

  /** Entries expire in insertion order, so the scan stops at the first live one. */
  private forgetExpired(): void {
    const now = Date.now();
    for (const [token, entry] of this.entries) {
      if (entry.expiresAt > now) return;
      this.entries.delete(token);
    }
  }
}
