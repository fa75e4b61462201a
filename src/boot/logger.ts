import pino, { type Logger } from 'pino';

/** Structured JSON logs at `level` (`config.logLevel`: `LOG_LEVEL`, silent in tests unless asked). */
export function createLogger(level = 'info'): Logger {
  return pino({ level, base: { service: 'single-table-graphql' } });
}
