// The change feed's engine (pet-feed.ts) on real PostgreSQL and on in-memory PGlite: the outbox written from `pets`
// by the sequencer, wake-ups by LISTEN (db/wakeups.ts) or by polling alone, the ring and the catch-up from the database,
// resume, filter, expiry, the per-caller cap, the stall rule, abort and close. No test waits for a time: each waits
// for what it expects (an event, a callback), bounded by the test's timeout (tooling/vitest.shared.ts).

import { applyPendingMigrations } from '@petstore/migrations';
import type { Pet, PetEvent, PetStatus } from '@petstore/schema';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scaled, timeouts } from '../../../../tooling/vitest.shared.js';
import { createTestDatabase, type TestDatabase } from '../../test/support/test-database.js';
import { type Database, openDatabase } from '../db/database.js';
import type { Sql } from '../db/sql.js';
import { pgWakeups, silentWakeups, type Wakeups } from '../db/wakeups.js';
import { toAppError } from '../errors.js';
import { sha256 } from '../keys/api-key-digest.js';
import { createApiKeysService } from '../keys/api-keys.service.js';
import { createLogger } from '../logger.js';
import { createPetsService, type PetsService } from '../pets/pets.service.js';
import { pruneEvents, readHead, sequenceEvents } from './pet-events.store.js';
import { createPetFeed, type PetFeed, type PetFeedOptions } from './pet-feed.js';

const logger = createLogger('silent');
const STATUSES: (PetStatus | undefined)[] = ['available', 'pending', 'sold', undefined];
const CREATES = 500;

/** Options for a feed under test: no timer fires by itself during a test unless the test says so. */
function feedOptions(overrides: Partial<PetFeedOptions> = {}): PetFeedOptions & { errors: unknown[] } {
  const errors: unknown[] = [];
  return {
    pollIntervalMs: 3_600_000,
    retentionSeconds: 604_800,
    pruneIntervalMs: 3_600_000,
    maxPerCaller: 100,
    stallMs: 3_600_000,
    keepAliveMs: 3_600_000,
    onError: (error) => errors.push(error),
    errors,
    ...overrides,
  };
}

/** The next `count` events of `iterator`. */
async function take(iterator: AsyncIterator<PetEvent>, count: number): Promise<PetEvent[]> {
  const events: PetEvent[] = [];
  while (events.length < count) {
    const next = await iterator.next();
    if (next.done) throw new Error(`the iterator ended after ${events.length} of ${count} events`);
    events.push(next.value);
  }
  return events;
}

/** `count` pets created at once, half with an idempotency key; they return as the service answered. */
function createMany(pets: PetsService, count: number, label: string): Promise<Pet[]> {
  return Promise.all(
    Array.from({ length: count }, (_, index) => {
      const status = STATUSES[index % STATUSES.length];
      return pets.createPet(
        {
          name: `${label}-${index}`,
          categoryId: BigInt(index + 1),
          ...(status === undefined ? {} : { status }),
          ...(index % 2 === 0 ? { idempotencyKey: `${label}-key-${index}` } : {}),
        },
        { caller: { subject: 'env:0' } },
      );
    }),
  );
}

/** Ids strictly increasing: in order, none twice. */
function expectIncreasing(events: readonly PetEvent[]) {
  for (let index = 1; index < events.length; index++) {
    expect((events[index] as PetEvent).id).toBeGreaterThan((events[index - 1] as PetEvent).id);
  }
}

/** A pet created now, the hub woken: `follower`'s first event is it, never `answered` (created before it opened). */
async function expectFirstCreatedAfter(
  feed: PetFeed,
  pets: PetsService,
  follower: AsyncIterator<PetEvent>,
  answered: Pet | undefined,
): Promise<void> {
  const [later] = await createMany(pets, 1, 'later');
  feed.wake();
  const first = (await follower.next()).value;
  expect(first?.pet.name, `the pet ${answered?.id} was answered before the stream opened`).toBe('later-0');
  expect(first?.pet.id).toBe(later?.id);
}

interface Setup {
  database: Database;
  wakeups: Wakeups;
  close(): Promise<void>;
}

const kinds: Array<[string, () => Promise<Setup>]> = [
  [
    'PostgreSQL',
    async () => {
      const test: TestDatabase = await createTestDatabase('pet_feed');
      const database = await openDatabase({ databaseUrl: test.url, dataDir: 'memory://', logger });
      await applyPendingMigrations(database.migrationAdapter);
      const wakeups = await database.petEventWakeups();
      return {
        database,
        wakeups,
        async close() {
          await database.close();
          await test.drop();
        },
      };
    },
  ],
  [
    'in-memory PGlite',
    async () => {
      const database = await openDatabase({ databaseUrl: undefined, dataDir: 'memory://', logger });
      await applyPendingMigrations(database.migrationAdapter);
      const wakeups = await database.petEventWakeups();
      return { database, wakeups, close: () => database.close() };
    },
  ],
];

describe.each(kinds)('the pet feed on %s', (_, open) => {
  let setup: Setup | undefined;
  const feeds: PetFeed[] = [];
  /** Every event of the 500 creates, as a follower received them. */
  let received: PetEvent[] = [];
  let start = 0n;

  const opened = () => setup as Setup;
  const feed = (options: PetFeedOptions, wakeups: Wakeups = opened().wakeups) => {
    const made = createPetFeed(opened().database.sql, wakeups, options);
    feeds.push(made);
    return made;
  };
  const signal = () => new AbortController().signal;

  beforeAll(async () => {
    setup = await open();
  }, timeouts.hook);

  afterAll(async () => {
    await Promise.all(feeds.splice(0).map((each) => each.close()));
    await setup?.close();
  }, timeouts.hook);

  it(
    `delivers all ${CREATES} pets created at once to each follower, in id order, none twice, as getPet reads them`,
    async () => {
      const { database } = opened();
      const pets = createPetsService(database.sql);
      start = (await readHead(database.sql)).head;
      // Woken only by notifications (the poll is an hour): LISTEN, or PGlite's own listen, carries this one. A small
      // ring and small pages make the followers fall behind the ring and catch up from the database.
      const listeningOptions = feedOptions({ ringSize: 50, pageSize: 20 });
      const listening = feed(listeningOptions);
      // No notifications at all: polling alone carries this one (as behind a transaction-mode pooler).
      const pollingOptions = feedOptions({ pollIntervalMs: 10 });
      const polling = feed(pollingOptions, silentWakeups());
      const followers = await Promise.all([
        listening.follow({ subject: 'a', signal: signal() }),
        listening.follow({ after: start, subject: 'b', signal: signal() }),
        polling.follow({ subject: 'c', signal: signal() }),
      ]);
      expect(listening.subscribers).toBe(2);
      const [created, ...delivered] = await Promise.all([
        createMany(pets, CREATES, 'concurrent'),
        ...followers.map((iterator) => take(iterator, CREATES)),
      ]);
      for (const iterator of followers) await iterator.return?.();
      expect(listening.subscribers).toBe(0);

      const createdIds = (created as Pet[]).map((pet) => pet.id).sort((a, b) => (a < b ? -1 : 1));
      for (const events of delivered as PetEvent[][]) {
        expectIncreasing(events);
        expect(events.map((event) => event.pet.id).sort((a, b) => (a < b ? -1 : 1))).toEqual(createdIds);
        expect(events).toEqual(delivered[0]);
      }
      received = delivered[0] as PetEvent[];
      for (const event of received) {
        expect(event.kind).toBe('pet.created');
        expect(event.pet).toStrictEqual(await pets.getPet({ petId: event.pet.id }));
      }
      expect([...listeningOptions.errors, ...pollingOptions.errors]).toEqual([]);
    },
    timeouts.server,
  );

  it(
    'resumes after an id mid-way with exactly the rest, from the database or the ring',
    async () => {
      const middle = received[CREATES / 2 - 1] as PetEvent;
      for (const ringSize of [10, 1000]) {
        const resumed = await feed(feedOptions({ ringSize, pageSize: 30 })).follow({
          after: middle.id,
          subject: 'a',
          signal: signal(),
        });
        expect(await take(resumed, CREATES / 2)).toEqual(received.slice(CREATES / 2));
        await resumed.return?.();
      }
    },
    timeouts.server,
  );

  it(
    'yields only the events of the status asked for, in order',
    async () => {
      const sold = received.filter((event) => event.pet.status === 'sold');
      const filtered = await feed(feedOptions({ pageSize: 7 })).follow({
        after: start,
        status: 'sold',
        subject: 'a',
        signal: signal(),
      });
      expect(await take(filtered, sold.length)).toEqual(sold);
      // Past the last sold one, nothing more: it waits (for a pet created now, not sold, it skips; then a sold one).
      const pets = createPetsService(opened().database.sql);
      const next = filtered.next();
      await pets.createPet(
        { name: 'not-sold', categoryId: 1n, status: 'pending' },
        { caller: { subject: 'x' } },
      );
      const soldPet = await pets.createPet(
        { name: 'sold', categoryId: 1n, status: 'sold' },
        { caller: { subject: 'x' } },
      );
      expect((await next).value?.pet).toEqual(soldPet);
      await filtered.return?.();
    },
    timeouts.server,
  );

  it(
    'refuses a caller its follow past maxPerCaller open ones (429, Retry-After); others and later ones pass',
    async () => {
      const capped = feed(feedOptions({ maxPerCaller: 2 }));
      const first = await capped.follow({ subject: 'alice', signal: signal() });
      await capped.follow({ subject: 'alice', signal: signal() });
      const refused = await capped
        .follow({ subject: 'alice', signal: signal() })
        .catch((error: unknown) => error);
      expect(toAppError(refused)).toMatchObject({ code: 'rate_limited', status: 429 });
      expect(Number(toAppError(refused)?.headers['Retry-After'])).toBeGreaterThan(0);
      await capped.follow({ subject: 'bob', signal: signal() });
      await first.return?.();
      await capped.follow({ subject: 'alice', signal: signal() });
      expect(capped.subscribers).toBe(3);
    },
    timeouts.server,
  );

  it(
    'closes a follower that does not take an available event within stallMs (onStalled), not an idle one',
    async () => {
      const stalling = feed(feedOptions({ stallMs: 5 }));
      let stalled = () => {};
      const called = new Promise<void>((resolve) => {
        stalled = resolve;
      });
      // Events are there (after: start) and next() is never called.
      const neverAsks = await stalling.follow({
        after: start,
        subject: 'a',
        signal: signal(),
        onStalled: stalled,
      });
      // Waiting in next() with nothing to take is not stalling: this one is still open when the other is closed.
      const idle = await stalling.follow({ subject: 'b', signal: signal(), onStalled: () => stalled() });
      const waiting = idle.next();
      await called;
      expect(stalling.subscribers).toBe(1);
      expect(await neverAsks.next()).toEqual({ done: true, value: undefined });
      await idle.return?.();
      expect(await waiting).toEqual({ done: true, value: undefined });
    },
    timeouts.server,
  );

  it(
    'closes (onStalled) a follower whose key is revoked while its consumer holds an event and reads no more',
    async () => {
      // The 401 waits for a next() that a client which stopped reading never makes: its connection would stay open.
      const keys = createApiKeysService(opened().database.prisma);
      const issued = await keys.create('feed reader');
      const revoking = feed(feedOptions({ keepAliveMs: 10 }));
      let stalled = () => {};
      const called = new Promise<'closed'>((resolve) => {
        stalled = () => resolve('closed');
      });
      // Events are there (after: start, the first test's pets).
      const holder = await revoking.follow({
        after: start,
        subject: 'revoked',
        issuedKeyHash: sha256(issued.key),
        signal: signal(),
        onStalled: stalled,
      });
      expect((await holder.next()).done).toBe(false); // takes one event, then stops reading
      await keys.revoke(issued.id);
      const deadline = new Promise<'open'>((resolve) =>
        setTimeout(() => resolve('open'), scaled(2_000)).unref(),
      );
      expect(await Promise.race([called, deadline])).toBe('closed');
      expect(revoking.subscribers).toBe(0);
    },
    timeouts.server,
  );

  it(
    'ends a waiting follower when its signal aborts, and one whose signal aborted before',
    async () => {
      const aborting = feed(feedOptions());
      const controller = new AbortController();
      const waiting = await aborting.follow({ subject: 'a', signal: controller.signal });
      const next = waiting.next();
      controller.abort();
      expect(await next).toEqual({ done: true, value: undefined });
      expect(aborting.subscribers).toBe(0);
      const late = await aborting.follow({ subject: 'a', signal: controller.signal });
      expect(await late.next()).toEqual({ done: true, value: undefined });
      expect(aborting.subscribers).toBe(0);
    },
    timeouts.server,
  );

  it(
    'close() ends every follower and refuses new ones',
    async () => {
      const closing = feed(feedOptions());
      const followers = await Promise.all(
        ['a', 'b', 'c'].map((subject) => closing.follow({ after: start, subject, signal: signal() })),
      );
      const nexts = followers.map((iterator) => iterator.next().then(() => iterator.next()));
      await closing.close();
      expect(closing.subscribers).toBe(0);
      for (const iterator of followers)
        expect(await iterator.next()).toEqual({ done: true, value: undefined });
      await Promise.all(nexts);
      await expect(closing.follow({ subject: 'a', signal: signal() })).rejects.toMatchObject({
        code: 'service_unavailable',
      });
    },
    timeouts.server,
  );

  it(
    'after a prune: events_expired (410) for a position below the horizon, at follow() and under a catching-up follower',
    async () => {
      const { database } = opened();
      // A follower catching up one event at a time (pageSize 1, a ring of 1) has read one page of the outbox.
      const catching = feed(feedOptions({ pageSize: 1, ringSize: 1 }));
      const behind = await catching.follow({ after: start, subject: 'a', signal: signal() });
      await take(behind, 1);
      expect(await pruneEvents(database.sql, 0)).toBeGreaterThan(0);
      const { prunedThrough } = await readHead(database.sql);
      expect(prunedThrough).toBeGreaterThan(start);
      await expect(behind.next()).rejects.toMatchObject({ code: 'events_expired', status: 410 });
      expect(catching.subscribers).toBe(0);

      const fresh = feed(feedOptions());
      await expect(fresh.follow({ after: 0n, subject: 'a', signal: signal() })).rejects.toMatchObject({
        code: 'events_expired',
        status: 410,
      });
      // From the horizon on: whatever is left (an event younger than the prune's start), then what is created next.
      const resumed = await fresh.follow({ after: prunedThrough, subject: 'a', signal: signal() });
      const [pet] = await createMany(createPetsService(database.sql), 1, 'after-prune');
      const events: PetEvent[] = [];
      while (events.at(-1)?.pet.id !== (pet as Pet).id) events.push(...(await take(resumed, 1)));
      expect(events[0]?.id).toBeGreaterThan(prunedThrough);
      expectIncreasing(events);
      await resumed.return?.();
    },
    timeouts.server,
  );
});

describe('the pet feed when the database fails', () => {
  it('rejects a follow whose check cannot read the database with its error; the hub reports and goes on', async () => {
    const failure = new Error('database down');
    const failing: Sql = { rows: () => Promise.reject(failure) };
    const options = feedOptions();
    const feed = createPetFeed(failing, silentWakeups(), options);
    try {
      await expect(feed.follow({ subject: 'a', signal: new AbortController().signal })).rejects.toBe(failure);
      expect(feed.subscribers).toBe(0);
    } finally {
      await feed.close();
    }
    expect(options.errors).toContain(failure);
  });
});

describe('LISTEN wake-ups on PostgreSQL', () => {
  it(
    'reconnect after the connection is cut, and then wake every subscriber',
    async () => {
      const test = await createTestDatabase('pet_feed_listen');
      const admin = new pg.Client({ connectionString: test.url });
      const wakeups = pgWakeups({ url: test.url, logger, minBackoffMs: 10 });
      try {
        await admin.connect();
        await wakeups.firstAttempt;
        let woken = () => {};
        const wake = new Promise<void>((resolve) => {
          woken = resolve;
        });
        wakeups.subscribe(() => woken());
        await admin.query(
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%'",
        );
        // No notification is sent: the wake-up is the reconnect's.
        await wake;
        let notified = () => {};
        const notification = new Promise<void>((resolve) => {
          notified = resolve;
        });
        wakeups.subscribe(() => notified());
        await admin.query("NOTIFY pet_events, '1'");
        await notification;
      } finally {
        await wakeups.close();
        await admin.end();
        await test.drop();
      }
    },
    timeouts.server,
  );
});

describe('event ids in one order for every reader (the sequencer), on PostgreSQL', () => {
  it(
    'a create still open holds back the ids of later ones; once it commits, a follower gets it first, skipping none',
    async () => {
      const test = await createTestDatabase('pet_feed_order');
      const database = await openDatabase({ databaseUrl: test.url, dataDir: 'memory://', logger });
      const clients = [0, 1].map(() => new pg.Client({ connectionString: test.url }));
      const feed = createPetFeed(
        database.sql,
        await database.petEventWakeups(),
        feedOptions({ pollIntervalMs: 10 }),
      );
      try {
        await applyPendingMigrations(database.migrationAdapter);
        const [first, second] = clients as [pg.Client, pg.Client];
        await Promise.all(clients.map((client) => client.connect()));
        const follower = await feed.follow({ subject: 'a', signal: new AbortController().signal });
        const insert = 'INSERT INTO pets (name, category_id) VALUES ($1, 1) RETURNING id::text AS id';
        // The first create stays uncommitted; the second starts after it and commits at once (it does not wait).
        await first.query('BEGIN');
        const firstId = (await first.query<{ id: string }>(insert, ['first'])).rows[0]?.id;
        const secondId = (await second.query<{ id: string }>(insert, ['second'])).rows[0]?.id;
        // The second pet is committed, but no round writes its event while an older transaction is open: had it an
        // id, a follower could read it and then miss the first's, whose id would have to be smaller.
        expect(await sequenceEvents(database.sql, 1000)).toBe(0);
        const { rows } = await second.query<{ events: string; pets: string }>(
          'SELECT (SELECT count(*) FROM pet_events)::text AS events, (SELECT count(*) FROM pets)::text AS pets',
        );
        expect(rows[0]).toEqual({ events: '0', pets: '1' });
        await first.query('COMMIT');
        expect((await follower.next()).value?.pet.id).toBe(BigInt(firstId as string));
        expect((await follower.next()).value?.pet.id).toBe(BigInt(secondId as string));
        await follower.return?.();
      } finally {
        await feed.close();
        await Promise.all(clients.map((client) => client.end().catch(() => {})));
        await database.close();
        await test.drop();
      }
    },
    timeouts.server,
  );

  it(
    'from now: a pet answered before the follow is not delivered, though a transaction in another database held it back',
    async () => {
      const test = await createTestDatabase('pet_feed_xmin');
      const database = await openDatabase({ databaseUrl: test.url, dataDir: 'memory://', logger });
      // Transaction ids are the cluster's: one open in another database holds back what the sequencer may number.
      const elsewhere = new URL(test.url);
      elsewhere.pathname = '/postgres';
      const other = new pg.Client({ connectionString: elsewhere.toString() });
      const feed = createPetFeed(database.sql, silentWakeups(), feedOptions());
      try {
        await applyPendingMigrations(database.migrationAdapter);
        await other.connect();
        const pets = createPetsService(database.sql);
        await other.query('BEGIN');
        await other.query('SELECT pg_current_xact_id()');
        const [answered] = await createMany(pets, 1, 'answered');
        const follower = await feed.follow({ subject: 'a', signal: new AbortController().signal });
        // Not numbered yet when the stream opened: it is numbered after the head the stream starts from.
        expect(await sequenceEvents(database.sql, 1000)).toBe(0);
        await other.query('COMMIT');
        await expectFirstCreatedAfter(feed, pets, follower, answered);
        // The pet answered before is in the feed all the same, after the head (a follower from before sees it).
        const head = await readHead(database.sql);
        const all = await feed.follow({ subject: 'b', after: 0n, signal: new AbortController().signal });
        const names = (await take(all, 2)).map((event) => event.pet.name);
        expect(names).toEqual(['answered-0', 'later-0']);
        expect(head.head).toBe(2n);
        await Promise.all([follower.return?.(), all.return?.()]);
      } finally {
        await feed.close();
        await other.end().catch(() => {});
        await database.close();
        await test.drop();
      }
    },
    timeouts.server,
  );

  it(
    "from now: a pet answered before the follow is not delivered, though another instance's round held the sequencer",
    async () => {
      const test = await createTestDatabase('pet_feed_now');
      const database = await openDatabase({ databaseUrl: test.url, dataDir: 'memory://', logger });
      const round = new pg.Client({ connectionString: test.url });
      // No poll and no LISTEN: no round of this feed's hub runs unless the test wakes it.
      const feed = createPetFeed(database.sql, silentWakeups(), feedOptions());
      try {
        await applyPendingMigrations(database.migrationAdapter);
        await round.connect();
        const pets = createPetsService(database.sql);
        // Another instance's sequencing round: it holds the sequencer's lock and has a transaction id.
        await round.query('BEGIN');
        await round.query('SELECT pg_advisory_xact_lock(1885697119, 1)');
        await round.query('SELECT pg_current_xact_id()');
        // Committed (a higher transaction id) and answered before the follow opens.
        const [answered] = await createMany(pets, 1, 'answered');
        const following = feed.follow({ subject: 'a', signal: new AbortController().signal });
        // The follow waits for that round (the lock), then the round ends.
        // Counted in this database alone: pg_locks is the cluster's, and another test's waiters (other databases, other
        // files run alongside) would keep the count from ever being exactly one while this round held its id.
        const waiting = `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted
          AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
          AND classid = 1885697119 AND objid = 1`;
        while ((await round.query<{ n: number }>(waiting)).rows[0]?.n !== 1) await new Promise(setImmediate);
        await round.query('COMMIT');
        const follower = await following;
        await expectFirstCreatedAfter(feed, pets, follower, answered);
        await follower.return?.();
      } finally {
        await feed.close();
        await round.end().catch(() => {});
        await database.close();
        await test.drop();
      }
    },
    timeouts.server,
  );
});
