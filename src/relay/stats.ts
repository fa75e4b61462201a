/** What a relay has done since it started: for its log line, `npm run relay`'s status and the benchmark. */
import type { DeliveryFailure, DeliveryResult } from './deliver';

export class RelayCounters {
  /** Records handled (outbox or not). */
  records = 0;
  /** Events published (a redelivery counts again). */
  published = 0;
  /** OrderPlaced events counted on their customer, and recognised as counted already. */
  statsApplied = 0;
  statsDuplicates = 0;
  /** Attempts that failed and will be retried. */
  retries = 0;
  deadLetters = 0;
  lastError: string | undefined;
  /** When the last event was published (epoch ms). */
  lastPublishedAt: number | undefined;

  delivered(result: DeliveryResult): void {
    this.records += result.handled;
    this.published += result.published.length;
    this.statsApplied += result.statsApplied;
    this.statsDuplicates += result.statsDuplicates;
    if (result.published.length > 0) this.lastPublishedAt = Date.now();
  }

  retried(failure: DeliveryFailure): void {
    this.retries++;
    this.lastError = failure.error;
  }

  deadLettered(failure: DeliveryFailure): void {
    this.deadLetters++;
    this.lastError = failure.error;
  }

  snapshot() {
    return {
      records: this.records,
      published: this.published,
      statsApplied: this.statsApplied,
      statsDuplicates: this.statsDuplicates,
      retries: this.retries,
      deadLetters: this.deadLetters,
      ...(this.lastError ? { lastError: this.lastError } : {}),
    };
  }
}
