import { Prisma } from '../generated/prisma/client.js';

// Prisma error codes that mean "the database cannot be reached right now", not "the query is wrong":
// P1001 can't reach server, P1002 timed out, P1008 operation timed out, P1017 server closed the connection,
// P2024 timed out waiting for a pool connection.
const UNAVAILABLE_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024']);

// Driver-adapter error kinds with the same meaning (Prisma 7 with @prisma/adapter-pg or PGlite).
const UNAVAILABLE_KINDS = new Set([
  'DatabaseNotReachable',
  'ConnectionClosed',
  'SocketTimeout',
  'TooManyConnections',
  'TransactionAlreadyClosed',
]);

// Node socket errors, should one surface unwrapped (from pg directly).
const UNAVAILABLE_ERRNOS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENOTFOUND',
]);

/** True when `error` says the database is unreachable (a 503 for the client), as opposed to a bug (a 500). */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let current = error, depth = 0; current instanceof Object && depth < 5; depth++) {
    if (current instanceof Prisma.PrismaClientKnownRequestError && UNAVAILABLE_CODES.has(current.code))
      return true;
    if (current instanceof Prisma.PrismaClientInitializationError) return true;
    const { kind, code, message } = current as { kind?: unknown; code?: unknown; message?: unknown };
    if (typeof kind === 'string' && UNAVAILABLE_KINDS.has(kind)) return true;
    if (typeof code === 'string' && UNAVAILABLE_ERRNOS.has(code)) return true;
    if (
      typeof message === 'string' &&
      /Connection terminated|connection timeout|Query read timeout|timeout exceeded when trying to connect/i.test(
        message,
      )
    ) {
      return true;
    }
    const meta = (current as { meta?: { driverAdapterError?: unknown } }).meta;
    current = meta?.driverAdapterError ?? (current as { cause?: unknown }).cause;
  }
  return false;
}
