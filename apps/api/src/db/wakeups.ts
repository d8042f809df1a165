import pg from 'pg';
import type { Logger } from '../logger.js';

// Wake-ups of the change feed (events/pet-feed.ts): a sequencing round that gave events their ids sends
// `NOTIFY pet_events, '<last id>'` at its commit (events/pet-events.store.ts SEQUENCE), whichever instance ran it.
// A wake-up only says "read the outbox now": the feed reads the
// events from the table, and also polls, so a wake-up lost (a dropped connection, a pooler in the way) delays an
// event by at most the poll interval, never drops it.

/** The channel the sequencer notifies. */
const PET_EVENTS_CHANNEL = 'pet_events';

export interface Wakeups {
  /** Calls `onWake` on each notification (and after a reconnect, when some may have been lost); returns the unsubscribe. */
  subscribe(onWake: () => void): () => void;
  /** Stops listening; no `onWake` is called after it resolves. */
  close(): Promise<void>;
}

/** A set of callbacks, each called on `fire`; one that throws does not stop the others. */
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
        } catch {
          // A subscriber's fault is its own; the feed's callbacks do not throw.
        }
      }
    },
    clear: () => listeners.clear(),
  };
}

/** Wake-ups that never come: polling alone carries the feed (a pooler in the way; tests of the polling path). */
export function silentWakeups(): Wakeups {
  return { subscribe: () => () => {}, close: async () => {} };
}

export interface PgWakeupsOptions {
  /** A direct connection to the primary (not through a transaction-mode pooler: notifications would not arrive). */
  url: string;
  logger: Logger;
  /** First wait before reconnecting after a failure, doubled after each failed attempt up to `maxBackoffMs`. */
  minBackoffMs?: number;
  maxBackoffMs?: number;
  /** The connection's own deadline for connecting (ms). */
  connectTimeoutMs?: number;
}

/** Wake-ups over LISTEN, and the end of their first attempt to connect (it resolves either way: never rejects). */
export interface PgWakeups extends Wakeups {
  firstAttempt: Promise<void>;
}

/**
 * `LISTEN pet_events` on a dedicated pg.Client (never a pooled connection: a pool would hand it back, and LISTEN
 * belongs to one session). When the connection fails or ends, it reconnects with backoff (a warning once per
 * outage, an info line on recovery) and then wakes every subscriber, since notifications sent while it was away
 * are lost. Starts connecting at once; never throws (an outage is logged, polling carries the feed meanwhile).
 */
export function pgWakeups({
  url,
  logger,
  minBackoffMs = 100,
  maxBackoffMs = 5_000,
  connectTimeoutMs = 5_000,
}: PgWakeupsOptions): PgWakeups {
  let firstAttemptDone = () => {};
  const firstAttempt = new Promise<void>((resolve) => {
    firstAttemptDone = resolve;
  });
  const fanOut = createFanOut();
  let closed = false;
  let client: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  let backoffMs = minBackoffMs;
  /** Set from the first failure of an outage until the next successful LISTEN. */
  let outage: { since: number } | undefined;

  const failed = (error: unknown, failedClient: pg.Client) => {
    firstAttemptDone();
    if (closed || client !== failedClient) return; // already handled ('error' and 'end' both come)
    client = undefined;
    failedClient.removeAllListeners('notification');
    failedClient.end().catch(() => {});
    if (outage === undefined) {
      outage = { since: Date.now() };
      logger.warn(
        { err: error },
        'the change feed lost its LISTEN connection: reconnecting; events are delivered by polling meanwhile',
      );
    }
    retry = setTimeout(connect, backoffMs);
    backoffMs = Math.min(backoffMs * 2, maxBackoffMs);
  };

  const connect = () => {
    retry = undefined;
    if (closed) return;
    const next = new pg.Client({
      connectionString: url,
      connectionTimeoutMillis: connectTimeoutMs,
      keepAlive: true,
    });
    client = next;
    next.on('error', (error) => failed(error, next));
    next.on('end', () => failed(new Error('the LISTEN connection ended'), next));
    next.on('notification', () => fanOut.fire());
    next
      .connect()
      .then(() => next.query(`LISTEN ${PET_EVENTS_CHANNEL}`))
      .then(
        () => {
          firstAttemptDone();
          if (closed || client !== next) return;
          backoffMs = minBackoffMs;
          if (outage !== undefined) {
            logger.info(
              { outageMs: Date.now() - outage.since },
              'the change feed is listening again: notifications sent meanwhile were lost, so every follower reads now',
            );
            outage = undefined;
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
      if (retry !== undefined) clearTimeout(retry);
      const last = client;
      client = undefined;
      await last?.end().catch(() => {});
    },
  };
}

/** What PGlite's `listen` is: a subscription to a channel, resolved to its unsubscribe. */
export interface PgliteListener {
  listen(channel: string, callback: (payload: string) => void): Promise<() => Promise<void>>;
}

/** PGlite's own LISTEN: one in-process database, nothing to lose in transit and nothing to reconnect. */
export async function pgliteWakeups(pglite: PgliteListener): Promise<Wakeups> {
  const fanOut = createFanOut();
  const unlisten = await pglite.listen(PET_EVENTS_CHANNEL, () => fanOut.fire());
  let closed = false;
  return {
    subscribe: fanOut.subscribe,
    async close() {
      if (closed) return;
      closed = true;
      fanOut.clear();
      await unlisten().catch(() => {});
    },
  };
}
