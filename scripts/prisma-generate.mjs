#!/usr/bin/env node
// Runs `prisma generate` for the api app from the repository root.
// The Prisma CLI insists on locating a native schema engine binary even though generating the
// TypeScript client never runs it, and downloading one is impossible (and unnecessary) here: this
// project migrates with the WebAssembly build of the engine. Pointing PRISMA_SCHEMA_ENGINE_BINARY at
// an existing file satisfies the check without a download.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));
const prismaCli = require.resolve('prisma/build/index.js');

const result = spawnSync(
  process.execPath,
  [prismaCli, 'generate', '--config', join(root, 'prisma.config.ts')],
  {
    cwd: root,
    stdio: 'inherit',
    env: {
      PRISMA_SCHEMA_ENGINE_BINARY: process.execPath,
      PRISMA_HIDE_UPDATE_MESSAGE: '1',
      CHECKPOINT_DISABLE: '1',
      ...process.env,
    },
  },
);
process.exit(result.status ?? 1);
