// The current figures in docs/performance.md, generated from the last recorded full run (bench/last-run.json),
// so the page states them once and cannot drift from the run:
//
//   pnpm bench --json /tmp/run.json                                       # a full run (never in CI)
//   pnpm --filter @petstore/bench docs:performance record /tmp/run.json \
//     --conditions 'quiet machine, load average 0.9'                      # keep it, rewrite the block
//   pnpm --filter @petstore/bench docs:performance                        # rewrite the block from the record
//
// performance-doc.test.ts fails when the block and the record disagree.
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  evaluateViewTargets,
  type Row,
  type RowFigures,
  renderStartupFigures,
  renderTargets,
  renderViews,
  SERVERS,
  type ServerView,
  type StartupFigures,
  type StartupSamples,
  startupFigures,
  viewOf,
  viewRow,
} from './report.js';

const here = dirname(fileURLToPath(import.meta.url));
export const RECORD_FILE = resolve(here, '../last-run.json');
export const PERFORMANCE_DOC = resolve(here, '../../docs/performance.md');
const START =
  '<!-- bench:start: generated from bench/last-run.json by `pnpm --filter @petstore/bench docs:performance`; do not edit -->';
const END = '<!-- bench:end -->';

/** One full run as kept in the repository: what its tables show, without the individual rounds. */
interface RecordedRun {
  /** Day of the run, YYYY-MM-DD. */
  date: string;
  /** The command that ran it. */
  command: string;
  /** Where the figures come from, when not from `record` (a run transcribed from its printed tables). */
  source?: string;
  machine: string;
  /** What else the machine was doing: the load average, other work. */
  conditions: string;
  rounds: number;
  rows: RowFigures[];
  startup: StartupFigures;
}

/** What `pnpm bench --json FILE` writes (bench.ts). */
interface BenchJson {
  rounds: number;
  rows: Row[];
  startup: StartupSamples;
}

/** A run from `pnpm bench --json`, reduced to the figures its tables show. */
export function recordRun(
  json: BenchJson,
  about: Pick<RecordedRun, 'date' | 'command' | 'machine' | 'conditions'>,
): RecordedRun {
  return {
    ...about,
    rounds: json.rounds,
    rows: json.rows
      .map(viewRow)
      .map(({ scenario, connections, servers }) => ({ scenario, connections, servers })),
    startup: startupFigures(json.startup),
  };
}

// JSON has no NaN (a server that did not run a row): it is kept as null.
const NO_VIEW: ServerView = {
  rps: { median: Number.NaN, min: Number.NaN, max: Number.NaN },
  p50: Number.NaN,
  p99: Number.NaN,
  cpuPerRequest: Number.NaN,
  peakRssMiB: Number.NaN,
};

export function parseRecord(text: string): RecordedRun {
  // A server kept as null did not run (dropped here, filled in below); any other null is a figure it lacks.
  const run = JSON.parse(text, (key, value) =>
    value !== null ? value : (SERVERS as readonly string[]).includes(key) ? undefined : Number.NaN,
  ) as RecordedRun;
  // A server missing from a row (a run before that server existed) did not run it.
  for (const row of run.rows) {
    for (const name of SERVERS) row.servers[name] ??= NO_VIEW;
  }
  for (const name of SERVERS) run.startup[name] ??= { ...NO_VIEW.rps, samples: 0 };
  return run;
}

export const stringifyRecord = (run: RecordedRun): string =>
  `${JSON.stringify(run, (_key, value) => (typeof value === 'number' && Number.isNaN(value) ? null : value), 2)}\n`;

/** The generated block, markers included. */
export function renderBlock(run: RecordedRun): string {
  const views = run.rows.map(viewOf);
  const startupMs = run.startup.api.median;
  const absent = SERVERS.filter((name) =>
    run.rows.every((row) => Number.isNaN(row.servers[name].rps.median)),
  );
  return [
    START,
    '',
    `**Run of ${run.date}** (\`${run.command}\`, medians of ${run.rounds} rounds with the min–max spread of req/s).`,
    ...(run.source === undefined ? [] : [`Source: ${run.source}.`]),
    `Machine: ${run.machine}. Conditions: ${run.conditions}.`,
    ...(absent.length === 0 ? [] : [`Not in this run: ${absent.join(', ')} (–, n/a).`]),
    '',
    renderViews(views, run.rounds),
    '',
    renderStartupFigures(run.startup),
    '',
    'The targets ([bench/README.md](../bench/README.md#targets-issue-10)), read from the 50-connection rows:',
    '',
    renderTargets(evaluateViewTargets(views, startupMs)),
    '',
    END,
  ].join('\n');
}

/** The page with its block replaced by `block`; throws when the markers are missing. */
function withBlock(page: string, block: string): string {
  const from = page.indexOf(START);
  const to = page.indexOf(END);
  if (from === -1 || to === -1 || to < from) {
    throw new Error(`docs/performance.md has no generated block (${START} ... ${END})`);
  }
  return page.slice(0, from) + block + page.slice(to + END.length);
}

/** The block as it stands in the page (markers included), or undefined. */
export function blockOf(page: string): string | undefined {
  const from = page.indexOf(START);
  const to = page.indexOf(END);
  return from === -1 || to < from ? undefined : page.slice(from, to + END.length);
}

function main(): void {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      date: { type: 'string' },
      command: { type: 'string', default: 'pnpm bench' },
      machine: { type: 'string' },
      conditions: { type: 'string', default: 'not stated' },
    },
  });
  const [verb, file] = positionals;
  if (verb === 'record') {
    if (file === undefined)
      throw new Error('usage: docs:performance record <file written by pnpm bench --json>');
    const json = JSON.parse(readFileSync(resolve(process.env.INIT_CWD ?? '.', file), 'utf8')) as BenchJson;
    const run = recordRun(json, {
      date: values.date ?? new Date().toISOString().slice(0, 10),
      command: values.command,
      machine:
        values.machine ??
        `${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, ${(totalmem() / 1024 ** 3).toFixed(0)} GiB, Node ${process.version}`,
      conditions: values.conditions,
    });
    writeFileSync(RECORD_FILE, stringifyRecord(run));
    process.stdout.write(`recorded in ${RECORD_FILE}\n`);
  } else if (verb !== undefined) {
    throw new Error(`unknown command ${verb}; usage: docs:performance [record <file>]`);
  }
  const run = parseRecord(readFileSync(RECORD_FILE, 'utf8'));
  writeFileSync(PERFORMANCE_DOC, withBlock(readFileSync(PERFORMANCE_DOC, 'utf8'), renderBlock(run)));
  process.stdout.write(`wrote the current figures into ${PERFORMANCE_DOC}\n`);
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
