#!/usr/bin/env node
// `pnpm keys ...`, `pnpm db:migrate`: runs one of the api's command-line tools from its TypeScript source.
// The Prisma client is generated first only when it is missing or older than what it is generated from (the
// `generate` inputs of turbo.json, read from there), so an operator's key command answers in about a second,
// without turbo's banners; when it is stale, turbo generates it as `pnpm build` would.
//
//   node scripts/api-tool.mjs <entry under apps/api/src> [arguments...]
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const [entry, ...args] = process.argv.slice(2);
if (entry === undefined) {
  console.error('usage: node scripts/api-tool.mjs <entry under apps/api/src> [arguments...]');
  process.exit(2);
}

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
    console.error('could not generate the Prisma client: run `npx -y pnpm@12 turbo run generate` to see why');
    process.exit(generate.status ?? 1);
  }
}

const tool = spawnSync(
  process.execPath,
  ['--conditions=@petstore/source', '--import', 'tsx', path.join(root, 'apps/api/src', entry), ...args],
  { stdio: 'inherit' },
);
process.exit(tool.status ?? 1);
