// The Prisma client, generated first only when it is missing or older than what it is generated from (the
// `generate` inputs of turbo.json, read from there): `pnpm keys`, `pnpm web` start without turbo's banners when it
// is up to date, and when it is stale turbo generates it as `pnpm build` would.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');

export function ensurePrismaClient() {
  const GENERATED = path.join(root, 'apps/api/src/generated/prisma/client.ts');
  const inputs = JSON.parse(readFileSync(path.join(root, 'turbo.json'), 'utf8')).tasks.generate.inputs.map(
    (input) => path.join(root, input.replace('$TURBO_ROOT$/', '')),
  );
  const stale =
    !existsSync(GENERATED) || inputs.some((input) => statSync(input).mtimeMs > statSync(GENERATED).mtimeMs);
  if (stale) {
    const generate = spawnSync(
      'npx',
      ['-y', 'pnpm@12', 'turbo', 'run', 'generate', '--filter=@petstore/api', '--output-logs=errors-only'],
      { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] },
    );
    if (generate.status !== 0) {
      console.error(
        'could not generate the Prisma client: run `npx -y pnpm@12 turbo run generate` to see why',
      );
      process.exit(generate.status ?? 1);
    }
  }
}
