// The PostgreSQL time limits of the api's connections, with their defaults: read by config.ts (the env
// variables) and db/database.ts (the pool). A module of its own so that parsing the configuration loads no
// driver. What an operator sees when one is hit is in docs/operations.md.

/** How long a statement, an idle transaction and a wait for a connection may take. */
export interface DatabaseLimits {
  /** `statement_timeout` of every connection: the server cancels a longer statement (57014, a 503). */
  statementTimeoutMs: number;
  /** `idle_in_transaction_session_timeout`: a transaction left open this long is rolled back, its session ended. */
  idleInTransactionTimeoutMs: number;
  /** Longest wait for a pool connection, a new connection's handshake included (pg's connectionTimeoutMillis). */
  acquireTimeoutMs: number;
}

/** Our statements take milliseconds: seconds mean a stuck or unreachable database, and a 503 says so quickly. */
export const DEFAULT_DATABASE_LIMITS: DatabaseLimits = {
  statementTimeoutMs: 2_500,
  idleInTransactionTimeoutMs: 10_000,
  acquireTimeoutMs: 3_000,
};

/**
 * How much longer than statement_timeout the client waits for an answer before it gives up on the connection
 * (pg's query_timeout): the server's own cancel (a clean 57014, the connection kept) comes first, and a server
 * that cannot answer at all (a silent partition, a stopped process) still costs a bounded wait.
 */
export const QUERY_TIMEOUT_MARGIN_MS = 500;
