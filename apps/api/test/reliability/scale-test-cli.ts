/**
 * `pnpm scale-test [--quick] [--seed=N]`: HAProxy (Debian's package, installed by scripts/ensure-haproxy.sh where
 * it can) in front of three API processes on one PostgreSQL database, and one table: the conformance suite
 * through the balancer, SIGTERM and SIGKILL of one instance under load, throughput with 1, 2 and 3 instances.
 * Exits 1 if a step broke its contract. PostgreSQL is found (or started) as the tests do.
 */
import { cpus, loadavg } from 'node:os';
import { acquirePostgresServer } from '../support/postgres-server.js';
import { endOfRunCheck, sweepAbandonedTestRuns } from '../support/test-database.js';
import { ensureHaproxy } from './haproxy.js';
import { formatLoadBalancerTable, runLoadBalancerScenario } from './load-balancer.scenario.js';
import { scenarioOptions } from './reliability-plan.js';

async function main() {
  let quick = false;
  let seed: number | undefined;
  for (const arg of process.argv.slice(2)) {
    if (arg === '--quick') quick = true;
    else if (arg.startsWith('--seed=')) seed = Number(arg.slice('--seed='.length));
    else if (arg !== '--') throw new Error(`unknown argument ${arg}; usage: scale-test [--quick] [--seed=N]`);
  }
  const options = scenarioOptions('full', seed).loadBalancer;
  if (quick) Object.assign(options, scenarioOptions('bounded', seed).loadBalancer, { throughputSeconds: 3 });
  // Before anything starts: without HAProxy there is nothing to test, and the message says how to install it.
  ensureHaproxy();
  // Whatever happens next (a failed step, an exception, Ctrl-C), the processes, the database and the temp dirs
  // started below are stopped: by the scenario's own `finally`, else by ../support/run-registry.ts.
  const server = await acquirePostgresServer();
  await sweepAbandonedTestRuns(server.adminUrl, (line) => process.stdout.write(`${line}\n`));
  const load = () =>
    loadavg()
      .map((value) => value.toFixed(2))
      .join(' ');
  process.stdout.write(
    `scale test: HAProxy + 3 API processes + PostgreSQL ${server.serverVersion.split(' ')[0]} (${server.source}) ` +
      `on ${cpus().length} cores; load average ${load()}\n`,
  );
  try {
    const report = await runLoadBalancerScenario(
      { postgresAdminUrl: server.adminUrl, log: (line) => process.stdout.write(`  ${line}\n`) },
      options,
    );
    process.stdout.write(`\n${formatLoadBalancerTable(report.rows)}\n\nload average after: ${load()}\n`);
    if (report.violations.length > 0) {
      process.stdout.write(`\nviolations:\n  ${report.violations.join('\n  ')}\n`);
      process.exitCode = 1;
    }
  } finally {
    // Everything the scenario started is stopped by now; if not, this says what, and the run fails.
    const leftovers = await endOfRunCheck(server.adminUrl);
    await server.stop();
    if (leftovers) {
      process.stdout.write(`\n${leftovers.message}\n`);
      process.exitCode = 1;
    }
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
