import { type ArgScalarType, ColumnTypeEnum, type SqlQueryable } from '@prisma/driver-adapter-utils';
import pg from 'pg';

const defaultParser = pg.types.getTypeParser.bind(pg.types) as (oid: number, format?: string) => unknown;

import type {
  ApiKeyModel,
  PetEventHorizonModel,
  PetEventModel,
  PetModel,
  RateLimitWindowModel,
} from '../generated/prisma/models.js';
import { sqlStateOf } from './database-errors.js';

// The hot statements skip the Prisma client's query pipeline, which measured at about 130 µs of CPU per query
// against 60 µs for the same statement sent through Prisma's driver adapter (docs/performance-history.md, the full
// run of 2026-11-23). The rule (docs/development.md#layers): a statement that runs on an API call's path is SQL
// text sent through `Sql` (pets/pets.service.ts: list, read and create a pet and its idempotency records;
// keys/api-keys.service.ts: the issued-key lookup; limits/rate-limit.store.ts: charging a rate limit and its sweep),
// and so are start-up's migration check and readiness (`@petstore/migrations`, which takes this Sql): the server never queries through
// the Prisma client, whose first query loads its query compiler (about 24 MB). The keys CLI uses the client. Which modules may import this one is in .dependency-cruiser.cjs.
//
// Two ways to send them, one result:
//   - PostgreSQL: straight on the pg.Pool (createPgSql), as the reference servers do: no driver adapter, so none of
//     its per-query work (debug calls, argument and argType conversion, column-type mapping). Rows are pg's own
//     parse of the text format, int8 parsed to a bigint, which for every column our statements return is what the
//     adapter path returns: int8 as a bigint, int2/int4 as numbers, booleans, text, bytea as a Buffer, NULL as
//     null. (The two differ on date, timestamp and json columns, which the adapter returns as text: none of ours
//     returns one.) Errors are pg's own, not wrapped in a DriverAdapterError; db/database-errors.ts reads both
//     shapes alike. db/sql.pg.test.ts runs every statement both ways, with the adapter as the oracle, and holds
//     the pet rows to what the Prisma client's findUnique returns for the same pet.
//
// Either way a row is a record keyed by the names the statement gives its columns, typed by the statement
// (`statement<PetRecord>(...)`, the record types being picks of Prisma's generated model types): no caller reads
// a column by its position, so adding or reordering a column in a SELECT cannot shift what a caller reads.
//   - PGlite: through its driver adapter (createAdapterSql), in process, with no pool to go straight to.

/** The argument types our statements use. */
type SqlArgType = Extract<ArgScalarType, 'string' | 'int' | 'bigint' | 'bytes'>;

/**
 * A statement argument and its type. A bigint is sent as its digits (exact beyond 2^53), bytes as a bytea (a
 * string typed `bytes` is base64, as Prisma's adapters read it), null as NULL.
 */
export type SqlArg = { value: string | number | bigint | Uint8Array | null; type: SqlArgType };

/**
 * A statement's text, typed with the row it returns. Rows are read by column NAME, never by position: a statement
 * names each column it returns (`category_id AS "categoryId"`), and the row type says what those names are, taken
 * from Prisma's generated model types where a column is a model field (see PetRecord), so that adding or
 * reordering a column in a SELECT changes no reader. A plain string is a statement whose rows are unknown records.
 */
export type Statement<Row> = string & { readonly rowType?: Row };

/** `text` as a statement whose rows are `Row`s (checked against Prisma's client by db/sql.pg.test.ts). */
export const statement = <Row extends object>(text: string): Statement<Row> => text as Statement<Row>;

/** A pet as the operations read it: the model's own field types (BigInt fields as bigint), named as in the model. */
export type PetRecord = Pick<PetModel, 'id' | 'name' | 'categoryId' | 'status'>;
/** An issued key as the per-request lookup reads it. */
export type ApiKeyRecord = Pick<ApiKeyModel, 'id'>;
/** A stored event of the change feed (events/pet-events.store.ts): the event and its snapshot of the pet. */
export type PetEventRow = Pick<PetEventModel, 'id' | 'kind' | 'petId' | 'name' | 'categoryId' | 'status'>;
/** How far the change feed's outbox has been pruned. */
export type PetEventHorizonRecord = Pick<PetEventHorizonModel, 'prunedThrough'>;
/** A rate-limit window's count after a charge. */
export type RateLimitRecord = Pick<RateLimitWindowModel, 'count'>;

export interface Sql {
  /**
   * Runs one parameterised statement (`$1`, `$2`...) and returns its rows as records keyed by column name; int8
   * columns come back as bigint (as the Prisma client returns a BigInt field), every other column as pg reads it.
   */
  rows<Row extends object = Record<string, unknown>>(
    statement: Statement<Row>,
    args?: readonly SqlArg[],
  ): Promise<Row[]>;
}

/** int8's type OID: its text is parsed to a bigint. */
const INT8_OID = 20;

export interface CreateSqlOptions {
  /** Named prepared statements, when the connection keeps them (see StatementNamer); none: all unnamed. */
  namer?: StatementNamer;
}

/**
 * `Sql` over a function that sends a statement once: a statement refused because its prepared name is missing or
 * taken on the server connection (`auto` mode, see StatementNamer) is sent again, unnamed.
 */
function withNameFallback(
  run: (statement: string, args: readonly SqlArg[]) => Promise<Record<string, unknown>[]>,
  namer: StatementNamer | undefined,
): Sql {
  return {
    async rows<Row extends object>(statement: Statement<Row>, args: readonly SqlArg[] = []) {
      try {
        return (await run(statement, args)) as Row[];
      } catch (error) {
        // The statement failed at Parse or Bind, before it ran: safe to send again, unnamed.
        if (namer?.fallBackOn(error) !== true) throw error;
        return (await run(statement, args)) as Row[];
      }
    },
  };
}

/** The hot statements through a Prisma driver adapter (PGlite; on PostgreSQL, the oracle of db/sql.pg.test.ts). */
export function createAdapterSql(queryable: SqlQueryable, { namer }: CreateSqlOptions = {}): Sql {
  const run = async (statement: string, args: readonly SqlArg[]) => {
    const result = await queryable.queryRaw({
      sql: statement,
      args: args.map((arg) => (typeof arg.value === 'bigint' ? arg.value.toString() : arg.value)),
      argTypes: args.map((arg) => ({ scalarType: arg.type, arity: 'scalar' })),
    });
    const { columnNames, columnTypes } = result;
    return result.rows.map((values) => {
      const record: Record<string, unknown> = {};
      for (let index = 0; index < columnNames.length; index++) {
        const value = values[index];
        record[columnNames[index] as string] =
          columnTypes[index] === ColumnTypeEnum.Int64 && value !== null ? int8(value) : value;
      }
      return record;
    });
  };
  return withNameFallback(run, namer);
}

/** pg's own text parsers, but int8 as a bigint (exact beyond 2^53, as the Prisma client returns it). */
const INT8_AS_BIGINT: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === INT8_OID
      ? (text: string) => BigInt(text)
      : defaultParser(oid, format)) as pg.CustomTypesConfig['getTypeParser'],
};

/** A value as pg sends it: pg itself writes a bigint as its digits and a Uint8Array as a bytea. */
const pgValue = ({ value, type }: SqlArg) =>
  typeof value === 'string' && type === 'bytes' ? Buffer.from(value, 'base64') : value;

interface CreatePgSqlOptions extends CreateSqlOptions {
  /**
   * Runs each statement (`run` sends it once): db/guarded-adapter.ts's `guarded`, which logs availability failures
   * and retries a read once, as it does on the adapter path. Handed in, so that this module stays free of the
   * logger's imports (config.ts names StatementMode from here).
   */
  guard: <T>(statement: string, run: () => Promise<T>) => Promise<T>;
}

/**
 * The hot statements straight on a pg pool (see the module comment): each statement checks a connection out of
 * `pool` for itself, named per `namer`, its rows as records.
 */
export function createPgSql(pool: pg.Pool, { namer, guard }: CreatePgSqlOptions): Sql {
  const run = (statement: string, args: readonly SqlArg[]) =>
    guard(statement, async () => {
      const values = new Array<unknown>(args.length);
      for (let index = 0; index < args.length; index++) values[index] = pgValue(args[index] as SqlArg);
      const result = await pool.query<Record<string, unknown>>({
        name: namer?.name({ sql: statement }),
        text: statement,
        values,
        types: INT8_AS_BIGINT,
      });
      return result.rows;
    });
  return withNameFallback(run, namer);
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
  /**
   * The name for a statement text ('' is pg's unnamed statement); on the adapter path, PrismaPg's
   * statementNameGenerator.
   */
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

/** An int8 column as the adapters return it (its digits from adapter-pg; a bigint or a number from PGlite). */
const int8 = (value: unknown): bigint =>
  typeof value === 'bigint' ? value : BigInt(value as string | number);
