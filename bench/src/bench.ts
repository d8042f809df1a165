// pnpm bench [--quick | --soak [seconds] | --profile] [--rounds N] [--duration S] [--json FILE]
//
// One run: a fresh seeded PostgreSQL database, the compiled api (NODE_ENV=production) and four reference servers
// (raw: node:http + pg; naive: Express + zod + Prisma; fastify: Fastify + pg + JSON schemas; fastify-prod: the same
// with a request log, a rate limit and security headers) side by side, wrk as a separate process, servers alternated
// round by round, medians with spread, server CPU per request, start-up time, and the issue's targets.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { assertLoopback, createBenchDatabase, postgresVersion, seedPets } from './bench-database.js';
import { renderProfileSummary, summarizeProfile } from './profile-summary.js';
import {
  evaluateTargets,
  type Measurement,
  type Row,
  renderLoggingTable,
  renderStartupTable,
  renderTable,
  renderTargets,
  SERVERS,
  type ServerName,
  type StartupSamples,
  summarize,
} from './report.js';
import { API_KEY, createScenarios, MCP_LIST20, mixedLoad, type Scenario } from './scenarios.js';
import { freePort, type ServerProcess, sampleRss, startServer } from './server-process.js';
import { ensureWrk, runWrk, writeLuaScript } from './wrk.js';

const SEEDED_PETS = 10_000;
const MiB = 1024 * 1024;
const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(here, '../..');
const referenceMain = join(here, 'reference-main.js');
const naiveMain = join(here, 'naive-main.js');
const fastifyMain = join(here, 'fastify-main.js');
const fastifyProdMain = join(here, 'fastify-prod-main.js');
const REFERENCE_MAINS = {
  raw: referenceMain,
  naive: naiveMain,
  fastify: fastifyMain,
  'fastify-prod': fastifyProdMain,
} as const;

// Bare `--soak` means 60 s: parseArgs wants a value for a string option, so supply the default.
const argv = process.argv.slice(2);
const soakAt = argv.indexOf('--soak');
if (soakAt !== -1 && (argv[soakAt + 1] === undefined || argv[soakAt + 1]?.startsWith('--'))) {
  argv.splice(soakAt + 1, 0, '60');
}

const { values: args } = parseArgs({
  args: argv,
  options: {
    quick: { type: 'boolean', default: false },
    soak: { type: 'string' },
    profile: { type: 'boolean', default: false },
    rounds: { type: 'string' },
    duration: { type: 'string' },
    'no-log-variant': { type: 'boolean', default: false },
    metrics: { type: 'boolean', default: false },
    statements: { type: 'boolean', default: false },
    baseline: { type: 'string' },
    json: { type: 'string' },
    api: { type: 'string' },
    only: { type: 'string' },
    help: { type: 'boolean', default: false },
  },
  allowPositionals: false,
  strict: true,
});

if (args.help) {
  process.stdout.write(
    'pnpm bench                 full comparison: api, raw, naive, fastify and fastify-prod (about 20 minutes)\n' +
      'pnpm bench --quick         short comparison (about 4 minutes), no logging variant\n' +
      'pnpm bench --soak 60       api alone under mixed load, RSS over time\n' +
      'pnpm bench --profile       api under --cpu-prof, one profile per scenario, summarized\n' +
      'pnpm bench --metrics       api with METRICS_PORT set (tracing off) vs without, interleaved in one run;\n' +
      "                           --baseline PATH adds another build (today's main) as a third server\n" +
      'pnpm bench --statements    api with DATABASE_STATEMENTS=unnamed vs named (the default straight to\n' +
      '                           PostgreSQL), interleaved in one run; --baseline as for --metrics\n' +
      'options: --rounds N, --duration SECONDS (50-connection runs; 1-connection runs take half),\n' +
      '         --no-log-variant, --json FILE (raw results), --api PATH (another build of apps/api/dist/main.js),\n' +
      '         --only NAME,NAME (just these scenarios, e.g. --only create,create-with-key)\n',
  );
  process.exit(0);
}

// `--api` measures another build of the api (another checkout, say) against the same references.
const apiMain = resolve(args.api ?? join(repoRoot, 'apps/api/dist/main.js'));
const quick = args.quick;
const rounds = Number(args.rounds ?? (quick ? 2 : 3));
const duration50 = Number(args.duration ?? (quick ? 2 : 5));
const duration1 = Math.max(1, Math.round(duration50 / 2));
const warmupSec = quick ? 3 : 6;
/** Start-up samples per server (each a fresh process on the seeded database). */
const startupSamples = quick ? 2 : 3;
const logVariant = !quick && !args['no-log-variant'];
// `--only a,b`: the scenarios to run (all when absent). Read here, before anything starts: a misspelt name should
// not cost a database and three servers first, and should not end in an empty run.
const only = args.only?.split(',').map((name) => name.trim());
{
  const names = createScenarios(SEEDED_PETS).map((s) => s.name);
  const unknown = (only ?? []).filter((name) => !names.includes(name));
  if (unknown.length > 0) {
    process.stderr.write(`--only: no scenario ${unknown.join(', ')} (there are ${names.join(', ')})\n`);
    process.exit(2);
  }
}
/** Whether `--only` keeps this scenario. */
const chosen = (scenario: Scenario) => only === undefined || only.includes(scenario.name);
const adminUrl = process.env.BENCH_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';

const log = (line: string) => process.stdout.write(`${line}\n`);

function serverEnv(databaseUrl: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    NODE_ENV: 'production',
    APP_ENV: 'production',
    DATABASE_URL: databaseUrl,
    API_KEYS: API_KEY,
    ...extra,
  };
}

/**
 * The api's V8 flags, as `pnpm start` passes them (package.json). The young generation capped at 8 MiB per
 * semi-space: under 50 connections the peak RSS was about 216 MiB instead of 313 MiB at the same throughput. (The
 * cap on the old generation's growth is set by the api itself once it listens: apps/api/src/heap-tuning.ts.)
 */
const API_NODE_FLAGS = ['--max-semi-space-size=8'];

const startApi = (
  databaseUrl: string,
  label: string,
  extra: Record<string, string> = {},
  nodeFlags: string[] = [],
) =>
  startServer({
    label,
    args: [...API_NODE_FLAGS, ...nodeFlags, apiMain],
    env: serverEnv(databaseUrl, extra),
    readyPath: '/v1/pets?limit=1',
    apiKey: API_KEY,
  });

/**
 * The references: raw (node:http + pg), naive (Express + zod + Prisma), fastify (Fastify + pg + its JSON
 * schemas), the api's pool size, no logging; and fastify-prod (fastify with pino's request log on stdout, which
 * startServer sends to /dev/null as it does the api's, `@fastify/rate-limit` at its default limit, which counts but
 * never refuses in a run, and the api's security headers).
 */
const startReference = (databaseUrl: string, kind: keyof typeof REFERENCE_MAINS) =>
  startServer({
    label: kind,
    args: [REFERENCE_MAINS[kind]],
    env: serverEnv(databaseUrl, { POOL_SIZE: '10' }),
    readyPath: '/v1/pets?limit=1',
    apiKey: API_KEY,
  });

const startByName = (databaseUrl: string, name: ServerName) =>
  name === 'api' ? startApi(databaseUrl, 'api') : startReference(databaseUrl, name);

async function measure(
  server: ServerProcess,
  script: string,
  connections: number,
  durationSec: number,
): Promise<Measurement> {
  const sampler = sampleRss(server);
  const cpuBefore = server.readCpuMicros();
  const result = await runWrk({ baseUrl: server.baseUrl, script, connections, durationSec });
  const cpuMicros = server.readCpuMicros() - cpuBefore;
  const { peak } = sampler.stop();
  return { ...result, peakRss: peak, cpuMicros };
}

function machineLine(pgVersion: string, wrkVersion: string): string {
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  return (
    `${cpus().length} × ${cpu}, ${(totalmem() / 1024 ** 3).toFixed(0)} GiB, Node ${process.version}, ` +
    `PostgreSQL ${pgVersion} on 127.0.0.1, ${wrkVersion} (1 thread)`
  );
}

/** The steps of a run: check the machine, set up the database and the api, then the mode the options chose. */
async function main(): Promise<void> {
  const wrkVersion = preflight();
  const work = mkdtempSync(join(tmpdir(), 'petstore-bench-'));
  const database = await createBenchDatabase(adminUrl);
  // Every server started, stopped in `finally` whichever step fails.
  const servers: ServerProcess[] = [];
  try {
    const pgVersion = await postgresVersion(database.url);
    const machine = () => machineLine(pgVersion, wrkVersion);
    logStart(machine(), database.name);

    // The api applies the migrations on start-up, exactly as in production; the seed comes after.
    if (args.profile) return await profile(database.url, work);
    const api = await startSeededApi(database.url, servers);

    if (args.soak !== undefined) return await soak(api, Number(args.soak || 60), work);
    if (args.metrics)
      return await variantComparison(database.url, api, servers, work, await metricsVariant());
    if (args.statements)
      return await variantComparison(database.url, api, servers, work, unnamedStatementsVariant());
    await fullComparison(database.url, api, servers, work, machine);
  } finally {
    for (const server of servers) await server.stop();
    await database.drop();
    rmSync(work, { recursive: true, force: true });
  }
}

/** What a run needs before it starts anything: a loopback database, the built api, wrk (its version). */
function preflight(): string {
  assertLoopback(adminUrl);
  if (!existsSync(apiMain)) {
    throw new Error(
      `${apiMain} is missing: run \`pnpm bench\` from the repository root (it builds the api first)`,
    );
  }
  return ensureWrk();
}

function logStart(machine: string, databaseName: string): void {
  log(`machine: ${machine}`);
  const load = loadavg()[0] ?? 0;
  log(
    `load average before start: ${load.toFixed(2)}${load > 0.5 ? ' (the machine is busy: expect noisy numbers)' : ''}`,
  );
  log(`database: ${databaseName} (dropped at the end)`);
}

/** The api on the empty database (it migrates it), then the seed. */
async function startSeededApi(databaseUrl: string, servers: ServerProcess[]): Promise<ServerProcess> {
  const api = await startApi(databaseUrl, 'api');
  servers.push(api);
  log(`api first start (migrates the empty database): ${api.startupMs.toFixed(0)} ms`);
  await seedPets(databaseUrl, SEEDED_PETS);
  log(`seeded ${SEEDED_PETS.toLocaleString('en-US')} pets`);
  return api;
}

/** The api against the three references (and the api at LOG_LEVEL=warn): start-up, every scenario, the report. */
async function fullComparison(
  databaseUrl: string,
  api: ServerProcess,
  servers: ServerProcess[],
  work: string,
  machine: () => string,
): Promise<void> {
  const startup = await measureStartup(databaseUrl);
  const { references, apiQuiet } = await startComparisonServers(databaseUrl, servers);
  await checkSameAnswers(api, references);
  const scenarios = createScenarios(SEEDED_PETS).filter(chosen);
  if (scenarios.some((s) => s.name === 'mcp-list20')) await checkMcpAnswer(api);
  await warmUp(servers, work);
  const { results, warnings } = await runRounds(scenarios, servers, api, apiQuiet, work);
  reportComparison({ scenarios, results, warnings, startup, logged: apiQuiet !== undefined, machine });
}

/** The four references, and the api at LOG_LEVEL=warn unless the logging variant is off. */
async function startComparisonServers(
  databaseUrl: string,
  servers: ServerProcess[],
): Promise<{ references: ServerProcess[]; apiQuiet: ServerProcess | undefined }> {
  const raw = await startReference(databaseUrl, 'raw');
  servers.push(raw);
  const naive = await startReference(databaseUrl, 'naive');
  servers.push(naive);
  const fastify = await startReference(databaseUrl, 'fastify');
  servers.push(fastify);
  const fastifyProd = await startReference(databaseUrl, 'fastify-prod');
  servers.push(fastifyProd);
  const apiQuiet = logVariant
    ? await startApi(databaseUrl, 'api-log-warn', { LOG_LEVEL: 'warn' })
    : undefined;
  if (apiQuiet) servers.push(apiQuiet);
  return { references: [raw, naive, fastify, fastifyProd], apiQuiet };
}

/** `warmupSec` of mixed load on each server, one after the other. */
async function warmUp(servers: ServerProcess[], work: string): Promise<void> {
  const warm = writeLuaScript(work, 'warmup', mixedLoad(SEEDED_PETS));
  for (const server of servers) {
    log(`warming up ${server.label} (${warmupSec} s mixed load)`);
    await runWrk({ baseUrl: server.baseUrl, script: warm, connections: 50, durationSec: warmupSec });
  }
}

const CONNECTION_COUNTS = [50, 1];
/** Where the runs of one scenario, connection count and server are kept. */
const resultKey = (scenario: string, connections: number, label: string) =>
  `${scenario}/${connections}/${label}`;

/** Every scenario at each connection count on each server, `rounds` times, servers alternated round by round. */
async function runRounds(
  scenarios: Scenario[],
  servers: ServerProcess[],
  api: ServerProcess,
  apiQuiet: ServerProcess | undefined,
  work: string,
): Promise<{ results: Map<string, Measurement[]>; warnings: string[] }> {
  const scripts = new Map(scenarios.map((s) => [s.name, writeLuaScript(work, s.name, s.load)]));
  const results = new Map<string, Measurement[]>();
  const warnings: string[] = [];
  const plannedSec =
    rounds * scenarios.length * (SERVERS.length * (duration50 + duration1) + (apiQuiet ? duration50 : 0));
  log(
    `${rounds} rounds, ${duration50} s per run at 50 connections, ${duration1} s at 1: about ${Math.ceil(plannedSec / 60)} min`,
  );

  for (let round = 0; round < rounds; round++) {
    // Alternate who goes first, so neither server always runs on a warmer (or busier) machine.
    const order = round % 2 === 0 ? servers : [...servers].reverse();
    for (const scenario of scenarios) {
      for (const connections of CONNECTION_COUNTS) {
        for (const server of order) {
          if (server === apiQuiet && connections !== 50) continue;
          if (scenario.apiOnly && server !== api && server !== apiQuiet) continue;
          const durationSec = connections === 50 ? duration50 : duration1;
          const result = await measure(
            server,
            scripts.get(scenario.name) as string,
            connections,
            durationSec,
          );
          const k = resultKey(scenario.name, connections, server.label);
          results.set(k, [...(results.get(k) ?? []), result]);
          checkResult(scenario, server.label, connections, result, warnings);
        }
      }
      process.stdout.write(`round ${round + 1}/${rounds}: ${scenario.name} done\n`);
    }
  }
  return { results, warnings };
}

/** The tables of a full comparison, the targets, the warnings and, with `--json`, the raw results in a file. */
function reportComparison({
  scenarios,
  results,
  warnings,
  startup,
  logged,
  machine,
}: {
  scenarios: Scenario[];
  results: Map<string, Measurement[]>;
  warnings: string[];
  startup: StartupSamples;
  /** Whether the api also ran at LOG_LEVEL=warn (the logging variant). */
  logged: boolean;
  machine: () => string;
}): void {
  const rows: Row[] = scenarios.flatMap((scenario) =>
    CONNECTION_COUNTS.map((connections) => ({
      scenario: scenario.name,
      connections,
      runs: Object.fromEntries(
        SERVERS.map((name) => [name, results.get(resultKey(scenario.name, connections, name)) ?? []]),
      ) as Row['runs'],
    })),
  );
  log('');
  log(
    `### api vs raw, naive, fastify and fastify-prod references — medians over ${rounds} rounds (min–max for req/s); ` +
      'CPU = server user+system time per completed request',
  );
  log('');
  log(renderTable(rows, rounds));
  log('');
  log(
    `peak RSS over the whole run: ${SERVERS.map(
      (name) =>
        `${name} ${(Math.max(...rows.flatMap((row) => row.runs[name].map((r) => r.peakRss))) / MiB).toFixed(0)} MiB`,
    ).join(', ')}`,
  );
  log('');
  log(`### start-up to first answer (${startupSamples} fresh processes each, seeded database)`);
  log('');
  log(renderStartupTable(startup));
  const targets = evaluateTargets(rows, startup);
  log('');
  log('### targets (issue 28), read from the 50-connection rows; api at LOG_LEVEL=info');
  log('');
  log(renderTargets(targets));
  if (logged) {
    log('');
    log('### cost of the request log (api at LOG_LEVEL=info vs warn, 50 connections)');
    log('');
    log(
      renderLoggingTable(
        scenarios.map((s) => ({
          scenario: s.name,
          withLog: results.get(resultKey(s.name, 50, 'api')) ?? [],
          withoutLog: results.get(resultKey(s.name, 50, 'api-log-warn')) ?? [],
        })),
        rounds,
      ),
    );
  }
  if (warnings.length > 0) {
    log('');
    log('warnings:');
    for (const warning of warnings) log(`  - ${warning}`);
  }
  log('');
  log(`machine: ${machine()}; load average now ${loadavg()[0]?.toFixed(2)}`);
  if (args.json !== undefined) {
    writeFileSync(
      args.json,
      JSON.stringify({ rounds, duration50, duration1, rows, startup, targets }, null, 2),
    );
    log(`raw results written to ${args.json}`);
  }
}

/** The references must give the api's bodies for the read scenarios, or the comparison is meaningless. */
async function checkSameAnswers(api: ServerProcess, references: ServerProcess[]): Promise<void> {
  const paths = ['/v1/pets?limit=20', '/v1/pets?limit=100&status=available', '/v1/pets/4242'];
  const answer = async (server: ServerProcess, path: string) => {
    const response = await fetch(`${server.baseUrl}${path}`, {
      headers: { Authorization: `Bearer ${API_KEY}` },
    });
    return `${response.status} ${await response.text()}`;
  };
  for (const path of paths) {
    const expected = await answer(api, path);
    for (const reference of references) {
      const got = await answer(reference, path);
      if (got !== expected)
        throw new Error(
          `api and ${reference.label} disagree on GET ${path}:\napi: ${expected.slice(0, 300)}\n` +
            `${reference.label}: ${got.slice(0, 300)}`,
        );
    }
  }
  log(
    `api, ${references
      .map((r) => r.label)
      .join(', ')
      .replace(/, ([^,]*)$/, ' and $1')} return identical bodies for list20, list100-available and get-by-id`,
  );
}

/**
 * mcp-list20 answers 200 whether the tool succeeds or not (a tool's failure is `isError` in the result), so wrk
 * cannot tell: before it runs, the call must give the 20 pets REST's list20 gives, in the same order.
 */
async function checkMcpAnswer(api: ServerProcess): Promise<void> {
  const rest = (await (
    await fetch(`${api.baseUrl}/v1/pets?limit=20`, { headers: { Authorization: `Bearer ${API_KEY}` } })
  ).json()) as { id: number | string }[];
  const response = await fetch(`${api.baseUrl}${MCP_LIST20.path}`, {
    method: 'POST',
    headers: MCP_LIST20.headers,
    body: MCP_LIST20.body,
  });
  const text = await response.text();
  // JSON, or one server-sent event carrying it.
  const message = text.startsWith('{') ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? '');
  let ids: string | undefined;
  try {
    const { result } = JSON.parse(message) as {
      result?: { isError?: boolean; structuredContent?: { items?: { id: string }[] } };
    };
    if (result?.isError !== true) ids = result?.structuredContent?.items?.map((pet) => pet.id).join(',');
  } catch {
    // not a JSON-RPC answer: reported below
  }
  if (response.status !== 200 || ids !== rest.map((pet) => String(pet.id)).join(','))
    throw new Error(`mcp-list20 does not answer list20's pets: ${response.status} ${text.slice(0, 300)}`);
  log(`mcp-list20 answers the 20 pets of list20 (${response.headers.get('content-type')})`);
}

/**
 * Start-up to first answer: spawn, then poll an authorized `GET /v1/pets` every 10 ms until it answers 200. Each
 * sample is a fresh process on the migrated, seeded database (the api still runs its migration check), started
 * while nothing else is under load; servers alternate so none always goes first.
 */
async function measureStartup(databaseUrl: string): Promise<StartupSamples> {
  const samples: StartupSamples = { api: [], raw: [], naive: [], fastify: [], 'fastify-prod': [] };
  for (let i = 0; i < startupSamples; i++) {
    const order = i % 2 === 0 ? SERVERS : [...SERVERS].reverse();
    for (const name of order) {
      const server = await startByName(databaseUrl, name);
      samples[name].push(server.startupMs);
      await server.stop();
    }
  }
  log(
    `start-up to first answer (median of ${startupSamples}): ${SERVERS.map(
      (name) => `${name} ${summarize(samples[name]).median.toFixed(0)} ms`,
    ).join(', ')}`,
  );
  return samples;
}

function checkResult(
  scenario: Scenario,
  label: string,
  connections: number,
  result: Measurement,
  warnings: string[],
): void {
  const where = `${scenario.name} at ${connections} conns on ${label}`;
  if (result.socketErrors > 0) warnings.push(`${where}: ${result.socketErrors} socket errors or timeouts`);
  if (scenario.expectErrors && result.non2xx < result.requests) {
    warnings.push(`${where}: ${result.requests - result.non2xx} responses were not errors`);
  }
  if (!scenario.expectErrors && result.non2xx > 0)
    warnings.push(`${where}: ${result.non2xx} error responses`);
}

/** The api alone under mixed load; RSS every 5 s, and whether it stayed flat. */
/** A variant of the api measured against the api itself: what a setting costs. */
interface Variant {
  /** The variant's server label (`api-metrics`). */
  label: string;
  /** What it sets on top of the api's environment. */
  env: Record<string, string>;
  /** What is compared, for the heading: `metrics on (METRICS_PORT set, tracing off)`. */
  title: string;
  /** After each of the variant's runs (a Prometheus scrape). */
  afterRun?: () => Promise<void>;
  /** Lines printed under the table. */
  footer?: () => Promise<string[]>;
  /** The least req/s ratio to today that passes (metrics: 0.95); none: the figure is only reported. */
  target?: number;
}

/** What metrics cost: METRICS_PORT set (tracing off) vs not; Prometheus scrapes once per run, at its end. */
async function metricsVariant(): Promise<Variant> {
  const metricsPort = await freePort();
  const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  return {
    label: 'api-metrics',
    env: { METRICS_PORT: String(metricsPort) },
    title: 'metrics on (METRICS_PORT set, tracing off)',
    target: 0.95,
    afterRun: async () => void (await (await fetch(metricsUrl)).text()),
    footer: async () => {
      const scrape = await (await fetch(metricsUrl)).text();
      const counted = [...scrape.matchAll(/^petstore_http_requests_total\{[^}]*\} (\d+)$/gm)].reduce(
        (sum, match) => sum + Number(match[1]),
        0,
      );
      return [`the api-metrics process counted ${counted.toLocaleString('en-US')} requests`];
    },
  };
}

/**
 * What unnamed statements cost (DATABASE_STATEMENTS=unnamed, what the api switches to behind a transaction-mode
 * pooler): every hot statement parsed and planned on each call instead of once per connection.
 */
const unnamedStatementsVariant = (): Variant => ({
  label: 'api-unnamed',
  env: { DATABASE_STATEMENTS: 'unnamed' },
  title: 'unnamed statements (DATABASE_STATEMENTS=unnamed)',
});

/**
 * The same build with and without `variant`'s settings, and optionally another build (`--baseline`: today's
 * main), on the same database, 50 connections, runs interleaved round by round in alternating order.
 */
async function variantComparison(
  databaseUrl: string,
  api: ServerProcess,
  servers: ServerProcess[],
  work: string,
  variant: Variant,
): Promise<void> {
  const withVariant = await startApi(databaseUrl, variant.label, variant.env);
  servers.push(withVariant);
  const contenders = [api, withVariant];
  if (args.baseline !== undefined) {
    const baseline = await startServer({
      label: 'baseline',
      args: [...API_NODE_FLAGS, resolve(args.baseline)],
      env: serverEnv(databaseUrl),
      readyPath: '/v1/pets?limit=1',
      apiKey: API_KEY,
    });
    servers.push(baseline);
    contenders.unshift(baseline);
  }
  await warmUp(contenders, work);
  // Five routes by default; `--only` picks others (a before/after of a refactor wants every route).
  const scenarios = createScenarios(SEEDED_PETS).filter((s) =>
    only === undefined
      ? ['list20', 'get-by-id', 'create', 'unauthorized', 'trpc-list20'].includes(s.name)
      : chosen(s),
  );
  const scripts = new Map(scenarios.map((s) => [s.name, writeLuaScript(work, s.name, s.load)]));
  const results = new Map<string, Measurement[]>();
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? contenders : [...contenders].reverse();
    for (const scenario of scenarios) {
      for (const server of order) {
        const result = await measure(server, scripts.get(scenario.name) as string, 50, duration50);
        if (server === withVariant) await variant.afterRun?.();
        const k = `${scenario.name}/${server.label}`;
        results.set(k, [...(results.get(k) ?? []), result]);
      }
    }
    log(`round ${round + 1}/${rounds} done; load average ${loadavg()[0]?.toFixed(2)}`);
  }
  const today = args.baseline === undefined ? 'api' : 'baseline';
  log('');
  log(
    `### ${variant.title} vs ${today === 'api' ? 'the api without it (same build)' : 'today (--baseline build) and the api without it'}: ` +
      `medians of ${rounds} interleaved rounds, ${duration50} s each, 50 connections`,
  );
  log('');
  const labels = contenders.map((server) => server.label);
  log(
    `| scenario | ${labels.map((label) => `${label} req/s`).join(' | ')} | ${variant.label} vs ${today} | CPU µs/req ${labels.join(' / ')} |`,
  );
  log(`| --- | ${labels.map(() => '---:').join(' | ')} | ---: | ---: |`);
  const ratios: number[] = [];
  const cpuRatios: number[] = [];
  for (const scenario of scenarios) {
    const runs = labels.map((label) => results.get(`${scenario.name}/${label}`) ?? []);
    const medians = runs.map((list) => summarize(list.map((r) => r.rps)).median);
    const cpu = runs.map((list) => summarize(list.map((r) => r.cpuMicros / Math.max(1, r.requests))).median);
    const on = medians[labels.indexOf(variant.label)] as number;
    const base = medians[labels.indexOf(today)] as number;
    ratios.push(on / base);
    cpuRatios.push((cpu[labels.indexOf(variant.label)] as number) / (cpu[labels.indexOf(today)] as number));
    log(
      `| ${scenario.name} | ${medians.map((m) => m.toFixed(0)).join(' | ')} | ${((on / base - 1) * 100).toFixed(1)}% | ${cpu.map((c) => c.toFixed(0)).join(' / ')} |`,
    );
  }
  const geomeanOf = (values: number[]) =>
    Math.exp(values.reduce((sum, r) => sum + Math.log(r), 0) / values.length);
  const geomean = geomeanOf(ratios);
  log('');
  log(
    `${variant.label} vs ${today}, geometric mean over the scenarios: ${((geomean - 1) * 100).toFixed(1)}%` +
      (variant.target === undefined
        ? ''
        : ` (target: within ${((1 - variant.target) * 100).toFixed(0)}%: ${geomean >= variant.target ? 'yes' : 'NO'})`),
  );
  for (const line of (await variant.footer?.()) ?? []) log(line);
  log(
    `server CPU per request, ${variant.label} vs ${today}, geometric mean: ${((geomeanOf(cpuRatios) - 1) * 100).toFixed(1)}% ` +
      '(steadier than req/s on a shared machine: the load generator and other processes do not count in it)',
  );
  log(
    `load average now ${loadavg()
      .map((v) => v.toFixed(2))
      .join(' ')}`,
  );
}

async function soak(api: ServerProcess, seconds: number, work: string): Promise<void> {
  const script = writeLuaScript(work, 'soak', mixedLoad(SEEDED_PETS));
  log(`soak: ${seconds} s of mixed load (reads, REST and tRPC creates) at 50 connections on the api`);
  const sampler = sampleRss(api);
  const result = await runWrk({ baseUrl: api.baseUrl, script, connections: 50, durationSec: seconds });
  const { samples, peak } = sampler.stop();
  const bucketMs = 5_000;
  const buckets = new Map<number, number[]>();
  for (const sample of samples) {
    const bucket = Math.floor(sample.t / bucketMs);
    buckets.set(bucket, [...(buckets.get(bucket) ?? []), sample.rss / MiB]);
  }
  log('');
  log('| time | RSS MiB (min–max in the window) |');
  log('| --- | ---: |');
  for (const [bucket, values] of [...buckets].sort((a, b) => a[0] - b[0])) {
    const s = summarize(values);
    log(`| ${bucket * 5}–${bucket * 5 + 5} s | ${s.min.toFixed(0)}–${s.max.toFixed(0)} |`);
  }
  // Flat: the last fifth of the run sits no more than 10% (or 10 MiB) above the second fifth (after warm-up).
  const fifth = (seconds * 1000) / 5;
  const window = (from: number, to: number) =>
    samples.filter((s) => s.t >= from && s.t < to).map((s) => s.rss / MiB);
  const early = summarize(window(fifth, 2 * fifth)).median;
  const late = summarize(window(4 * fifth, 5 * fifth)).median;
  const growth = late - early;
  const flat = growth <= Math.max(10, early * 0.1);
  log('');
  log(
    `${result.requests.toLocaleString('en-US')} requests, ${result.rps.toFixed(0)} req/s, p99 ${result.p99.toFixed(1)} ms, ` +
      `${result.non2xx} errors; peak RSS ${(peak / MiB).toFixed(0)} MiB; median RSS ${early.toFixed(0)} MiB early, ` +
      `${late.toFixed(0)} MiB late: ${flat ? 'flat' : `GROWING (+${growth.toFixed(0)} MiB)`}`,
  );
}

/** One api process per scenario under `--cpu-prof`, so each profile shows one route's cost. */
async function profile(databaseUrl: string, work: string): Promise<void> {
  const seconds = Number(args.duration ?? 10);
  const outDir = resolve(here, '../profiles');
  mkdirSync(outDir, { recursive: true });
  let seeded = false;
  // The 401 flood only when named: its profile is mostly the socket, and it would otherwise run every time.
  const scenarios = createScenarios(SEEDED_PETS).filter(
    (s) => chosen(s) && (s.name !== 'unauthorized' || only !== undefined),
  );
  const reports: string[] = [];
  for (const scenario of scenarios) {
    const dir = join(outDir, scenario.name);
    rmSync(dir, { recursive: true, force: true });
    const api = await startApi(databaseUrl, `api (${scenario.name})`, {}, [
      '--cpu-prof',
      `--cpu-prof-dir=${dir}`,
    ]);
    try {
      if (!seeded) {
        await seedPets(databaseUrl, SEEDED_PETS);
        seeded = true;
      }
      // No separate warm-up: it would land in the same profile; the first second of JIT is noise in ten.
      const script = writeLuaScript(work, scenario.name, scenario.load);
      const result = await runWrk({ baseUrl: api.baseUrl, script, connections: 50, durationSec: seconds });
      log(`profiled ${scenario.name}: ${result.rps.toFixed(0)} req/s under the profiler`);
    } finally {
      await api.stop();
    }
    const file = readdirSync(dir).find((name) => name.endsWith('.cpuprofile'));
    if (file === undefined) throw new Error(`no .cpuprofile written in ${dir}`);
    reports.push(
      renderProfileSummary(`${scenario.name} (${scenario.description})`, summarizeProfile(join(dir, file))),
    );
  }
  log('');
  log(reports.join('\n\n'));
  log('');
  log(`profiles (open in Chrome DevTools or speedscope): ${outDir}/<scenario>/*.cpuprofile`);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
