import type { SqlDriverAdapter, SqlDriverAdapterFactory, SqlQuery } from '@prisma/driver-adapter-utils';
import type { Logger } from '../logger.js';
import { classifyDatabaseError } from './database-errors.js';

// Every statement is wrapped once: a database that cannot serve it is logged once, at warn (the transports answer
// 503 and log nothing more), and a read outside a transaction is retried once on another connection
// (docs/operations.md#database-restarts-and-failovers). Writes are never repeated: one whose connection died may
// have committed, and only the client's Idempotency-Key can settle that.

export interface GuardOptions {
  logger: Logger;
  /** Repeat a failed read once (PostgreSQL: a pool of connections to try another of; not PGlite). */
  retryReads: boolean;
}

// Our SELECTs have no side effects.
const READ = /^\s*select\b/i;

/** Runs one statement (`run` sends it): an availability failure logged and, a read, retried once; others untouched. */
export async function guarded<T>(
  options: GuardOptions,
  statement: string,
  run: () => Promise<T>,
): Promise<T> {
  let failed: { error: unknown; reason: string } | undefined;
  for (;;) {
    try {
      const result = await run();
      if (failed !== undefined) {
        options.logger.warn(
          { reason: failed.reason, statement: statement.slice(0, 60), err: failed.error },
          'database unavailable for a read; it succeeded on a second connection',
        );
      }
      return result;
    } catch (error) {
      const unavailable = classifyDatabaseError(error);
      if (unavailable === undefined) throw error;
      const retried = failed !== undefined;
      // A time limit hit is a stuck or partitioned database, not a dead connection: a second try would only
      // double the caller's wait (and the stall's load), so it answers 503 at once.
      if (retried || !options.retryReads || unavailable.timedOut || !READ.test(statement)) {
        const { reason, outcomeUnknown } = unavailable;
        options.logger.warn(
          {
            sqlstate: /^[0-9A-Z]{5}$/.test(reason) ? reason : undefined,
            reason,
            outcomeUnknown,
            retried,
            statement: statement.slice(0, 60),
            err: error,
          },
          'database unavailable for a statement (the request answers 503)',
        );
        throw error;
      }
      failed = { error, reason: unavailable.reason };
    }
  }
}

/** `target` with `methods` in place of its own; its other methods bound to it. */
function overriding<T extends object>(target: T, methods: Partial<T>): T {
  return new Proxy(target, {
    get(target, property) {
      if (Object.hasOwn(methods, property)) return methods[property as keyof T];
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** The adapter with its availability failures logged and its reads retried once (see the module comment). */
export function guardAdapter(adapter: SqlDriverAdapter, options: GuardOptions): SqlDriverAdapter {
  // Only a read outside a transaction is retried.
  const logged = { logger: options.logger, retryReads: false };
  return overriding(adapter, {
    queryRaw: (query: SqlQuery) => guarded(options, query.sql, () => adapter.queryRaw(query)),
    executeRaw: (query: SqlQuery) => guarded(logged, query.sql, () => adapter.executeRaw(query)),
    executeScript: (script: string) => guarded(logged, script, () => adapter.executeScript(script)),
    startTransaction: async (isolationLevel) => {
      const transaction = await guarded(logged, 'BEGIN', () => adapter.startTransaction(isolationLevel));
      return overriding(transaction, {
        queryRaw: (query: SqlQuery) => guarded(logged, query.sql, () => transaction.queryRaw(query)),
        executeRaw: (query: SqlQuery) => guarded(logged, query.sql, () => transaction.executeRaw(query)),
        commit: () => guarded(logged, 'COMMIT', () => transaction.commit()),
      });
    },
  });
}

/** A factory whose adapters are guarded (for the Prisma client, which connects itself). */
export function guardAdapterFactory<F extends SqlDriverAdapterFactory>(factory: F, options: GuardOptions): F {
  return overriding<SqlDriverAdapterFactory>(factory, {
    connect: async () => guardAdapter(await factory.connect(), options),
  }) as F;
}
