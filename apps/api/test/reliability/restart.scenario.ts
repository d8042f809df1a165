/**
 * PostgreSQL restarted, its backends terminated, or stuck, under load from our own clients.
 *
 * The scenario starts a PostgreSQL cluster of its own (restart.cluster.ts: never the shared server) and the real
 * api process on it, then runs client loops, half through our REST client and half through our tRPC client, each
 * creating pets under an Idempotency-Key and reading them back, while it injects one fault:
 *   - `restart`: `pg_ctl restart -m fast` (what an upgrade or a failover does to the api's sessions: 57P01,
 *     then refused connections, then 57P03 while the server starts);
 *   - `terminate`: a pg_terminate_backend storm on the api's sessions, every 100 ms;
 *   - `stall`: a lock held on the pets table for longer than the api's statement_timeout, so that every
 *     statement on it waits and is cancelled (57014).
 * It reports, per fault: calls that failed for the caller (target 0: every read and keyed create is retried by
 * the client within its deadline), 5xx answers other than 503 (target 0), acknowledged creates missing or stored
 * twice (target 0), and the time from the end of the fault to the first success of a request sent after it.
 */

import { createRestClient, createTrpcClient } from '@petstore/client';
import type { Pet } from '@petstore/schema';
import pg from 'pg';
import { RELIABILITY_API_KEY, startApiProcess } from './api-process.js';
import { type OwnCluster, startOwnCluster } from './restart.cluster.js';
import { type ScenarioResult, sleep, withTempDir } from './scenario-support.js';

export type RestartFault = 'restart' | 'terminate' | 'stall';

export interface RestartOptions {
  fault: RestartFault;
  /** Client loops; half REST, half tRPC. */
  loops: number;
  /** Times the fault is injected, with load before, between and after. */
  repeats: number;
  /** Load before the first fault and after each, once every loop has succeeded again (ms). */
  settleMs: number;
  /** `terminate`: how long each storm lasts (one sweep every 100 ms). */
  stormMs: number;
  /** `stall`: how long the lock is held; the api's statement timeout is a third of it. */
  stallMs: number;
  /** A client call's whole deadline, retries included (ms). */
  callDeadlineMs: number;
}

const SCENARIO_NAMES: Record<RestartFault, string> = {
  restart: 'PostgreSQL restart (pg_ctl restart -m fast)',
  terminate: 'pg_terminate_backend storm (every 100 ms)',
  stall: 'database stalled past statement_timeout',
};

interface Answer {
  status: number;
  sentAt: number;
  answeredAt: number;
}

/** Every HTTP answer the clients got (each attempt of each call), to count 5xx and time recoveries. */
function recordingFetch(answers: Answer[]): typeof globalThis.fetch {
  return async (input, init) => {
    const sentAt = Date.now();
    const response = await globalThis.fetch(input, init);
    answers.push({ status: response.status, sentAt, answeredAt: Date.now() });
    return response;
  };
}

export async function runRestartScenario(options: RestartOptions): Promise<ScenarioResult> {
  return withTempDir('petstore-restart-', async (dataDir) => {
    let cluster: OwnCluster | undefined;
    let api: Awaited<ReturnType<typeof startApiProcess>> | undefined;
    let admin: pg.Client | undefined;
    const violations: string[] = [];
    try {
      // Registered for the `finally` before it starts, so that a failed start is cleaned up too.
      cluster = await startOwnCluster((created) => {
        cluster = created;
      });
      const own = cluster;
      const control = new pg.Client({ connectionString: cluster.adminUrl });
      control.on('error', () => {});
      try {
        await control.connect();
        await control.query('CREATE DATABASE petstore');
      } finally {
        await control.end().catch(() => {});
      }
      const databaseUrl = cluster.adminUrl.replace(/\/postgres$/, '/petstore');
      // A statement timeout well under the stall, so that the stall is seen as 57014, not as a hang.
      const statementTimeoutMs = Math.max(200, Math.floor(options.stallMs / 3));
      api = await startApiProcess({
        databaseUrl,
        dataDir,
        env: { DATABASE_STATEMENT_TIMEOUT_MS: String(statementTimeoutMs), LOG_LEVEL: 'warn' },
      });

      const answers: Answer[] = [];
      const clientOptions = {
        apiKey: RELIABILITY_API_KEY,
        fetch: recordingFetch(answers),
        timeoutMs: options.callDeadlineMs,
        retries: { attempts: 20, maxRetryAfterMs: 10_000 },
      };
      const rest = createRestClient({ baseUrl: api.baseUrl, ...clientOptions });
      const trpc = createTrpcClient({ url: `${api.baseUrl}/trpc`, batch: false, ...clientOptions });

      const acknowledged = new Map<string, Pet>(); // by name (each create has a name of its own)
      const attempted = new Set<string>();
      const failures: { at: number; what: string }[] = [];
      let calls = 0;
      let stopping = false;
      const successesAfter = new Map<number, number>(); // loop -> time of its latest success
      const loop = async (index: number) => {
        const viaRest = index % 2 === 0;
        for (let i = 0; !stopping; i++) {
          const name = `restart-${index}-${i}`;
          const idempotencyKey = `restart-key-${index}-${i}-${Math.random().toString(36).slice(2)}`;
          attempted.add(name);
          calls++;
          try {
            const pet = viaRest
              ? await rest.createPet({ name, categoryId: 7n }, { idempotencyKey })
              : await trpc.pets.create.mutate({ name, categoryId: 7n, idempotencyKey });
            acknowledged.set(name, pet);
            calls++;
            const read = viaRest
              ? await rest.listPets({ limit: 5 })
              : await trpc.pets.get.query({ petId: pet.id }).then((found) => [found]);
            if (read.length === 0) failures.push({ at: Date.now(), what: `${name}: empty read` });
            successesAfter.set(index, Date.now());
          } catch (error) {
            failures.push({
              at: Date.now(),
              what: `${viaRest ? 'REST' : 'tRPC'} ${name}: ${error instanceof Error ? error.message : String(error)}`,
            });
          }
        }
      };
      const running = Array.from({ length: options.loops }, (_, index) => loop(index));

      const faultWindows: { start: number; end: number }[] = [];
      const recoveries: number[] = [];
      try {
        await sleep(options.settleMs);
        for (let repeat = 0; repeat < options.repeats; repeat++) {
          const start = Date.now();
          if (options.fault === 'restart') {
            await own.restart();
          } else if (options.fault === 'terminate') {
            const storm = new pg.Client({ connectionString: own.adminUrl });
            storm.on('error', () => {});
            await storm.connect();
            try {
              while (Date.now() - start < options.stormMs) {
                await storm.query(
                  `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                    WHERE datname = 'petstore' AND pid <> pg_backend_pid()`,
                );
                await sleep(100);
              }
            } finally {
              await storm.end().catch(() => {});
            }
          } else {
            const locker = new pg.Client({ connectionString: databaseUrl });
            locker.on('error', () => {});
            await locker.connect();
            try {
              await locker.query('BEGIN');
              await locker.query('LOCK TABLE pets IN ACCESS EXCLUSIVE MODE');
              await sleep(options.stallMs);
              await locker.query('ROLLBACK');
            } finally {
              await locker.end().catch(() => {});
            }
          }
          const end = Date.now();
          faultWindows.push({ start, end });
          // Recovered: every loop has succeeded since the fault ended (or it is hopeless: the call deadline).
          while (
            Date.now() - end < options.callDeadlineMs + 5_000 &&
            [...Array(options.loops).keys()].some((index) => (successesAfter.get(index) ?? 0) <= end)
          ) {
            await sleep(50);
          }
          const first = answers
            .filter((answer) => answer.sentAt >= end && answer.status < 300)
            .reduce((min, answer) => Math.min(min, answer.answeredAt), Number.POSITIVE_INFINITY);
          if (Number.isFinite(first)) recoveries.push(first - end);
          else violations.push(`fault ${repeat + 1}: no request succeeded after it`);
          await sleep(options.settleMs);
        }
      } finally {
        stopping = true;
        await Promise.all(running);
      }

      // What the database holds: every acknowledged create once, with its id; nothing stored twice.
      admin = new pg.Client({ connectionString: databaseUrl });
      admin.on('error', () => {});
      await admin.connect();
      const { rows } = await admin.query<{ name: string; ids: string[] }>(
        "SELECT name, array_agg(id::text ORDER BY id) AS ids FROM pets WHERE name LIKE 'restart-%' GROUP BY name",
      );
      const stored = new Map(rows.map((row) => [row.name, row.ids]));
      let lost = 0;
      let duplicated = 0;
      for (const [name, pet] of acknowledged) {
        const ids = stored.get(name);
        if (ids === undefined || !ids.includes(String(pet.id))) {
          lost++;
          violations.push(`${name}: acknowledged as pet ${pet.id}, not stored`);
        }
      }
      for (const [name, ids] of stored) {
        if (ids.length > 1) {
          duplicated++;
          violations.push(`${name}: stored ${ids.length} times (ids ${ids.join(', ')})`);
        }
        if (!attempted.has(name)) violations.push(`${name}: stored but never sent`);
      }

      const serverErrors = answers.filter((answer) => answer.status >= 500 && answer.status !== 503).length;
      if (serverErrors > 0) violations.push(`${serverErrors} answers were 5xx other than 503`);
      for (const failure of failures.slice(0, 10)) violations.push(`client-visible failure: ${failure.what}`);
      if (failures.length > 10)
        violations.push(`... and ${failures.length - 10} more client-visible failures`);
      const output = api.output();
      const sqlstates = [...output.matchAll(/"sqlstate":"([0-9A-Z]{5})"/g)].map((match) => match[1]);
      if (/"level":(50|60)/.test(output)) violations.push('the api logged at error level');
      if (api.child.exitCode !== null || api.child.signalCode !== null)
        violations.push('the api process died');

      return {
        scenario: SCENARIO_NAMES[options.fault],
        database: 'postgresql' as const,
        requestsSent: answers.length,
        faultsInjected: options.repeats,
        serverErrors,
        acknowledgedWritesLost: lost,
        recoveryMs: recoveries.length > 0 ? Math.max(...recoveries) : undefined,
        details: {
          loops: `${options.loops} (${Math.ceil(options.loops / 2)} REST, ${Math.floor(options.loops / 2)} tRPC)`,
          calls,
          clientVisibleFailures: failures.length,
          acknowledgedCreates: acknowledged.size,
          storedPets: stored.size,
          duplicated,
          answered503: answers.filter((answer) => answer.status === 503).length,
          firstSuccessAfterFaultMs: recoveries,
          faultDurationsMs: faultWindows.map((window) => window.end - window.start),
          sqlstatesLogged: Object.fromEntries(
            [...new Set(sqlstates)].map((state) => [state, sqlstates.filter((s) => s === state).length]),
          ),
          statementTimeoutMs,
        },
        violations,
      };
    } finally {
      await admin?.end().catch(() => {});
      await api?.kill();
      await cluster?.stop();
    }
  });
}
