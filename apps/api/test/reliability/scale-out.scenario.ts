/**
 * Scale-out: two API instances on one PostgreSQL database, started at the same moment (both migrate), with
 * concurrent creates through both. Ids are unique, every pet reads the same from either instance, and the
 * listings agree.
 */
import type { Pet } from '@petstore/schema';
import { startApiProcess, startApiProcesses } from './api-process.js';
import {
  createPet,
  createRandom,
  mapConcurrently,
  requestJson,
  type ScenarioEnvironment,
  type ScenarioResult,
  samplePet,
  verifyPet,
  withPostgresDatabase,
  withTempDir,
} from './scenario-support.js';

export interface ScaleOutOptions {
  seed: number;
  /** Creates through each instance. */
  createsPerInstance: number;
  /** Concurrent clients per instance. */
  concurrency: number;
}

export async function runScaleOutScenario(
  env: ScenarioEnvironment,
  options: ScaleOutOptions,
): Promise<ScenarioResult> {
  const random = createRandom(options.seed);
  return withTempDir('petstore-scale-', (dataDir) =>
    withPostgresDatabase(env, 'scale_out', async (database) => {
      const instances = await startApiProcesses([
        () => startApiProcess({ databaseUrl: database.url, dataDir }),
        () => startApiProcess({ databaseUrl: database.url, dataDir }),
      ]);
      const violations: string[] = [];
      let requestsSent = 0;
      let serverErrors = 0;
      try {
        const created = await Promise.all(
          instances.map((api, n) =>
            mapConcurrently(
              Array.from({ length: options.createsPerInstance }, (_, i) =>
                samplePet(random, `scale ${n}.${i}`),
              ),
              options.concurrency,
              async (newPet) => {
                requestsSent++;
                const { pet, reply } = await createPet(api.baseUrl, newPet);
                if (reply.status >= 500) serverErrors++;
                if (!pet)
                  violations.push(
                    `instance ${n + 1}: create answered ${reply.status} ${reply.text.slice(0, 200)}`,
                  );
                return pet;
              },
            ),
          ),
        );
        const pets = created.flat().filter((pet): pet is Pet => pet !== undefined);
        const ids = new Set(pets.map((pet) => String(pet.id)));
        if (ids.size !== pets.length) violations.push(`${pets.length - ids.size} duplicate ids`);

        // Every pet, read through the instance that did not create it as well as the one that did.
        for (const [n, api] of instances.entries()) {
          const problems = (
            await mapConcurrently(pets, 8, (pet) => {
              requestsSent++;
              return verifyPet(api.baseUrl, pet);
            })
          ).filter((problem) => problem !== undefined);
          violations.push(
            ...problems.slice(0, 10).map((problem) => `read through instance ${n + 1}: ${problem}`),
          );
        }

        for (const query of ['limit=100', 'status=sold&limit=100', 'status=available&limit=7']) {
          const [a, b] = await Promise.all(
            instances.map((api) => requestJson(`${api.baseUrl}/pets?${query}`)),
          );
          requestsSent += 2;
          if (a?.status !== 200 || b?.status !== 200 || a.text !== b.text) {
            violations.push(
              `GET /pets?${query} differs: ${a?.status} ${a?.text.slice(0, 100)} vs ${b?.status} ${b?.text.slice(0, 100)}`,
            );
          }
        }

        return {
          scenario: 'scale-out (2 instances)',
          database: 'postgresql' as const,
          requestsSent,
          faultsInjected: 0,
          serverErrors,
          acknowledgedWritesLost: undefined,
          recoveryMs: undefined,
          details: { created: pets.length, uniqueIds: ids.size },
          violations,
        };
      } finally {
        await Promise.all(instances.map((api) => api.kill()));
      }
    }),
  );
}
