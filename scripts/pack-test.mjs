#!/usr/bin/env node
// What another team does with our packages: `pnpm pack` them, install the tarballs into a fresh project outside
// the workspace (npm, with zod and other dependencies from the registry), then:
// - check each package as a consumer's tools would: `attw --pack` (types resolve under node10, node16 from
//   CommonJS and from ESM, and bundler) and `publint --strict` on the tarball;
// - import them from ESM and require() them from CommonJS; run `npx @petstore/conformance` (usage, one check of
//   each profile against a real API, and a clear refusal on a Node older than 24);
// - type-check consumers with tsc: a current Node project (nodenext), and CommonJS code compiled with
//   `moduleResolution` node10 and node16, whose emitted require() calls are then run;
// - run the table of malformed replies (packages/client/test/response-table.ts) against the packed client from
//   ESM, from CommonJS, and bundled for the browser (esbuild, --platform=browser --minify) in Chromium.
//
//   node scripts/pack-test.mjs [@petstore/schema @petstore/client ...]
//
// Default: every published package. Run on Node 24 (`pnpm test:pack` does).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
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
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { chromium } from 'playwright-core';
import { PUBLISHED, packPackages } from './pack-packages.mjs';

const root = path.resolve(import.meta.dirname, '..');
const run = (command, args, cwd = root) => {
  console.log(`$ ${command} ${args.join(' ')}`);
  return execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
};
const bin = (name) => path.join(root, 'node_modules/.bin', name);

// Default: the packages other teams install. Each needs its consumer checks below.
const wanted = process.argv.slice(2);
const names = wanted.length > 0 ? wanted : PUBLISHED;

// Outside the workspace, so nothing resolves from the repository's node_modules.
const project = mkdtempSync(path.join(tmpdir(), 'petstore-pack-test-'));
const KEEP = process.env.PETSTORE_KEEP_PACK_TEST === '1';
const tarballs = path.join(project, 'tarballs');
mkdirSync(tarballs);
try {
  // Packed as `pnpm pack:packages` packs them (scripts/pack-packages.mjs), then checked as a consumer's tools would.
  for (const { dir, manifest, tarball } of packPackages(names, tarballs)) {
    // Exit non-zero on any problem: a type that does not resolve in one mode, a CJS/ESM mix-up, a bad export map.
    process.stdout.write(run(bin('attw'), ['--pack', dir, '--format', 'table-flipped']));
    process.stdout.write(run(bin('publint'), ['run', '--strict', tarball]));
    console.log(`${manifest.name}: attw and publint found no problem`);
  }

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
      types: `import { createRestClient, createTrpcClient, type Pet, type RestClient } from '@petstore/client';
const client: RestClient = createRestClient({ baseUrl: 'https://api.example/v1', apiKey: 'key-0123456789abcdef' });
export async function names(): Promise<string[]> {
  const pets: Pet[] = await client.listPets({ limit: 5 });
  return pets.map((pet) => pet.name);
}
// The tRPC client is typed by the contract's router (@petstore/schema/trpc), not by \`any\`.
const trpc = createTrpcClient({ url: 'https://api.example/v1/trpc', apiKey: 'key-0123456789abcdef' });
export async function firstId(): Promise<bigint> {
  const pet: Pet = await trpc.pets.get.query({ petId: 1n });
  // @ts-expect-error pets.create is a mutation
  void trpc.pets.create.query;
  return pet.id;
}`,
    },
    '@petstore/conformance': {
      esm: `import { listChecks, runConformance } from '@petstore/conformance';
if (typeof runConformance !== 'function' || listChecks().length < 50) throw new Error('checks');`,
      cjs: `const { listChecks, EXIT } = require('@petstore/conformance');
if (listChecks().length < 50 || typeof EXIT !== 'object') throw new Error('checks');`,
      types: `import { type ConformanceReport, listChecks, runConformance } from '@petstore/conformance';
export const ids: string[] = listChecks().map((check) => check.id);
export async function passed(): Promise<boolean> {
  const report: ConformanceReport = await runConformance({ baseUrl: 'https://api.example/v1', apiKey: 'key-0123456789abcdef' });
  return report.failed === 0;
}`,
    },
  };

  // CommonJS TypeScript: compiled with an older resolution mode, emitted as require() calls, then run.
  const commonJsConsumer = `import { createRestClient, PetStoreApiError, type Pet, type PetStoreTrpcClient } from '@petstore/client';
import { PetSchema, parseJson, type NewPetInput } from '@petstore/schema';
${names.includes('@petstore/conformance') ? "import { listChecks } from '@petstore/conformance';\nif (listChecks().length < 50) throw new Error('conformance');" : ''}
type TrpcPetId = Awaited<ReturnType<PetStoreTrpcClient['pets']['get']['query']>>['id'];
// @ts-expect-error the tRPC router's type (@petstore/schema/trpc) resolves in this mode too: an id is a bigint
const wrongId: TrpcPetId = 'x';
void wrongId;
const input: NewPetInput = { name: 'Rex', categoryId: 1 };
const pet: Pet = PetSchema.parse(parseJson('{"id":9007199254740993,"name":"Rex","categoryId":1}'));
if (pet.id !== 9007199254740993n || input.name !== pet.name) throw new Error('schema');
const client = createRestClient({ baseUrl: 'https://api.example/v1', apiKey: 'key-0123456789abcdef' });
if (typeof client.listPets !== 'function' || !(new PetStoreApiError('network', 'x') instanceof Error)) {
  throw new Error('client');
}
console.log('CommonJS consumer compiled with ' + process.argv[2] + ': ok');
`;

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

  if (names.includes('@petstore/client')) await runResponseTable(project);
  const api = await startApi();
  try {
    if (names.includes('@petstore/conformance')) runConformanceCli(project, api);
    if (names.includes('@petstore/client')) runDualPackage(project, api);
  } finally {
    await api.stop();
  }
  runOnOldNode(project, names);

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
  if (names.includes('@petstore/client') && names.includes('@petstore/schema')) {
    writeFileSync(path.join(project, 'commonjs-consumer.ts'), commonJsConsumer);
    for (const resolution of ['node10', 'node16']) {
      const config = `tsconfig.${resolution}.json`;
      writeFileSync(
        path.join(project, config),
        `${JSON.stringify(
          {
            compilerOptions: {
              target: 'es2022',
              module: resolution === 'node10' ? 'commonjs' : 'node16',
              moduleResolution: resolution,
              // What \`tsc --init\` writes; zod's own CommonJS declarations need it.
              esModuleInterop: true,
              strict: true,
              skipLibCheck: false,
              types: ['node'],
              outDir: `out-${resolution}`,
            },
            files: ['commonjs-consumer.ts'],
          },
          null,
          2,
        )}\n`,
      );
      run(process.execPath, [path.join(project, 'node_modules/typescript/bin/tsc'), '-p', config], project);
      const emitted = readFileSync(path.join(project, `out-${resolution}/commonjs-consumer.js`), 'utf8');
      if (!emitted.includes('require("@petstore/client")'))
        throw new Error(`${resolution}: no require() emitted`);
      process.stdout.write(
        run(process.execPath, [`out-${resolution}/commonjs-consumer.js`, resolution], project),
      );
    }
  }
  console.log(`pack test passed for ${names.join(', ')}`);
} catch (error) {
  console.error(
    KEEP
      ? `pack test FAILED; the throwaway project is kept in ${project}`
      : 'pack test FAILED (PETSTORE_KEEP_PACK_TEST=1 keeps the throwaway project to look at)',
  );
  throw error;
} finally {
  // Removed on every path, failure included, unless asked to keep it: a failed run must not leave a project in /tmp.
  if (!KEEP) rmSync(project, { recursive: true, force: true });
}

/**
 * The API, started from this repository on embedded PGlite, for the packages to talk to: `{ baseUrl, key, stop }`.
 */
async function startApi() {
  const key = 'pack-test-key-0123456789abcdef';
  const dataDir = mkdtempSync(path.join(tmpdir(), 'petstore-pack-api-'));
  const api = spawn(process.execPath, ['--conditions=@petstore/source', '--import', 'tsx', 'src/main.ts'], {
    cwd: path.join(root, 'apps/api'),
    env: {
      PATH: process.env.PATH,
      HOST: '127.0.0.1',
      PORT: '0',
      API_KEYS: key,
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const stop = async () => {
    if (api.exitCode === null) {
      api.kill('SIGTERM');
      await new Promise((resolve) => api.once('exit', resolve));
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const baseUrl = await new Promise((resolve, reject) => {
      let out = '';
      api.stdout.on('data', (chunk) => {
        out += chunk;
        const url = /listening on (http:\/\/\S+\/v1)/.exec(out)?.[1];
        if (url) resolve(url);
      });
      api.once('exit', (code) => reject(new Error(`the API exited with ${code} before listening: ${out}`)));
    });
    return { baseUrl, key, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * `npx @petstore/conformance` as another team runs it, from the installed tarball: its usage, and one check of
 * each profile against the API, the key given in PETSTORE_API_KEY (not on the command line).
 */
function runConformanceCli(project, { baseUrl, key }) {
  const npx = (args, env = {}) => {
    console.log(`$ npx --offline @petstore/conformance ${args.join(' ')}`);
    return spawnSync('npx', ['--offline', '@petstore/conformance', ...args], {
      cwd: project,
      encoding: 'utf8',
      env: { ...process.env, ...env },
    });
  };
  const help = npx(['--help']);
  if (help.status !== 0 || !help.stdout.startsWith('Usage: PETSTORE_API_KEY=<key> petstore-conformance'))
    throw new Error(`the bin did not print its usage: ${help.stdout}${help.stderr}`);
  console.log('npx @petstore/conformance --help: ok');

  for (const [profile, only] of [
    ['interface', 'listPets.ok'],
    ['reference', 'createPet.created'],
  ]) {
    const result = npx(['--base-url', baseUrl, '--profile', profile, '--only', only], {
      PETSTORE_API_KEY: key,
    });
    const last = result.stdout.trim().split('\n').at(-1);
    if (result.status !== 0 || last !== '1 passed, 0 failed')
      throw new Error(
        `the packed CLI (--profile ${profile}) did not pass ${only}: ${result.stdout}${result.stderr}`,
      );
    console.log(`npx @petstore/conformance --profile ${profile} --only ${only} against the API: ${last}`);
  }
}

/**
 * The dual-package hazard, as a program meets it: one process that loads the client's ESM build (import) and its
 * CommonJS build (require), gets a real 404 through each, and handles it with the other's `PetStoreApiError` and
 * `apiErrorOf`. Run from an ES module and from a CommonJS one.
 */
function runDualPackage(project, { baseUrl, key }) {
  const body = (loadEsm, loadCjs) => `${loadEsm}
${loadCjs}
const options = { baseUrl: ${JSON.stringify(baseUrl)}, apiKey: ${JSON.stringify(key)}, retries: false };
async function notFound(client) {
  try {
    await client.getPet(9223372036854775807n);
  } catch (error) {
    return error;
  }
  throw new Error('getPet of a missing pet did not fail');
}
async function main() {
  if (esm.PetStoreApiError === cjs.PetStoreApiError) throw new Error('one build loaded, not both');
  for (const [thrower, handler, name] of [[cjs, esm, 'CommonJS error, ESM class'], [esm, cjs, 'ESM error, CommonJS class']]) {
    const error = await notFound(thrower.createRestClient(options));
    if (!(error instanceof handler.PetStoreApiError)) throw new Error(name + ': not instanceof: ' + error);
    if (handler.apiErrorOf(error)?.code !== 'pet_not_found') throw new Error(name + ': apiErrorOf: ' + handler.apiErrorOf(error));
    if (error instanceof handler.CallAbortedError) throw new Error(name + ': a PetStoreApiError is not a CallAbortedError');
  }
  console.log('dual package (' + process.argv[2] + '): a real 404 from either build is instanceof the PetStoreApiError of the other; apiErrorOf reads it');
}
main().catch((error) => { console.error(error); process.exit(1); });
`;
  writeFileSync(
    path.join(project, 'dual.mjs'),
    body(
      "import * as esm from '@petstore/client';\nimport { createRequire } from 'node:module';",
      "const cjs = createRequire(import.meta.url)('@petstore/client');",
    ),
  );
  writeFileSync(
    path.join(project, 'dual.cjs'),
    body(
      "const cjs = require('@petstore/client');",
      "let esm;\nconst loaded = import('@petstore/client').then((m) => { esm = m; });",
    ).replace('async function main() {', 'async function main() {\n  await loaded;'),
  );
  process.stdout.write(run(process.execPath, ['dual.mjs', 'ESM program'], project));
  process.stdout.write(run(process.execPath, ['dual.cjs', 'CommonJS program'], project));
}

/**
 * The installed packages on the machine's own Node when it is older than they need (on this project's machines,
 * 20): each refuses with the sentence that names what it needs, from ESM and CommonJS, instead of failing a first
 * call as a "network" error or rounding 2^53+1.
 */
function runOnOldNode(project, names) {
  const systemNode = ['/usr/bin/node', '/usr/local/bin/node'].find((candidate) => existsSync(candidate));
  const version = systemNode && spawnSync(systemNode, ['--version'], { encoding: 'utf8' }).stdout.trim();
  if (!version || Number(version.slice(1).split('.')[0]) >= 22) {
    console.log(`no Node older than 22 on this machine (${version ?? 'none'}): old runtimes are not tried`);
    return;
  }
  const node = version.slice(1);
  const onOldNode = (file, source) => {
    writeFileSync(path.join(project, file), source);
    const result = spawnSync(systemNode, [file], { cwd: project, encoding: 'utf8' });
    if (result.status !== 0)
      throw new Error(`on Node ${node}, ${file} failed: ${result.stdout}${result.stderr}`);
    process.stdout.write(result.stdout);
  };
  const expectThrows = (call, message) => `{
  let said;
  try { ${call}; } catch (error) { said = error.message; }
  if (said !== ${JSON.stringify(message)}) throw new Error('${call.replaceAll("'", '')} said: ' + said);
}`;
  const lacks = 'JSON.rawJSON and JSON.parse source text';
  if (names.includes('@petstore/schema')) {
    const message = `@petstore/schema needs ${lacks} (Node >= 22, Chrome/Edge >= 114, Firefox >= 135, Safari >= 18.4); this is Node ${node}, which lacks ${lacks}`;
    const checks = [
      expectThrows('parseJson(\'{"id":9007199254740993}\')', message),
      expectThrows('stringifyJson({ id: 1n })', message),
      expectThrows('assertExactJsonSupport()', message),
    ].join('\n');
    onOldNode(
      'old-node-schema.mjs',
      `import { parseJson, stringifyJson, assertExactJsonSupport } from '@petstore/schema';\n${checks}\nconsole.log('@petstore/schema on Node ${node} (ESM): refuses with one sentence');\n`,
    );
    onOldNode(
      'old-node-schema.cjs',
      `const { parseJson, stringifyJson, assertExactJsonSupport } = require('@petstore/schema');\n${checks}\nconsole.log('@petstore/schema on Node ${node} (CommonJS): refuses with one sentence');\n`,
    );
  }
  if (names.includes('@petstore/client')) {
    const message = `@petstore/client needs ${lacks.replace(' and ', ', ')} and AbortSignal.any (Node >= 22, Chrome/Edge >= 116, Firefox >= 135, Safari >= 18.4); this is Node ${node}, which lacks ${lacks}`;
    const checks = [
      expectThrows(
        "createRestClient({ baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'key-0123456789abcdef' })",
        message,
      ),
      expectThrows(
        "createTrpcClient({ url: 'http://127.0.0.1:9/v1/trpc', apiKey: 'key-0123456789abcdef' })",
        message,
      ),
    ].join('\n');
    onOldNode(
      'old-node-client.mjs',
      `import { createRestClient, createTrpcClient } from '@petstore/client';\n${checks}\nconsole.log('@petstore/client on Node ${node} (ESM): refuses at creation with one sentence');\n`,
    );
    onOldNode(
      'old-node-client.cjs',
      `const { createRestClient, createTrpcClient } = require('@petstore/client');\n${checks}\nconsole.log('@petstore/client on Node ${node} (CommonJS): refuses at creation with one sentence');\n`,
    );
  }
  if (names.includes('@petstore/conformance')) {
    const old = spawnSync(
      systemNode,
      [path.join(project, 'node_modules/@petstore/conformance/dist/cli.js'), '--help'],
      { cwd: project, encoding: 'utf8' },
    );
    if (
      old.status !== 2 ||
      !old.stderr.includes(`needs Node 24 or later; this is Node ${node}`) ||
      !old.stderr.includes('npx -y -p node@24 petstore-conformance')
    )
      throw new Error(`on Node ${version} the CLI said: ${old.status} ${old.stdout}${old.stderr}`);
    console.log(`petstore-conformance on Node ${version}: exit 2, "${old.stderr.trim().split('. ')[0]}."`);
  }
}

/**
 * The table of replies against the installed client: imported from ESM, required from CommonJS, and bundled for
 * the browser and run in Chromium. Every case must come out the same way in all three.
 */
async function runResponseTable(project) {
  const tablePath = path.join(root, 'packages/client/test/response-table.ts');
  const table = pathToFileURL(tablePath).href;
  // Each prints the cases the client got wrong and exits 1, or one line when there are none.
  const finish = (where) =>
    `.then((wrong) => {
  if (wrong.length > 0) throw new Error(wrong.join('\\n'));
  console.log(${JSON.stringify(`response table (${where}): every case as expected`)});
});\n`;
  writeFileSync(
    path.join(project, 'table.mjs'),
    `import { createRestClient } from '@petstore/client';
import { runResponseTable } from '${table}';
runResponseTable(createRestClient)${finish('Node, ESM import')}`,
  );
  writeFileSync(
    path.join(project, 'table.cjs'),
    `const { createRestClient } = require('@petstore/client');
import('${table}')
  .then(({ runResponseTable }) => runResponseTable(createRestClient))${finish('Node, CommonJS require')}`,
  );
  process.stdout.write(run(process.execPath, ['table.mjs'], project));
  process.stdout.write(run(process.execPath, ['table.cjs'], project));

  const { outputFiles } = await build({
    stdin: {
      contents: `import { createRestClient } from '@petstore/client';
import { runResponseTable } from ${JSON.stringify(tablePath)};
globalThis.runTable = () => runResponseTable(createRestClient);`,
      resolveDir: project,
      sourcefile: 'page.js',
    },
    bundle: true,
    platform: 'browser',
    minify: true,
    write: false,
    logLevel: 'error',
  });
  const browser = await chromium.launch({
    executablePath: chromiumPath(),
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  try {
    const page = await browser.newPage();
    await page.addScriptTag({ content: outputFiles[0].text });
    const wrong = await page.evaluate(() => globalThis.runTable());
    if (wrong.length > 0) throw new Error(`response table in Chromium:\n${wrong.join('\n')}`);
    console.log('response table (browser bundle in Chromium): every case as expected');
  } finally {
    await browser.close();
  }
}

/** Debian's Chromium (scripts/ensure-chromium.sh installs it in CI), or CHROMIUM_PATH. */
function chromiumPath() {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'];
  const found = candidates.find((candidate) => candidate && existsSync(candidate));
  if (found === undefined)
    throw new Error('Chromium is missing: run scripts/ensure-chromium.sh or set CHROMIUM_PATH');
  return found;
}
