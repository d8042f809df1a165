import { pino } from 'pino';
import type { LogLevel } from './config.js';

/** The one logger: JSON lines on stdout. Keys are never passed to it; redact is a second line of defence. */
export function createLogger(level: LogLevel) {
  // Gathered up to 8 KiB (a write(2) per request line showed in the 401 profile), flushed every 250 ms so a quiet
  // server's lines still appear; shutdown.ts flushes before exit.
  const destination = pino.destination({ dest: 1, sync: false, minLength: 8 * 1024, periodicFlush: 250 });
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

/**
 * Writes one access-log line: request id, method, path, status, duration in ms, the trace id when traced, and the
 * caller once its key was accepted (`key:` and 32 hex digits of the key's digest: the identity idempotency and the
 * rate limit use, never the key).
 */
export type AccessLog = (
  requestId: string,
  method: string,
  path: string,
  status: number,
  ms: number,
  traceId?: string,
  caller?: string,
) => void;

/** The access log (docs/development.md, the ledger); undefined when the level leaves request lines out. */
export function createAccessLog(logger: Logger): AccessLog | undefined {
  if (!logger.isLevelEnabled('info')) return undefined;
  return (requestId, method, path, status, ms, traceId, caller) =>
    logger.info(
      { requestId, traceId, caller, method, path, status, ms: Math.round(ms * 1000) / 1000 },
      'request',
    );
}
