/**
 * Crash: under a stream of creates, SIGKILL the API at a random moment, restart it on the same database,
 * and check that every pet whose 201 the client received is present and intact. On PostgreSQL (a fresh
 * database) and on embedded PGlite (a data directory).
 */
import type { Pet } from '@petstore/schema';
import { scaled } from '../../../../tooling/vitest.shared.js';
import { type ApiProcess, startApiProcess } from './api-process.js';
import {
  createPet,
  createRandom,
  mapConcurrently,
  type ScenarioDatabase,
  type ScenarioEnvironment,
  type ScenarioResult,
  samplePet,
  sleep,
  verifyPet,
  withDatabase,
} from './scenario-support.js';

export interface CrashOptions {
  database: ScenarioDatabase;
  seed: number;
  /** Kill/restart cycles; acknowledged pets of every cycle are checked after each restart. */
  kills: number;
  /** Clients creating pets at once. */
  concurrency: number;
  /** The kill comes at a random moment this long after the first acknowledged create (ms). */
  killWindowMs: [number, number];
}

export async function runCrashScenario(
  env: ScenarioEnvironment,
  options: CrashOptions,
): Promise<ScenarioResult> {
  const random = createRandom(options.seed);
  return withDatabase(env, options.database, 'crash', async (target) => {
    const acknowledged: Pet[] = [];
    const violations: string[] = [];
    let requestsSent = 0;
    let serverErrors = 0;
    let unacknowledged = 0; // creates in flight at the kill: their outcome is unknown, either is fine
    let lost = 0;
    const restartMs: number[] = [];
    let api: ApiProcess = await startApiProcess(target);
    try {
      for (let kill = 0; kill < options.kills; kill++) {
        let stop = false;
        let firstAck: () => void = () => {};
        const acked = new Promise<void>((resolve) => {
          firstAck = resolve;
        });
        const current = api;
        const worker = async (w: number) => {
          for (let i = 0; !stop; i++) {
            requestsSent++;
            try {
              const { pet, reply } = await createPet(
                current.baseUrl,
                samplePet(random, `crash ${kill}.${w}.${i}`),
              );
              if (pet) {
                acknowledged.push(pet);
                firstAck();
              } else {
                if (reply.status >= 500) serverErrors++;
                violations.push(`a valid create answered ${reply.status}: ${reply.text.slice(0, 200)}`);
              }
            } catch {
              unacknowledged++; // connection reset or refused by the kill
              return;
            }
          }
        };
        const workers = Array.from({ length: options.concurrency }, (_, w) => worker(w));
        const started = await Promise.race([
          acked.then(() => true),
          current.exited.then(() => false),
          sleep(scaled(30_000)).then(() => false),
        ]);
        if (!started) {
          violations.push(
            `no create was acknowledged before kill ${kill + 1}: ${current.output().slice(-1000)}`,
          );
          stop = true;
          await Promise.all(workers);
          break;
        }
        const [min, max] = options.killWindowMs;
        await sleep(min + random() * (max - min));
        current.child.kill('SIGKILL');
        const killedAt = Date.now();
        await current.exited;
        stop = true;
        await Promise.all(workers);

        api = await startApiProcess(target);
        restartMs.push(Date.now() - killedAt);
        const problems = (
          await mapConcurrently(acknowledged, 8, (pet) => {
            requestsSent++;
            return verifyPet(api.baseUrl, pet);
          })
        ).filter((problem) => problem !== undefined);
        lost += problems.length;
        violations.push(...problems.slice(0, 20).map((problem) => `after kill ${kill + 1}: ${problem}`));
      }
    } finally {
      await api.kill();
    }
    const ids = new Set(acknowledged.map((pet) => pet.id));
    if (ids.size !== acknowledged.length) violations.push('the same id was acknowledged for two creates');
    if (serverErrors > 0) violations.push(`${serverErrors} creates answered 5xx before the kill`);
    return {
      scenario: 'crash (SIGKILL under writes)',
      database: options.database,
      requestsSent,
      faultsInjected: options.kills,
      serverErrors,
      acknowledgedWritesLost: lost,
      recoveryMs: Math.max(...restartMs),
      details: {
        seed: options.seed,
        acknowledged: acknowledged.length,
        present: acknowledged.length - lost,
        lost,
        inFlightAtKill: unacknowledged,
        restartMs,
      },
      violations,
    };
  });
}
