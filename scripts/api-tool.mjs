#!/usr/bin/env node
// `pnpm keys ...`, `pnpm db:migrate`: runs one of the api's command-line tools from its TypeScript source.
// The Prisma client is generated first only when it is missing or stale (scripts/ensure-prisma-client.mjs), so an
// operator's key command answers in about a second, without turbo's banners (docs/operations.md#api-keys has the
// measured figures: `npx -y pnpm@12` itself adds more than the command takes).
//
//   node scripts/api-tool.mjs <entry under apps/api/src> [arguments...]
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { ensurePrismaClient } from './ensure-prisma-client.mjs';

const root = path.resolve(import.meta.dirname, '..');
const [entry, ...args] = process.argv.slice(2);
if (entry === undefined) {
  console.error('usage: node scripts/api-tool.mjs <entry under apps/api/src> [arguments...]');
  process.exit(2);
}

ensurePrismaClient();

const tool = spawnSync(
  process.execPath,
  ['--conditions=@petstore/source', '--import', 'tsx', path.join(root, 'apps/api/src', entry), ...args],
  { stdio: 'inherit' },
);
process.exit(tool.status ?? 1);
