import { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { READ_AFTER_HEADER } from '@petstore/schema';
import { parseReadPosition } from '@petstore/schema/internal';
import type { Logger } from '../logger.js';
import { classifyDatabaseError, sqlStateOf } from './database-errors.js';
import type { Sql } from './sql.js';

// Reads on streaming replicas (DATABASE_READ_URL), with read-your-writes: the rules are in
// docs/operations.md#read-replicas-and-read-your-writes. Writes and transactions never come here: they use the
// primary's Sql.

/** Where a read went, and why: the metrics' labels. */
export type ReadRoute =
  | 'replica'
  | 'primary:no_replica_caught_up' // every usable replica is behind the client's position
  | 'primary:replicas_lagging' // every replica that is up lags past the bound
  | 'primary:replicas_down' // none answers
  | 'primary:replica_failed'; // the chosen replica failed the read

export interface Replica {
  /** For logs: the URL without its password. */
  name: string;
  /** Its reads (guarded: db/guarded-adapter.ts). */
  sql: Sql;
  /** `pg_last_wal_replay_lsn()`, unguarded (a poll is not a request): null when not a standby. */
  replayPosition(): Promise<string | null>;
}

interface ReadReplicasOptions {
  primary: Sql;
  /** `pg_current_wal_lsn()` on the primary, unguarded. */
  primaryPosition(): Promise<string>;
  replicas: readonly Replica[];
  logger: Logger;
  /** A replica further behind than this is skipped. */
  maxLagMs: number;
}

export interface ReadReplicas {
  /** The reads (listPets, pets.page, getPet): routed per request. */
  reads: Sql;
  /** After a write on the primary: its position goes back to the client with the response. */
  afterWrite(): Promise<void>;
  routes(): ReadonlyMap<ReadRoute, number>;
  /** Runs `handle` with the request's position (its Petstore-Read-After header) and its response. */
  withRequest(request: Pick<IncomingMessage, 'headers'>, response: ServerResponse, handle: () => void): void;
  /** Stops the poll. */
  close(): void;
}

/** A replica as the last poll saw it. */
interface ReplicaState extends Replica {
  up: boolean;
  /** Polled at least once: a replica down from the start is reported as one that went down is. */
  polled: boolean;
  replayed: bigint;
  lagMs: number;
}

export function createReadReplicas(options: ReadReplicasOptions): ReadReplicas {
  const { primary, primaryPosition, replicas, logger, maxLagMs } = options;
  const requests = new AsyncLocalStorage<{ after: bigint | undefined; response: ServerResponse }>();
  const states: ReplicaState[] = replicas.map((replica) => ({
    ...replica,
    up: false,
    polled: false,
    replayed: 0n,
    lagMs: Infinity,
  }));
  const counts = new Map<ReadRoute, number>();
  const count = (route: ReadRoute) => counts.set(route, (counts.get(route) ?? 0) + 1);
  // The primary's positions over the last minute, oldest first: a replica's lag is how long ago the primary
  // was where the replica is now.
  const samples: { at: number; lsn: bigint }[] = [];

  const poll = async () => {
    const now = Date.now();
    const current = parseReadPosition(await primaryPosition().catch(() => undefined));
    if (current !== undefined) {
      if (samples.at(-1)?.lsn !== current) samples.push({ at: now, lsn: current });
      while (samples.length > 1 && (samples[0] as { at: number }).at < now - 60_000) samples.shift();
    }
    await Promise.all(
      states.map(async (state) => {
        const replayed = parseReadPosition(await state.replayPosition().catch(() => null));
        const wasUp = state.up;
        const first = !state.polled;
        state.polled = true;
        // No replay position: down, or not a standby at all (promoted, or misconfigured).
        state.up = replayed !== undefined;
        if (replayed === undefined) {
          if (wasUp || first)
            logger.warn({ replica: state.name }, 'read replica unavailable: its reads go to the primary');
          return;
        }
        if (!wasUp) logger.info({ replica: state.name }, 'read replica available');
        state.replayed = replayed;
        const firstAhead = samples.find((sample) => sample.lsn > replayed);
        state.lagMs = firstAhead === undefined ? 0 : now - firstAhead.at;
      }),
    );
  };
  // One poll at a time: one that waits on a dead replica is not queued behind.
  let busy = false;
  const tick = () => {
    if (busy) return;
    busy = true;
    poll().finally(() => {
      busy = false;
    });
  };
  tick();
  const timer = setInterval(tick, 250).unref();

  let next = 0;
  const route = (after: bigint | undefined): { replica?: ReplicaState; why: ReadRoute } => {
    const up = states.filter((state) => state.up);
    if (up.length === 0) return { why: 'primary:replicas_down' };
    const fresh = up.filter((state) => state.lagMs <= maxLagMs);
    if (fresh.length === 0) return { why: 'primary:replicas_lagging' };
    const caughtUp = after === undefined ? fresh : fresh.filter((state) => state.replayed >= after);
    if (caughtUp.length === 0) return { why: 'primary:no_replica_caught_up' };
    next = (next + 1) % caughtUp.length;
    return { replica: caughtUp[next], why: 'replica' };
  };

  const reads: Sql = {
    async rows(statement, args) {
      const chosen = route(requests.getStore()?.after);
      if (chosen.replica === undefined) {
        count(chosen.why);
        return primary.rows(statement, args);
      }
      try {
        const rows = await chosen.replica.sql.rows(statement, args);
        count('replica');
        return rows;
      } catch (error) {
        // A standby cancels a read that conflicts with the WAL it replays (40001, "conflict with recovery"):
        // the primary answers that one. One that cannot serve at all is also skipped until a poll finds it back.
        const unavailable = classifyDatabaseError(error) !== undefined;
        if (!unavailable && sqlStateOf(error) !== '40001') throw error;
        if (unavailable) chosen.replica.up = false;
        count('primary:replica_failed');
        return primary.rows(statement, args);
      }
    },
  };

  return {
    reads,
    async afterWrite() {
      const request = requests.getStore();
      if (request === undefined || request.response.headersSent) return;
      // The write has committed: a failure here must not fail it. Without a position the client's next read
      // may go to a replica within the lag bound.
      const written = await primaryPosition().catch((error: unknown) => {
        logger.warn({ err: error }, 'could not read the primary position after a write');
        return undefined;
      });
      if (written !== undefined && !request.response.headersSent) {
        request.response.setHeader(READ_AFTER_HEADER, written);
      }
    },
    routes: () => counts,
    withRequest(request, response, handle) {
      const given = request.headers[READ_AFTER_HEADER.toLowerCase()];
      requests.run(
        { after: parseReadPosition(typeof given === 'string' ? given : undefined), response },
        handle,
      );
    },
    close() {
      clearInterval(timer);
    },
  };
}
