import type { PetEvent } from '@petstore/schema';
import { type PetEventHorizonRecord, type PetEventRow, type Sql, statement } from '../db/sql.js';
import { toPet } from '../pets/pets.service.js';

// The change feed's statements on the outbox (`pet_events`) and its horizon (`pet_event_horizon`, one row); why
// they are shaped so: docs/operations.md#the-change-feed. Each is one statement, so it reads one snapshot.

/** An event as the outbox holds it, with the transaction that created its pet (`pets.txid`; see committedIn). */
export interface StoredEvent {
  event: PetEvent;
  txid: bigint | null;
}

/** The outbox's last id (or the horizon, past an outbox pruned empty), how far it is pruned, and the snapshot. */
const HEAD = statement<{ head: bigint; snapshot: string } & PetEventHorizonRecord>(
  `SELECT greatest((SELECT max(id) FROM pet_events), pruned_through) AS head, pruned_through AS "prunedThrough",
     pg_current_snapshot()::text AS snapshot
   FROM pet_event_horizon`,
);

// The events after $1, at most $2, in id order, with the horizon read in the same snapshot: a page that starts past
// a pruned stretch is told so by the same statement that read it (a page with no event is one row of NULLs).
const PAGE = statement<PetEventHorizonRecord & { [Column in keyof PetEventRow]: PetEventRow[Column] | null }>(
  `SELECT h.pruned_through AS "prunedThrough", e.id, e.kind, e.pet_id AS "petId", e.name,
     e.category_id AS "categoryId", e.status::text AS status, e.txid
   FROM pet_event_horizon h
   LEFT JOIN LATERAL (
     SELECT pe.*, p.txid FROM pet_events pe LEFT JOIN pets p ON p.id = pe.pet_id WHERE pe.id > $1 ORDER BY pe.id LIMIT $2
   ) e ON true
   ORDER BY e.id`,
);

// Deletes the id-prefix below the first event still young (ids are nearly in created_at order) and raises the
// horizon in the same statement, so no reader sees the events gone and the horizon not yet raised.
const PRUNE = statement<{ pruned: number }>(
  `WITH boundary AS (
     SELECT id FROM pet_events WHERE created_at >= now() - make_interval(secs => $1::int) ORDER BY id LIMIT 1
   ), pruned AS (
     DELETE FROM pet_events WHERE id < coalesce((SELECT id FROM boundary), 9223372036854775807) RETURNING id
   ), raised AS (
     UPDATE pet_event_horizon SET pruned_through = greatest(pruned_through, (SELECT max(id) FROM pruned))
     WHERE EXISTS (SELECT FROM pruned) RETURNING pruned_through
   )
   SELECT (SELECT count(*) FROM pruned)::int AS pruned`,
);

// The sequencer (docs/operations.md#the-change-feed, "Event ids"): numbers the pets whose transactions are over
// (`txid` below the snapshot's xmin) in (txid, id) order, after the horizon's last (txid, id).
// Its advisory lock has two int4 keys (1885697119 is 'pet_' in ASCII, 1: events), a key space apart from the bigint
// keys of createPet's idempotency locks; it is taken once (an InitPlan) but after the snapshot, so a round that
// started just before another committed reuses that round's first id: 23505, run again (SEQUENCE_CONFLICTS).
const sequence = (lock: string) =>
  statement<{ sequenced: number }>(
    `WITH horizon AS (
     SELECT sequenced_txid, sequenced_pet_id, pruned_through FROM pet_event_horizon WHERE ${lock}
   ), ready AS (
     SELECT p.id, p.txid, p.name, p.category_id, p.status, row_number() OVER (ORDER BY p.txid, p.id) AS n
     FROM pets p
     WHERE (p.txid, p.id) > ((SELECT sequenced_txid FROM horizon), (SELECT sequenced_pet_id FROM horizon))
       AND p.txid < pg_snapshot_xmin(pg_current_snapshot())::text::bigint
     ORDER BY p.txid, p.id LIMIT $1
   ), top AS (
     SELECT greatest((SELECT max(id) FROM pet_events), (SELECT pruned_through FROM horizon)) AS id
   ), written AS (
     INSERT INTO pet_events (id, kind, pet_id, name, category_id, status)
     SELECT top.id + ready.n, 'pet.created', ready.id, ready.name, ready.category_id, ready.status FROM ready, top
     RETURNING id
   ), moved AS (
     UPDATE pet_event_horizon SET sequenced_txid = last.txid, sequenced_pet_id = last.id
     FROM (SELECT txid, id FROM ready ORDER BY n DESC LIMIT 1) last
     RETURNING 1
   )
   SELECT (SELECT count(*) FROM written)::int AS sequenced,
     (SELECT count(*) FROM moved) AS moved,
     (SELECT count(*) FROM (SELECT pg_notify('pet_events', max(id)::text) FROM written HAVING count(*) > 0) n)
       AS notified`,
  );
const SEQUENCE = sequence('(SELECT pg_try_advisory_xact_lock(1885697119, 1))');
// Before a stream starts "from now": waits for a round running elsewhere, so "now" comes after every commit so far.
const SEQUENCE_WAITING = sequence('(SELECT true FROM pg_advisory_xact_lock(1885697119, 1))');

/** SQLSTATEs of a sequencing round that met another one (unique id, deadlock): the round is run again. */
export const SEQUENCE_CONFLICTS = new Set(['23505', '40P01']);

/** One sequencing round of at most `limit` events; how many it wrote. `wait`: for a round running elsewhere. */
export async function sequenceEvents(sql: Sql, limit: number, wait = false): Promise<number> {
  const [row] = await sql.rows(wait ? SEQUENCE_WAITING : SEQUENCE, [{ value: limit, type: 'int' }]);
  return row?.sequenced ?? 0;
}

export interface FeedHead {
  /** The last committed event's id (the horizon when none is left). */
  head: bigint;
  /** Events with an id up to this may have been pruned: a position below it has lost events. */
  prunedThrough: bigint;
  /** The snapshot the head was read in (`pg_current_snapshot()`'s text, `xmin:xmax:xip,...`). */
  snapshot: string;
}

export interface EventPage extends Pick<FeedHead, 'prunedThrough'> {
  /** The events after the position asked for, in id order, of the known kinds. */
  events: StoredEvent[];
  /** The last id read (the position to read on from; unknown kinds are skipped but still advance it). */
  last: bigint | undefined;
  /** The page came back full: more may follow at once. */
  full: boolean;
}

const noHorizon = () => new Error('pet_event_horizon has no row (the migration pet_events seeds it)');

export async function readHead(sql: Sql): Promise<FeedHead> {
  const [row] = await sql.rows(HEAD);
  if (row === undefined) throw noHorizon();
  return row;
}

/** The events after `after`, at most `limit`, with the horizon of the same snapshot. */
export async function readEvents(sql: Sql, after: bigint, limit: number): Promise<EventPage> {
  const rows = await sql.rows(PAGE, [
    { value: after, type: 'bigint' },
    { value: limit, type: 'int' },
  ]);
  const first = rows[0];
  if (first === undefined) throw noHorizon();
  const events: StoredEvent[] = [];
  let last: bigint | undefined;
  let count = 0;
  for (const { id, kind, petId, name, categoryId, status, txid } of rows) {
    if (id === null) continue;
    count++;
    last = id;
    // A kind this version does not know (written by a newer one during a rolling deploy) is passed over.
    if (kind !== 'pet.created' || petId === null || name === null || categoryId === null) continue;
    events.push({ event: { id, kind, pet: toPet({ id: petId, name, categoryId, status }) }, txid });
  }
  return { events, last, full: count >= limit, prunedThrough: first.prunedThrough };
}

/**
 * Of the transactions whose pets are numbered after a snapshot's head, which had committed when it was taken: ids
 * go in txid order to pets below every running transaction's, so one holding the cluster's xmin (another database's
 * included) numbers such pets after the head. `undefined` from txid xmax on: every later pet is after it too.
 */
export function committedIn(snapshot: string): (txid: bigint) => boolean | undefined {
  const [xmin, xmax, running = ''] = snapshot.split(':');
  const [oldest, next] = [BigInt(xmin ?? 0), BigInt(xmax ?? 0)];
  const inProgress = new Set(running.split(',').filter(Boolean).map(BigInt));
  return (txid) => (txid >= next ? undefined : txid < oldest || !inProgress.has(txid));
}

/** Deletes the events older than `retentionSeconds` (an id-prefix) and raises the horizon; how many went. */
export async function pruneEvents(sql: Sql, retentionSeconds: number): Promise<number> {
  const [row] = await sql.rows(PRUNE, [{ value: retentionSeconds, type: 'int' }]);
  return row?.pruned ?? 0;
}
