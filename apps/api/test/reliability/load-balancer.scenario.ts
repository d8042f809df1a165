/**
 * Scale-out behind a real load balancer: HAProxy (Debian's package) in front of three API processes on one
 * PostgreSQL database, health-checking /readyz. In order:
 * 1. the conformance suite through the load balancer;
 * 2. a load (autocannon: creates and listings, 127.0.0.1 only, bounded) during which one instance gets SIGTERM:
 *    it drains (/readyz 503 while it keeps serving), HAProxy takes it out, it exits 0; not one request fails;
 * 3. the same with SIGKILL: only the requests in flight on that instance fail (HAProxy answers them 502; it
 *    retries only connections that failed, never a request a server received, so a create never runs twice);
 *    every acknowledged create is stored, no id is given twice; a replacement on the same port turns UP and
 *    takes traffic;
 * 4. optionally, throughput of listPets through the load balancer with 1, 2 and 3 instances.
 */

import { runConformance } from '@petstore/conformance';
import { type Pet, PetSchema, parseJson } from '@petstore/schema';
import autocannon from 'autocannon';
import pg from 'pg';
import { scaled } from '../../../../tooling/vitest.shared.js';
import { type ApiProcess, RELIABILITY_API_KEY, startApiProcess, startApiProcesses } from './api-process.js';
import { type Backend, ensureHaproxy, type LoadBalancer, startHaproxy } from './haproxy.js';
import {
  type ScenarioEnvironment,
  type ScenarioResult,
  sleep,
  withPostgresDatabase,
  withTempDir,
} from './scenario-support.js';

export interface LoadBalancerOptions {
  seed: number;
  /** Cases per property-based conformance check. */
  conformanceRuns: number;
  /** Concurrent connections of the load. */
  connections: number;
  /** Load before the signal, and after the instance is gone (SIGTERM) or its replacement is UP (SIGKILL). */
  loadBeforeMs: number;
  loadAfterMs: number;
  /** SHUTDOWN_DRAIN_MS of every instance. */
  drainMs: number;
  /** Seconds of listPets load per instance count for the throughput rows; 0 leaves them out. */
  throughputSeconds: number;
}

/** One line of the `pnpm scale-test` table. */
export interface LoadBalancerRow {
  step: string;
  requests: number;
  failed: number;
  /** What the step measured, in words and figures. */
  detail: string;
  ok: boolean;
}

export interface LoadBalancerReport {
  rows: LoadBalancerRow[];
  violations: string[];
  result: ScenarioResult;
}

/** What a load run saw: every response's status and time, socket errors, and the creates acknowledged. */
export interface LoadOutcome {
  requests: number;
  /** Non-2xx answers and socket errors/timeouts, with when they happened (ms since the load began). */
  failures: { atMs: number; what: string }[];
  acknowledged: { id: string; name: string }[];
  rps: number;
  p50: number;
  p99: number;
}

export interface RunningLoad {
  startedAt: number;
  /** Responses so far. */
  responses(): number;
  stop(): Promise<LoadOutcome>;
}

/** Starts autocannon against the load balancer: alternately a create (unique name) and a listing. */
export function startLoad(
  lb: LoadBalancer,
  label: string,
  connections: number,
  kind: 'mixed' | 'read',
): RunningLoad {
  const origin = new URL(lb.baseUrl).origin;
  const failures: LoadOutcome['failures'] = [];
  const acknowledged: LoadOutcome['acknowledged'] = [];
  let created = 0;
  let responses = 0;
  const startedAt = Date.now();
  const list: autocannon.Request = { method: 'GET', path: '/v1/pets?limit=20' };
  const create: autocannon.Request = {
    method: 'POST',
    path: '/v1/pets',
    setupRequest: (request) => ({
      ...request,
      body: JSON.stringify({ name: `${label} ${created++}`, categoryId: created }),
    }),
    onResponse: (status, body) => {
      if (status !== 201) return;
      const pet = PetSchema.parse(parseJson(body)) as Pet;
      acknowledged.push({ id: String(pet.id), name: pet.name });
    },
  };
  let finish: (result: autocannon.Result) => void = () => {};
  let fail: (error: Error) => void = () => {};
  const done = new Promise<autocannon.Result>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  const instance = autocannon(
    {
      url: origin,
      connections,
      duration: 600, // stopped by the scenario
      timeout: 10,
      headers: { authorization: `Bearer ${RELIABILITY_API_KEY}`, 'content-type': 'application/json' },
      requests: kind === 'mixed' ? [create, list] : [list],
    },
    (error, result) => (error ? fail(error) : finish(result)),
  );
  instance.on('response', (_client, statusCode) => {
    responses++;
    if (statusCode < 200 || statusCode > 299)
      failures.push({ atMs: Date.now() - startedAt, what: String(statusCode) });
  });
  instance.on('reqError', (error: Error) => {
    failures.push({
      atMs: Date.now() - startedAt,
      what: (error as NodeJS.ErrnoException).code ?? error.message,
    });
  });
  return {
    startedAt,
    responses: () => responses,
    async stop() {
      instance.stop();
      const result = await done;
      return {
        requests: responses + result.errors,
        failures,
        acknowledged,
        rps: (responses * 1000) / Math.max(1, Date.now() - startedAt),
        p50: result.latency.p50,
        p99: result.latency.p99,
      };
    },
  };
}

export async function waitFor(
  condition: () => Promise<boolean>,
  timeoutMs: number,
  what: string,
): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    if (await condition()) return Date.now() - started;
    await sleep(50);
  }
  throw new Error(`${what}: not within ${timeoutMs} ms`);
}

/**
 * Acknowledged creates that are missing or different in the database; ids acknowledged twice; and creates
 * stored twice (two rows with one of this load's unique names: a request the balancer would have replayed).
 */
export async function checkCreates(
  databaseUrl: string,
  label: string,
  acknowledged: LoadOutcome['acknowledged'],
): Promise<{ lost: number; duplicates: number }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ id: string; name: string }>(
      'select id::text as id, name from pets where id = any($1::bigint[])',
      [acknowledged.map((pet) => pet.id)],
    );
    const stored = new Map(rows.map((row) => [row.id, row.name]));
    const lost = acknowledged.filter((pet) => stored.get(pet.id) !== pet.name).length;
    const { rows: twice } = await client.query<{ n: number }>(
      `select count(*)::int as n from (select name from pets where name like $1 group by name having count(*) > 1) as d`,
      [`${label} %`],
    );
    const duplicates =
      acknowledged.length - new Set(acknowledged.map((pet) => pet.id)).size + (twice[0]?.n ?? 0);
    return { lost, duplicates };
  } finally {
    await client.end();
  }
}

export async function runLoadBalancerScenario(
  env: ScenarioEnvironment,
  options: LoadBalancerOptions,
): Promise<LoadBalancerReport> {
  const log = env.log ?? (() => {});
  // Before anything starts: without HAProxy the scenario cannot run, and says how to install it.
  const haproxy = ensureHaproxy();
  return withTempDir('petstore-lb-', (dataDir) =>
    withPostgresDatabase(env, 'load_balancer', async (database) => {
      const rows: LoadBalancerRow[] = [];
      const violations: string[] = [];
      const apiEnv = { SHUTDOWN_DRAIN_MS: String(options.drainMs) };
      const start = (port?: number) =>
        startApiProcess({
          databaseUrl: database.url,
          dataDir,
          env: port === undefined ? apiEnv : { ...apiEnv, PORT: String(port) },
        });
      // Everything started is in these two lists before the next step, and stopped by the `finally`.
      const apis: ApiProcess[] = [];
      const balancers: LoadBalancer[] = [];
      try {
        // The first migrates; the others start on the migrated database (they would wait on its lock anyway).
        apis.push(await start());
        apis.push(...(await startApiProcesses([start, start])));
        const backends: Backend[] = apis.map((api, index) => ({ name: `api${index + 1}`, port: api.port }));
        let lb = await startHaproxy({ backends, binary: haproxy });
        balancers.push(lb);
        let totalRequests = 0;
        let lostWrites = 0;
        let unexpected5xx = 0;
        await lb.waitUntilUp();
        log(`HAProxy on ${lb.baseUrl} in front of ${backends.map((backend) => backend.port).join(', ')}`);

        // 1. Conformance through the load balancer.
        const conformance = await runConformance({
          baseUrl: lb.baseUrl,
          apiKey: RELIABILITY_API_KEY,
          seed: options.seed,
          numRuns: options.conformanceRuns,
        });
        const failedChecks = conformance.results.filter((result) => !result.ok);
        violations.push(...failedChecks.map((result) => `conformance ${result.id}: ${result.reason}`));
        rows.push({
          step: 'conformance suite through HAProxy',
          requests: conformance.results.length,
          failed: failedChecks.length,
          detail: `${conformance.results.length - failedChecks.length}/${conformance.results.length} checks pass`,
          ok: failedChecks.length === 0,
        });
        log(rows.at(-1)?.detail ?? '');

        // 2. SIGTERM under load: nothing fails.
        {
          const victim = apis[2] as ApiProcess;
          const name = 'api3';
          const load = startLoad(lb, 'sigterm', options.connections, 'mixed');
          await sleep(options.loadBeforeMs);
          const signalledAt = Date.now();
          victim.child.kill('SIGTERM');
          const downAfterMs = await waitFor(
            async () => (await lb.stats()).get(name)?.status.startsWith('DOWN') ?? false,
            options.drainMs + scaled(10_000),
            `${name} marked DOWN after SIGTERM`,
          );
          const exit = await victim.exited;
          const exitedAfterMs = Date.now() - signalledAt;
          // Taken out by its health checks while it still served: HAProxy never had to retry a connection to it
          // (with no drain period it does, and a balancer that does not retry would fail those requests).
          const { retries = 0, redispatches = 0 } = (await lb.stats()).get(name) ?? {};
          await sleep(options.loadAfterMs);
          const outcome = await load.stop();
          totalRequests += outcome.requests;
          const { lost, duplicates } = await checkCreates(database.url, 'sigterm', outcome.acknowledged);
          lostWrites += lost;
          unexpected5xx += outcome.failures.filter((failure) => failure.what.startsWith('5')).length;
          const problems = [
            ...outcome.failures
              .slice(0, 5)
              .map((failure) => `SIGTERM: a request failed (${failure.what}) at ${failure.atMs} ms`),
            ...(exit.code === 0
              ? []
              : [`SIGTERM: the instance exited with ${exit.code ?? exit.signal}, not 0`]),
            ...(retries + redispatches > 0
              ? [
                  `SIGTERM: HAProxy retried ${retries} connections to the stopping instance (${redispatches} redispatched)`,
                ]
              : []),
            ...(lost > 0 ? [`SIGTERM: ${lost} acknowledged creates lost`] : []),
            ...(duplicates > 0 ? [`SIGTERM: ${duplicates} duplicate ids`] : []),
          ];
          violations.push(...problems);
          rows.push({
            step: 'SIGTERM one of 3 under load',
            requests: outcome.requests,
            failed: outcome.failures.length,
            detail:
              `DOWN in HAProxy after ${downAfterMs} ms (drain ${options.drainMs} ms), ${retries} retried connections, exit ${exit.code ?? exit.signal} after ${exitedAfterMs} ms; ` +
              `${outcome.acknowledged.length} creates acked, ${lost} lost, ${duplicates} duplicate ids`,
            ok: problems.length === 0,
          });
          log(rows.at(-1)?.detail ?? '');
          // Back to three for the next step, on the same port (HAProxy's config is unchanged).
          apis[2] = await start(victim.port);
          await lb.waitUntilUp();
        }

        // 3. SIGKILL under load: only the requests in flight there fail; a replacement joins.
        {
          const victim = apis[1] as ApiProcess;
          const name = 'api2';
          const load = startLoad(lb, 'sigkill', options.connections, 'mixed');
          await sleep(options.loadBeforeMs);
          const killedAtMs = Date.now() - load.startedAt;
          victim.child.kill('SIGKILL');
          await victim.exited;
          const downAfterMs = await waitFor(
            async () => (await lb.stats()).get(name)?.status.startsWith('DOWN') ?? false,
            scaled(10_000),
            `${name} marked DOWN after SIGKILL`,
          );
          const replacementStarted = Date.now();
          apis[1] = await start(victim.port);
          await lb.waitUntilUp([name]);
          const joinedAfterMs = Date.now() - replacementStarted;
          const before = (await lb.stats()).get(name)?.responses ?? 0;
          await sleep(options.loadAfterMs);
          const served = ((await lb.stats()).get(name)?.responses ?? 0) - before;
          const outcome = await load.stop();
          totalRequests += outcome.requests;
          const { lost, duplicates } = await checkCreates(database.url, 'sigkill', outcome.acknowledged);
          lostWrites += lost;
          // In flight on the killed instance: at most one request per connection, and only around the kill
          // (before HAProxy's checks take the server out, a new connection to it fails and is redispatched).
          const late = outcome.failures.filter(
            (failure) => failure.atMs > killedAtMs + downAfterMs + scaled(1_000),
          );
          const early = outcome.failures.filter((failure) => failure.atMs < killedAtMs);
          unexpected5xx += late.length + early.length;
          const problems = [
            ...(outcome.failures.length > options.connections
              ? [
                  `SIGKILL: ${outcome.failures.length} requests failed, more than the ${options.connections} that can be in flight`,
                ]
              : []),
            ...[...early, ...late]
              .slice(0, 5)
              .map(
                (failure) =>
                  `SIGKILL: a request failed (${failure.what}) at ${failure.atMs} ms, kill at ${killedAtMs} ms`,
              ),
            ...(lost > 0 ? [`SIGKILL: ${lost} acknowledged creates lost`] : []),
            ...(duplicates > 0 ? [`SIGKILL: ${duplicates} duplicate ids`] : []),
            ...(served === 0 ? ['SIGKILL: the replacement instance took no traffic'] : []),
          ];
          violations.push(...problems);
          const kinds = [...new Set(outcome.failures.map((failure) => failure.what))].join(', ');
          const victimStats = (await lb.stats()).get(name);
          rows.push({
            step: 'SIGKILL one of 3 under load',
            requests: outcome.requests,
            failed: outcome.failures.length,
            detail:
              `${outcome.failures.length} failed (${kinds || 'none'}; in flight there, ≤ ${options.connections} connections), DOWN after ${downAfterMs} ms, ` +
              `HAProxy retried ${victimStats?.retries ?? 0} failed connections, redispatched ${victimStats?.redispatches ?? 0}; ` +
              `${outcome.acknowledged.length} creates acked, ${lost} lost, ${duplicates} duplicate ids; ` +
              `replacement UP ${joinedAfterMs} ms after start, served ${served} requests`,
            ok: problems.length === 0,
          });
          log(rows.at(-1)?.detail ?? '');
        }

        // 4. Throughput with 1, 2 and 3 instances (listPets, the same load each time).
        if (options.throughputSeconds > 0) {
          const base: number[] = [];
          for (const count of [1, 2, 3]) {
            await lb.stop();
            lb = await startHaproxy({ backends: backends.slice(0, count), binary: haproxy });
            balancers.push(lb);
            await lb.waitUntilUp();
            const warm = startLoad(lb, 'warm', options.connections, 'read');
            await sleep(1_000);
            await warm.stop();
            const load = startLoad(lb, 'throughput', options.connections, 'read');
            await sleep(options.throughputSeconds * 1_000);
            const outcome = await load.stop();
            totalRequests += outcome.requests;
            base.push(outcome.rps);
            rows.push({
              step: `throughput, ${count} instance${count === 1 ? '' : 's'}`,
              requests: outcome.requests,
              failed: outcome.failures.length,
              detail:
                `${outcome.rps.toFixed(0)} req/s listPets (${((outcome.rps / (base[0] as number)) * 100).toFixed(0)}% of 1 instance), ` +
                `p50 ${outcome.p50} ms, p99 ${outcome.p99} ms, ${options.connections} connections`,
              ok: outcome.failures.length === 0,
            });
            if (outcome.failures.length > 0)
              violations.push(`throughput with ${count}: ${outcome.failures.length} failed`);
            log(rows.at(-1)?.detail ?? '');
          }
        }

        return {
          rows,
          violations,
          result: {
            scenario: 'load balancer (HAProxy, 3 instances)',
            database: 'postgresql' as const,
            requestsSent: totalRequests,
            faultsInjected: 2,
            serverErrors: unexpected5xx,
            acknowledgedWritesLost: lostWrites,
            recoveryMs: undefined,
            details: Object.fromEntries(rows.map((row) => [row.step, row.detail])),
            violations,
          },
        };
      } finally {
        await Promise.all(balancers.map((balancer) => balancer.stop()));
        await Promise.all(apis.map((api) => api.kill()));
      }
    }),
  );
}

/** The rows as one table, as `pnpm scale-test` prints it. */
export function formatLoadBalancerTable(rows: readonly LoadBalancerRow[]): string {
  const header = ['step', 'requests', 'failed', 'result', 'detail'];
  const cells = rows.map((row) => [
    row.step,
    String(row.requests),
    String(row.failed),
    row.ok ? 'pass' : 'FAIL',
    row.detail,
  ]);
  const widths = header.map((title, column) =>
    Math.max(title.length, ...cells.map((row) => row[column]?.length ?? 0)),
  );
  const line = (values: string[]) =>
    `| ${values.map((value, column) => value.padEnd(widths[column] ?? 0)).join(' | ')} |`;
  return [
    line(header),
    `|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`,
    ...cells.map(line),
  ].join('\n');
}
