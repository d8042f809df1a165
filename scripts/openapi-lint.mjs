// `pnpm openapi:lint`: the OpenAPI document as the API serves it, checked with the tools consumers use.
// Starts the API (embedded PGlite in a temp dir, a free port, the production and staging URLs configured as a
// deployment would), fetches /v1/openapi.json, then:
//   - Redocly CLI `lint` with the `recommended` ruleset: zero errors and zero warnings;
//   - Spectral with `spectral:oas`: zero errors and zero warnings;
//   - openapi-typescript generates a client's types, and tsc type-checks them with a small consumer.
// Everything it starts is stopped, and its temp dir removed, on every path (also on Ctrl-C).
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const root = path.join(import.meta.dirname, '..');
const bin = (name) => path.join(root, 'node_modules', '.bin', name);
const work = mkdtempSync(path.join(tmpdir(), 'petstore-openapi-lint-'));
/** The servers a deployment lists (PETSTORE_PRODUCTION_URL / PETSTORE_STAGING_URL): absolute, as tools need. */
const SERVERS = {
  PETSTORE_PRODUCTION_URL: 'https://api.petstore.example/v1',
  PETSTORE_STAGING_URL: 'https://staging.petstore.example/v1',
};

let api;
const cleanUp = () => {
  if (api !== undefined && api.exitCode === null) api.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
};
process.on('exit', cleanUp);
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(130));

function run(label, command, args, options = {}) {
  const result = spawnSync(command, args, { cwd: work, encoding: 'utf8', ...options });
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}`.trim();
  return { label, status: result.status, output, stdout: result.stdout ?? '' };
}

function fail(message) {
  process.stderr.write(`openapi:lint: ${message}\n`);
  process.exit(1);
}

async function startApi() {
  // The Prisma client is generated code: the same step `pnpm dev` runs first.
  const generate = run(
    'generate',
    bin('turbo'),
    ['run', 'generate', '--filter=@petstore/api', '--output-logs=errors-only'],
    {
      cwd: root,
    },
  );
  if (generate.status !== 0) fail(`could not generate the Prisma client:\n${generate.output}`);
  api = spawn(
    process.execPath,
    ['--conditions=@petstore/source', '--import', 'tsx', path.join(root, 'apps/api/src/main.ts')],
    {
      cwd: root,
      env: {
        ...process.env,
        ...SERVERS,
        PORT: '0',
        HOST: '127.0.0.1',
        DATA_DIR: path.join(work, 'data'),
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the API did not start within 120 s:\n${output}`)),
      120_000,
    );
    const read = (chunk) => {
      output += chunk;
      const url = /listening on (http:\/\/\S+\/v1)/.exec(output)?.[1];
      if (url !== undefined) {
        clearTimeout(timer);
        resolve(url);
      }
    };
    api.stdout.on('data', read);
    api.stderr.on('data', read);
    api.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the API exited (${code}) before listening:\n${output}`));
    });
  });
}

const baseUrl = await startApi().catch((error) => fail(error.message));
const reply = await fetch(`${baseUrl}/openapi.json`);
if (reply.status !== 200) fail(`GET ${baseUrl}/openapi.json answered ${reply.status}`);
const documentPath = path.join(work, 'openapi.json');
writeFileSync(documentPath, await reply.text());
api.kill('SIGTERM');

const results = [];

// Redocly: warnings do not change its exit code, so count the problems of every severity in its JSON report.
const redocly = run('Redocly (recommended)', bin('redocly'), [
  'lint',
  documentPath,
  '--extends=recommended',
  '--format=json',
]);
let redoclyProblems;
try {
  redoclyProblems = JSON.parse(redocly.stdout).totals;
} catch {
  redoclyProblems = undefined;
}
results.push({
  ...redocly,
  ok: redoclyProblems !== undefined && redoclyProblems.errors === 0 && redoclyProblems.warnings === 0,
  summary:
    redoclyProblems === undefined
      ? 'no report'
      : `${redoclyProblems.errors} errors, ${redoclyProblems.warnings} warnings`,
});

// Spectral: a ruleset file that extends spectral:oas; --fail-severity=warn fails on any warning.
writeFileSync(path.join(work, '.spectral.json'), JSON.stringify({ extends: ['spectral:oas'] }));
const spectral = run('Spectral (spectral:oas)', bin('spectral'), [
  'lint',
  documentPath,
  '--ruleset',
  path.join(work, '.spectral.json'),
  '--fail-severity=warn',
]);
results.push({
  ...spectral,
  ok: spectral.status === 0,
  summary: spectral.status === 0 ? 'no warnings' : 'problems',
});

// openapi-typescript, then a consumer that uses the generated types, type-checked.
const generated = run('openapi-typescript', bin('openapi-typescript'), [
  documentPath,
  '--output',
  'petstore.d.ts',
]);
writeFileSync(
  path.join(work, 'consumer.ts'),
  `import type { components, paths } from './petstore.js';
type Pet = components['schemas']['Pet'];
type NewPet = components['schemas']['NewPet'];
type Created = paths['/pets']['post']['responses'][201]['content']['application/json'];
type Listed = paths['/pets']['get']['responses'][200]['content']['application/json'];
const created: Created = { id: 1, name: 'Rex', categoryId: 2, status: 'available' };
const listed: Listed = [created];
const draft: NewPet = { name: 'Rex', categoryId: 2 };
const pet: Pet = listed[0] ?? created;
export const all = [draft, pet];
`,
);
writeFileSync(
  path.join(work, 'tsconfig.json'),
  JSON.stringify({
    compilerOptions: {
      strict: true,
      noEmit: true,
      module: 'nodenext',
      target: 'es2022',
      skipLibCheck: false,
      types: [],
    },
    files: ['petstore.d.ts', 'consumer.ts'],
  }),
);
const typecheck =
  generated.status === 0
    ? run('tsc on the generated types', bin('tsc'), ['-p', path.join(work, 'tsconfig.json')])
    : { label: 'tsc on the generated types', status: 1, output: 'not run: generation failed' };
results.push({
  ...generated,
  ok: generated.status === 0,
  summary: generated.status === 0 ? 'generated' : 'failed',
});
results.push({
  ...typecheck,
  ok: typecheck.status === 0,
  summary: typecheck.status === 0 ? 'type-checks' : 'type errors',
});

for (const result of results) {
  process.stdout.write(`${result.ok ? 'ok  ' : 'FAIL'} ${result.label}: ${result.summary}\n`);
  if (!result.ok) process.stdout.write(`${result.output}\n`);
}
process.exit(results.every((result) => result.ok) ? 0 : 1);
