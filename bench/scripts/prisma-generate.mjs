#!/usr/bin/env node
// Generates the naive reference server's own Prisma client into bench/src/generated/prisma, from the
// repository's schema (prisma/schema.prisma: the database contract both the api and the bench migrate and
// query), so the bench never imports the api's code or its build output.
//
// The schema names the api's folder as the generator output and `prisma generate` has no flag to change it, so
// the schema is copied into a temporary folder inside bench/ with only that `output` line replaced (relative, so
// the generated client embeds no machine-specific path). As in
// scripts/prisma-generate.mjs, PRISMA_SCHEMA_ENGINE_BINARY names an existing file so that the CLI does not try
// to download a native schema engine that generating never runs.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const bench = join(dirname(fileURLToPath(import.meta.url)), '..');
const schemaFile = join(bench, '../prisma/schema.prisma');
const output = join(bench, 'src/generated/prisma');
const prismaCli = createRequire(join(bench, 'package.json')).resolve('prisma/build/index.js');

const schema = readFileSync(schemaFile, 'utf8');
const outputLine = /^(\s*output\s*=\s*)"[^"]*"/m;
if (!outputLine.test(schema)) throw new Error(`${schemaFile}: no generator "output" line to redirect`);
const work = mkdtempSync(join(bench, '.prisma-generate-'));
let status = 1;
try {
  const copy = join(work, 'schema.prisma');
  writeFileSync(copy, schema.replace(outputLine, `$1${JSON.stringify(relative(work, output))}`));
  // An empty config next to the copy: otherwise the CLI would load the root prisma.config.ts and its schema.
  writeFileSync(join(work, 'prisma.config.mjs'), 'export default {};\n');
  const result = spawnSync(
    process.execPath,
    [prismaCli, 'generate', '--schema', copy, '--config', join(work, 'prisma.config.mjs')],
    {
      cwd: work,
      stdio: 'inherit',
      env: {
        PRISMA_SCHEMA_ENGINE_BINARY: process.execPath,
        PRISMA_HIDE_UPDATE_MESSAGE: '1',
        CHECKPOINT_DISABLE: '1',
        ...process.env,
      },
    },
  );
  status = result.status ?? 1;
} finally {
  rmSync(work, { recursive: true, force: true });
}
process.exit(status);
