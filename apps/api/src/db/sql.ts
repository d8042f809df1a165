import type { ArgScalarType, SqlQueryable } from '@prisma/driver-adapter-utils';

// The hot statements (list, read and create a pet; charge a rate limit) go to the database through Prisma's own
// driver adapter (the same pool, the same PGlite, the same error kinds) but not through the Prisma client's query
// pipeline, which measured at about 130 µs of CPU per query against 60 µs for the same statement sent through
// the adapter (apps/api/bench-notes in docs/performance.md). Everything else uses the Prisma client.

/** A statement argument and the type Prisma's adapters expect for it. */
export type SqlArg = { value: string | number | bigint | Uint8Array | null; type: ArgScalarType };

export interface Sql {
  /** Runs one parameterised statement (`$1`, `$2`...) and returns its rows as arrays, columns in SELECT order. */
  rows(statement: string, args?: readonly SqlArg[]): Promise<unknown[][]>;
}

export function createSql(queryable: SqlQueryable): Sql {
  return {
    async rows(statement, args = []) {
      const result = await queryable.queryRaw({
        sql: statement,
        args: args.map((arg) => (typeof arg.value === 'bigint' ? arg.value.toString() : arg.value)),
        argTypes: args.map((arg) => ({ scalarType: arg.type, arity: 'scalar' })),
      });
      return result.rows;
    },
  };
}

/**
 * Names for prepared statements: each distinct statement text gets one name, so PostgreSQL parses and plans it
 * once per connection instead of on every call. Bounded: past `max` distinct texts, statements go unnamed.
 */
export function statementNames(max = 64): (query: { sql: string }) => string {
  const names = new Map<string, string>();
  return ({ sql }) => {
    let name = names.get(sql);
    if (name === undefined && names.size < max) {
      name = `petstore_${names.size}`;
      names.set(sql, name);
    }
    return name ?? ''; // '' is pg's unnamed statement
  };
}

/** An int8 column as the adapters return it (text from pg, bigint or number from PGlite), as a bigint. */
export const int8 = (value: unknown): bigint =>
  typeof value === 'bigint' ? value : BigInt(value as string | number);
