import type {
  SqlDriverAdapter,
  SqlDriverAdapterFactory,
  SqlQuery,
  SqlResultSet,
  Transaction,
} from '@prisma/driver-adapter-utils';
import type { Logger } from '../logger.js';
import { classifyDatabaseError, type DatabaseUnavailable } from './database-errors.js';

// Every statement of the app goes through a driver adapter (the Prisma client's; on PGlite our hot ones too) or,
// on PostgreSQL, straight on the pool (our hot ones, db/sql.ts); this wraps each once, so that a database that
// cannot serve a statement is
//   - logged once, at warn, with its SQLSTATE (the transports answer 503 and log nothing more: it is not a bug);
//   - retried once when that is safe and useful: a read (a statement that starts with SELECT; ours have no side
//     effects), outside a transaction, whose connection was lost or refused (not a time limit: see below) before
//     any row reached us (the adapters and pg return all rows at once, so a failed statement returned none). On
//     PostgreSQL each such statement checks a connection out of the pool, and pg-pool discards the one that
//     failed, so the retry runs on another connection. Writes are never repeated here: one whose connection died
//     may have committed, and only the client's Idempotency-Key can settle that (db/database-errors.ts says so in
//     the 503).

export interface GuardOptions {
  logger: Logger;
  /** Repeat a failed read once (PostgreSQL: a pool of connections to try another of; not PGlite). */
  retryReads: boolean;
}

const READ = /^\s*select\b/i;

function logUnavailable(
  logger: Logger,
  unavailable: DatabaseUnavailable,
  error: unknown,
  context: { statement: string; retried: boolean },
): void {
  logger.warn(
    {
      sqlstate: /^[0-9A-Z]{5}$/.test(unavailable.reason) ? unavailable.reason : undefined,
      reason: unavailable.reason,
      outcomeUnknown: unavailable.outcomeUnknown,
      retried: context.retried,
      statement: context.statement.slice(0, 60),
      err: error,
    },
    'database unavailable for a statement (the request answers 503)',
  );
}

/** Runs `run`, logging (and rethrowing) an availability failure; other errors pass through untouched. */
async function logged<T>(logger: Logger, statement: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    const unavailable = classifyDatabaseError(error);
    if (unavailable !== undefined) logUnavailable(logger, unavailable, error, { statement, retried: false });
    throw error;
  }
}

function guardTransaction(transaction: Transaction, options: GuardOptions): Transaction {
  return new Proxy(transaction, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (property === 'queryRaw' || property === 'executeRaw') {
        return (query: SqlQuery) => logged(options.logger, query.sql, () => value.call(target, query));
      }
      if (property === 'commit') return () => logged(options.logger, 'COMMIT', () => value.call(target));
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/**
 * Runs one statement outside a transaction (`run` sends it), with its availability failure logged and, when it is
 * a read, retried once (see the module comment). Other errors pass through untouched. The adapter's queryRaw goes
 * through here, and so do the hot statements sent straight on pg (db/sql.ts).
 */
export async function guarded<T>(
  options: GuardOptions,
  statement: string,
  run: () => Promise<T>,
): Promise<T> {
  try {
    return await run();
  } catch (error) {
    const unavailable = classifyDatabaseError(error);
    if (unavailable === undefined) throw error;
    // A time limit hit is a stuck or partitioned database, not a dead connection: a second try would only
    // double the caller's wait (and the stall's load), so it answers 503 at once.
    if (!options.retryReads || unavailable.timedOut || !READ.test(statement)) {
      logUnavailable(options.logger, unavailable, error, { statement, retried: false });
      throw error;
    }
    try {
      const result = await run();
      options.logger.warn(
        { reason: unavailable.reason, statement: statement.slice(0, 60), err: error },
        'database unavailable for a read; it succeeded on a second connection',
      );
      return result;
    } catch (again) {
      const still = classifyDatabaseError(again);
      if (still !== undefined) logUnavailable(options.logger, still, again, { statement, retried: true });
      throw again;
    }
  }
}

/** The adapter with its availability failures logged and its reads retried once (see the module comment). */
export function guardAdapter(adapter: SqlDriverAdapter, options: GuardOptions): SqlDriverAdapter {
  const queryRaw = (query: SqlQuery): Promise<SqlResultSet> =>
    guarded(options, query.sql, () => adapter.queryRaw(query));
  return new Proxy(adapter, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (property === 'queryRaw') return queryRaw;
      if (property === 'executeRaw') {
        return (query: SqlQuery) => logged(options.logger, query.sql, () => value.call(target, query));
      }
      if (property === 'executeScript') {
        return (script: string) => logged(options.logger, script, () => value.call(target, script));
      }
      if (property === 'startTransaction') {
        return async (...args: unknown[]) =>
          guardTransaction(
            await logged(options.logger, 'BEGIN', () => value.apply(target, args) as Promise<Transaction>),
            options,
          );
      }
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** A factory whose adapters are guarded (for the Prisma client, which connects itself). */
export function guardAdapterFactory<F extends SqlDriverAdapterFactory>(factory: F, options: GuardOptions): F {
  return new Proxy(factory, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (property === 'connect') {
        return async () => guardAdapter(await target.connect(), options);
      }
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
