import { Prisma } from '../generated/prisma/client.js';

// The one place that decides whether a database failure means "the database cannot serve this now" (503 with
// Retry-After: a restart, a failover, a pool out of connections, a statement over its time limit) or "our
// statement is wrong" (500, a bug to fix). Errors reach us in four shapes, all read here:
//   - pg's DatabaseError: `code` is the SQLSTATE, `severity` is set (the hot statements, straight on pg; adapter-pg
//     underneath);
//   - a driver-adapter error (Prisma 7 with @prisma/adapter-pg or pglite-prisma-adapter): `name`
//     DriverAdapterError, its `cause` is `{ kind, originalCode?, code? }`, originalCode being the SQLSTATE;
//   - a Prisma client error: PrismaClientKnownRequestError with a P-code, the adapter error in
//     `meta.driverAdapterError`; PrismaClientInitializationError;
//   - Node's socket errors (`code` ECONNREFUSED...) and pg/pg-pool's plain Errors, known only by their message.

/** Why the database could not serve a statement, when that is the reason it failed. */
export interface DatabaseUnavailable {
  /**
   * The SQLSTATE when the server sent one (`57P01`), otherwise what we know: a socket errno (`ECONNRESET`), a
   * driver-adapter kind (`ConnectionClosed`), a Prisma code (`P2024`) or a short phrase (`pool acquire timeout`).
   */
  reason: string;
  /**
   * True when the statement may have reached the server before the connection was lost: a write may or may not
   * have committed, and only a repeat under the same Idempotency-Key can tell. False when it surely did not run
   * (no connection was made, the server refused it, or it was cancelled and rolled back).
   */
  outcomeUnknown: boolean;
  /** A statement time limit (statement_timeout, the client's query timeout) was hit. */
  timedOut: boolean;
}

const SQLSTATE = /^[0-9A-Z]{5}$/;

/** The verdict for a SQLSTATE, or undefined when it is not an availability failure (a 500). */
function bySqlState(state: string): DatabaseUnavailable | undefined {
  const verdict = (outcomeUnknown: boolean, timedOut = false) => ({
    reason: state,
    outcomeUnknown,
    timedOut,
  });
  // Class 08, connection exception. 08001 (cannot establish) and 08004 (server rejected the connection) never
  // ran anything; the others lost a connection that may have carried the statement (08007: transaction
  // resolution unknown).
  if (state.startsWith('08')) return verdict(state !== '08001' && state !== '08004');
  switch (state) {
    case '57P01': // admin_shutdown: pg_terminate_backend, a fast or smart restart, a failover
    case '57P02': // crash_shutdown: another backend crashed, the server is resetting
    case '57P05': // idle_session_timeout
      return verdict(true);
    case '57P03': // cannot_connect_now: starting up or in recovery
    case '57P04': // database_dropped
      return verdict(false);
    case '57014': // query_canceled: statement_timeout (we never cancel a statement otherwise); rolled back
      return verdict(false, true);
    case '25P03': // idle_in_transaction_session_timeout: the transaction was rolled back, the session closed
      return verdict(false, true);
    case '25006': // read_only_sql_transaction: connected to a standby (a failover not yet promoted)
    case '3D000': // invalid_catalog_name: our database does not exist (dropped, or not yet restored)
    case '3F000': // invalid_schema_name
    case '42P01': // undefined_table: only our own statements name tables, so our schema is missing
      return verdict(false);
  }
  // Class 53, insufficient resources: too many connections (53300), out of memory, disk full. None of them ran.
  if (state.startsWith('53')) return verdict(false);
  return undefined;
}

// Prisma's own codes with that meaning: P1001 cannot reach the server, P1002 and P1008 timed out, P1003 the
// database does not exist, P1017 the server closed the connection, P2024 no pool connection in time.
const PRISMA_CODES: Readonly<Record<string, Omit<DatabaseUnavailable, 'reason'>>> = {
  P1001: { outcomeUnknown: false, timedOut: false },
  P1002: { outcomeUnknown: true, timedOut: true },
  P1003: { outcomeUnknown: false, timedOut: false },
  P1008: { outcomeUnknown: true, timedOut: true },
  P1017: { outcomeUnknown: true, timedOut: false },
  P2024: { outcomeUnknown: false, timedOut: true },
};

// Driver-adapter kinds without a SQLSTATE (the ones with one carry it as originalCode and are read above).
const ADAPTER_KINDS: Readonly<Record<string, Omit<DatabaseUnavailable, 'reason'>>> = {
  DatabaseNotReachable: { outcomeUnknown: false, timedOut: false },
  ConnectionClosed: { outcomeUnknown: true, timedOut: false },
  SocketTimeout: { outcomeUnknown: true, timedOut: true },
  TooManyConnections: { outcomeUnknown: false, timedOut: false },
  DatabaseDoesNotExist: { outcomeUnknown: false, timedOut: false },
  TableDoesNotExist: { outcomeUnknown: false, timedOut: false },
  TransactionAlreadyClosed: { outcomeUnknown: true, timedOut: false },
};

// Node socket errors: a connection never made, or one lost with the statement possibly on it.
const ERRNOS: Readonly<Record<string, Omit<DatabaseUnavailable, 'reason'>>> = {
  ECONNREFUSED: { outcomeUnknown: false, timedOut: false },
  ENOTFOUND: { outcomeUnknown: false, timedOut: false },
  EAI_AGAIN: { outcomeUnknown: false, timedOut: false },
  EHOSTUNREACH: { outcomeUnknown: false, timedOut: false },
  ENETUNREACH: { outcomeUnknown: false, timedOut: false },
  ECONNRESET: { outcomeUnknown: true, timedOut: false },
  EPIPE: { outcomeUnknown: true, timedOut: false },
  ETIMEDOUT: { outcomeUnknown: true, timedOut: true },
};

// pg, pg-pool and PGlite errors that carry nothing but their message.
const MESSAGES: ReadonlyArray<[RegExp, DatabaseUnavailable]> = [
  // pg-pool: every connection busy for connectionTimeoutMillis (the pool acquire timeout).
  [
    /timeout exceeded when trying to connect/i,
    { reason: 'pool acquire timeout', outcomeUnknown: false, timedOut: true },
  ],
  // pg: the server did not accept the connection within connectionTimeoutMillis.
  [
    /Connection terminated due to connection timeout/i,
    { reason: 'connect timeout', outcomeUnknown: false, timedOut: true },
  ],
  // pg: the socket closed under a query (a restart, a proxy, a network cut).
  [/Connection terminated/i, { reason: 'connection terminated', outcomeUnknown: true, timedOut: false }],
  // pg's query_timeout: no answer in time (a silent partition, a paused server).
  [/Query read timeout/i, { reason: 'query read timeout', outcomeUnknown: true, timedOut: true }],
  // pg: a client already broken by an earlier error or closed; nothing was sent on it.
  [
    /(has encountered a connection error|was closed) and is not queryable/i,
    { reason: 'connection broken', outcomeUnknown: false, timedOut: false },
  ],
  // pg-pool closed (shutting down), PGlite closed.
  [
    /after calling end on the pool|PGlite is closed/i,
    { reason: 'closed', outcomeUnknown: false, timedOut: false },
  ],
];

/**
 * The SQLSTATE of a server error at this link of a cause chain: pg's DatabaseError (code + severity) or an adapter
 * error's cause (originalCode, or code for the `postgres` kind).
 */
function ownSqlState(error: object): string | undefined {
  const { kind, code, originalCode, severity } = error as {
    kind?: unknown;
    code?: unknown;
    originalCode?: unknown;
    severity?: unknown;
  };
  const state =
    typeof originalCode === 'string'
      ? originalCode
      : typeof code === 'string' && (typeof severity === 'string' || kind === 'postgres')
        ? code
        : undefined;
  return state !== undefined && SQLSTATE.test(state) ? state : undefined;
}

/** The SQLSTATE of the server error in `error`'s cause chain (`meta.driverAdapterError` included), if any. */
export function sqlStateOf(error: unknown): string | undefined {
  for (let current = error, depth = 0; current instanceof Object && depth < 6; depth++) {
    const state = ownSqlState(current);
    if (state !== undefined) return state;
    const meta = (current as { meta?: { driverAdapterError?: unknown } }).meta;
    current = meta?.driverAdapterError ?? (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * Why `error` says the database cannot serve the statement now (a 503 for the client), or undefined when it is
 * anything else (a bug: a 500). Walks the error's cause chain, `meta.driverAdapterError` included.
 */
export function classifyDatabaseError(error: unknown): DatabaseUnavailable | undefined {
  for (let current = error, depth = 0; current instanceof Object && depth < 6; depth++) {
    if (current instanceof Prisma.PrismaClientInitializationError) {
      return {
        reason: current.errorCode ?? 'initialization',
        outcomeUnknown: false,
        timedOut: false,
      };
    }
    const { kind, code, message } = current as { kind?: unknown; code?: unknown; message?: unknown };
    // A server error: its SQLSTATE decides, whatever the kind says.
    const state = ownSqlState(current);
    if (state !== undefined) return bySqlState(state);
    if (current instanceof Prisma.PrismaClientKnownRequestError) {
      const known = PRISMA_CODES[current.code];
      if (known !== undefined) return { reason: current.code, ...known };
    }
    if (typeof kind === 'string' && Object.hasOwn(ADAPTER_KINDS, kind))
      return { reason: kind, ...(ADAPTER_KINDS[kind] as Omit<DatabaseUnavailable, 'reason'>) };
    if (typeof code === 'string' && Object.hasOwn(ERRNOS, code))
      return { reason: code, ...(ERRNOS[code] as Omit<DatabaseUnavailable, 'reason'>) };
    if (typeof message === 'string') {
      for (const [pattern, verdict] of MESSAGES) if (pattern.test(message)) return verdict;
    }
    const meta = (current as { meta?: { driverAdapterError?: unknown } }).meta;
    current = meta?.driverAdapterError ?? (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** The message of the 503 a client gets: what happened, and what a retry does. */
export function unavailableMessage(unavailable: DatabaseUnavailable): string {
  if (unavailable.outcomeUnknown) {
    return (
      `the database connection was lost while the request was in flight (${unavailable.reason}): a write may or ` +
      'may not have been applied; retry with the same Idempotency-Key, which answers either way'
    );
  }
  if (unavailable.timedOut) {
    return `the database did not answer in time (${unavailable.reason}); nothing was applied, retry shortly`;
  }
  return `the database is unavailable (${unavailable.reason}); nothing was applied, retry shortly`;
}
