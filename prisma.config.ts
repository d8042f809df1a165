// Prisma CLI configuration (Prisma 7 reads the connection URL from here, not from the schema).
// Migrations are applied by the app itself with Prisma's WebAssembly schema engine
// (packages/migrations/src/migrate.ts), so the CLI is only used for `prisma generate`; the URL matters only if you
// run other CLI commands.
import { defineConfig } from 'prisma/config';

export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  // biome-ignore lint/suspicious/noUndeclaredEnvVars: only CLI commands other than generate read it; no turbo task does
  datasource: { url: process.env.DATABASE_URL ?? 'postgresql://localhost:5432/petstore' },
});
