import pino, { type Logger } from 'pino';

/** Structured JSON logs; `LOG_LEVEL` sets the level (silent in tests unless asked). */
export function createLogger(env: NodeJS.ProcessEnv = process.env): Logger {
  const level = env.LOG_LEVEL ?? (env.VITEST ? 'silent' : 'info');
  return pino({ level, base: { service: 'single-table-graphql' } });
}
