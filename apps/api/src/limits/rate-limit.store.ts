import { type RateLimitRecord, type Sql, statement } from '../db/sql.js';

/** What a charge did: admitted (the count includes it) or refused (nothing charged); the count either way. */
export interface Charge {
  admitted: boolean;
  count: number;
}

/** Per-key request counts per window, in the database so that every instance on it shares them. */
export interface RateLimitStore {
  /**
   * Adds `cost` to the subject's count in the window if the sum stays within `limit`, in one statement: nothing is
   * ever added and given back, so no other instance can see a count that was not admitted.
   */
  charge(subject: string, windowStart: Date, cost: number, limit: number): Promise<Charge>;
  /** The subject's count in the window, as it is now (0 before its first charge). */
  count(subject: string, windowStart: Date): Promise<number>;
  /** Forgets windows that started before `before`. */
  sweep(before: Date): Promise<void>;
}

// On every request that may fit when a limit is set: a hot statement (db/sql.ts), prepared once per connection.
// No row comes back when the count would pass the limit; the row is then left as it was.
const CHARGE = statement<RateLimitRecord>(`INSERT INTO rate_limit_windows AS w (subject, window_start, count)
  SELECT $1, $2::timestamptz, $3::int WHERE $3::int <= $4::int
  ON CONFLICT (subject, window_start) DO UPDATE SET count = w.count + EXCLUDED.count WHERE w.count + EXCLUDED.count <= $4::int
  RETURNING count`);

// For a refusal only: what is left, for the 429's `RateLimit` (counts only grow within a window, so the refused
// cost does not fit in what this reads either).
const COUNT = statement<RateLimitRecord>(
  'SELECT count FROM rate_limit_windows WHERE subject = $1 AND window_start = $2::timestamptz',
);

// Once a minute, off the request path. A hot statement too rather than the Prisma client's deleteMany: that
// client's first query would load its WebAssembly query compiler, about 24 MB of resident memory that the server
// needs for nothing else (issue 28). test/rate-limit-store.test.ts holds it to deleteMany's verdict.
const SWEEP = 'DELETE FROM rate_limit_windows WHERE window_start < $1::timestamptz';

export function createRateLimitStore(sql: Sql): RateLimitStore {
  const windowOf = (subject: string, windowStart: Date) =>
    [
      { value: subject, type: 'string' },
      { value: windowStart.toISOString(), type: 'string' },
    ] as const;
  const count = async (subject: string, windowStart: Date) =>
    (await sql.rows(COUNT, windowOf(subject, windowStart)))[0]?.count ?? 0;
  return {
    async charge(subject, windowStart, cost, limit) {
      const [charged] = await sql.rows(CHARGE, [
        ...windowOf(subject, windowStart),
        { value: cost, type: 'int' },
        { value: limit, type: 'int' },
      ]);
      if (charged !== undefined) return { admitted: true, count: charged.count };
      return { admitted: false, count: await count(subject, windowStart) };
    },
    count,
    async sweep(before) {
      await sql.rows(SWEEP, [{ value: before.toISOString(), type: 'string' }]);
    },
  };
}
