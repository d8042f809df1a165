import type pg from 'pg';

// What is between the api and PostgreSQL, found at start-up (db/database.ts): a transaction-mode pooler
// (PgBouncer, Odyssey, pgcat, RDS Proxy...) hands each transaction of a client connection to whichever server
// connection is free. Named prepared statements (db/sql.ts) then break on poolers that do not track them, and
// start-up parameters (statement_timeout...) may be dropped. docs/operations.md#connection-poolers.

export interface PoolerProbe {
  /** Two client connections shared a server session, or one client connection moved to another. */
  transactionPooler: boolean;
  /** statement_timeout as the server session has it ('0': the start-up parameter did not arrive). */
  statementTimeout: string;
}

/**
 * Checks with two client connections of `pool`, by the server process each statement ran in
 * (`pg_backend_pid()`): A runs a statement, then B opens a transaction and runs one, then A runs one again. Straight
 * to PostgreSQL, or through a session-mode pooler, A keeps one server process and B has another. Through a
 * transaction-mode pooler, A's server connection is free between its statements: B is given it (poolers reuse
 * the connection freed last), or A comes back on another one while B holds it.
 */
export async function probePooler(pool: pg.Pool): Promise<PoolerProbe> {
  const a = await pool.connect();
  try {
    const b = await pool.connect();
    try {
      const backend = async (client: pg.PoolClient) =>
        (
          await client.query<{ pid: number; statement_timeout: string }>(
            "SELECT pg_backend_pid() AS pid, current_setting('statement_timeout') AS statement_timeout",
          )
        ).rows[0] as { pid: number; statement_timeout: string };
      const first = await backend(a);
      await b.query('BEGIN');
      try {
        const held = await backend(b);
        const again = await backend(a);
        return {
          transactionPooler: held.pid === first.pid || again.pid !== first.pid,
          statementTimeout: first.statement_timeout,
        };
      } finally {
        await b.query('ROLLBACK');
      }
    } finally {
      b.release();
    }
  } finally {
    a.release();
  }
}
