#!/usr/bin/env node
// `pnpm keys ...`, `pnpm db:migrate`: runs one of the api's command-line tools from its TypeScript source.
// The Prisma client is generated first only when it is missing or older than what it is generated from (the
// `generate` inputs of turbo.json, read from there), so an operator's key command answers in about a second,
// without turbo's banners; when it is stale, turbo generates it as `pnpm build` would.
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
