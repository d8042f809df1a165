/**
 * Read replicas with read-your-writes, on real components: a PostgreSQL cluster of the scenario's own and a
 * streaming replica of it (`pg_basebackup -R`, restart.cluster.ts), the api with DATABASE_URL on the primary and
 * DATABASE_READ_URL on the replica. Client loops (half REST, half tRPC, through @petstore/client, which sends
 * back the position of its writes) create a pet and read it back at once, then list; every read-back must
 * return the pet, although the replica applies each commit `applyDelayMs` late (without the position, a read-back
 * on the replica would miss it). Reader loops that write nothing list and read older pets, which the replica
 * serves. The replica is stopped and started again under that load: no call may fail. The api's metrics must show
 * reads served by the replica before the stop and again after the restart.
 */

import { createRestClient, createTrpcClient } from '@petstore/client';
import type { Pet } from '@petstore/schema';
import { findFreePort } from '../support/postgres-server.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import { type ApiProcess, RELIABILITY_API_KEY, startApiProcess } from './api-process.js';
import { type OwnCluster, startOwnCluster, startReplicaOf } from './restart.cluster.js';
import { type ScenarioResult, sleep, withTempDir } from './scenario-support.js';

export interface ReadReplicaOptions {
  /** Client loops at once, half REST, half tRPC. */
  loops: number;
  /** Load before the replica is stopped, while it is down, and after it is back. */
  phaseMs: number;
  /** How late the replica applies each commit (under the api's lag bound, which the scenario sets above it). */
  applyDelayMs: number;
}

/** `petstore_db_reads_total` by target and reason, from the api's metrics. */
async function readRoutes(metricsUrl: string): Promise<Record<string, number>> {
  const text = await (await fetch(metricsUrl)).text();
  const routes: Record<string, number> = {};
  for (const match of text.matchAll(/^petstore_db_reads_total\{target="(\w+)",reason="(\w+)"\} (\d+)$/gm)) {
    routes[`${match[1]}:${match[2]}`] = Number(match[3]);
  }
  return routes;
}

export async function runReadReplicaScenario(options: ReadReplicaOptions): Promise<ScenarioResult> {
  return withTempDir('petstore-replica-', async (dataDir) => {
    let primary: OwnCluster | undefined;
    let replica: OwnCluster | undefined;
    let database: TestDatabase | undefined;
    let api: ApiProcess | undefined;
    const violations: string[] = [];
    const details: Record<string, unknown> = {};
    let calls = 0;
    let failed = 0;
    let readBacks = 0;
    let lost = 0;
    try {
      primary = await startOwnCluster((created) => {
        primary = created;
      });
      const source = primary;
      replica = await startReplicaOf(
        source,
        (created) => {
          replica = created;
        },
        { applyDelayMs: options.applyDelayMs },
      );
      // Created on the primary after the base backup: the replica receives it (and the migrations) by streaming.
      database = await createTestDatabase('replica', { adminUrl: primary.adminUrl });
      const readUrl = new URL(database.url);
      readUrl.port = String(replica.port);
      const metricsPort = await findFreePort();
      api = await startApiProcess({
        databaseUrl: database.url,
        dataDir,
        env: {
          DATABASE_READ_URL: readUrl.toString(),
          DATABASE_READ_MAX_LAG_MS: String(options.applyDelayMs * 10),
          METRICS_PORT: String(metricsPort),
        },
      });
      const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;

      // The readers' pet, on the replica before the load starts (a lag bound later).
      const seed = await createRestClient({ baseUrl: api.baseUrl, apiKey: RELIABILITY_API_KEY }).createPet({
        name: 'replica seed',
        categoryId: 1n,
      });
      await sleep(options.applyDelayMs * 10);

      let phase = 'replica up';
      let stopping = false;
      const loop = async (index: number) => {
        const clientOptions = { apiKey: RELIABILITY_API_KEY, retries: { attempts: 3 } };
        const rest = createRestClient({ baseUrl: (api as ApiProcess).baseUrl, ...clientOptions });
        const trpc = createTrpcClient({
          url: `${(api as ApiProcess).baseUrl}/trpc`,
          batch: false,
          ...clientOptions,
        });
        const viaRest = index % 2 === 0;
        if (index >= options.loops) {
          // A reader: lists, and reads a pet created before the load, never writes (so it sends no position:
          // what it sees may be as old as the lag bound, and may come from either database).
          while (!stopping) {
            try {
              calls += 2;
              if (viaRest) {
                await rest.listPets({ limit: 5 });
                await rest.getPet(seed.id);
              } else {
                await trpc.pets.list.query({ limit: 5 });
                await trpc.pets.get.query({ petId: seed.id });
              }
            } catch (error) {
              failed++;
              if (failed <= 10)
                violations.push(`${phase}: a reader's call failed: ${String(error).slice(0, 300)}`);
            }
          }
          return;
        }
        for (let i = 0; !stopping; i++) {
          const newPet = {
            name: `replica ${index}.${i}`,
            categoryId: BigInt(index),
            status: 'available' as const,
          };
          try {
            calls++;
            const created: Pet = viaRest
              ? await rest.createPet(newPet)
              : await trpc.pets.create.mutate(newPet);
            calls++;
            readBacks++;
            const read: Pet = viaRest
              ? await rest.getPet(created.id)
              : await trpc.pets.get.query({ petId: created.id });
            if (read.id !== created.id || read.name !== created.name) {
              lost++;
              violations.push(`${phase}: pet ${created.id} read back as ${read.name}`);
            }
            calls++;
            const listed = viaRest
              ? await rest.listPets({ limit: 5, status: 'available' })
              : await trpc.pets.list.query({ limit: 5, status: 'available' });
            if (listed.length === 0) violations.push(`${phase}: a listing after a create was empty`);
          } catch (error) {
            failed++;
            if (failed <= 10) violations.push(`${phase}: a call failed: ${String(error).slice(0, 300)}`);
          }
        }
      };
      // `loops` writers, then two readers (one REST, one tRPC).
      const loops = Array.from({ length: options.loops + 2 }, (_, index) => loop(index));
      try {
        await sleep(options.phaseMs);
        details.beforeStop = await readRoutes(metricsUrl);
        phase = 'replica stopped';
        await replica.stopServer();
        await sleep(options.phaseMs);
        details.whileStopped = await readRoutes(metricsUrl);
        phase = 'replica restarted';
        await replica.start();
        await sleep(options.phaseMs * 2);
        details.afterRestart = await readRoutes(metricsUrl);
      } finally {
        stopping = true;
        await Promise.all(loops);
      }
      const served = (routes: unknown) => (routes as Record<string, number>)['replica:replica'] ?? 0;
      if (served(details.beforeStop) === 0)
        violations.push('no read was served by the replica before the stop');
      if (served(details.afterRestart) <= served(details.whileStopped)) {
        violations.push('no read was served by the replica after its restart');
      }
      if (failed > 0) violations.push(`${failed} calls failed`);
    } finally {
      await api?.kill();
      await database?.drop().catch(() => undefined);
      await replica?.stop();
      await primary?.stop();
    }
    return {
      scenario: 'read replica (streaming, stopped and restarted)',
      database: 'postgresql',
      requestsSent: calls,
      faultsInjected: 1,
      serverErrors: 0,
      acknowledgedWritesLost: lost,
      recoveryMs: undefined,
      details: { ...details, readBacks, failed },
      violations,
    };
  });
}
