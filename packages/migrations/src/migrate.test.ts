// The migration tooling on an in-memory PGlite (testing.ts holds the tests; the api runs the same ones on
// PostgreSQL, with the advisory lock, in apps/api/src/db/migrations.test.ts), and the committed migrations
// against prisma/schema.prisma.
import { PGlite } from '@electric-sql/pglite';
import { describe, expect, it } from 'vitest';
import { timeouts } from '../../../tooling/vitest.shared.js';
import { diffMigrationsToSchema } from './migration-diff.js';
import { pgliteMigrationAdapter } from './pglite-migration-adapter.js';
import { describeMigrationTooling } from './testing.js';

let pglite: PGlite | undefined;
describeMigrationTooling('on in-memory PGlite', {
  open: async () => {
    const opened = new PGlite();
    pglite = opened;
    return {
      migrationAdapter: pgliteMigrationAdapter(opened),
      query: async (sql) => (await opened.query<Record<string, unknown>>(sql)).rows,
    };
  },
  close: async () => {
    await pglite?.close();
  },
  timeout: timeouts.server,
});

describe('the committed migrations', () => {
  it(
    'build exactly prisma/schema.prisma (no drift)',
    async () => {
      expect(await diffMigrationsToSchema()).toBe('');
    },
    timeouts.server,
  );
});
