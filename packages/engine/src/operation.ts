/**
 * The contract between the engine's router (engine.ts) and the handlers that implement an
 * operation (dynalite's own, transactions.ts, ttl.ts): a handler validates a private copy of the
 * request without touching data or the lock, then executes with the engine's readers-writer lock
 * held shared (`exclusive: false`) or alone (`exclusive: true`). Handlers depend on this file only,
 * never on engine.ts, so the router can import them without a cycle.
 */

/** One operation: checks the request (no data access, no lock), then runs with the lock held. */
export interface OperationHandler {
  /** true: holds the lock alone (writes); false: shares it with other readers. */
  exclusive: boolean;
  /** Validates and normalises a private copy of the request; throws API errors. */
  validate(body: Record<string, unknown>): unknown;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each handler narrows its own validated request
  execute(data: any): Promise<unknown>;
}
