// The `pg` stand-in the Fastify reference tests share: rows as the mains' int8 parser gives them (bigint). The
// tests are about the routes and rules, not the database.
import type pg from 'pg';

export const KEY = 'bench-key-0123456789abcdef';
export const rex = () => ({
  id: 9007199254740993n,
  name: 'Rex',
  categoryId: 7n,
  status: null as string | null,
});

/** A pool whose queries answer from `rex`; `onQuery` sees each statement's name and values. */
export function stubPool(onQuery: (query: { name: string; values: unknown[] }) => void = () => {}): pg.Pool {
  return {
    query: async ({ name, values }: { name: string; values: unknown[] }) => {
      onQuery({ name, values });
      if (name === 'get_one') return { rows: values[0] === '9007199254740993' ? [rex()] : [] };
      if (name === 'insert') {
        const [petName, categoryId, status] = values as [string, string, string | null];
        return { rows: [{ id: 10n, name: petName, categoryId: BigInt(categoryId), status }] };
      }
      return { rows: [rex(), { ...rex(), id: 2n, status: 'sold' }] };
    },
  } as unknown as pg.Pool;
}
