import type { Pet } from '@petstore/schema';
import { type PetEventHorizonRecord, type PetEventRow, type Sql, statement } from '../db/sql.js';
import { toPet } from '../pets/pets.service.js';

// The change feed's statements on the outbox (`pet_events`, written by the trigger on `pets`; the migration
// pet_events says why its ids are in commit order) and its horizon (`pet_event_horizon`, one row). Rows are read by
// column name (db/sql.ts); each is one statement, so what it reads comes from one snapshot.

/** One event of the feed: its id (the feed's order), its kind and the pet as it was stored. */
export interface PetEventRecord {
  id: bigint;
  kind: 'pet.created';
  pet: Pet;
}

/** The outbox's last id (or the horizon, past an outbox pruned empty) and how far it is pruned. */
const HEAD = statement<{ head: bigint } & PetEventHorizonRecord>(
  `SELECT greatest((SELECT max(id) FROM pet_events), pruned_through) AS head, pruned_through AS "prunedThrough"
   FROM pet_event_horizon`,
);

// The events after $1, at most $2, in id order, with the horizon read in the same snapshot: a page that starts past
// a pruned stretch is told so by the same statement that read it (a page with no event is one row of NULLs).
const PAGE = statement<PetEventHorizonRecord & { [Column in keyof PetEventRow]: PetEventRow[Column] | null }>(
  `SELECT h.pruned_through AS "prunedThrough", e.id, e.kind, e.pet_id AS "petId", e.name,
     e.category_id AS "categoryId", e.status::text AS status
   FROM pet_event_horizon h
   LEFT JOIN LATERAL (SELECT * FROM pet_events WHERE id > $1 ORDER BY id LIMIT $2) e ON true
   ORDER BY e.id`,
);

// Deletes the id-prefix of events older than $1 seconds: every event below the first one still young (ids are
// nearly in created_at order; a young event keeps the older ones after it). Raises the horizon to the last id
// deleted, in the same statement, so that no reader sees the events gone and the horizon not yet raised. Several
// instances at once: the second DELETE waits on the first's rows and skips them once gone, and the horizon only
// ever rises (greatest).
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

export interface FeedHead {
  /** The last committed event's id (the horizon when none is left). */
  head: bigint;
  /** Events with an id up to this may have been pruned: a position below it has lost events. */
  prunedThrough: bigint;
}

export interface EventPage extends Pick<FeedHead, 'prunedThrough'> {
  /** The events after the position asked for, in id order, of the known kinds. */
  events: PetEventRecord[];
  /** The last id read (the position to read on from; unknown kinds are skipped but still advance it). */
  last: bigint | undefined;
  /** The page came back full: more may follow at once. */
  full: boolean;
}

export async function readHead(sql: Sql): Promise<FeedHead> {
  const [row] = await sql.rows(HEAD);
  if (row === undefined) throw new Error('pet_event_horizon has no row (the migration pet_events seeds it)');
  return row;
}

/** The events after `after`, at most `limit`, with the horizon of the same snapshot. */
export async function readEvents(sql: Sql, after: bigint, limit: number): Promise<EventPage> {
  const rows = await sql.rows(PAGE, [
    { value: after, type: 'bigint' },
    { value: limit, type: 'int' },
  ]);
  const first = rows[0];
  if (first === undefined)
    throw new Error('pet_event_horizon has no row (the migration pet_events seeds it)');
  const events: PetEventRecord[] = [];
  let last: bigint | undefined;
  let count = 0;
  for (const { id, kind, petId, name, categoryId, status } of rows) {
    if (id === null) continue;
    count++;
    last = id;
    // A kind this version does not know (written by a newer one during a rolling deploy) is passed over.
    if (kind !== 'pet.created' || petId === null || name === null || categoryId === null) continue;
    events.push({ id, kind, pet: toPet({ id: petId, name, categoryId, status }) });
  }
  return { events, last, full: count >= limit, prunedThrough: first.prunedThrough };
}

/** Deletes the events older than `retentionSeconds` (an id-prefix) and raises the horizon; how many went. */
export async function pruneEvents(sql: Sql, retentionSeconds: number): Promise<number> {
  const [row] = await sql.rows(PRUNE, [{ value: retentionSeconds, type: 'int' }]);
  return row?.pruned ?? 0;
}
