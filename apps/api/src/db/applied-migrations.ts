import type { PrismaClient } from '../generated/prisma/client.js';

/** The migrations Prisma's `_prisma_migrations` table records as applied: finished and not rolled back. */
export async function appliedMigrationNames(prisma: PrismaClient): Promise<string[]> {
  const rows = await prisma.$queryRaw<{ migration_name: string }[]>`
    SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`;
  return rows.map((row) => row.migration_name);
}
