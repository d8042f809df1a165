// `pnpm db:migration:new <name>`: writes the migration that brings the committed migrations up to
// prisma/schema.prisma, as prisma/migrations/<UTC YYYYMMDDHHMMSS>_<name>/migration.sql (the layout and
// format of `prisma migrate dev --create-only`), and (re)writes prisma/migrations/migration_lock.toml.
// Writes nothing when they already agree. Needs no database: see diffMigrationsToSchema.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { diffMigrationsToSchema } from './migration-diff.js';
import { findPrismaPath, MIGRATION_LOCK_CONTENT, MIGRATION_LOCK_FILE } from './migration-files.js';

const args = process.argv.slice(2);
const name = args.length === 1 ? migrationName(args[0] ?? '') : '';
if (!name) {
  console.error('Usage: pnpm db:migration:new <name>   (for example: add_pet_tags)');
  process.exit(2);
}

const schemaPath = findPrismaPath('schema.prisma');
const migrationsDir = join(dirname(schemaPath), 'migrations');
const script = await diffMigrationsToSchema({ schemaPath, migrationsDir });

if (!script) {
  console.log('no changes: prisma/migrations already matches prisma/schema.prisma, nothing written');
} else {
  const directory = join(migrationsDir, `${timestamp(new Date())}_${name}`);
  await mkdir(migrationsDir, { recursive: true });
  await mkdir(directory); // fails rather than overwrite, should the directory exist
  await writeFile(join(directory, 'migration.sql'), script);
  await writeFile(join(migrationsDir, MIGRATION_LOCK_FILE), MIGRATION_LOCK_CONTENT);
  console.log(`wrote ${relative(process.cwd(), join(directory, 'migration.sql'))}:\n\n${script}`);
}

/** The name as the Prisma CLI normalizes it: snake_case ASCII, at most 200 characters. */
function migrationName(raw: string): string {
  return raw
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '') // accents, split off by NFKD
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2') // camelCase -> camel_Case
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 200);
}

/** YYYYMMDDHHMMSS in UTC, the prefix Prisma gives migration directories. */
function timestamp(date: Date): string {
  return date.toISOString().replace(/\D/g, '').slice(0, 14);
}
