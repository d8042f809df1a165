// Medians over rounds with their spread, the markdown tables the bench prints, and the issue's targets read from
// them (reported, never asserted).
import type { LoadResult } from './wrk.js';

export interface Measurement extends LoadResult {
  /** Peak resident set size of the server process during this run, in bytes. */
  peakRss: number;
  /** CPU time (user + system) the server process used during this run, in microseconds. */
  cpuMicros: number;
}

/** Runs of one server on one scenario at one connection count, one per round. */
export type Runs = Measurement[];

/** The servers compared in one run: the api and the four references. */
export const SERVERS = ['api', 'raw', 'naive', 'fastify', 'fastify-prod'] as const;
export type ServerName = (typeof SERVERS)[number];

function median(values: number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

export interface Summary {
  median: number;
  min: number;
  max: number;
}

export function summarize(values: number[]): Summary {
  if (values.length === 0) return { median: Number.NaN, min: Number.NaN, max: Number.NaN };
  return { median: median(values), min: Math.min(...values), max: Math.max(...values) };
}

const MiB = 1024 * 1024;

function fmt(value: number, digits: number): string {
  if (!Number.isFinite(value)) return '–';
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

const ratio = (value: number) => (Number.isFinite(value) ? `${fmt(value, 2)}x` : 'n/a');

/** `1,234 (1,100–1,300)`: median, then min–max over the rounds (only when there were several). */
function withSpread(summary: Summary, digits: number, rounds: number): string {
  const main = fmt(summary.median, digits);
  return rounds > 1 && Number.isFinite(summary.median)
    ? `${main} (${fmt(summary.min, digits)}–${fmt(summary.max, digits)})`
    : main;
}

export interface Row {
  scenario: string;
  connections: number;
  runs: Record<ServerName, Runs>;
}

export interface ServerView {
  rps: Summary;
  p50: number;
  p99: number;
  /** Server CPU time per completed request, microseconds (median over rounds). */
  cpuPerRequest: number;
  peakRssMiB: number;
}

export interface RowView {
  scenario: string;
  connections: number;
  servers: Record<ServerName, ServerView>;
  /** api req/s over the other server's (medians); NaN when the other did not run. */
  apiRaw: number;
  apiNaive: number;
  apiFastify: number;
  /** api req/s over the production Fastify reference's (request log, rate limit, security headers). */
  apiFastifyProd: number;
  p99ApiRaw: number;
  cpuApiRaw: number;
}

function viewServer(runs: Runs): ServerView {
  return {
    rps: summarize(runs.map((r) => r.rps)),
    p50: median(runs.map((r) => r.p50)),
    p99: median(runs.map((r) => r.p99)),
    cpuPerRequest: median(runs.filter((r) => r.requests > 0).map((r) => r.cpuMicros / r.requests)),
    peakRssMiB: runs.length === 0 ? Number.NaN : Math.max(...runs.map((r) => r.peakRss)) / MiB,
  };
}

export function viewRow(row: Row): RowView {
  const servers = Object.fromEntries(
    SERVERS.map((name) => [name, viewServer(row.runs[name] ?? [])]),
  ) as Record<ServerName, ServerView>;
  return viewOf({ scenario: row.scenario, connections: row.connections, servers });
}

/** A row as the tables show it: each server's medians, without the rounds (what bench/last-run.json keeps). */
export interface RowFigures {
  scenario: string;
  connections: number;
  servers: Record<ServerName, ServerView>;
}

/** The ratios of a row, from its servers' figures. */
export function viewOf({ scenario, connections, servers }: RowFigures): RowView {
  const { api, raw, naive, fastify, 'fastify-prod': fastifyProd } = servers;
  return {
    scenario,
    connections,
    servers,
    apiRaw: api.rps.median / raw.rps.median,
    apiNaive: api.rps.median / naive.rps.median,
    apiFastify: api.rps.median / fastify.rps.median,
    apiFastifyProd: api.rps.median / fastifyProd.rps.median,
    p99ApiRaw: api.p99 / raw.p99,
    cpuApiRaw: api.cpuPerRequest / raw.cpuPerRequest,
  };
}

/** `a / b / c / d`: one value per server, in SERVERS order. */
const perServer = (view: RowView, pick: (server: ServerView) => number, digits: number) =>
  SERVERS.map((name) => fmt(pick(view.servers[name]), digits)).join(' / ');

export function renderTable(rows: Row[], rounds: number): string {
  return renderViews(rows.map(viewRow), rounds);
}

/** The comparison table from each row's figures (`rounds` decides whether the spread is shown). */
export function renderViews(views: RowView[], rounds: number): string {
  const all = SERVERS.join(' / ');
  const header =
    '| scenario | conns | api req/s | raw req/s | naive req/s | fastify req/s | fastify-prod req/s | api/raw | api/naive ' +
    '| api/fastify | api/fastify-prod ' +
    `| p50 ms ${all} | p99 ms ${all} | p99 api/raw | CPU µs/req ${all} | CPU api/raw | peak RSS MiB ${all} |`;
  const rule = `| --- | ---: |${' ---: |'.repeat(15)}`;
  const lines = views.map((v) =>
    [
      v.scenario,
      String(v.connections),
      withSpread(v.servers.api.rps, 0, rounds),
      withSpread(v.servers.raw.rps, 0, rounds),
      withSpread(v.servers.naive.rps, 0, rounds),
      withSpread(v.servers.fastify.rps, 0, rounds),
      withSpread(v.servers['fastify-prod'].rps, 0, rounds),
      ratio(v.apiRaw),
      ratio(v.apiNaive),
      ratio(v.apiFastify),
      ratio(v.apiFastifyProd),
      perServer(v, (s) => s.p50, 2),
      perServer(v, (s) => s.p99, 1),
      ratio(v.p99ApiRaw),
      perServer(v, (s) => s.cpuPerRequest, 0),
      ratio(v.cpuApiRaw),
      perServer(v, (s) => s.peakRssMiB, 0),
    ].join(' | '),
  );
  return [header, rule, ...lines.map((line) => `| ${line} |`)].join('\n');
}

/** Start-up to first answer, per server: every sample in ms. */
export type StartupSamples = Record<ServerName, number[]>;

/** Start-up to first answer, per server: the median and spread of `samples` fresh processes. */
export type StartupFigures = Record<ServerName, Summary & { samples: number }>;

export const startupFigures = (startup: StartupSamples): StartupFigures =>
  Object.fromEntries(
    SERVERS.map((name) => [name, { ...summarize(startup[name]), samples: startup[name].length }]),
  ) as StartupFigures;

export function renderStartupTable(startup: StartupSamples): string {
  return renderStartupFigures(startupFigures(startup));
}

export function renderStartupFigures(startup: StartupFigures): string {
  const lines = SERVERS.map((name) => `| ${name} | ${withSpread(startup[name], 0, startup[name].samples)} |`);
  return [
    '| server | spawn → first 200 on GET /v1/pets, ms (median, min–max) |',
    '| --- | ---: |',
    ...lines,
  ].join('\n');
}

export interface LoggingRow {
  scenario: string;
  withLog: Runs;
  withoutLog: Runs;
}

/** The api at LOG_LEVEL=info (default, one line per request) against LOG_LEVEL=warn, same load. */
export function renderLoggingTable(rows: LoggingRow[], rounds: number): string {
  const lines = rows.map(({ scenario, withLog, withoutLog }) => {
    const on = summarize(withLog.map((r) => r.rps));
    const off = summarize(withoutLog.map((r) => r.rps));
    const cost = 1 - on.median / off.median;
    return `| ${scenario} | ${withSpread(on, 0, rounds)} | ${withSpread(off, 0, rounds)} | ${fmt(cost * 100, 0)}% |`;
  });
  return [
    '| scenario (50 conns) | api req/s, LOG_LEVEL=info | api req/s, LOG_LEVEL=warn | throughput lost to logging |',
    '| --- | ---: | ---: | ---: |',
    ...lines,
  ].join('\n');
}

// ---- targets (issue 28) ----

export interface TargetLine {
  target: string;
  measured: string;
  /** 'n/a' when a number it needs was not measured. */
  met: 'yes' | 'NO' | 'n/a';
}

const met = (values: number[], ok: (value: number) => boolean): TargetLine['met'] =>
  values.length === 0 || values.some((v) => !Number.isFinite(v)) ? 'n/a' : values.every(ok) ? 'yes' : 'NO';

/** `list20 0.71x, create 0.58x`: each route's value. */
const each = (pairs: [string, number][]) =>
  pairs.map(([name, value]) => `${name} ${ratio(value)}`).join(', ');

/** `lowest 1.12x (create)`: the value that decides an "every route" target. */
function worst(pairs: [string, number][], direction: 'lowest' | 'highest'): string {
  const known = pairs.filter(([, value]) => Number.isFinite(value));
  if (known.length === 0) return 'n/a';
  const [name, value] = known.reduce((a, b) =>
    (direction === 'lowest' ? b[1] < a[1] : b[1] > a[1]) ? b : a,
  ) as [string, number];
  const missing = pairs.length - known.length;
  return `${direction} ${ratio(value)} (${name})${missing > 0 ? `; ${missing} route(s) not measured` : ''}`;
}

/**
 * The issue's targets, read from the 50-connection rows of the table (the api at its default LOG_LEVEL=info),
 * the whole run's peak RSS, and the start-up samples. Reported, never asserted: timings on a shared machine are
 * evidence, not a pass/fail gate.
 */
export function evaluateTargets(rows: Row[], startup: StartupSamples | undefined): TargetLine[] {
  return evaluateViewTargets(rows.map(viewRow), startup === undefined ? Number.NaN : median(startup.api));
}

/** The targets from each row's figures and the api's median start-up (NaN when not measured). */
export function evaluateViewTargets(allViews: RowView[], startupMs: number): TargetLine[] {
  const views = allViews.filter((view) => view.connections === 50);
  const byName = new Map(views.map((v) => [v.scenario, v]));
  // Scenarios only the api serves (paging, idempotency keys, compression) have nothing to compare: not routes
  // "not measured", which would leave every "every route" target at n/a.
  const compared = views.filter((v) => Number.isFinite(v.servers.raw.rps.median));
  const all = (value: (v: RowView) => number): [string, number][] =>
    compared.map((v) => [v.scenario, value(v)]);
  const lines: TargetLine[] = [];
  const add = (target: string, pairs: [string, number][], ok: (v: number) => boolean, measured: string) => {
    const values = pairs.map(([, value]) => value);
    lines.push({ target, measured, met: met(values, ok) });
  };

  const faster = all((v) => v.apiNaive);
  add('api faster than naive on every route (req/s)', faster, (v) => v > 1, worst(faster, 'lowest'));
  const level = all((v) => v.apiFastify);
  add('api at or above fastify on every route (req/s)', level, (v) => v >= 1, worst(level, 'lowest'));
  const cpu = all((v) => v.cpuApiRaw);
  add('server CPU per request ≤ 1.3x raw on every route', cpu, (v) => v <= 1.3, worst(cpu, 'highest'));
  const rest = (name: string) => byName.get(name)?.servers.api.rps.median ?? Number.NaN;
  const trpc: [string, number][] = [
    ['trpc-list20/list20', rest('trpc-list20') / rest('list20')],
    ['trpc-create/create', rest('trpc-create') / rest('create')],
  ];
  add('tRPC ≥ 0.9x REST on the same operation (api req/s)', trpc, (v) => v >= 0.9, each(trpc));
  const keyed: [string, number][] = [['create-with-key/create', rest('create-with-key') / rest('create')]];
  add(
    'create with an Idempotency-Key within 15% of create (api req/s ≥ 0.85x)',
    keyed,
    (v) => v >= 0.85,
    each(keyed),
  );
  const p99 = all((v) => v.p99ApiRaw);
  add('p99 ≤ 2x raw on every route', p99, (v) => v <= 2, worst(p99, 'highest'));

  // Each row's peak is the highest of its rounds, so the run's is the highest of the rows'.
  const peak = (name: ServerName) =>
    Math.max(...allViews.map((v) => v.servers[name].peakRssMiB).filter(Number.isFinite));
  const rss = peak('api') / peak('raw');
  add(
    'peak RSS ≤ 1.3x raw (whole run)',
    [['rss', rss]],
    (v) => v <= 1.3,
    `${ratio(rss)} (api ${fmt(peak('api'), 0)} MiB, raw ${fmt(peak('raw'), 0)} MiB)`,
  );
  add(
    'api start-up to first answer < 300 ms',
    [['startup', startupMs]],
    (v) => v < 300,
    Number.isFinite(startupMs) ? `${fmt(startupMs, 0)} ms (median)` : 'n/a',
  );
  return lines;
}

export function renderTargets(lines: TargetLine[]): string {
  return [
    '| target | measured | met? |',
    '| --- | --- | --- |',
    ...lines.map((line) => `| ${line.target} | ${line.measured} | ${line.met} |`),
  ].join('\n');
}
