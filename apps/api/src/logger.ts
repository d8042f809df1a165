import { pino } from 'pino';
import type { LogLevel } from './config.js';

/**
 * The one logger: JSON lines on stdout. Authorization headers and API keys are never passed to it; the redact
 * paths are a second line of defence should a request object ever be logged whole.
 */
export function createLogger(level: LogLevel) {
  // Written asynchronously: a synchronous write per request line cost several percent of throughput under load.
  // main flushes it before the process exits.
  const destination = pino.destination({ dest: 1, sync: false });
  return pino(
    {
      level,
      base: undefined,
      redact: {
        paths: ['req.headers.authorization', 'headers.authorization', 'authorization', 'apiKey', 'apiKeys'],
        censor: '[redacted]',
      },
    },
    destination,
  );
}

export type Logger = ReturnType<typeof createLogger>;
