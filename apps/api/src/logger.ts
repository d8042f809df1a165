import { pino } from 'pino';
import type { LogLevel } from './config.js';

/**
 * The one logger: JSON lines on stdout. Authorization headers and API keys are never passed to it; the redact
 * paths are a second line of defence should a request object ever be logged whole.
 */
export function createLogger(level: LogLevel) {
  return pino({
    level,
    base: undefined,
    redact: {
      paths: ['req.headers.authorization', 'headers.authorization', 'authorization', 'apiKey', 'apiKeys'],
      censor: '[redacted]',
    },
  });
}

export type Logger = ReturnType<typeof createLogger>;
