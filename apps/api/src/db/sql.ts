import type { ArgScalarType, SqlQueryable } from '@prisma/driver-adapter-utils';
import { sqlStateOf } from './database-errors.js';

// The hot statements go to the database through Prisma's own driver adapter (the same pool, the same PGlite, the
// same error kinds) but not through the Prisma client's query pipeline, which measured at about 130 µs of CPU per
// query against 60 µs for the same statement sent through the adapter (docs/performance-history.md, the full run of
// 2026-11-23). The rule (docs/development.md#layers): a statement that runs on an API call's path is SQL
// text sent through `Sql` (pets/pets.service.ts: list, read and create a pet and its idempotency records;
// keys/api-keys.service.ts: the issued-key lookup; limits/rate-limit.store.ts: charging a rate limit), and so is
// start-up's migration check (db/applied-migrations.ts, so that a restart never loads the client's pipeline).
// Everything else uses the Prisma client. Which modules may import this one is in .dependency-cruiser.cjs.

/** A statement argument and the type Prisma's adapters expect for it. */
export type SqlArg = { value: string | number | bigint | Uint8Array | null; type: ArgScalarType };

export interface Sql {
  /** Runs one parameterised statement (`$1`, `$2`...) and returns its rows as arrays, columns in SELECT order. */
  rows(statement: string, args?: readonly SqlArg[]): Promise<unknown[][]>;
}

export interface CreateSqlOptions {
  /** Named prepared statements, when the connection keeps them (see StatementNamer); none: all unnamed. */
  namer?: StatementNamer;
}

export function createSql(queryable: SqlQueryable, { namer }: CreateSqlOptions = {}): Sql {
  const run = async (statement: string, args: readonly SqlArg[]) =>
    (
      await queryable.queryRaw({
        sql: statement,
        args: args.map((arg) => (typeof arg.value === 'bigint' ? arg.value.toString() : arg.value)),
        argTypes: args.map((arg) => ({ scalarType: arg.type, arity: 'scalar' })),
      })
    ).rows;
  return {
    async rows(statement, args = []) {
      try {
        return await run(statement, args);
      } catch (error) {
        // The statement failed at Parse or Bind, before it ran: safe to send again, unnamed.
        if (namer?.fallBackOn(error) !== true) throw error;
        return await run(statement, args);
      }
    },
  };
}

/**
 * How statements are sent (DATABASE_STATEMENTS, config.ts; docs/operations.md#connection-poolers):
 *   - `named`: prepared once per connection under a name, then only bound and executed;
 *   - `unnamed`: parsed on every call, as one Parse/Bind/Execute (what a transaction-mode pooler without
 *     prepared-statement tracking, such as PgBouncer before 1.21, needs: consecutive statements of one client
 *     connection may reach different server connections, which do not share names);
 *   - `auto`: named, unless a transaction-mode pooler is found at start-up (db/pooler.ts), or a statement fails
 *     because its name is missing or taken on the server connection (42P05, 26000): then unnamed from that
 *     statement on (it is sent again, unnamed: a statement refused at Parse or Bind did not run).
 */
export type StatementMode = 'auto' | 'named' | 'unnamed';

/** SQLSTATEs of a name that the server connection does not have, or has for another statement. */
const NAME_CLASHES = new Set(['42P05', '26000']);

export interface StatementNamer {
  /** The name for a statement text ('' is pg's unnamed statement): pass to PrismaPg as statementNameGenerator. */
  name(query: { sql: string }): string;
  /** True while statements are named. */
  readonly named: boolean;
  /** Stops naming statements from now on. */
  unname(): void;
  /**
   * In `auto` mode, when `error` is a prepared-statement name clash: stops naming, calls `onFallBack` once, and
   * returns true (send the statement again). False otherwise.
   */
  fallBackOn(error: unknown): boolean;
}

/**
 * Names for prepared statements: each distinct statement text gets one name, so PostgreSQL parses and plans it
 * once per connection instead of on every call. Bounded: past `max` distinct texts, statements go unnamed.
 */
export function createStatementNamer(
  mode: StatementMode,
  { max = 64, onFallBack = () => {} }: { max?: number; onFallBack?: (sqlstate: string) => void } = {},
): StatementNamer {
  const names = new Map<string, string>();
  let named = mode !== 'unnamed';
  return {
    name({ sql }) {
      if (!named) return '';
      let name = names.get(sql);
      if (name === undefined && names.size < max) {
        name = `petstore_${names.size}`;
        names.set(sql, name);
      }
      return name ?? '';
    },
    get named() {
      return named;
    },
    unname() {
      named = false;
    },
    fallBackOn(error) {
      const sqlstate = sqlStateOf(error);
      if (mode !== 'auto' || sqlstate === undefined || !NAME_CLASHES.has(sqlstate)) return false;
      // Statements named before the switch may still fail this way: each is sent again; the log says it once.
      if (named) {
        named = false;
        onFallBack(sqlstate);
      }
      return true;
    },
  };
}

/** An int8 column as the adapters return it (text from pg, bigint or number from PGlite), as a bigint. */
export const int8 = (value: unknown): bigint =>
  typeof value === 'bigint' ? value : BigInt(value as string | number);
