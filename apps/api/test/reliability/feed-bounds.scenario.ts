/**
 * The change feed's bounds on one instance (issue 38), over PostgreSQL:
 * 1. Idle subscribers: `subscribers` streams (1,000) held open at once, from `keys` callers (100 each: the default
 *    EVENTS_MAX_PER_CALLER), plus one over that bound, which must be refused with 429 `rate_limited`. The server's
 *    resident memory is measured after a warm-up and with the streams open: the growth must stay under
 *    `rssGrowthLimitBytes` (64 MiB for 1,000: the stated bound of docs/operations.md#the-change-feed). One pet created
 *    then reaches every one of them (they are live, not just open).
 * 2. A subscriber that stops reading: a stream that took a few events, then stops reading its socket (the kernel's
 *    buffers fill, the server's writes stop draining) while pets with long names are created. The server must let
 *    go of the connection once the subscriber has not taken an available event for EVENTS_STALL_MS (short here),
 *    before `maxStallCreates`, seen from the kernel's table of the server's sockets; meanwhile a subscriber that
 *    reads is served without a cut. The stalled one then reads what reached it, and reconnects with
 *    `Last-Event-ID` = its last complete event: both parts together are exactly the outbox's events, no gap, none
 *    twice. The server's memory during the stall is printed (nothing queues per subscriber in the process). The pets
 *    are inserted with SQL, as a script would (the outbox's trigger records every writer's), in batches paced by
 *    the reading subscriber: thousands are needed to fill loopback's socket buffers, faster than through HTTP.
 */
import { readFile } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { scaled } from '../../../../tooling/vitest.shared.js';
import { type ApiProcess, RELIABILITY_API_KEY, startApiProcess } from './api-process.js';
import {
  compareWithOutbox,
  type EventStream,
  followFeed,
  MIB,
  openEventStream,
  outboxHead,
  readOutbox,
  until,
  waitUntilSequenced,
} from './feed-support.js';
import type { LoadBalancerReport, LoadBalancerRow } from './load-balancer.scenario.js';
import {
  createPet,
  mapConcurrently,
  type ScenarioEnvironment,
  sleep,
  withPostgresDatabase,
  withTempDir,
} from './scenario-support.js';

export interface FeedBoundsOptions {
  /** Idle subscribers held open at once, spread evenly over `keys` callers. */
  subscribers: number;
  keys: number;
  /** The stated bound on the server's RSS growth with `subscribers` open. */
  rssGrowthLimitBytes: number;
  /** EVENTS_STALL_MS of the instance. */
  stallMs: number;
  /** Pets (long names) inserted at most while the subscriber does not read; the server must close it before. */
  maxStallCreates: number;
}

const CATCH_UP_MS = scaled(60_000);
/** Streams opened at once while the idle subscribers connect. */
const OPENING = 50;
/**
 * Pets inserted per statement while the subscriber does not read, each with a long name (about 1 KiB of UTF-8 per
 * event): loopback's socket buffers hold about 4.5 MiB (the server's send buffer grows to tcp_wmem's 4 MiB) before
 * a write waits for the reader, so about 4,000 events fill them.
 */
const STALL_BATCH = 500;

/** The i-th caller's key (API_KEYS): 16 to 256 token characters. */
const feedKey = (index: number) => `feed-bounds-key-${String(index).padStart(4, '0')}`;

/**
 * Whether the server process still holds its end of the connection from the client's `clientPort`: its row in
 * /proc/net/tcp (IPv4, 127.0.0.1) is ESTABLISHED and owned by a socket inode. Once the server destroys it, the
 * kernel keeps the socket as an orphan (FIN_WAIT1, inode 0) until the unread bytes and the FIN go, or drops it.
 */
async function serverHolds(serverPort: number, clientPort: number): Promise<boolean> {
  const hex = (port: number) => port.toString(16).toUpperCase().padStart(4, '0');
  const local = `0100007F:${hex(serverPort)}`;
  const remote = `0100007F:${hex(clientPort)}`;
  for (const line of (await readFile('/proc/net/tcp', 'utf8')).split('\n').slice(1)) {
    const cells = line.trim().split(/\s+/);
    if (cells[1] === local && cells[2] === remote) return cells[3] === '01' && cells[9] !== '0';
  }
  return false;
}

export async function runFeedBoundsScenario(
  env: ScenarioEnvironment,
  options: FeedBoundsOptions,
): Promise<LoadBalancerReport> {
  const log = env.log ?? (() => {});
  return withTempDir('petstore-feed-bounds-', (dataDir) =>
    withPostgresDatabase(env, 'feed_bounds', async (database) => {
      const rows: LoadBalancerRow[] = [];
      const violations: string[] = [];
      const details: Record<string, unknown> = {};
      const keys = Array.from({ length: options.keys }, (_, index) => feedKey(index));
      let api: ApiProcess | undefined;
      const streams: EventStream[] = [];
      let requests = 0;
      let memory: { peakBytes: number; normalPeakBytes: number } | undefined;
      try {
        api = await startApiProcess({
          databaseUrl: database.url,
          dataDir,
          env: {
            API_KEYS: [RELIABILITY_API_KEY, ...keys].join(','),
            EVENTS_STALL_MS: String(options.stallMs),
            // The stall's pets are inserted by SQL, which wakes no hub: the poll numbers and reads them.
            EVENTS_POLL_MS: '200',
            // The idle streams are connections too; room for the requests beside them.
            HTTP_MAX_CONNECTIONS: String(options.subscribers + 200),
          },
        });
        const baseUrl = api.baseUrl;

        // 1. Idle subscribers. Warm-up first: the code paths of a create and of a stream loaded, a few of each.
        {
          const problems: string[] = [];
          for (let i = 0; i < 20; i++) await createPet(baseUrl, { name: `warm-up ${i}`, categoryId: 1n });
          const warm = await Promise.all(Array.from({ length: 20 }, () => openEventStream(baseUrl)));
          await createPet(baseUrl, { name: 'warm-up event', categoryId: 1n });
          await until(() => warm.every((stream) => stream.events.length > 0), CATCH_UP_MS);
          for (const stream of warm) stream.close();
          requests += 41;
          await sleep(1_000);
          const baseline = await api.rss();

          const opened = await mapConcurrently(
            Array.from({ length: options.subscribers }, (_, index) => index),
            OPENING,
            async (index) => {
              const stream = await openEventStream(baseUrl, { apiKey: keys[index % keys.length] as string });
              streams.push(stream);
              return stream;
            },
          );
          requests += opened.length;
          // Streams that end before the scenario closes them (none should: they are idle, not stalled).
          let endedEarly = 0;
          let closing = false;
          for (const stream of opened)
            if (stream.status === 200) void stream.ended.then(() => (closing ? undefined : endedEarly++));
          const refusedIdle = opened.filter((stream) => stream.status !== 200);
          if (refusedIdle.length > 0)
            problems.push(
              `${refusedIdle.length} of ${options.subscribers} idle subscribers refused (${[...new Set(refusedIdle.map((s) => `${s.status} ${s.body.slice(0, 120)}`))].join('; ')})`,
            );
          const perCaller = Math.ceil(options.subscribers / options.keys);
          // One more for the first caller: over EVENTS_MAX_PER_CALLER (100 by default) when it already holds 100.
          const extra = await openEventStream(baseUrl, { apiKey: keys[0] as string });
          requests++;
          const extraCode = /"code":"([a-z_]+)"/.exec(extra.body)?.[1];
          extra.close();
          if (perCaller === 100 && (extra.status !== 429 || extraCode !== 'rate_limited'))
            problems.push(
              `stream 101 of one caller: ${extra.status} ${extra.body.slice(0, 200)}, not 429 rate_limited`,
            );
          const accepted = opened.filter((stream) => stream.status === 200);
          if (!(await until(() => accepted.every((stream) => stream.started()), CATCH_UP_MS)))
            problems.push('not every idle stream received its opening `retry:` line');
          await sleep(1_000);
          const withSubscribers = await api.rss();
          const growth = withSubscribers - baseline;
          if (growth > options.rssGrowthLimitBytes)
            problems.push(
              `RSS grew ${(growth / MIB).toFixed(1)} MiB with ${options.subscribers} idle subscribers, over the stated ${(options.rssGrowthLimitBytes / MIB).toFixed(0)} MiB`,
            );
          // Live, not just open: one event reaches all of them.
          const fanOutStarted = performance.now();
          const { pet } = await createPet(baseUrl, { name: 'fan-out', categoryId: 2n });
          requests++;
          const live = opened.filter((stream) => stream.status === 200);
          const reached = await until(() => live.every((stream) => stream.events.length > 0), CATCH_UP_MS);
          const fanOutMs = performance.now() - fanOutStarted;
          const wrong = live.filter((stream) => stream.events.some((event) => event.pet.id !== pet?.id));
          if (!reached)
            problems.push(
              `the event reached ${live.filter((stream) => stream.events.length > 0).length} of ${live.length} idle subscribers`,
            );
          if (wrong.length > 0) problems.push(`${wrong.length} idle subscribers received another event`);
          const afterFanOut = await api.rss();
          const cut = endedEarly;
          if (cut > 0) problems.push(`${cut} idle streams ended before the scenario closed them`);
          closing = true;
          for (const stream of streams.splice(0)) stream.close();
          memory = { peakBytes: Math.max(withSubscribers, afterFanOut), normalPeakBytes: baseline };
          details.idle = {
            subscribers: options.subscribers,
            callers: options.keys,
            rssBaselineMiB: Number((baseline / MIB).toFixed(1)),
            rssWithSubscribersMiB: Number((withSubscribers / MIB).toFixed(1)),
            rssGrowthMiB: Number((growth / MIB).toFixed(1)),
            perSubscriberKiB: Number((growth / 1024 / options.subscribers).toFixed(1)),
            rssAfterFanOutMiB: Number((afterFanOut / MIB).toFixed(1)),
            fanOutMs: Math.round(fanOutMs),
            overTheCallerBound: `${extra.status} ${extraCode ?? ''}`.trim(),
          };
          violations.push(...problems);
          rows.push({
            step: `change feed: ${options.subscribers} idle subscribers on one instance`,
            requests: options.subscribers + 1,
            failed: refusedIdle.length + cut,
            detail:
              `RSS ${(baseline / MIB).toFixed(1)} -> ${(withSubscribers / MIB).toFixed(1)} MiB: +${(growth / MIB).toFixed(1)} MiB ` +
              `(${(growth / 1024 / options.subscribers).toFixed(1)} KiB each; stated bound ${(options.rssGrowthLimitBytes / MIB).toFixed(0)} MiB); ` +
              `one event reached all ${live.length} in ${Math.round(fanOutMs)} ms; stream ${perCaller + 1} of one caller: ${extra.status} ${extraCode ?? ''}`,
            ok: problems.length === 0,
          });
          log(rows.at(-1)?.detail ?? '');
        }

        // 2. A subscriber that stops reading.
        {
          const problems: string[] = [];
          const head = await outboxHead(database.url);
          const reader = followFeed(baseUrl, { since: head, reconnectDelayMs: 100 });
          const stalled = await openEventStream(baseUrl, { since: head });
          streams.push(stalled);
          if (stalled.status !== 200 || !(await until(() => reader.current()?.status === 200, CATCH_UP_MS)))
            throw new Error(`the stall subscribers did not connect: ${stalled.status} ${stalled.body}`);
          for (let i = 0; i < 5; i++)
            await createPet(baseUrl, { name: `before the stall ${i}`, categoryId: 3n });
          requests += 5;
          if (!(await until(() => stalled.events.length >= 5, CATCH_UP_MS)))
            throw new Error('the subscriber did not receive its first events');
          const clientPort = stalled.localPort as number;
          stalled.pause();
          const pausedAt = performance.now();
          const rssBefore = await api.rss();
          let rssPeak = rssBefore;
          let created = 0;
          let closedAfterMs: number | undefined;
          const writer = new pg.Client({ connectionString: database.url });
          await writer.connect();
          try {
            while (created < options.maxStallCreates) {
              // A script's batch: the outbox's trigger records every writer's pets, in one transaction each batch.
              await writer.query(
                `insert into pets (name, category_id)
                 select 'stall ' || g || ' ' || repeat('🐾', 240), 4 from generate_series($1::int, $2::int) as g`,
                [created, created + STALL_BATCH - 1],
              );
              created += STALL_BATCH;
              // Paced by the server: numbered by its hub (at its next poll: a script's insert wakes no one), and
              // taken by the reading subscriber, so the server has offered it to both.
              if (!(await waitUntilSequenced(database.url, CATCH_UP_MS)))
                throw new Error('the inserted events were not numbered');
              const batchHead = await outboxHead(database.url);
              await until(() => (reader.lastId() ?? 0n) >= batchHead, CATCH_UP_MS);
              rssPeak = Math.max(rssPeak, await api.rss());
              if (!(await serverHolds(api.port, clientPort))) {
                closedAfterMs = performance.now() - pausedAt;
                break;
              }
            }
          } finally {
            await writer.end();
          }
          if (closedAfterMs === undefined) {
            // The last batch's events may still be on their way: the stall rule has EVENTS_STALL_MS more to act.
            const deadline = Date.now() + options.stallMs + scaled(10_000);
            while (Date.now() < deadline && (await serverHolds(api.port, clientPort))) await sleep(100);
            if (!(await serverHolds(api.port, clientPort))) closedAfterMs = performance.now() - pausedAt;
          }
          if (closedAfterMs === undefined)
            problems.push(
              `the server still holds a subscriber that has read nothing for ${Math.round(performance.now() - pausedAt)} ms ` +
                `while ${created} events were created (EVENTS_STALL_MS ${options.stallMs})`,
            );
          const readBeforePause = stalled.events.length;
          stalled.resume();
          const end = await Promise.race([stalled.ended, sleep(CATCH_UP_MS).then(() => undefined)]);
          if (end === undefined)
            problems.push('the stalled stream did not end after the server let go of it');
          else if (end.how === 'ended' || end.how === 'error-event')
            problems.push(`the stalled stream was ended (${end.how}), not closed`);
          const lastId = stalled.events.at(-1)?.id;
          const readAfterResume = stalled.events.length - readBeforePause;
          stalled.close();
          const resumed = followFeed(baseUrl, {
            ...(lastId === undefined ? { since: head } : { lastEventId: lastId }),
            reconnectDelayMs: 100,
          });
          await waitUntilSequenced(database.url, CATCH_UP_MS);
          const outbox = await readOutbox(database.url, head);
          const last = outbox.ids.at(-1) ?? head;
          await until(() => (resumed.lastId() ?? 0n) >= last && (reader.lastId() ?? 0n) >= last, CATCH_UP_MS);
          await resumed.stop();
          await reader.stop();
          problems.push(
            ...compareWithOutbox(
              'stalled subscriber + its resumption',
              [...stalled.events, ...resumed.events],
              outbox,
            ),
            ...compareWithOutbox('reading subscriber', reader.events, outbox),
          );
          if (reader.connections.length !== 1)
            problems.push(`the subscriber that reads was cut too (${reader.connections.length} connections)`);
          if (lastId === undefined || resumed.connections[0]?.resumedAfter !== lastId)
            problems.push('the stalled subscriber did not resume with Last-Event-ID = its last event');
          violations.push(...problems);
          details.stall = {
            stallMs: options.stallMs,
            createdWhilePaused: created,
            closedAfterMs: closedAfterMs === undefined ? 'never' : Math.round(closedAfterMs),
            readBeforePause,
            readAfterResume,
            resumedWithLastEventId: String(lastId),
            receivedOnResume: resumed.events.length,
            rssBeforeStallMiB: Number((rssBefore / MIB).toFixed(1)),
            rssPeakDuringStallMiB: Number((rssPeak / MIB).toFixed(1)),
          };
          rows.push({
            step: 'change feed: a subscriber that stops reading',
            requests: 5 + resumed.connections.length + reader.connections.length + 1,
            failed: 0,
            detail:
              `EVENTS_STALL_MS ${options.stallMs}: closed by the server ${closedAfterMs === undefined ? 'NEVER' : `${Math.round(closedAfterMs)} ms`} after it stopped reading, ` +
              `${created} pets (~1 KiB events) inserted meanwhile; it had ${readBeforePause} events, ${readAfterResume} more from the socket's buffers; ` +
              `resumed with Last-Event-ID ${lastId}: ${resumed.events.length} more, no gap, none twice; a reading subscriber uncut; ` +
              `RSS ${(rssBefore / MIB).toFixed(1)} -> peak ${(rssPeak / MIB).toFixed(1)} MiB during the stall`,
            ok: problems.length === 0,
          });
          log(rows.at(-1)?.detail ?? '');
        }
      } finally {
        for (const stream of streams) stream.close();
        await api?.kill();
      }
      return {
        rows,
        violations,
        result: {
          scenario: 'change feed bounds (1 instance)',
          database: 'postgresql' as const,
          requestsSent: requests,
          faultsInjected: 1,
          serverErrors: 0,
          acknowledgedWritesLost: undefined,
          recoveryMs: undefined,
          ...(memory === undefined ? {} : { memory }),
          details,
          violations,
        },
      };
    }),
  );
}
