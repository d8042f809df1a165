import { type ArgScalarType, ColumnTypeEnum, type SqlQueryable } from '@prisma/driver-adapter-utils';
import pg from 'pg';
import type {
  ApiKeyModel,
  PetEventHorizonModel,
  PetEventModel,
  PetModel,
  RateLimitWindowModel,
} from '../generated/prisma/models.js';
import { sqlStateOf } from './database-errors.js';

// The hot statements, without the Prisma client's query pipeline (docs/development.md#layers): straight on the
// pg.Pool on PostgreSQL, through PGlite's driver adapter. Both give the same rows for our columns (int8 as bigint,
// bytea as a Buffer); they differ on date, timestamp and json, which none of ours returns.

/** A statement argument. A bigint is sent as its digits, bytes as a bytea (a `bytes` string is base64), null as NULL. */
export type SqlArg = {
  value: string | number | bigint | Uint8Array | null;
  type: Extract<ArgScalarType, 'string' | 'int' | 'bigint' | 'bytes'>;
};

/** A statement's text, typed with its row; rows are read by column name (`category_id AS "categoryId"`). */
export type Statement<Row> = string & { readonly rowType?: Row };

/** `text` as a statement whose rows are `Row`s (checked against Prisma's client by db/sql.pg.test.ts). */
export const statement = <Row extends object>(text: string): Statement<Row> => text as Statement<Row>;

export type PetRecord = Pick<PetModel, 'id' | 'name' | 'categoryId' | 'status'>;
export type ApiKeyRecord = Pick<ApiKeyModel, 'id'>;
/** A stored event of the change feed (events/pet-events.store.ts): the event, its snapshot of the pet, its txid. */
export type PetEventRow = Pick<PetEventModel, 'id' | 'kind' | 'petId' | 'name' | 'categoryId' | 'status'> &
  Pick<PetModel, 'txid'>;
export type PetEventHorizonRecord = Pick<PetEventHorizonModel, 'prunedThrough'>;
export type RateLimitRecord = Pick<RateLimitWindowModel, 'count'>;

export interface Sql {
  /** Runs one parameterised statement (`$1`, `$2`...); its rows as records keyed by column name, int8 as bigint. */
  rows<Row extends object = Record<string, unknown>>(
    statement: Statement<Row>,
    args?: readonly SqlArg[],
  ): Promise<Row[]>;
}

type Run = (statement: string, args: readonly SqlArg[]) => Promise<Record<string, unknown>[]>;

/** `Sql` over `run`; a statement refused for its prepared name is sent again, unnamed. */
function withNameFallback(run: Run, namer: StatementNamer | undefined): Sql {
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
export function createAdapterSql(queryable: SqlQueryable, { namer }: { namer?: StatementNamer } = {}): Sql {
  const run: Run = async (statement, args) => {
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
        // int8 comes as its digits from adapter-pg, as a bigint or a number from PGlite.
        record[columnNames[index] as string] =
          columnTypes[index] === ColumnTypeEnum.Int64 && value !== null ? BigInt(value as string) : value;
      }
      return record;
    });
  };
  return withNameFallback(run, namer);
}

/** pg's own text parsers, but int8 as a bigint (exact beyond 2^53, as the Prisma client returns it). */
const INT8_AS_BIGINT: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text') =>
    oid === pg.types.builtins.INT8
      ? (text: string) => BigInt(text)
      : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig['getTypeParser'],
};

/** The hot statements straight on a pg pool; `guard` is guarded-adapter.ts's `guarded`, handed in (no logger here). */
export function createPgSql(
  pool: pg.Pool,
  options: { namer?: StatementNamer; guard: <T>(statement: string, run: () => Promise<T>) => Promise<T> },
): Sql {
  const { namer, guard } = options;
  const run: Run = (statement, args) =>
    guard(statement, async () => {
      const result = await pool.query<Record<string, unknown>>({
        name: namer?.name({ sql: statement }),
        text: statement,
        // pg itself writes a bigint as its digits and a Uint8Array as a bytea.
        values: args.map(({ value, type }) =>
          typeof value === 'string' && type === 'bytes' ? Buffer.from(value, 'base64') : value,
        ),
        types: INT8_AS_BIGINT,
      });
      return result.rows;
    });
  return withNameFallback(run, namer);
}

/** DATABASE_STATEMENTS (docs/operations.md#connection-poolers). */
export type StatementMode = 'auto' | 'named' | 'unnamed';

/** SQLSTATEs of a prepared name that the server connection does not have, or has for another statement. */
const NAME_CLASHES = new Set(['42P05', '26000']);

type StatementNamer = ReturnType<typeof createStatementNamer>;

/** Prepared statement names, one per distinct text (each planned once per connection); past 64 texts, unnamed. */
export function createStatementNamer(
  mode: StatementMode,
  { onFallBack = () => {} }: { onFallBack?: (sqlstate: string) => void } = {},
) {
  const names = new Map<string, string>();
  let named = mode !== 'unnamed';
  return {
    /** The name for a statement text ('' is pg's unnamed statement); on the adapter path, statementNameGenerator. */
    name({ sql }: { sql: string }): string {
      if (!named) return '';
      let name = names.get(sql);
      if (name === undefined && names.size < 64) {
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
    /** In `auto` mode, on a name clash: stops naming, calls `onFallBack` once, and returns true (send it again). */
    fallBackOn(error: unknown): boolean {
      const sqlstate = sqlStateOf(error);
      if (mode !== 'auto' || sqlstate === undefined || !NAME_CLASHES.has(sqlstate)) return false;
      // Statements named before the switch may still fail this way: each is sent again, logged once.
      if (named) {
        named = false;
        onFallBack(sqlstate);
      }
      return true;
    },
  };
}
