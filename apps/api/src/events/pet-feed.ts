import { AsyncLocalStorage } from 'node:async_hooks';
import type { PetEvent, PetStatus } from '@petstore/schema';
import type { EventsConfig } from '../config.js';
import { sqlStateOf } from '../db/database-errors.js';
import type { Sql } from '../db/sql.js';
import type { Wakeups } from '../db/wakeups.js';
import { operationError, serviceUnavailable } from '../errors.js';
import { createIssuedKeyLookup } from '../keys/api-keys.service.js';
import type { Caller } from '../operations.js';
import {
  committedIn,
  pruneEvents,
  readEvents,
  readHead,
  SEQUENCE_CONFLICTS,
  type StoredEvent,
  sequenceEvents,
} from './pet-events.store.js';

// The change feed of one process (docs/operations.md#the-change-feed): one hub reads the outbox into a ring of the
// recent events. A follower is only a position (the last id it passed), pulled from, so nothing is queued per
// follower: its next event is the first after it in the ring, or in a database page while it is behind the ring.
// Ids commit in order, so either way it is every id once, with no gap; a status filter only decides what is
// yielded, the position still passes every event.

/**
 * Who follows: its subject may have at most maxPerCaller open follows on this process; its issued key (none for
 * API_KEYS) is re-checked every keepAliveMs, and once revoked, next() rejects (401).
 */
export interface FollowOptions extends Caller {
  /** Deliver the events after this id; undefined: from now (the last committed event at the time of the call). */
  after?: bigint | undefined;
  /** `since=0`, "every event still kept": an `after` below what is kept starts at the oldest kept event, not 410. */
  everythingKept?: boolean | undefined;
  /** Yield only events of pets with this status (the position still advances past the others). */
  status?: PetStatus | undefined;
  /** Ends the iterator (promptly, also while it waits for events). */
  signal: AbortSignal;
  /** Called when the follower is closed for not taking an available event within stallMs. */
  onStalled?: () => void;
}

/** A follower's events, and where it stands: the last id it passed (yielded, or left out by its filter). */
export interface Following extends AsyncIterableIterator<PetEvent> {
  position(): bigint;
}

export interface PetFeed {
  /**
   * Checks first (events_expired below the horizon or past the head, rate_limited over maxPerCaller, 503 once
   * closed), then returns the iterator; its next() rejects with events_expired if pruning overtakes a catch-up.
   */
  follow(options: FollowOptions): Promise<Following>;
  /** A pet was just created here: number and read its event now, not at the next poll. */
  wake(): void;
  /** Ends every follower (their iterators finish), stops the timers and waits for statements in flight. */
  close(): Promise<void>;
  /** Open followers, for metrics and tests. */
  readonly subscribers: number;
}

/** The EVENTS_* settings the hub uses (README.md's configuration table), and how it reports failures. */
export interface PetFeedOptions
  extends Pick<
    EventsConfig,
    'pollIntervalMs' | 'retentionSeconds' | 'pruneIntervalMs' | 'maxPerCaller' | 'stallMs' | 'keepAliveMs'
  > {
  /** Events per database read (hub and catch-up); 100 by default. */
  pageSize?: number;
  /** Recent events kept in memory for the followers that are live; 1000 by default. */
  ringSize?: number;
  /** Told about a failed read or prune; the feed goes on (the next wake-up or poll tries again). */
  onError: (error: unknown) => void;
}

/** Events given ids per sequencing round, and rounds per read at most (a backlog drains over several reads). */
const SEQUENCE_BATCH = 1000;
const SEQUENCE_ROUNDS = 20;

/** How long a wake-up after a create waits for more creates to read with it (milliseconds). */
const WAKE_COALESCE_MS = 5;

/** Seconds a caller at its limit of open follows is told to wait before opening another. */
const RETRY_AFTER_SECONDS = 5;

const expired = (after: bigint, prunedThrough: bigint) =>
  operationError<'streamPetEvents'>(
    'events_expired',
    `the events after ${after} are no longer kept (pruned through ${prunedThrough}): read the current state, ` +
      `then follow from ${prunedThrough} or later`,
  );

const revoked = () =>
  operationError<'streamPetEvents'>(
    'unauthorized',
    'the API key of this stream was revoked: the stream ends, and a request with that key is refused',
  );

interface Follower {
  issuedKeyHash: Buffer | undefined;
  /** Resumes its next() if that waits for the hub. */
  wake(): void;
  /** Ends it: its next() finishes, or rejects once with `error`. */
  end(error?: Error): void;
}

export function createPetFeed(sql: Sql, wakeups: Wakeups, options: PetFeedOptions): PetFeed {
  const { pollIntervalMs, retentionSeconds, pruneIntervalMs, maxPerCaller, stallMs, keepAliveMs } = options;
  const { pageSize = 100, ringSize = 1000 } = options;
  const onError = (error: unknown): undefined => {
    try {
      options.onError(error);
    } catch {
      // A reporter that throws must not stop the feed.
    }
  };

  // The async context the feed was made in (start-up): the hub's reads run in it, never in a request's.
  const outside = AsyncLocalStorage.snapshot();
  let wakeTimer: NodeJS.Timeout | undefined;

  // The hub: `ring` holds every event with an id in (ringStart, head], in id order (undefined until the first read).
  let head: bigint | undefined;
  let ringStart: bigint | undefined;
  const ring: StoredEvent[] = [];
  let closed = false;
  let reading: Promise<void> | undefined;
  let readAgain = false;
  let pruning: Promise<unknown> | undefined;
  let rechecking: Promise<void> | undefined;
  const followers = new Set<Follower>();
  const openPerSubject = new Map<string, number>();

  // When the hub has read (or failed to read), the followers waiting look again; one that ends wakes only itself
  // (a wake shared by all would make closing n streams cost n^2 looks).
  const wakeAll = () => {
    for (const follower of followers) follower.wake();
  };

  /** The index of the first event in the ring with an id above `position` (ring.length: none). */
  const firstAfter = (position: bigint) => {
    let low = 0;
    let high = ring.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((ring[middle] as StoredEvent).event.id <= position) low = middle + 1;
      else high = middle;
    }
    return low;
  };

  /**
   * Gives ids to the events whose transactions are over (pet-events.store.ts SEQUENCE), round after round. `wait`:
   * for a round running elsewhere, then one more round, since the waiting one read its snapshot before it waited,
   * with an xmin held back by the round it waited for: the pets committed while that ran are over only for the next.
   */
  async function sequence(wait = false) {
    for (let round = 0; round < SEQUENCE_ROUNDS; round++) {
      try {
        const sequenced = await sequenceEvents(sql, SEQUENCE_BATCH, wait);
        if (sequenced < SEQUENCE_BATCH && !(wait && round === 0)) return;
      } catch (error) {
        // Another instance's round got there first: this one runs again.
        if (!SEQUENCE_CONFLICTS.has(sqlStateOf(error) ?? '')) throw error;
      }
    }
  }

  async function readNew() {
    await sequence();
    if (followers.size === 0) {
      // Nobody follows here: nothing to read; the next follow() starts the hub again at the head it reads.
      head = ringStart = undefined;
      ring.length = 0;
      return;
    }
    if (head === undefined) head = ringStart = (await readHead(sql)).head;
    for (;;) {
      if (closed) return;
      const page = await readEvents(sql, head, pageSize);
      if (head < page.prunedThrough) {
        // Pruned past the head (cut off from the database longer than the retention): the ring starts afresh at the
        // horizon; a follower left below it reads the database and is told its events expired.
        ring.length = 0;
        ringStart = head = page.prunedThrough;
      }
      ring.push(...page.events);
      if (ring.length > ringSize) ringStart = ring.splice(0, ring.length - ringSize).at(-1)?.event.id;
      if (page.last !== undefined && page.last > head) head = page.last;
      wakeAll();
      if (!page.full) return;
    }
  }

  /** Reads what is new; while it reads, further wake-ups are folded into one more read. Never rejects. */
  function refresh(): Promise<void> {
    if (closed) return Promise.resolve();
    if (reading !== undefined) {
      readAgain = true;
      return reading;
    }
    reading = (async () => {
      do {
        readAgain = false;
        await readNew().catch(onError);
      } while (readAgain && !closed);
    })().finally(() => {
      reading = undefined;
      // Also after a failure: followers catching up from the database try again now.
      wakeAll();
    });
    return reading;
  }

  // Issued keys are never cached, so a revocation is a 401 from the next request; an open stream made no request
  // since, so each keep-alive period the hub looks up the distinct keys its followers hold (the statement a request
  // runs, once per key, not per stream or event) and ends the followers of a revoked one.
  const findActiveKey = createIssuedKeyLookup(sql);
  function recheckKeys() {
    if (closed || rechecking !== undefined) return;
    const byKey = Map.groupBy(followers, (follower) => follower.issuedKeyHash?.toString('base64'));
    byKey.delete(undefined);
    rechecking = (async () => {
      for (const group of byKey.values()) {
        const active = await findActiveKey(group[0]?.issuedKeyHash as Buffer).then(
          (key) => key !== undefined,
          (error: unknown) => {
            onError(error);
            return true; // unknown: the stream stays open, and the next period looks again
          },
        );
        if (!active) for (const follower of group) follower.end(revoked());
      }
    })().finally(() => {
      rechecking = undefined;
    });
  }

  function prune() {
    if (closed || pruning !== undefined) return;
    pruning = pruneEvents(sql, retentionSeconds)
      .catch(onError)
      .finally(() => {
        pruning = undefined;
      });
  }

  // Another instance (or this one) wrote events: only followers here need to read them.
  const unsubscribe = wakeups.subscribe(() => {
    if (followers.size > 0) void refresh();
  });
  const pollTimer = setInterval(() => void refresh(), pollIntervalMs).unref();
  const pruneTimer = setInterval(prune, pruneIntervalMs).unref();
  const keyTimer = setInterval(recheckKeys, keepAliveMs).unref();
  void refresh();

  const shuttingDown = () =>
    serviceUnavailable('the server is shutting down: follow the events on another instance');

  const releaseSlot = (subject: string) => {
    const left = (openPerSubject.get(subject) ?? 1) - 1;
    if (left === 0) openPerSubject.delete(subject);
    else openPerSubject.set(subject, left);
  };

  /** `opened`: the snapshot "now" was read in, for a follow from now (its pets committed before are not delivered). */
  function open(
    start: bigint,
    { status, subject, issuedKeyHash, signal, onStalled }: FollowOptions,
    opened?: string,
  ): Following {
    let position = start;
    let before = opened === undefined ? undefined : committedIn(opened);
    let ended = false;
    let failure: Error | undefined;
    /** A page read from the database while catching up, served first; `heldLast`: its last id, skipped kinds too. */
    let held: StoredEvent[] = [];
    let heldLast: bigint | undefined;
    /** Set while the consumer holds an event (outside next()). */
    let stallTimer: NodeJS.Timeout | undefined;
    const disarm = () => {
      clearTimeout(stallTimer);
      stallTimer = undefined;
    };
    let resume: (() => void) | undefined;
    const waitForHub = () =>
      new Promise<void>((resolve) => {
        resume = resolve;
      });

    const matches = ({ event }: StoredEvent) => status === undefined || event.pet.status === status;
    const onAbort = () => follower.end();
    const follower: Follower = {
      issuedKeyHash,
      wake() {
        const waiting = resume;
        resume = undefined;
        waiting?.();
      },
      end(error) {
        if (ended) return;
        ended = true;
        failure = error;
        held = [];
        followers.delete(follower);
        releaseSlot(subject);
        const holding = stallTimer !== undefined;
        disarm();
        // The error reaches the consumer in its next next(); one that holds an event and does not come back for it
        // within a keep-alive period has stopped reading: its connection is closed (a revoked key's stream ends).
        if (error !== undefined && holding) stallTimer = setTimeout(() => onStalled?.(), keepAliveMs).unref();
        signal.removeEventListener('abort', onAbort);
        follower.wake();
      },
    };
    followers.add(follower);
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) follower.end();

    /** An event is there to take: held, in the ring, or in the database (a position behind the ring). */
    const available = () =>
      held.some(matches) ||
      (ringStart !== undefined && (position < ringStart || ring.slice(firstAfter(position)).some(matches)));

    /** While the consumer holds an event (or before its first next()): closed if it has not asked for an available one. */
    const armStall = () => {
      if (ended) return;
      stallTimer = setTimeout(() => {
        stallTimer = undefined;
        if (!available()) return armStall(); // nothing to take yet: not stalled; look again later
        follower.end();
        onStalled?.();
      }, stallMs).unref();
    };

    async function* events() {
      while (!ended) {
        disarm(); // in next(): not stalling
        // The held page may end with kinds this version skips: its last id still counts.
        if (held.length === 0 && heldLast !== undefined) {
          position = heldLast;
          heldLast = undefined;
        }
        const inRing = ringStart !== undefined && position >= ringStart;
        const stored = held.shift() ?? (inRing ? ring[firstAfter(position)] : undefined);
        if (stored !== undefined) {
          position = stored.event.id;
          const earlier = before !== undefined && stored.txid !== null ? before(stored.txid) : false;
          if (earlier === undefined) before = undefined;
          if (earlier || !matches(stored)) continue;
          armStall();
          yield stored.event;
        } else if (inRing) await waitForHub();
        else {
          // Catching up: behind the ring (or before the hub's first read).
          const page = await readEvents(sql, position, pageSize).catch(onError);
          if (ended) break;
          if (page !== undefined && position < page.prunedThrough) {
            follower.end();
            throw expired(position, page.prunedThrough);
          }
          if (page?.last === undefined) await waitForHub();
          else {
            held = page.events;
            heldLast = page.last;
          }
        }
      }
      // Ended: a revoked key with its error, else done.
      disarm();
      if (failure !== undefined) throw failure;
    }

    armStall();
    // return() ends it at once, also while a next() waits (a generator's own return() would queue behind that next()).
    return Object.assign(events(), {
      position: () => position,
      async return() {
        follower.end();
        // The consumer let go: a close pending for an error it was not there to take (end above) has nothing to close.
        disarm();
        return { done: true, value: undefined } as const;
      },
    });
  }

  return {
    async follow(followOptions) {
      if (closed) throw shuttingDown();
      const { subject, everythingKept } = followOptions;
      let { after } = followOptions;
      const open0 = openPerSubject.get(subject) ?? 0;
      if (open0 >= maxPerCaller) {
        throw operationError<'streamPetEvents'>(
          'rate_limited',
          `this caller already follows the events ${maxPerCaller} times on this server: close one first`,
          { 'Retry-After': String(RETRY_AFTER_SECONDS) },
        );
      }
      // Counted from now, so that follows checking at the same time cannot pass the limit together; the follower's
      // end() gives it back (or the catch below, if the checks refuse).
      openPerSubject.set(subject, open0 + 1);
      try {
        // From now: the events committed so far are numbered first, after any round running elsewhere (sequence),
        // so that "now" comes after most of them; a pet committed before it but numbered after (a transaction older
        // than it still running, anywhere on the cluster) is recognised by the snapshot "now" was read in.
        if (after === undefined) await sequence(true);
        const current = await readHead(sql);
        if (after !== undefined && after < current.prunedThrough) {
          if (!everythingKept) throw expired(after, current.prunedThrough);
          after = current.prunedThrough;
        }
        // An id this database never gave (restored or reset under the client): waiting for the ids to climb past it
        // would skip everything in between.
        if (after !== undefined && after > current.head) {
          throw operationError<'streamPetEvents'>(
            'events_expired',
            `no event ${after} exists here (the last is ${current.head}): the feed was reset; list the pets again, ` +
              'then follow from now',
          );
        }
        if (closed) throw shuttingDown();
        if (head === undefined) head = ringStart = current.head;
        // Committed events the hub has not read yet: read them now rather than at the next poll.
        else if (head < current.head) void refresh();
        return open(after ?? current.head, followOptions, after === undefined ? current.snapshot : undefined);
      } catch (error) {
        releaseSlot(subject);
        throw error;
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      unsubscribe();
      for (const timer of [pollTimer, pruneTimer, keyTimer]) clearInterval(timer);
      clearTimeout(wakeTimer);
      for (const follower of [...followers]) follower.end();
      await Promise.all([reading, pruning, rechecking]);
    },
    wake() {
      // Coalesced (WAKE_COALESCE_MS), and outside the creating request's context: the hub's reads are none of its
      // spans.
      if (wakeTimer !== undefined || closed) return;
      wakeTimer = outside(() =>
        setTimeout(() => {
          wakeTimer = undefined;
          void refresh();
        }, WAKE_COALESCE_MS).unref(),
      );
    },
    get subscribers() {
      return followers.size;
    },
  };
}
