import type { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import type { Logger } from '../logger.js';

// Wake-ups of the change feed (events/pet-feed.ts): a sequencing round sends `NOTIFY pet_events, '<last id>'` at
// its commit (events/pet-events.store.ts SEQUENCE), whichever instance ran it. A wake-up only says "read the
// outbox now", and the feed also polls, so a lost one delays an event by at most the poll interval, never drops it.

const PET_EVENTS_CHANNEL = 'pet_events';

export interface Wakeups {
  /** Calls `onWake` on each notification (and after a reconnect, when some may have been lost); returns the unsubscribe. */
  subscribe(onWake: () => void): () => void;
  /** Stops listening; no `onWake` is called after it resolves. */
  close(): Promise<void>;
}

/** Callbacks each called on `fire`; one that throws does not stop the others. */
function createFanOut() {
  const listeners = new Set<() => void>();
  return {
    subscribe(onWake: () => void) {
      // Wrapped: the same callback subscribed twice is two subscriptions, each removed by its own unsubscribe.
      const listener = () => onWake();
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    fire() {
      for (const listener of listeners) {
        try {
          listener();
        } catch {}
      }
    },
    clear: () => listeners.clear(),
  };
}

/** Wake-ups that never come: polling alone carries the feed (a pooler in the way; tests of the polling path). */
export function silentWakeups(): Wakeups {
  return { subscribe: () => () => {}, close: async () => {} };
}

/**
 * `LISTEN pet_events` on a dedicated pg.Client to `url`, a direct connection to the primary (LISTEN belongs to one
 * session: a pool would hand it back). A lost connection is reconnected with backoff from `minBackoffMs` up to 5 s
 * (a warning once per outage, an info line on recovery), and then every subscriber is woken, since notifications
 * sent meanwhile are lost. Never throws. `firstAttempt` resolves when the first connection listens or has failed.
 */
export function pgWakeups(options: { url: string; logger: Logger; minBackoffMs?: number }) {
  const { url, logger, minBackoffMs = 100 } = options;
  const { promise: firstAttempt, resolve: firstAttemptDone } = Promise.withResolvers<void>();
  const fanOut = createFanOut();
  let closed = false;
  let client: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  let backoffMs = minBackoffMs;
  // From the first failure of an outage until the next successful LISTEN.
  let outageSince: number | undefined;

  const failed = (error: unknown, failedClient: pg.Client) => {
    firstAttemptDone();
    if (closed || client !== failedClient) return; // already handled ('error' and 'end' both come)
    client = undefined;
    failedClient.removeAllListeners('notification');
    failedClient.end().catch(() => {});
    if (outageSince === undefined) {
      outageSince = Date.now();
      logger.warn(
        { err: error },
        'the change feed lost its LISTEN connection: reconnecting; events are delivered by polling meanwhile',
      );
    }
    retry = setTimeout(connect, backoffMs);
    backoffMs = Math.min(backoffMs * 2, 5_000);
  };

  const connect = () => {
    if (closed) return;
    const next = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000, keepAlive: true });
    client = next;
    next.on('error', (error) => failed(error, next));
    next.on('end', () => failed(new Error('the LISTEN connection ended'), next));
    next.on('notification', fanOut.fire);
    next
      .connect()
      .then(() => next.query(`LISTEN ${PET_EVENTS_CHANNEL}`))
      .then(
        () => {
          firstAttemptDone();
          if (closed || client !== next) return;
          backoffMs = minBackoffMs;
          if (outageSince !== undefined) {
            logger.info(
              { outageMs: Date.now() - outageSince },
              'the change feed is listening again: notifications sent meanwhile were lost, so every follower reads now',
            );
            outageSince = undefined;
            fanOut.fire();
          }
        },
        (error: unknown) => failed(error, next),
      );
  };
  connect();

  return {
    subscribe: fanOut.subscribe,
    firstAttempt,
    async close() {
      closed = true;
      firstAttemptDone();
      fanOut.clear();
      clearTimeout(retry);
      await client?.end().catch(() => {});
    },
  };
}

/** PGlite's own LISTEN: one in-process database, nothing to lose in transit and nothing to reconnect. */
export async function pgliteWakeups(pglite: Pick<PGlite, 'listen'>): Promise<Wakeups> {
  const fanOut = createFanOut();
  const unlisten = await pglite.listen(PET_EVENTS_CHANNEL, fanOut.fire);
  return {
    subscribe: fanOut.subscribe,
    async close() {
      fanOut.clear();
      await unlisten().catch(() => {});
    },
  };
}
