/**
 * The change feed across instances (issue 38): HAProxy (round robin) in front of three API processes on one
 * PostgreSQL database; a subscriber (feed-support.ts: a plain SSE reader that reconnects with `Last-Event-ID`, as an
 * EventSource does) follows GET /v1/pets/events through the balancer from the first event; creator loops create
 * pets through the balancer, so most creates commit on an instance other than the subscriber's and reach it by the
 * database's wake-ups (LISTEN/NOTIFY) or polling. Mid-stream the subscriber's instance (HAProxy's `X-Served-By`
 * names it) is SIGKILLed: the subscriber's stream is cut, and it resumes through another instance from its last id.
 * Across the run it must receive exactly the outbox's events, in order: none missing, none twice; every pet in the
 * database has exactly one event, and every create a client saw acknowledged was delivered with what was stored.
 * Figures (no assertion on time): commit-to-delivery latency, create answered -> event received by the subscriber,
 * p50/p99, over all creates and over those served by another instance than the subscriber's at the time.
 */
import { performance } from 'node:perf_hooks';
import type { Pet } from '@petstore/schema';
import { scaled } from '../../../../tooling/vitest.shared.js';
import { type ApiProcess, startApiProcess, startApiProcesses } from './api-process.js';
import {
  compareWithOutbox,
  type FeedEvent,
  followFeed,
  latencyFigure,
  readOutbox,
  until,
  waitUntilSequenced,
} from './feed-support.js';
import { ensureHaproxy, type LoadBalancer, SERVED_BY_HEADER, startHaproxy } from './haproxy.js';
import type { LoadBalancerReport, LoadBalancerRow } from './load-balancer.scenario.js';
import {
  createPet,
  createRandom,
  type ScenarioEnvironment,
  samplePet,
  sleep,
  withPostgresDatabase,
  withTempDir,
} from './scenario-support.js';

export interface FeedFailoverOptions {
  seed: number;
  /** Loops creating pets through the balancer, one create at a time each. */
  creators: number;
  /** Creates before the kill, and after the subscriber is back, in ms. */
  loadBeforeMs: number;
  loadAfterMs: number;
  /** HAProxy's `option http-no-delay`, as docs/operations.md advises for the stream (false: as shipped). */
  httpNoDelay: boolean;
}

/** How long the subscriber may take to catch up with the outbox, and to reconnect, on a busy machine. */
const CATCH_UP_MS = scaled(60_000);

interface Acknowledged {
  pet: Pet;
  /** performance.now() when the create's answer arrived. */
  ackedAt: number;
  servedBy: string | undefined;
}

export async function runFeedFailoverScenario(
  env: ScenarioEnvironment,
  options: FeedFailoverOptions,
): Promise<LoadBalancerReport> {
  const log = env.log ?? (() => {});
  const haproxy = ensureHaproxy();
  return withTempDir('petstore-feed-failover-', (dataDir) =>
    withPostgresDatabase(env, 'feed_failover', async (database) => {
      const violations: string[] = [];
      // A keep-alive comment well inside HAProxy's 30 s client and server timeouts (docs/operations.md#the-change-feed).
      const start = () =>
        startApiProcess({ databaseUrl: database.url, dataDir, env: { EVENTS_KEEPALIVE_MS: '5000' } });
      const apis: ApiProcess[] = [];
      const balancers: LoadBalancer[] = [];
      let follower: ReturnType<typeof followFeed> | undefined;
      let stopping = false;
      let creators: Promise<void>[] = [];
      try {
        // The first migrates; the others start on the migrated database.
        apis.push(await start());
        apis.push(...(await startApiProcesses([start, start])));
        const backends = apis.map((api, index) => ({ name: `api${index + 1}`, port: api.port }));
        const lb = await startHaproxy({
          backends,
          binary: haproxy,
          servedByHeader: true,
          httpNoDelay: options.httpNoDelay,
        });
        balancers.push(lb);
        await lb.waitUntilUp();
        log(`feed failover: HAProxy on ${lb.baseUrl} in front of ${backends.map((b) => b.port).join(', ')}`);

        // The database is fresh: since=0 is every event the run makes.
        follower = followFeed(lb.baseUrl, {
          since: 0n,
          reconnectDelayMs: 100,
          servedByHeader: SERVED_BY_HEADER,
        });
        const subscribed = await until(() => follower?.current()?.status === 200, CATCH_UP_MS);
        const first = follower.connections[0];
        if (!subscribed || first === undefined || first.servedBy === undefined)
          throw new Error(
            `the subscriber did not connect: ${JSON.stringify(follower.connections, (_k, v) => (typeof v === 'bigint' ? String(v) : v))} ${follower.failedAttempts.join('; ')}`,
          );

        const random = createRandom(options.seed);
        const acknowledged: Acknowledged[] = [];
        const failures: { at: number; what: string }[] = [];
        let attempts = 0;
        const creator = async (index: number) => {
          for (let i = 0; !stopping; i++) {
            attempts++;
            try {
              const { pet, reply } = await createPet(lb.baseUrl, samplePet(random, `feed ${index}.${i}`));
              if (pet === undefined) failures.push({ at: performance.now(), what: String(reply.status) });
              else
                acknowledged.push({
                  pet,
                  ackedAt: performance.now(),
                  servedBy: reply.headers.get(SERVED_BY_HEADER) ?? undefined,
                });
            } catch (error) {
              failures.push({
                at: performance.now(),
                what: (error as { cause?: { code?: string } }).cause?.code ?? String(error),
              });
              await sleep(20);
            }
          }
        };
        creators = Array.from({ length: options.creators }, (_, index) => creator(index));

        await sleep(options.loadBeforeMs);
        // Mid-stream: the subscriber has taken events on its first connection.
        if (!(await until(() => (follower?.events.length ?? 0) > 0, CATCH_UP_MS)))
          throw new Error('the subscriber received no event before the kill');
        const victimName = first.servedBy;
        const victim = apis[backends.findIndex((backend) => backend.name === victimName)];
        if (victim === undefined) throw new Error(`X-Served-By named ${victimName}, not a backend`);
        const receivedBeforeKill = follower.events.length;
        const killedAt = performance.now();
        victim.child.kill('SIGKILL');
        await victim.exited;
        log(`feed failover: SIGKILLed ${victimName} after ${receivedBeforeKill} events`);
        const resumed = await until(
          () => follower?.connections.slice(1).some((each) => each.status === 200) ?? false,
          CATCH_UP_MS,
        );
        const reconnectedAt = performance.now();
        await sleep(options.loadAfterMs);
        stopping = true;
        await Promise.all(creators);

        // Everything committed is in the outbox now, numbered by a hub soon; the subscriber catches up with it.
        if (!(await waitUntilSequenced(database.url, CATCH_UP_MS)))
          violations.push('events of committed creates were still not numbered by any instance');
        let outbox = await readOutbox(database.url);
        const head = outbox.ids.at(-1);
        await until(() => head === undefined || (follower?.lastId() ?? 0n) >= head, CATCH_UP_MS);
        await sleep(200); // anything after the head (there must be nothing) has a moment to show up
        await follower.stop();
        outbox = await readOutbox(database.url);

        const received = follower.events;
        const connections = follower.connections;
        const problems = compareWithOutbox('subscriber', received, outbox);
        if (outbox.petsWithoutEvent > 0) problems.push(`${outbox.petsWithoutEvent} pets have no event`);
        if (outbox.petsWithSeveral > 0) problems.push(`${outbox.petsWithSeveral} pets have several events`);
        const byPet = new Map<bigint, FeedEvent>(received.map((event) => [event.pet.id, event]));
        const positionOf = new Map<FeedEvent, number>(received.map((event, index) => [event, index]));
        const undelivered = acknowledged.filter(({ pet }) => {
          const event = byPet.get(pet.id);
          return (
            event === undefined ||
            event.pet.name !== pet.name ||
            event.pet.categoryId !== pet.categoryId ||
            event.pet.status !== pet.status
          );
        });
        if (undelivered.length > 0)
          problems.push(
            `${undelivered.length} acknowledged creates not delivered as acknowledged (first pet ${undelivered[0]?.pet.id})`,
          );
        if (!resumed) problems.push('the subscriber did not reconnect after the kill');
        const afterKill = connections.slice(1).filter((each) => each.status === 200);
        if (afterKill.some((each) => each.servedBy === victimName))
          problems.push(`the subscriber was served by the killed ${victimName} again`);
        if (received.length <= receivedBeforeKill) problems.push('no event was received after the reconnect');
        const endsOfFirst = connections[0]?.end;
        if (endsOfFirst?.how === 'ended' || endsOfFirst?.how === 'error-event')
          problems.push(`the first stream ended (${endsOfFirst.how}) rather than being cut by the kill`);
        const early = failures.filter((failure) => failure.at < killedAt);
        problems.push(
          ...early.slice(0, 5).map((failure) => `a create failed (${failure.what}) before the kill`),
          ...(failures.length > options.creators
            ? [`${failures.length} creates failed, more than the ${options.creators} that can be in flight`]
            : []),
          ...(acknowledged.length === 0 ? ['no create was acknowledged'] : []),
        );

        // Latency: create answered -> event received. An event can arrive before the create's answer (negative).
        const latencies: number[] = [];
        const crossInstance: number[] = [];
        const steady: number[] = [];
        for (const { pet, ackedAt, servedBy } of acknowledged) {
          const event = byPet.get(pet.id);
          if (event === undefined) continue;
          const latency = event.receivedAt - ackedAt;
          latencies.push(latency);
          const index = positionOf.get(event) ?? -1;
          const on = [...connections].reverse().find((each) => each.firstEvent <= index);
          // Steady: the create was answered while the connection that delivered it was already open.
          if (on !== undefined && on.openedAt <= ackedAt) {
            steady.push(latency);
            if (servedBy !== undefined && servedBy !== on.servedBy) crossInstance.push(latency);
          }
        }
        violations.push(...problems);
        const figures = {
          created: acknowledged.length,
          createFailures: failures.length,
          outboxEvents: outbox.ids.length,
          received: received.length,
          receivedBeforeKill,
          connections: connections.map(
            (each) => `${each.servedBy ?? '-'} ${each.status} ${each.end?.how ?? 'open'}`,
          ),
          reconnectMs: Math.round(reconnectedAt - killedAt),
          latencyAll: latencyFigure(latencies),
          latencySteady: latencyFigure(steady),
          latencyCrossInstance: latencyFigure(crossInstance),
        };
        const row: LoadBalancerRow = {
          step: `change feed: SIGKILL the subscriber's instance (1 of 3)${options.httpNoDelay ? '' : ', HAProxy without http-no-delay'}`,
          requests: attempts + connections.length,
          failed: failures.length,
          detail:
            `${outbox.ids.length} events in the outbox, ${received.length} received over ${connections.length} connections ` +
            `(${figures.connections.join(' | ')}), killed ${victimName} after ${receivedBeforeKill}, resumed in ${figures.reconnectMs} ms; ` +
            `${failures.length} creates failed at the kill; commit-to-delivery (create answered -> event received): ` +
            `cross-instance ${figures.latencyCrossInstance}; all creates ${figures.latencyAll}`,
          ok: problems.length === 0,
        };
        log(row.detail);
        return {
          rows: [row],
          violations,
          result: {
            scenario: 'change feed behind HAProxy (3 instances, SIGKILL)',
            database: 'postgresql' as const,
            requestsSent: row.requests,
            faultsInjected: 1,
            serverErrors: failures.filter((failure) => failure.what.startsWith('5') && failure.at < killedAt)
              .length,
            acknowledgedWritesLost: undelivered.length,
            recoveryMs: figures.reconnectMs,
            details: figures,
            violations,
          },
        };
      } finally {
        stopping = true;
        await Promise.all(creators);
        await follower?.stop();
        await Promise.all(balancers.map((balancer) => balancer.stop()));
        await Promise.all(apis.map((api) => api.kill()));
      }
    }),
  );
}
