// The PostgreSQL time limits of the api's connections (what each bounds: docs/operations.md, "What bounds it"),
// read by config.ts and db/database.ts: a module of its own, so that parsing the configuration loads no driver.

export interface DatabaseLimits {
  statementTimeoutMs: number;
  idleInTransactionTimeoutMs: number;
  /** The wait for a pool connection, a new connection's handshake included (pg's connectionTimeoutMillis). */
  acquireTimeoutMs: number;
}

/** Our statements take milliseconds: seconds mean a stuck or unreachable database, and a 503 says so quickly. */
export const DEFAULT_DATABASE_LIMITS: DatabaseLimits = {
  statementTimeoutMs: 2_500,
  idleInTransactionTimeoutMs: 10_000,
  acquireTimeoutMs: 3_000,
};

/**
 * How much longer than statement_timeout the client waits for an answer (db/database.ts giveUpWhenSilent): the server's own
 * cancel (a clean 57014, the connection kept) comes first, and a server that cannot answer at all still costs a
 * bounded wait.
 */
export const QUERY_TIMEOUT_MARGIN_MS = 500;
