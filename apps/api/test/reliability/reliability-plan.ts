/**
 * Which scenarios run, on which database, how hard: `bounded` is what `pnpm test` runs (each vitest file
 * takes its scenario from here; all of them together stay well under 90 s on 2 cores), `full` is what
 * `pnpm reliability --full` runs.
 */

import { scaled } from '../../../../tooling/vitest.shared.js';
import { runCrashScenario } from './crash.scenario.js';
import { runDatabaseFaultScenario } from './database-fault.scenario.js';
import { runFeedBoundsScenario } from './feed-bounds.scenario.js';
import { runFeedFailoverScenario } from './feed-failover.scenario.js';
import { runFeedPgbouncerScenario } from './feed-pgbouncer.scenario.js';
import { DEFAULT_FUZZ_SEED, runFuzzScenario } from './fuzz.scenario.js';
import { runLoadBalancerScenario } from './load-balancer.scenario.js';
import { runMcpScenario } from './mcp.scenario.js';
import { runPgbouncerScenario } from './pgbouncer.scenario.js';
import { runProbesScenario } from './probes.scenario.js';
import { runReadReplicaScenario } from './read-replica.scenario.js';
import { runRestartScenario } from './restart.scenario.js';
import { runScaleOutScenario } from './scale-out.scenario.js';
import type { ScenarioDatabase, ScenarioEnvironment, ScenarioResult } from './scenario-support.js';
import { runShutdownScenario } from './shutdown.scenario.js';

export type PlanMode = 'bounded' | 'full';

export interface PlannedScenario {
  /** `fuzz`, `crash`, ... for `--only`. */
  kind:
    | 'fault'
    | 'partition'
    | 'restart'
    | 'crash'
    | 'shutdown'
    | 'scale-out'
    | 'load-balancer'
    | 'mcp'
    | 'feed'
    | 'pgbouncer'
    | 'replica'
    | 'fuzz'
    | 'probes';
  database: ScenarioDatabase;
  run(env: ScenarioEnvironment): Promise<ScenarioResult>;
}

const MIB = 1024 * 1024;

export const scenarioOptions = (mode: PlanMode, seed = DEFAULT_FUZZ_SEED) => {
  const full = mode === 'full';
  return {
    fuzz: {
      seed,
      numRuns: full ? 20_000 : 1_500,
      timeLimitMs: full ? 300_000 : 25_000,
      memoryGrowthLimitBytes: 256 * MIB,
    },
    crash: {
      seed,
      kills: full ? 5 : 1,
      concurrency: 8,
      killWindowMs: [100, full ? 3_000 : 1_000] as [number, number],
    },
    shutdown: { seed, inFlight: full ? 60 : 30 },
    scaleOut: { seed, createsPerInstance: full ? 1_000 : 200, concurrency: 8 },
    loadBalancer: {
      seed,
      conformanceRuns: full ? 25 : 5,
      connections: full ? 32 : 16,
      loadBeforeMs: full ? 3_000 : 1_500,
      loadAfterMs: full ? 3_000 : 1_500,
      drainMs: 2_000,
      throughputSeconds: full ? 8 : 0,
    },
    // Issue 37: the official MCP client through HAProxy, both eras; one instance SIGKILLed under keyed creates.
    mcp: {
      spreadCalls: full ? 60 : 30,
      loops: 8,
      loadBeforeMs: full ? 3_000 : 1_500,
      loadAfterMs: full ? 3_000 : 1_500,
    },
    // Issue 38, the change feed: a subscriber through HAProxy whose instance is SIGKILLed under creates.
    feedFailover: {
      seed,
      creators: 4,
      loadBeforeMs: full ? 3_000 : 1_500,
      loadAfterMs: full ? 3_000 : 1_500,
      httpNoDelay: true,
    },
    // The feed behind a transaction-mode PgBouncer: polling when LISTEN cannot work, wake-ups on a direct connection.
    feedPgbouncer: {
      seed,
      creates: full ? 500 : 100,
      concurrency: 4,
      pollMs: 250,
      listen: full ? (['unset', 'pooler', 'direct'] as const) : (['unset', 'direct'] as const),
    },
    // 1,000 idle subscribers within a stated memory bound; one that stops reading is closed and resumes.
    feedBounds: {
      subscribers: 1_000,
      keys: 10,
      rssGrowthLimitBytes: 64 * MIB,
      stallMs: 2_000,
      maxStallCreates: 20_000,
    },
    // Issue 30's measurement: 16 loops for 10 s, half creates, half lists, through PgBouncer 1.18.
    pgbouncer: {
      seed,
      loops: 16,
      durationMs: full ? 10_000 : 3_000,
      modes: ['default', 'unnamed', 'named'] as const,
    },
    databaseTier: {
      loops: 8,
      phaseMs: full ? 3_000 : 1_500,
      connections: full ? 32 : 16,
      throughputSeconds: full ? 8 : 0,
    },
    readReplica: { loops: 8, phaseMs: full ? 5_000 : 1_500, applyDelayMs: 300 },
    probes: {
      normalRequests: full ? 4_000 : 250,
      rssRatioLimit: 1.5,
      slowConnections: full ? 1_000 : 200,
      slowHoldMs: full ? 10_000 : 2_000,
    },
    fault: {
      seed,
      outages: full ? 5 : 1,
      outageMs: full ? 5_000 : 1_500,
      // The pool gives up connecting after 3 s (src/db/database.ts); the margin is for a busy machine.
      maxAnswerMs: 3_000 + scaled(2_000),
      recoveryLimitMs: scaled(30_000),
    },
    restart: {
      loops: full ? 8 : 4,
      repeats: full ? 3 : 1,
      settleMs: full ? 2_000 : 1_000,
      stormMs: 3_000,
      stallMs: 3_000,
      callDeadlineMs: 30_000,
    },
  };
};

/** Every scenario of the report, in the order the table lists them. */
export function reliabilityPlan(mode: PlanMode, seed = DEFAULT_FUZZ_SEED): PlannedScenario[] {
  const options = scenarioOptions(mode, seed);
  return [
    {
      kind: 'fault',
      database: 'postgresql',
      run: (env) => runDatabaseFaultScenario(env, { ...options.fault, fault: 'cut' }),
    },
    {
      kind: 'partition',
      database: 'postgresql',
      run: (env) => runDatabaseFaultScenario(env, { ...options.fault, fault: 'partition' }),
    },
    ...(['restart', 'terminate', 'stall'] as const).map(
      (fault): PlannedScenario => ({
        kind: 'restart',
        database: 'postgresql',
        // On a cluster of its own: the shared server is never restarted.
        run: () => runRestartScenario({ ...options.restart, fault }),
      }),
    ),
    {
      kind: 'crash',
      database: 'postgresql',
      run: (env) => runCrashScenario(env, { ...options.crash, database: 'postgresql' }),
    },
    {
      kind: 'crash',
      database: 'pglite',
      run: (env) => runCrashScenario(env, { ...options.crash, database: 'pglite' }),
    },
    { kind: 'shutdown', database: 'postgresql', run: (env) => runShutdownScenario(env, options.shutdown) },
    { kind: 'scale-out', database: 'postgresql', run: (env) => runScaleOutScenario(env, options.scaleOut) },
    {
      kind: 'load-balancer',
      database: 'postgresql',
      // The throughput rows belong to `pnpm scale-test`; here the contract only.
      run: async (env) =>
        (await runLoadBalancerScenario(env, { ...options.loadBalancer, throughputSeconds: 0 })).result,
    },
    {
      kind: 'mcp',
      database: 'postgresql',
      run: async (env) => (await runMcpScenario(env, options.mcp)).result,
    },
    {
      kind: 'feed',
      database: 'postgresql',
      run: async (env) => (await runFeedFailoverScenario(env, options.feedFailover)).result,
    },
    {
      kind: 'feed',
      database: 'postgresql',
      run: async (env) => (await runFeedPgbouncerScenario(env, options.feedPgbouncer)).result,
    },
    {
      kind: 'feed',
      database: 'postgresql',
      run: async (env) => (await runFeedBoundsScenario(env, options.feedBounds)).result,
    },
    { kind: 'pgbouncer', database: 'postgresql', run: (env) => runPgbouncerScenario(env, options.pgbouncer) },
    // On clusters of its own: a primary and its streaming replica.
    { kind: 'replica', database: 'postgresql', run: () => runReadReplicaScenario(options.readReplica) },
    {
      kind: 'fuzz',
      database: 'postgresql',
      run: (env) => runFuzzScenario(env, { ...options.fuzz, database: 'postgresql' }),
    },
    {
      kind: 'fuzz',
      database: 'pglite',
      run: (env) => runFuzzScenario(env, { ...options.fuzz, database: 'pglite' }),
    },
    {
      kind: 'probes',
      database: 'pglite',
      run: (env) => runProbesScenario(env, { ...options.probes, database: 'pglite' }),
    },
    {
      kind: 'probes',
      database: 'postgresql',
      run: (env) => runProbesScenario(env, { ...options.probes, database: 'postgresql' }),
    },
  ];
}
