import { Prisma } from '../generated/prisma/client.js';

// The one place that decides whether a database failure means "the database cannot serve this now" (503 with
// Retry-After: a restart, a failover, a pool out of connections, a statement over its time limit) or "our
// statement is wrong" (500, a bug to fix). Errors reach us in four shapes, all read here:
//   - pg's DatabaseError: `code` is the SQLSTATE, `severity` is set (the hot statements; adapter-pg underneath);
//   - a driver-adapter error (Prisma 7 with @prisma/adapter-pg or pglite-prisma-adapter): `name`
//     DriverAdapterError, its `cause` is `{ kind, originalCode?, code? }`, originalCode being the SQLSTATE;
//   - a Prisma client error: PrismaClientKnownRequestError with a P-code, the adapter error in
//     `meta.driverAdapterError`; PrismaClientInitializationError;
//   - Node's socket errors (`code` ECONNREFUSED...) and pg/pg-pool's plain Errors, known only by their message.

/** Why the database could not serve a statement, when that is the reason it failed. */
export interface DatabaseUnavailable {
  /** The SQLSTATE (`57P01`), else a socket errno, a driver-adapter kind, a Prisma code or a short phrase. */
  reason: string;
  /**
   * True when the statement may have reached the server before the connection was lost: a write may or may not
   * have committed, and only a repeat under the same Idempotency-Key can tell. False when it surely did not run
   * (no connection was made, the server refused it, or it was cancelled and rolled back).
   */
  outcomeUnknown: boolean;
  /** A statement time limit (statement_timeout, the client's query timeout) was hit. */
  timedOut: boolean;
  /** The database can store no new row of this kind until an operator acts: a retry fails the same way. */
  full?: true;
}

type Verdict = Omit<DatabaseUnavailable, 'reason'>;
type Verdicts = Readonly<Record<string, Verdict>>;
const NOT_RUN: Verdict = { outcomeUnknown: false, timedOut: false };
const LOST: Verdict = { outcomeUnknown: true, timedOut: false };
const NOT_RUN_IN_TIME: Verdict = { outcomeUnknown: false, timedOut: true };
const LOST_IN_TIME: Verdict = { outcomeUnknown: true, timedOut: true };
const FULL: Verdict = { outcomeUnknown: false, timedOut: false, full: true };

/** The verdict `table` has for `key`, a string that came from an error (never an Object.prototype member). */
const lookUp = (table: Verdicts, key: unknown, reason = key): DatabaseUnavailable | undefined =>
  typeof key === 'string' && Object.hasOwn(table, key)
    ? { reason: reason as string, ...(table[key] as Verdict) }
    : undefined;

const SQLSTATE = /^[0-9A-Z]{5}$/;

// By class: 08, connection exception (08001 and 08004 never ran anything; the others lost a connection that may
// have carried the statement, 08007 being "transaction resolution unknown"); 28, a connection refused its
// authorization (a rotated password, a role locked); 53, insufficient resources (too many connections, out of
// memory, disk full: none of them ran).
const SQLSTATE_CLASSES: Verdicts = { '08': LOST, '28': NOT_RUN, '53': NOT_RUN };

const SQLSTATES: Verdicts = {
  '08001': NOT_RUN, // sqlclient_unable_to_establish_sqlconnection
  '08004': NOT_RUN, // sqlserver_rejected_establishment_of_sqlconnection
  '57P01': LOST, // admin_shutdown: pg_terminate_backend, a fast or smart restart, a failover
  '57P02': LOST, // crash_shutdown: another backend crashed, the server is resetting
  '57P05': LOST, // idle_session_timeout
  '57P03': NOT_RUN, // cannot_connect_now: starting up or in recovery
  '57P04': NOT_RUN, // database_dropped
  '57014': NOT_RUN_IN_TIME, // query_canceled: statement_timeout (we never cancel a statement otherwise); rolled back
  '25P03': NOT_RUN_IN_TIME, // idle_in_transaction_session_timeout: rolled back, the session closed
  '25006': NOT_RUN, // read_only_sql_transaction: connected to a standby (a failover not yet promoted)
  '3D000': NOT_RUN, // invalid_catalog_name: our database does not exist (dropped, or not yet restored)
  '55000': NOT_RUN, // object_not_in_prerequisite_state: the database does not accept connections (ALLOW_CONNECTIONS false)
  '3F000': NOT_RUN, // invalid_schema_name
  '42P01': NOT_RUN, // undefined_table: only our own statements name tables, so our schema is missing
  '2200H': FULL, // sequence_generator_limit_exceeded: an id sequence (pets_id_seq) reached its maximum
};

// Prisma's own codes with that meaning: P1001 cannot reach the server, P1002 and P1008 timed out, P1003 the
// database does not exist, P1017 the server closed the connection, P2024 no pool connection in time.
const PRISMA_CODES: Verdicts = {
  P1001: NOT_RUN,
  P1002: LOST_IN_TIME,
  P1003: NOT_RUN,
  P1008: LOST_IN_TIME,
  P1017: LOST,
  P2024: NOT_RUN_IN_TIME,
};

// Driver-adapter kinds without a SQLSTATE (the ones with one carry it as originalCode and are read above).
const ADAPTER_KINDS: Verdicts = {
  DatabaseNotReachable: NOT_RUN,
  ConnectionClosed: LOST,
  SocketTimeout: LOST_IN_TIME,
  TooManyConnections: NOT_RUN,
  DatabaseDoesNotExist: NOT_RUN,
  TableDoesNotExist: NOT_RUN,
  TransactionAlreadyClosed: LOST,
};

// Node socket errors: a connection never made, or one lost with the statement possibly on it.
const ERRNOS: Verdicts = {
  ECONNREFUSED: NOT_RUN,
  ENOTFOUND: NOT_RUN,
  EAI_AGAIN: NOT_RUN,
  EHOSTUNREACH: NOT_RUN,
  ENETUNREACH: NOT_RUN,
  ECONNRESET: LOST,
  EPIPE: LOST,
  ETIMEDOUT: LOST_IN_TIME,
};

// pg, pg-pool and PGlite errors that carry nothing but their message: [pattern, reason, verdict].
const MESSAGES: ReadonlyArray<[RegExp, string, Verdict]> = [
  // pg-pool: every connection busy for connectionTimeoutMillis (the pool acquire timeout).
  [/timeout exceeded when trying to connect/i, 'pool acquire timeout', NOT_RUN_IN_TIME],
  // pg: the server did not accept the connection within connectionTimeoutMillis.
  [/Connection terminated due to connection timeout/i, 'connect timeout', NOT_RUN_IN_TIME],
  // pg: the socket closed under a query (a restart, a proxy, a network cut).
  [/Connection terminated/i, 'connection terminated', LOST],
  // The client-side deadline (db/database.ts giveUpWhenSilent): no answer in time (a silent partition, a paused server).
  [/Query read timeout/i, 'query read timeout', LOST_IN_TIME],
  // pg: a client already broken by an earlier error or closed; nothing was sent on it.
  [/(has encountered a connection error|was closed) and is not queryable/i, 'connection broken', NOT_RUN],
  // pg-pool closed (shutting down), PGlite closed.
  [/after calling end on the pool|PGlite is closed/i, 'closed', NOT_RUN],
];

/**
 * The SQLSTATE of a server error at this link of a cause chain: pg's DatabaseError (code + severity) or an adapter
 * error's cause (originalCode, or code for the `postgres` kind).
 */
function ownSqlState(error: object): string | undefined {
  const { kind, code, originalCode, severity } = error as Record<string, unknown>;
  const state =
    typeof originalCode === 'string'
      ? originalCode
      : typeof code === 'string' && (typeof severity === 'string' || kind === 'postgres')
        ? code
        : undefined;
  return state !== undefined && SQLSTATE.test(state) ? state : undefined;
}

/** `error` and its causes (`meta.driverAdapterError` included), at most six links. */
function* causeChain(error: unknown): Generator<object> {
  for (let current = error, depth = 0; current instanceof Object && depth < 6; depth++) {
    yield current;
    const meta = (current as { meta?: { driverAdapterError?: unknown } }).meta;
    current = meta?.driverAdapterError ?? (current as { cause?: unknown }).cause;
  }
}

/** The SQLSTATE of the server error in `error`'s cause chain, if any. */
export function sqlStateOf(error: unknown): string | undefined {
  for (const current of causeChain(error)) {
    const state = ownSqlState(current);
    if (state !== undefined) return state;
  }
  return undefined;
}

/**
 * Why `error` says the database cannot serve the statement now (a 503 for the client), or undefined when it is
 * anything else (a bug: a 500). The first link of the cause chain that is known decides.
 */
export function classifyDatabaseError(error: unknown): DatabaseUnavailable | undefined {
  for (const current of causeChain(error)) {
    if (current instanceof Prisma.PrismaClientInitializationError) {
      return { reason: current.errorCode ?? 'initialization', ...NOT_RUN };
    }
    // A server error: its SQLSTATE decides, whatever the kind says.
    const state = ownSqlState(current);
    if (state !== undefined)
      return lookUp(SQLSTATES, state) ?? lookUp(SQLSTATE_CLASSES, state.slice(0, 2), state);
    const { kind, code, message } = current as Record<string, unknown>;
    const found =
      (current instanceof Prisma.PrismaClientKnownRequestError
        ? lookUp(PRISMA_CODES, current.code)
        : undefined) ??
      lookUp(ADAPTER_KINDS, kind) ??
      lookUp(ERRNOS, code);
    if (found !== undefined) return found;
    if (typeof message === 'string') {
      for (const [pattern, reason, verdict] of MESSAGES)
        if (pattern.test(message)) return { reason, ...verdict };
    }
  }
  return undefined;
}

/** The message of the 503 a client gets: what happened, and what a retry does. */
export function unavailableMessage(unavailable: DatabaseUnavailable): string {
  if (unavailable.full) {
    return (
      `the database cannot store a new row (${unavailable.reason}: an id sequence reached its maximum); nothing ` +
      'was applied, and a retry fails the same way until an operator acts (docs/operations.md); reads still work'
    );
  }
  if (unavailable.outcomeUnknown) {
    return (
      `the database connection was lost while the request was in flight (${unavailable.reason}): a read can simply ` +
      'be retried; a write may or may not have been applied: retry it with the same Idempotency-Key, which answers ' +
      'either way'
    );
  }
  if (unavailable.timedOut) {
    return `the database did not answer in time (${unavailable.reason}); nothing was applied, retry shortly`;
  }
  return `the database is unavailable (${unavailable.reason}); nothing was applied, retry shortly`;
}
