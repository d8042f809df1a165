import { type RateLimitRecord, type Sql, statement } from '../db/sql.js';

/** Per-key request counts per window, in the database so that every instance on it shares them. */
export interface RateLimitStore {
  /** Adds `cost` (negative: gives it back) to the subject's count in the window; returns the new count. */
  charge(subject: string, windowStart: Date, cost: number): Promise<number>;
  /** Forgets windows that started before `before`. */
  sweep(before: Date): Promise<void>;
}

// On every request that may fit when a limit is set, and to give back what refused ones were charged: a hot
// statement (db/sql.ts), prepared once per connection.
const CHARGE =
  statement<RateLimitRecord>(`INSERT INTO rate_limit_windows (subject, window_start, count) VALUES ($1, $2::timestamptz, $3)
  ON CONFLICT (subject, window_start) DO UPDATE SET count = rate_limit_windows.count + EXCLUDED.count
  RETURNING count`);

// Once a minute, off the request path. A hot statement too rather than the Prisma client's deleteMany: that
// client's first query would load its WebAssembly query compiler, about 24 MB of resident memory that the server
// needs for nothing else (issue 28). test/rate-limit-store.test.ts holds it to deleteMany's verdict.
const SWEEP = 'DELETE FROM rate_limit_windows WHERE window_start < $1::timestamptz';

export function createRateLimitStore(sql: Sql): RateLimitStore {
  return {
    async charge(subject, windowStart, cost) {
      const [row] = await sql.rows(CHARGE, [
        { value: subject, type: 'string' },
        { value: windowStart.toISOString(), type: 'string' },
        { value: cost, type: 'int' },
      ]);
      return row === undefined ? cost : row.count;
    },
    async sweep(before) {
      await sql.rows(SWEEP, [{ value: before.toISOString(), type: 'string' }]);
    },
  };
}
