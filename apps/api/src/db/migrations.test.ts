// The committed migrations (prisma/migrations) on the api's databases: the tooling's tests on PostgreSQL
// (@petstore/migrations/testing; the package runs them on PGlite), the advisory lock, the Prisma client on the
// result, the indexes the statements rely on, and the migrations that move data, checked with the api's own code.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import {
  applyPendingMigrations,
  MIGRATION_ADVISORY_LOCK_KEY,
  pgMigrationAdapter,
} from '@petstore/migrations';
import { pgliteMigrationAdapter } from '@petstore/migrations/pglite';
import {
  committedMigrations as committed,
  describeMigrationTooling,
  migrationsCopy,
} from '@petstore/migrations/testing';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { describe, expect, it } from 'vitest';
import { timeouts } from '../../../../tooling/vitest.shared.js';
import { createTestDatabase } from '../../test/support/test-database.js';
import { sequenceEvents } from '../events/pet-events.store.js';
import { PrismaClient } from '../generated/prisma/client.js';
import { idempotencyKeyHash } from '../idempotency/idempotency.js';
import { createAdapterSql } from './sql.js';

let opened: { prisma: PrismaClient; client: pg.Client; drop(): Promise<void> } | undefined;
const prisma = () => {
  if (!opened) throw new Error('beforeAll did not open the database');
  return opened.prisma;
};
describeMigrationTooling(
  'on PostgreSQL',
  {
    open: async () => {
      const database = await createTestDatabase('migrate');
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      opened = {
        prisma: new PrismaClient({ adapter: new PrismaPg({ connectionString: database.url }) }),
        client,
        drop: () => database.drop(),
      };
      return {
        migrationAdapter: pgMigrationAdapter(database.url),
        query: async (sql) => (await client.query<Record<string, unknown>>(sql)).rows,
      };
    },
    close: async () => {
      await opened?.prisma.$disconnect();
      await opened?.client.end();
      await opened?.drop();
    },
    timeout: timeouts.hook,
  },
  (db) => {
    it('gives the Prisma client a schema it can create and count pets in', async () => {
      const pet = await prisma().pet.create({
        data: { name: 'Rex', categoryId: 7n, status: 'available' },
      });
      expect(pet).toMatchObject({ id: expect.any(BigInt), name: 'Rex', categoryId: 7n, status: 'available' });
      expect(await prisma().pet.count()).toBe(1);
    });

    it('makes a migrator wait while another one holds the migration lock', async () => {
      await db().query(`SELECT pg_advisory_lock(${MIGRATION_ADVISORY_LOCK_KEY})`);
      let settled = false;
      const run = applyPendingMigrations(db().migrationAdapter).finally(() => {
        settled = true;
      });
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(settled).toBe(false);
      await db().query(`SELECT pg_advisory_unlock(${MIGRATION_ADVISORY_LOCK_KEY})`);
      expect(await run).toEqual({ applied: [] });
    });

    // A tenth of the pets available, most sold. (For a status that most rows have, the planner rightly
    // prefers walking the primary key and filtering: also sort-free, and it stops after a few rows.)
    it('serves a page of one status from pets_status_id_idx, in index order: no Sort node', async () => {
      await db().query(
        `INSERT INTO pets (name, category_id, status)
       SELECT 'pet ' || i, i % 5,
              (CASE i % 10 WHEN 0 THEN 'available' WHEN 1 THEN 'pending' WHEN 2 THEN NULL ELSE 'sold' END)::pet_status
       FROM generate_series(1, 2000) AS i`,
      );
      await db().query('ANALYZE pets');
      const [
        {
          'QUERY PLAN': [explained],
        },
      ] = (await db().query(
        `EXPLAIN (FORMAT JSON) SELECT id, name, category_id, status, created_at
       FROM pets WHERE status = 'available' ORDER BY id LIMIT 20`,
      )) as [{ 'QUERY PLAN': [{ Plan: PlanNode }] }];
      const nodes = planNodes(explained.Plan);
      expect(nodes.map((node) => node['Node Type'])).not.toContain('Sort');
      expect(nodes).toContainEqual(
        expect.objectContaining({ 'Node Type': 'Index Scan', 'Index Name': 'pets_status_id_idx' }),
      );
    });
  },
);

describe('on in-memory PGlite', () => {
  it(
    'gives the Prisma client a schema it can create and count pets in',
    async () => {
      const pglite = new PGlite();
      const prisma = new PrismaClient({ adapter: new PrismaPGlite(pglite) });
      try {
        await applyPendingMigrations(pgliteMigrationAdapter(pglite));
        const pet = await prisma.pet.create({ data: { name: 'Rex', categoryId: 7n, status: 'available' } });
        expect(pet).toMatchObject({
          id: expect.any(BigInt),
          name: 'Rex',
          categoryId: 7n,
          status: 'available',
        });
        expect(await prisma.pet.count()).toBe(1);
      } finally {
        await prisma.$disconnect();
        await pglite.close();
      }
    },
    timeouts.server,
  );
});

/** An in-memory database at the migration before the one named `*_<suffix>` (that one and later ones not applied). */
async function databaseBefore(suffix: string): Promise<{ pglite: PGlite; moving: string }> {
  const moving = committed.find((name) => name.endsWith(`_${suffix}`));
  if (moving === undefined) throw new Error(`no *_${suffix} migration`);
  const before = migrationsCopy();
  for (const name of committed.filter((name) => name >= moving))
    rmSync(join(before, name), { recursive: true });
  const pglite = new PGlite();
  await applyPendingMigrations(pgliteMigrationAdapter(pglite), { migrationsDir: before });
  return { pglite, moving };
}

describe('the migration that moved idempotency keys onto pets', () => {
  it('carries every live key over to its pet, as the api hashes it, and drops expired ones', async () => {
    // A database as it was before: every migration up to (not including) the one under test.
    const { pglite, moving } = await databaseBefore('idempotency_keys_on_pets');
    try {
      await pglite.exec(`
        INSERT INTO pets (id, name, category_id, status) VALUES (1, 'Kept', 9007199254740993, 'available'),
          (2, 'Expired', 1, NULL), (3, 'Keyless', 1, NULL);
        -- 'db:7': a caller identity of that time (issued key 7); the migration hashes whatever is stored.
        INSERT INTO idempotency_keys (caller, key, fingerprint, response_status, response_body, expires_at) VALUES
          ('db:7', 'live-key', '${'ab'.repeat(32)}', 201, '{"id":1,"name":"Kept","categoryId":9007199254740993}',
           now() + interval '1 hour'),
          ('db:7', 'old-key', '${'cd'.repeat(32)}', 201, '{"id":2,"name":"Expired","categoryId":1}',
           now() - interval '1 second');`);
      expect(await applyPendingMigrations(pgliteMigrationAdapter(pglite))).toEqual({
        applied: committed.filter((name) => name >= moving),
      });
      const { rows } = await pglite.query<{
        id: number;
        hash: Uint8Array | null;
        fingerprint: Uint8Array | null;
      }>(
        'SELECT id::int, idempotency_key_hash AS hash, idempotency_fingerprint AS fingerprint FROM pets ORDER BY id',
      );
      expect(
        rows.map((row) => [
          row.id,
          row.hash && Buffer.from(row.hash),
          row.fingerprint && Buffer.from(row.fingerprint),
        ]),
      ).toEqual([
        [1, idempotencyKeyHash('db:7', 'live-key'), Buffer.from('ab'.repeat(32), 'hex')],
        [2, null, null],
        [3, null, null],
      ]);
      expect((await pglite.query(`SELECT to_regclass('idempotency_keys') AS t`)).rows).toEqual([{ t: null }]);
    } finally {
      await pglite.close();
    }
  });
});

describe('the migration that numbers the change feed from pets (pet_events_from_pets)', () => {
  it('numbers the events the trigger wrote, in its order, drops the trigger and numbers later pets once', async () => {
    const { pglite, moving } = await databaseBefore('pet_events_from_pets');
    try {
      // Three pets by the trigger of that time: the first event numbered (7, past a horizon of 5), two not yet.
      await pglite.exec(`
        UPDATE pet_event_horizon SET pruned_through = 5;
        INSERT INTO pets (name, category_id) VALUES ('One', 1);
        UPDATE pet_events SET id = 7;
        INSERT INTO pets (name, category_id) VALUES ('Two', 2);
        INSERT INTO pets (name, category_id) VALUES ('Three', 3);`);
      expect(await applyPendingMigrations(pgliteMigrationAdapter(pglite))).toEqual({
        applied: committed.filter((name) => name >= moving),
      });
      const events = async () =>
        (await pglite.query<{ id: number; name: string }>('SELECT id::int, name FROM pet_events ORDER BY id'))
          .rows;
      expect(await events()).toEqual([
        { id: 7, name: 'One' },
        { id: 8, name: 'Two' },
        { id: 9, name: 'Three' },
      ]);
      // No trigger any more: a pet inserted now has no event until the sequencer writes it, once.
      await pglite.exec(`INSERT INTO pets (name, category_id) VALUES ('Four', 4)`);
      expect(await events()).toHaveLength(3);
      const sql = createAdapterSql(await new PrismaPGlite(pglite).connect());
      expect(await sequenceEvents(sql, 1000)).toBe(1);
      expect(await sequenceEvents(sql, 1000)).toBe(0);
      expect(await events()).toEqual([
        { id: 7, name: 'One' },
        { id: 8, name: 'Two' },
        { id: 9, name: 'Three' },
        { id: 10, name: 'Four' },
      ]);
    } finally {
      await pglite.close();
    }
  });
});

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

function planNodes(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(planNodes)];
}
