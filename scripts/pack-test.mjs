#!/usr/bin/env node
// What another team does with our packages: `pnpm pack` them, install the tarballs into a fresh project outside
// the workspace (npm, with zod and other dependencies from the registry), import them from ESM and from
// CommonJS, and type-check a consumer file with tsc.
//
//   node scripts/pack-test.mjs [@petstore/schema @petstore/client ...]
//
// Default: @petstore/schema and @petstore/client. Run on Node 24 (`pnpm test:pack` does).
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const run = (command, args, cwd = root) => {
  console.log(`$ ${command} ${args.join(' ')}`);
  return execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
};
const pnpm = (...args) => run('npx', ['-y', 'pnpm@12', ...args]);

const published = readdirSync(path.join(root, 'packages'))
  .map((dir) => path.join(root, 'packages', dir))
  .filter((dir) => existsSync(path.join(dir, 'package.json')))
  .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) }))
  .filter(({ manifest }) => !manifest.private);
// Default: the packages other teams install. Each needs its consumer checks below.
const DEFAULT_PACKAGES = ['@petstore/schema', '@petstore/client'];
const wanted = process.argv.slice(2);
const packages = (wanted.length > 0 ? wanted : DEFAULT_PACKAGES).map((name) => {
  const found = published.find(({ manifest }) => manifest.name === name);
  if (!found) throw new Error(`${name} is not a published workspace package`);
  return found;
});
const names = packages.map(({ manifest }) => manifest.name);

// Outside the workspace, so nothing resolves from the repository's node_modules.
const project = mkdtempSync(path.join(tmpdir(), 'petstore-pack-test-'));
const tarballs = path.join(project, 'tarballs');
mkdirSync(tarballs);
try {
  pnpm('turbo', 'run', 'build', '--output-logs=errors-only', ...names.map((name) => `--filter=${name}`));
  for (const { dir } of packages) pnpm('--dir', dir, 'pack', '--pack-destination', tarballs);

  writeFileSync(
    path.join(project, 'package.json'),
    `${JSON.stringify({ name: 'consumer', private: true, version: '0.0.0' }, null, 2)}\n`,
  );
  // All tarballs in one install: a package that depends on another of ours (client -> schema) gets the tarball,
  // not a registry copy. zod is a peer dependency, installed from the registry as a consumer would.
  const files = readdirSync(tarballs).map((file) => path.join(tarballs, file));
  run(
    'npm',
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      ...files,
      'zod@^4',
      'typescript@^5',
      '@types/node@^24',
    ],
    project,
  );

  const checks = {
    '@petstore/schema': {
      esm: `import { NewPetSchema, parseJson, stringifyJson, createOpenApiDocument } from '@petstore/schema';
const pet = NewPetSchema.parse(parseJson('{"name":"Rex","categoryId":9007199254740993}'));
if (pet.categoryId !== 9007199254740993n) throw new Error('int64 not exact');
if (stringifyJson(pet) !== '{"name":"Rex","categoryId":9007199254740993}') throw new Error('stringify');
if (createOpenApiDocument().openapi !== '3.1.0') throw new Error('openapi');`,
      cjs: `const { NewPetSchema, ERROR_CODES } = require('@petstore/schema');
if (NewPetSchema.parse({ name: 'Rex', categoryId: 1 }).categoryId !== 1n) throw new Error('parse');
if (ERROR_CODES.pet_not_found !== 404) throw new Error('codes');`,
      types: `import { type NewPetInput, type Pet, NewPetSchema, createOpenApiDocument } from '@petstore/schema';
const input: NewPetInput = { name: 'Rex', categoryId: 1, status: 'available' };
const pet: Pet = { id: 1n, ...NewPetSchema.parse(input) };
const id: bigint = pet.id;
const version: string = createOpenApiDocument({ servers: [{ url: 'https://api.example/v1' }] }).info.version;
// @ts-expect-error status is one of available, pending, sold
const wrong: NewPetInput = { name: 'Rex', categoryId: 1, status: 'lost' };
export { id, version, wrong };`,
    },
    '@petstore/client': {
      esm: `import { createRestClient, resolveBaseUrl } from '@petstore/client';
if (typeof createRestClient !== 'function') throw new Error('createRestClient');
if (resolveBaseUrl({ baseUrl: 'https://api.example/v1/' }) !== 'https://api.example/v1') throw new Error('url');`,
      cjs: `const { createRestClient } = require('@petstore/client');
if (typeof createRestClient !== 'function') throw new Error('createRestClient');`,
      types: `import { createRestClient, type Pet, type RestClient } from '@petstore/client';
const client: RestClient = createRestClient({ baseUrl: 'https://api.example/v1', apiKey: 'key-0123456789abcdef' });
export async function names(): Promise<string[]> {
  const pets: Pet[] = await client.listPets({ limit: 5 });
  return pets.map((pet) => pet.name);
}`,
    },
  };

  const consumerFiles = [];
  for (const name of names) {
    const check = checks[name];
    if (!check) throw new Error(`no consumer checks written for ${name}`);
    const base = name.replace(/^@petstore\//, '');
    writeFileSync(
      path.join(project, `${base}.mjs`),
      `${check.esm}\nconsole.log('ESM import of ${name}: ok');\n`,
    );
    writeFileSync(
      path.join(project, `${base}.cjs`),
      `${check.cjs}\nconsole.log('CommonJS require of ${name}: ok');\n`,
    );
    writeFileSync(path.join(project, `${base}.ts`), `${check.types}\n`);
    consumerFiles.push(`${base}.ts`);
    // process.execPath: this script runs on the repository's Node 24, whose require() loads ES modules.
    process.stdout.write(run(process.execPath, [`${base}.mjs`], project));
    process.stdout.write(run(process.execPath, [`${base}.cjs`], project));
  }

  // The consumer's own TypeScript, with the settings a current Node project uses.
  writeFileSync(
    path.join(project, 'tsconfig.json'),
    `${JSON.stringify(
      {
        compilerOptions: {
          target: 'es2022',
          module: 'nodenext',
          moduleResolution: 'nodenext',
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          types: ['node'],
        },
        files: consumerFiles,
      },
      null,
      2,
    )}\n`,
  );
  process.stdout.write(
    run(process.execPath, [path.join(project, 'node_modules/typescript/bin/tsc'), '-p', '.'], project),
  );
  console.log(`pack test passed for ${names.join(', ')} (in ${project})`);
  rmSync(project, { recursive: true, force: true });
} catch (error) {
  console.error(`pack test FAILED; the throwaway project is kept in ${project}`);
  throw error;
}
