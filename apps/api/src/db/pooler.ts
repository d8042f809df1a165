import type pg from 'pg';

// Is a transaction-mode pooler (PgBouncer, Odyssey, pgcat, RDS Proxy...) between the api and PostgreSQL? Named
// prepared statements (db/sql.ts) break on one that does not track them, and LISTEN on any
// (docs/operations.md#connection-poolers).

export interface PoolerProbe {
  /** Two client connections shared a server session, or one client connection moved to another. */
  transactionPooler: boolean;
  /** statement_timeout as the server session has it ('0': the start-up parameter did not arrive). */
  statementTimeout: string;
}

const BACKEND = "SELECT pg_backend_pid() AS pid, current_setting('statement_timeout') AS statement_timeout";
type Backend = { pid: number; statement_timeout: string };
const backend = async (client: pg.PoolClient) => (await client.query<Backend>(BACKEND)).rows[0] as Backend;

/**
 * By the server process (`pg_backend_pid()`) each statement of two client connections ran in: A runs one, B opens a
 * transaction and runs one, A runs one again. A transaction-mode pooler frees A's server connection between its
 * statements: B is given it (poolers reuse the connection freed last), or A comes back on another one.
 */
export async function probePooler(pool: pg.Pool): Promise<PoolerProbe> {
  const a = await pool.connect();
  const b = await pool.connect().catch((error: unknown) => {
    a.release();
    throw error;
  });
  try {
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
    a.release();
  }
}
