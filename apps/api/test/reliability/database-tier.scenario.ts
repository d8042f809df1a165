/**
 * The database tier at scale (issue 30), on real components the scenario starts itself: a PostgreSQL primary and
 * a streaming replica of it (restart.cluster.ts: initdb, pg_basebackup -R), Debian's PgBouncer 1.18 in
 * transaction mode (`default_pool_size = 5`) in front of each, three API instances (DATABASE_URL through the
 * primary's PgBouncer, DATABASE_READ_URL through the replica's), HAProxy in front of them. Rows of
 * `pnpm scale-test`:
 * 1. client loops through HAProxy (half REST, half tRPC, @petstore/client without retries, so a failure is
 *    seen): each creates a pet and reads it back at once by its id (read-your-writes), then lists; the replica
 *    is stopped and started again under that load. 0 5xx, 0 failed calls, every create read back;
 * 2. throughput of listPets through HAProxy with the replica, then with three instances that have none.
 */

import { createRestClient, createTrpcClient, PetStoreApiError } from '@petstore/client';
import type { Pet } from '@petstore/schema';
import { findFreePort } from '../support/postgres-server.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import { type ApiProcess, RELIABILITY_API_KEY, startApiProcess, startApiProcesses } from './api-process.js';
import { ensureHaproxy, type LoadBalancer, startHaproxy } from './haproxy.js';
import { type LoadBalancerReport, type LoadBalancerRow, startLoad } from './load-balancer.scenario.js';
import { ensurePgbouncer, type Pgbouncer, startPgbouncer } from './pgbouncer.js';
import { type OwnCluster, startOwnCluster, startReplicaOf } from './restart.cluster.js';
import { type ScenarioEnvironment, sleep, withTempDir } from './scenario-support.js';

export interface DatabaseTierOptions {
  /** Client loops at once, half REST, half tRPC. */
  loops: number;
  /** Load before the replica is stopped, while it is down, and after it is back (twice this). */
  phaseMs: number;
  /** Connections of the throughput load (autocannon). */
  connections: number;
  /** Seconds of listPets load for each throughput row; 0 leaves them out. */
  throughputSeconds: number;
}

/** `petstore_db_reads_total`, summed over the instances, by `target:reason`. */
async function readRoutes(metricsPorts: readonly number[]): Promise<Record<string, number>> {
  const routes: Record<string, number> = {};
  for (const port of metricsPorts) {
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    for (const match of text.matchAll(/^petstore_db_reads_total\{target="(\w+)",reason="(\w+)"\} (\d+)$/gm)) {
      const key = `${match[1]}:${match[2]}`;
      routes[key] = (routes[key] ?? 0) + Number(match[3]);
    }
  }
  return routes;
}

const onReplica = (routes: Record<string, number>) => routes['replica:replica'] ?? 0;
const total = (routes: Record<string, number>) =>
  Object.values(routes).reduce((sum, count) => sum + count, 0);

export async function runDatabaseTierScenario(
  env: Pick<ScenarioEnvironment, 'log'>,
  options: DatabaseTierOptions,
): Promise<LoadBalancerReport> {
  const log = env.log ?? (() => {});
  // Before anything starts: the tools the scenario needs, or a message that says how to install them.
  const haproxy = ensureHaproxy();
  ensurePgbouncer();
  return withTempDir('petstore-tier-', async (dataDir) => {
    let primary: OwnCluster | undefined;
    let replica: OwnCluster | undefined;
    let database: TestDatabase | undefined;
    const bouncers: Pgbouncer[] = [];
    const apis: ApiProcess[] = [];
    const balancers: LoadBalancer[] = [];
    const rows: LoadBalancerRow[] = [];
    const violations: string[] = [];
    let totalRequests = 0;
    let serverErrors = 0;
    let lost = 0;
    try {
      primary = await startOwnCluster((created) => {
        primary = created;
      });
      const source = primary;
      replica = await startReplicaOf(source, (created) => {
        replica = created;
      });
      database = await createTestDatabase('tier', { adminUrl: primary.adminUrl });
      const replicaUrl = new URL(database.url);
      replicaUrl.port = String(replica.port);
      // Migrations straight on the primary, as a release step (never through a transaction-mode pooler).
      await (await startApiProcess({ databaseUrl: database.url, dataDir })).kill();
      const [toPrimary, toReplica] = await Promise.all([
        startPgbouncer({ serverPort: primary.port, poolMode: 'transaction', poolSize: 5 }),
        startPgbouncer({ serverPort: replica.port, poolMode: 'transaction', poolSize: 5 }),
      ]);
      bouncers.push(toPrimary, toReplica);
      const primaryUrl = toPrimary.through(database.url);
      const readUrl = toReplica.through(replicaUrl.toString());
      log(
        `${toPrimary.version} (transaction mode) on ${toPrimary.port} -> primary, ${toReplica.port} -> replica`,
      );

      const startTier = async (withReplica: boolean) => {
        const metricsPorts = await Promise.all([0, 1, 2].map(() => findFreePort()));
        const started = await startApiProcesses(
          metricsPorts.map(
            (metricsPort) => () =>
              startApiProcess({
                databaseUrl: primaryUrl,
                dataDir,
                env: {
                  METRICS_PORT: String(metricsPort),
                  ...(withReplica ? { DATABASE_READ_URL: readUrl } : {}),
                },
              }),
          ),
        );
        apis.push(...started);
        const lb = await startHaproxy({
          backends: started.map((api, index) => ({ name: `api${index + 1}`, port: api.port })),
          binary: haproxy,
        });
        balancers.push(lb);
        await lb.waitUntilUp();
        return { started, lb, metricsPorts };
      };

      // 1. Read-your-writes for every create, and the replica stopped and restarted under load.
      const tier = await startTier(true);
      let phase = 'replica up';
      let stopping = false;
      let calls = 0;
      let failed = 0;
      let created = 0;
      let readBack = 0;
      const loop = async (index: number) => {
        const clientOptions = { apiKey: RELIABILITY_API_KEY, retries: false as const };
        const rest = createRestClient({ baseUrl: tier.lb.baseUrl, ...clientOptions });
        const trpc = createTrpcClient({ url: `${tier.lb.baseUrl}/trpc`, batch: false, ...clientOptions });
        const viaRest = index % 2 === 0;
        for (let i = 0; !stopping; i++) {
          const newPet = {
            name: `tier ${index}.${i}`,
            categoryId: BigInt(index + 1),
            status: 'pending' as const,
          };
          try {
            calls++;
            const pet: Pet = viaRest ? await rest.createPet(newPet) : await trpc.pets.create.mutate(newPet);
            created++;
            calls++;
            const read: Pet = viaRest
              ? await rest.getPet(pet.id)
              : await trpc.pets.get.query({ petId: pet.id });
            if (read.id === pet.id && read.name === pet.name) readBack++;
            else {
              lost++;
              violations.push(`${phase}: pet ${pet.id} read back as ${read.name}`);
            }
            calls++;
            if (viaRest) await rest.listPets({ limit: 20 });
            else await trpc.pets.list.query({ limit: 20 });
          } catch (error) {
            failed++;
            const status = error instanceof PetStoreApiError ? error.status : undefined;
            if (status !== undefined && status >= 500) serverErrors++;
            if (failed <= 10) violations.push(`${phase}: a call failed: ${String(error).slice(0, 300)}`);
          }
        }
      };
      const loops = Array.from({ length: options.loops }, (_, index) => loop(index));
      const routes: Record<string, Record<string, number>> = {};
      try {
        await sleep(options.phaseMs);
        routes.before = await readRoutes(tier.metricsPorts);
        phase = 'replica stopped';
        await replica.stopServer();
        await sleep(options.phaseMs);
        routes.stopped = await readRoutes(tier.metricsPorts);
        phase = 'replica restarted';
        await replica.start();
        await sleep(options.phaseMs * 2);
        routes.after = await readRoutes(tier.metricsPorts);
      } finally {
        stopping = true;
        await Promise.all(loops);
      }
      totalRequests += calls;
      const replicaServed =
        onReplica(routes.before ?? {}) > 0 && onReplica(routes.after ?? {}) > onReplica(routes.stopped ?? {});
      if (!replicaServed)
        violations.push(
          `reads were not served by the replica before the stop and after the restart: ${JSON.stringify(routes)}`,
        );
      const ryw = failed === 0 && lost === 0 && readBack === created && created > 0;
      rows.push({
        step: 'read-your-writes, replica stopped+restarted',
        requests: calls,
        failed,
        detail:
          `3 instances behind HAProxy, PgBouncer (transaction) to primary and replica; ${options.loops} client loops ` +
          `(REST and tRPC, no retries): ${created} creates, ${readBack} read back at once, ${lost} lost, ` +
          `${serverErrors} 5xx; reads on the replica ${onReplica(routes.before ?? {})}/${total(routes.before ?? {})} before the stop, ` +
          `${onReplica(routes.stopped ?? {}) - onReplica(routes.before ?? {})}/${total(routes.stopped ?? {}) - total(routes.before ?? {})} while stopped, ` +
          `${onReplica(routes.after ?? {}) - onReplica(routes.stopped ?? {})}/${total(routes.after ?? {}) - total(routes.stopped ?? {})} after the restart`,
        ok: ryw && replicaServed,
      });
      log(rows.at(-1)?.detail ?? '');

      // 2. Throughput of listPets, with the replica, then on three instances without one.
      if (options.throughputSeconds > 0) {
        let base: number | undefined;
        for (const withReplica of [true, false]) {
          if (!withReplica) {
            // Only one tier at a time on the machine.
            await tier.lb.stop();
            await Promise.all(tier.started.map((api) => api.kill()));
          }
          const current = withReplica ? tier : await startTier(false);
          const warm = startLoad(current.lb, 'warm', options.connections, 'read');
          await sleep(3_000);
          await warm.stop();
          const before = await readRoutes(current.metricsPorts);
          const load = startLoad(current.lb, 'throughput', options.connections, 'read');
          await sleep(options.throughputSeconds * 1_000);
          const outcome = await load.stop();
          const after = await readRoutes(current.metricsPorts);
          totalRequests += outcome.requests;
          base ??= outcome.rps;
          rows.push({
            step: `throughput, ${withReplica ? 'with' : 'without'} replica`,
            requests: outcome.requests,
            failed: outcome.failures.length,
            detail:
              `${outcome.rps.toFixed(0)} req/s listPets (${((outcome.rps / base) * 100).toFixed(0)}% of with replica), ` +
              `p50 ${outcome.p50} ms, p99 ${outcome.p99} ms, ${options.connections} connections` +
              (withReplica
                ? `; ${onReplica(after) - onReplica(before)} of ${total(after) - total(before)} reads on the replica`
                : ''),
            ok: outcome.failures.length === 0,
          });
          if (outcome.failures.length > 0)
            violations.push(
              `throughput ${withReplica ? 'with' : 'without'} replica: ${outcome.failures.length} failed`,
            );
          log(rows.at(-1)?.detail ?? '');
        }
      }
      return {
        rows,
        violations,
        result: {
          scenario: 'database tier (HAProxy, 3 instances, PgBouncer, replica)',
          database: 'postgresql' as const,
          requestsSent: totalRequests,
          faultsInjected: 1,
          serverErrors,
          acknowledgedWritesLost: lost,
          recoveryMs: undefined,
          details: Object.fromEntries(rows.map((row) => [row.step, row.detail])),
          violations,
        },
      };
    } finally {
      await Promise.all(balancers.map((balancer) => balancer.stop()));
      await Promise.all(apis.map((api) => api.kill()));
      await Promise.all(bouncers.map((bouncer) => bouncer.stop()));
      await database?.drop().catch(() => undefined);
      await replica?.stop();
      await primary?.stop();
    }
  });
}
