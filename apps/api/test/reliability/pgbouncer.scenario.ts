/**
 * Behind PgBouncer in transaction mode (Debian's 1.18: no prepared-statement tracking; `default_pool_size = 5`),
 * as issue 30 measured it: the api's database migrated directly (migrations never go through a transaction-mode
 * pooler: docs/operations.md#connection-poolers), then the api started through the pooler, and `loops` client
 * loops for `durationMs`, half creating pets, half listing them. Every answer is counted by status; none may be a
 * 5xx. Per DATABASE_STATEMENTS value: `auto` (the default) and `unnamed` serve; `named` must refuse to start with
 * a message that names the setting.
 */
import type { Pet } from '@petstore/schema';
import type { StatementMode } from '../../src/db/sql.js';
import { type ApiProcess, startApiProcess } from './api-process.js';
import { type Pgbouncer, startPgbouncer } from './pgbouncer.js';
import {
  createPet,
  createRandom,
  requestJson,
  type ScenarioEnvironment,
  type ScenarioResult,
  samplePet,
  verifyPet,
  withPostgresDatabase,
  withTempDir,
} from './scenario-support.js';

export interface PgbouncerOptions {
  seed: number;
  /** Client loops at once, half creating and half listing. */
  loops: number;
  /** How long they run, per DATABASE_STATEMENTS value that serves. */
  durationMs: number;
  /** The DATABASE_STATEMENTS values to try (the api's own default when the entry is `default`). */
  modes: readonly (StatementMode | 'default')[];
}

/** Answers by status code (`201`, `200`, `500 internal_error`...), and the creates the client saw acknowledged. */
export interface PgbouncerLoad {
  statuses: Record<string, number>;
  requests: number;
  serverErrors: number;
  created: number;
  lost: number;
}

/** `loops` loops for `durationMs` against `baseUrl`: even loops create, odd ones list. */
async function pgbouncerLoad(
  baseUrl: string,
  options: Pick<PgbouncerOptions, 'seed' | 'loops' | 'durationMs'>,
): Promise<PgbouncerLoad> {
  const random = createRandom(options.seed);
  const statuses: Record<string, number> = {};
  const acknowledged: Pet[] = [];
  let requests = 0;
  let serverErrors = 0;
  const count = (status: number, body: unknown) => {
    requests++;
    const code = status >= 400 ? (body as { code?: unknown } | undefined)?.code : undefined;
    const key = typeof code === 'string' ? `${status} ${code}` : String(status);
    statuses[key] = (statuses[key] ?? 0) + 1;
    if (status >= 500) serverErrors++;
  };
  const until = Date.now() + options.durationMs;
  await Promise.all(
    Array.from({ length: options.loops }, async (_, loop) => {
      for (let i = 0; Date.now() < until; i++) {
        if (loop % 2 === 0) {
          const { pet, reply } = await createPet(baseUrl, samplePet(random, `bouncer ${loop}.${i}`));
          count(reply.status, reply.body);
          if (pet) acknowledged.push(pet);
        } else {
          const reply = await requestJson(`${baseUrl}/pets?limit=20`);
          count(reply.status, reply.body);
        }
      }
    }),
  );
  let lost = 0;
  for (const pet of acknowledged) if ((await verifyPet(baseUrl, pet)) !== undefined) lost++;
  return { statuses, requests, serverErrors, created: acknowledged.length, lost };
}

export async function runPgbouncerScenario(
  env: ScenarioEnvironment,
  options: PgbouncerOptions,
): Promise<ScenarioResult> {
  const adminPort = Number(new URL(env.postgresAdminUrl).port || 5432);
  return withTempDir('petstore-pgbouncer-api-', (dataDir) =>
    withPostgresDatabase(env, 'pgbouncer', async (database) => {
      // Migrated straight on PostgreSQL, as an operator's release step does.
      await (await startApiProcess({ databaseUrl: database.url, dataDir })).kill();
      let bouncer: Pgbouncer | undefined;
      const violations: string[] = [];
      const details: Record<string, unknown> = {};
      let requestsSent = 0;
      let serverErrors = 0;
      let lost = 0;
      try {
        // As shipped: no ignore_startup_parameters, so it refuses the api's start-up parameters (issue 39).
        bouncer = await startPgbouncer({
          serverPort: adminPort,
          poolMode: 'transaction',
          poolSize: 5,
          ignoreStartupParameters: false,
        });
        details.pgbouncer = `${bouncer.version}, transaction mode, default_pool_size 5, no ignore_startup_parameters`;
        for (const mode of options.modes) {
          const env: Record<string, string> = mode === 'default' ? {} : { DATABASE_STATEMENTS: mode };
          let api: ApiProcess | undefined;
          try {
            api = await startApiProcess({ databaseUrl: bouncer.through(database.url), dataDir, env });
          } catch (error) {
            const message = error instanceof Error ? error.message : String(error);
            if (
              mode === 'named' &&
              /DATABASE_STATEMENTS: is named, but DATABASE_URL leads to a transaction-mode pooler/.test(
                message,
              )
            ) {
              details[mode] = 'refused to start, naming DATABASE_STATEMENTS';
              continue;
            }
            violations.push(`DATABASE_STATEMENTS=${mode}: did not start: ${message.slice(-1000)}`);
            continue;
          }
          try {
            if (mode === 'named') {
              violations.push('DATABASE_STATEMENTS=named started behind a transaction-mode pooler');
            }
            const load = await pgbouncerLoad(api.baseUrl, options);
            requestsSent += load.requests;
            serverErrors += load.serverErrors;
            lost += load.lost;
            details[mode] = load;
            // After the load: the logger writes its lines in blocks, at least every 250 ms.
            const told = api.output().match(/refused the start-up parameters/g)?.length ?? 0;
            if (told !== 1)
              violations.push(
                `DATABASE_STATEMENTS=${mode}: said ${told} times that it connected without start-up parameters`,
              );
            if (mode !== 'named') {
              if (load.serverErrors > 0)
                violations.push(
                  `DATABASE_STATEMENTS=${mode}: ${load.serverErrors} 5xx ${JSON.stringify(load.statuses)}`,
                );
              if (load.lost > 0)
                violations.push(`DATABASE_STATEMENTS=${mode}: ${load.lost} acknowledged pets lost`);
              if (load.created === 0)
                violations.push(`DATABASE_STATEMENTS=${mode}: no create was acknowledged`);
            }
          } finally {
            await api.kill();
          }
        }
      } finally {
        await bouncer?.stop();
      }
      return {
        scenario: 'PgBouncer 1.18, transaction mode',
        database: 'postgresql',
        requestsSent,
        faultsInjected: 0,
        serverErrors,
        acknowledgedWritesLost: lost,
        recoveryMs: undefined,
        details,
        violations,
      };
    }),
  );
}
