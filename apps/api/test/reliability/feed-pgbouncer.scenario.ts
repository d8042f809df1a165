/**
 * The change feed behind PgBouncer in transaction mode (issue 38; pgbouncer.ts: Debian's 1.18, `default_pool_size
 * = 5`): a transaction-mode pooler lends a server connection per transaction, so a LISTEN through it is forgotten
 * and its notifications never arrive (pgbouncer #655). Two API processes with DATABASE_URL through the pooler: A
 * takes the creates, B serves the subscriber, so every event reaches B from another process, through the database.
 * Per way of waking B, the subscriber (feed-support.ts, after the outbox's head) receives exactly the events of the
 * creates, in order:
 * - `EVENTS_LISTEN_URL` unset (DATABASE_URL, the pooler) and set to the pooler: B must see the pooler, say so (a
 *   warning naming EVENTS_LISTEN_URL) and poll (EVENTS_POLL_MS short here): every event still arrives;
 * - `EVENTS_LISTEN_URL` straight to PostgreSQL with EVENTS_POLL_MS an hour: only a wake-up can deliver within the
 *   run, so delivery proves LISTEN/NOTIFY on the direct connection works while the pool goes through PgBouncer.
 * The latency (create answered -> event received) of each is printed: polling's is about half the poll interval.
 */
import { performance } from 'node:perf_hooks';
import { scaled } from '../../../../tooling/vitest.shared.js';
import { type ApiProcess, startApiProcess } from './api-process.js';
import {
  compareWithOutbox,
  type FeedEvent,
  followFeed,
  latencyFigure,
  outboxHead,
  readOutbox,
  until,
  waitUntilSequenced,
} from './feed-support.js';
import type { LoadBalancerReport, LoadBalancerRow } from './load-balancer.scenario.js';
import { ensurePgbouncer, type Pgbouncer, startPgbouncer } from './pgbouncer.js';
import {
  createPet,
  createRandom,
  mapConcurrently,
  type ScenarioEnvironment,
  samplePet,
  withPostgresDatabase,
  withTempDir,
} from './scenario-support.js';

export type ListenVia = 'unset' | 'pooler' | 'direct';

export interface FeedPgbouncerOptions {
  seed: number;
  /** Pets created per case, `concurrency` at a time. */
  creates: number;
  concurrency: number;
  /** EVENTS_POLL_MS when the pooler leaves polling as the only way (short, so the run is too). */
  pollMs: number;
  /** The ways of setting EVENTS_LISTEN_URL to try. */
  listen: readonly ListenVia[];
}

/** With a direct LISTEN, a poll interval no run lasts: only wake-ups deliver. */
const POLL_NEVER_MS = 3_600_000;
const CATCH_UP_MS = scaled(60_000);
/** What the api says when EVENTS_LISTEN_URL leads to a transaction-mode pooler (src/db/database.ts). */
const POOLER_WARNING = /EVENTS_LISTEN_URL leads to a transaction-mode pooler/;

export async function runFeedPgbouncerScenario(
  env: ScenarioEnvironment,
  options: FeedPgbouncerOptions,
): Promise<LoadBalancerReport> {
  const log = env.log ?? (() => {});
  ensurePgbouncer();
  const adminPort = Number(new URL(env.postgresAdminUrl).port || 5432);
  return withTempDir('petstore-feed-pgbouncer-', (dataDir) =>
    withPostgresDatabase(env, 'feed_pgbouncer', async (database) => {
      // Migrated straight on PostgreSQL, as an operator's release step does (never through the pooler).
      await (await startApiProcess({ databaseUrl: database.url, dataDir })).kill();
      const rows: LoadBalancerRow[] = [];
      const violations: string[] = [];
      const details: Record<string, unknown> = {};
      let bouncer: Pgbouncer | undefined;
      let creatorApi: ApiProcess | undefined;
      let requests = 0;
      let lost = 0;
      try {
        bouncer = await startPgbouncer({ serverPort: adminPort, poolMode: 'transaction', poolSize: 5 });
        const pooled = bouncer.through(database.url);
        details.pgbouncer = `${bouncer.version}, transaction mode, default_pool_size 5`;
        creatorApi = await startApiProcess({ databaseUrl: pooled, dataDir });
        const random = createRandom(options.seed);
        for (const via of options.listen) {
          const listenUrl = via === 'unset' ? undefined : via === 'pooler' ? pooled : database.url;
          const apiEnv: Record<string, string> = {
            EVENTS_POLL_MS: String(via === 'direct' ? POLL_NEVER_MS : options.pollMs),
            ...(listenUrl === undefined ? {} : { EVENTS_LISTEN_URL: listenUrl }),
          };
          const subscriberApi = await startApiProcess({ databaseUrl: pooled, dataDir, env: apiEnv });
          const since = await outboxHead(database.url);
          const follower = followFeed(subscriberApi.baseUrl, { since, reconnectDelayMs: 100 });
          try {
            const problems: string[] = [];
            const label = `EVENTS_LISTEN_URL ${via === 'unset' ? 'unset' : `= ${via === 'pooler' ? 'the pooler' : 'PostgreSQL'}`}`;
            if (!(await until(() => follower.current()?.status === 200, CATCH_UP_MS)))
              throw new Error(
                `${label}: the subscriber did not connect: ${follower.failedAttempts.join('; ')}`,
              );
            const created = await mapConcurrently(
              Array.from({ length: options.creates }, (_, index) => index),
              options.concurrency,
              async (index) => {
                const { pet, reply } = await createPet(
                  creatorApi?.baseUrl as string,
                  samplePet(random, `bouncer feed ${via} ${index}`),
                );
                return { pet, status: reply.status, ackedAt: performance.now() };
              },
            );
            requests += created.length;
            const failed = created.filter((each) => each.pet === undefined);
            if (failed.length > 0)
              problems.push(
                `${label}: ${failed.length} creates failed (${[...new Set(failed.map((each) => each.status))].join(', ')})`,
              );
            if (!(await waitUntilSequenced(database.url, CATCH_UP_MS)))
              problems.push(`${label}: events of committed creates were still not numbered`);
            const outbox = await readOutbox(database.url, since);
            const head = outbox.ids.at(-1);
            await until(() => head === undefined || (follower.lastId() ?? 0n) >= head, CATCH_UP_MS);
            await follower.stop();
            problems.push(...compareWithOutbox(label, follower.events, outbox));
            if (follower.connections.length !== 1)
              problems.push(
                `${label}: the subscriber's stream was cut and reopened (${follower.connections.length})`,
              );
            const byPet = new Map<bigint, FeedEvent>(follower.events.map((event) => [event.pet.id, event]));
            const latencies: number[] = [];
            let undelivered = 0;
            for (const { pet, ackedAt } of created) {
              if (pet === undefined) continue;
              const event = byPet.get(pet.id);
              if (event === undefined) undelivered++;
              else latencies.push(event.receivedAt - ackedAt);
            }
            lost += undelivered;
            const warned = POOLER_WARNING.test(subscriberApi.output());
            if (via !== 'direct' && !warned)
              problems.push(`${label}: the api did not warn that the pooler cannot deliver notifications`);
            if (via === 'direct' && warned)
              problems.push(`${label}: the api warned about a pooler on a direct connection`);
            violations.push(...problems);
            const wakeups =
              via === 'direct'
                ? `wake-ups by LISTEN on the direct connection (EVENTS_POLL_MS ${POLL_NEVER_MS})`
                : `polling only (EVENTS_POLL_MS ${options.pollMs}), ${warned ? 'warned' : 'NO warning'}`;
            details[via] = {
              created: created.length - failed.length,
              received: follower.events.length,
              latency: latencyFigure(latencies),
              wakeups,
            };
            rows.push({
              step: `change feed through PgBouncer, ${label}`,
              requests: created.length + follower.connections.length,
              failed: failed.length,
              detail:
                `${created.length - failed.length} created on another instance, ${follower.events.length} received ` +
                `(${outbox.ids.length} in the outbox) by ${wakeups}; create answered -> event received ${latencyFigure(latencies)}`,
              ok: problems.length === 0,
            });
            log(rows.at(-1)?.detail ?? '');
          } finally {
            await follower.stop();
            await subscriberApi.kill();
          }
        }
      } finally {
        await creatorApi?.kill();
        await bouncer?.stop();
      }
      return {
        rows,
        violations,
        result: {
          scenario: 'change feed through PgBouncer 1.18 (transaction mode)',
          database: 'postgresql' as const,
          requestsSent: requests,
          faultsInjected: 0,
          serverErrors: 0,
          acknowledgedWritesLost: lost,
          recoveryMs: undefined,
          details,
          violations,
        },
      };
    }),
  );
}
