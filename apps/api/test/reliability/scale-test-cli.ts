/**
 * `pnpm scale-test [--quick] [--seed=N] [--only=balancer|mcp|tier|feed]`: HAProxy (Debian's package, installed by
 * scripts/ensure-haproxy.sh where it can) in front of three API processes on one PostgreSQL database, and one
 * table: the conformance suite through the balancer, SIGTERM and SIGKILL of one instance under load, throughput
 * with 1, 2 and 3 instances; MCP through the balancer (mcp.scenario.ts): one client's calls spread over the three
 * with no session, in both protocol eras, and a SIGKILL under keyed MCP creates; then the database tier
 * (database-tier.scenario.ts): the instances through PgBouncer to a primary and a streaming replica,
 * read-your-writes for every create, the replica stopped and restarted under load, throughput with and without
 * the replica; then the change feed (feed-*.scenario.ts): a subscriber through HAProxy whose instance is SIGKILLed
 * mid-stream (exactly once, in order; commit-to-delivery p50/p99 across instances), the feed through PgBouncer in
 * transaction mode (polling) and with a direct LISTEN, and its bounds (1,000 idle subscribers' memory, a subscriber
 * that stops reading closed and resumed). Exits 1 if a step broke its contract. PostgreSQL is found
 * (or started) as the tests do.
 */
import { cpus, loadavg } from 'node:os';
import { acquirePostgresServer } from '../support/postgres-server.js';
import { endOfRunCheck, sweepAbandonedTestRuns } from '../support/test-database.js';
import { runDatabaseTierScenario } from './database-tier.scenario.js';
import { runFeedBoundsScenario } from './feed-bounds.scenario.js';
import { runFeedFailoverScenario } from './feed-failover.scenario.js';
import { runFeedPgbouncerScenario } from './feed-pgbouncer.scenario.js';
import { ensureHaproxy } from './haproxy.js';
import { formatLoadBalancerTable, runLoadBalancerScenario } from './load-balancer.scenario.js';
import { runMcpScenario } from './mcp.scenario.js';
import { ensurePgbouncer } from './pgbouncer.js';
import { scenarioOptions } from './reliability-plan.js';

const STEPS = ['balancer', 'mcp', 'tier', 'feed'] as const;

async function main() {
  let quick = false;
  let seed: number | undefined;
  let only: (typeof STEPS)[number] | undefined;
  for (const arg of process.argv.slice(2)) {
    if (arg === '--quick') quick = true;
    else if (arg.startsWith('--seed=')) seed = Number(arg.slice('--seed='.length));
    else if (STEPS.some((step) => arg === `--only=${step}`))
      only = arg.slice('--only='.length) as typeof only;
    else if (arg !== '--')
      throw new Error(
        `unknown argument ${arg}; usage: scale-test [--quick] [--seed=N] [--only=${STEPS.join('|')}]`,
      );
  }
  const options = scenarioOptions('full', seed).loadBalancer;
  const tierOptions = scenarioOptions('full', seed).databaseTier;
  const mcpOptions = scenarioOptions('full', seed).mcp;
  const feedOptions = scenarioOptions(quick ? 'bounded' : 'full', seed);
  if (quick) {
    Object.assign(options, scenarioOptions('bounded', seed).loadBalancer, { throughputSeconds: 3 });
    Object.assign(mcpOptions, scenarioOptions('bounded', seed).mcp);
    Object.assign(tierOptions, scenarioOptions('bounded', seed).databaseTier, { throughputSeconds: 3 });
  }
  // Before anything starts: without HAProxy (or PgBouncer) there is nothing to test, and the message says how
  // to install it.
  ensureHaproxy();
  if (only === undefined || only === 'tier' || only === 'feed') ensurePgbouncer();
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
    const log = (line: string) => process.stdout.write(`  ${line}\n`);
    const reports = [];
    const runs = (step: typeof only) => only === undefined || only === step;
    if (runs('balancer'))
      reports.push(await runLoadBalancerScenario({ postgresAdminUrl: server.adminUrl, log }, options));
    if (runs('mcp'))
      reports.push(await runMcpScenario({ postgresAdminUrl: server.adminUrl, log }, mcpOptions));
    if (runs('tier')) reports.push(await runDatabaseTierScenario({ log }, tierOptions));
    if (runs('feed')) {
      const env = { postgresAdminUrl: server.adminUrl, log };
      reports.push(await runFeedFailoverScenario(env, feedOptions.feedFailover));
      // The same through HAProxy as shipped, for the latency figure without `option http-no-delay`.
      if (!quick)
        reports.push(await runFeedFailoverScenario(env, { ...feedOptions.feedFailover, httpNoDelay: false }));
      reports.push(await runFeedPgbouncerScenario(env, feedOptions.feedPgbouncer));
      reports.push(await runFeedBoundsScenario(env, feedOptions.feedBounds));
    }
    const rows = reports.flatMap((report) => report.rows);
    const violations = reports.flatMap((report) => report.violations);
    process.stdout.write(`\n${formatLoadBalancerTable(rows)}\n\nload average after: ${load()}\n`);
    if (violations.length > 0) {
      process.stdout.write(`\nviolations:\n  ${violations.join('\n  ')}\n`);
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
