-- The change feed's events are numbered from `pets` itself (the pet's `txid` default) rather than from a row a
-- trigger wrote per create: the trigger (a PL/pgSQL call and a second row, with its indexes, in every create's
-- transaction) and the sequencer's UPDATE of that row took about a third of PostgreSQL's insert rate (pgbench, 20
-- clients: about 15k inserts/s without the trigger, 10k with it); a `txid` column with an index costs about a tenth.
-- Written by hand in this order (Prisma generates the DDL only, and would add the column with its volatile default,
-- which rewrites the table and gives every existing pet the migration's own transaction id, as if all were new).

-- Locks `pets` first (ACCESS EXCLUSIVE, until this migration commits): creates running now finish before it goes on
-- (their trigger has written their events), and none starts until it is done.
ALTER TABLE "pets" ADD COLUMN "txid" BIGINT;

-- Every event the trigger wrote gets its id now, in the sequencer's order (transaction, then entry), after the
-- largest id so far; then the trigger goes.
WITH ready AS (
  SELECT entry, row_number() OVER (ORDER BY txid, entry) AS n FROM "pet_events" WHERE id IS NULL
), top AS (
  SELECT greatest((SELECT max(id) FROM "pet_events"), (SELECT pruned_through FROM "pet_event_horizon")) AS id
)
UPDATE "pet_events" e SET id = top.id + ready.n FROM ready, top WHERE e.entry = ready.entry;

DROP TRIGGER "pets_record_event" ON "pets";
DROP FUNCTION "pet_events_record"();

-- Pets inserted from now on carry their transaction's id.
ALTER TABLE "pets" ALTER COLUMN "txid" SET DEFAULT ((pg_current_xact_id())::text)::bigint;

-- CreateIndex
CREATE INDEX "pets_txid_id_idx" ON "pets"("txid", "id");

-- DropIndex
DROP INDEX "pet_events_id_key";

-- DropIndex
DROP INDEX "pet_events_unsequenced_idx";

-- AlterTable
ALTER TABLE "pet_events" DROP CONSTRAINT "pet_events_pkey",
DROP COLUMN "entry",
DROP COLUMN "txid",
ALTER COLUMN "id" SET NOT NULL,
ADD CONSTRAINT "pet_events_pkey" PRIMARY KEY ("id");

-- Where the sequencer starts: after the transactions older than every one running now (xmin). A transaction older
-- than that is over, and inserted its pets (if any) before the column existed; one that inserts a pet from now on
-- has an id of at least xmin, so its pet is numbered. The pets that have no txid had their events written above.
ALTER TABLE "pet_event_horizon" ADD COLUMN "sequenced_pet_id" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN "sequenced_txid" BIGINT NOT NULL DEFAULT 0;
UPDATE "pet_event_horizon" SET "sequenced_txid" = pg_snapshot_xmin(pg_current_snapshot())::text::bigint - 1,
  "sequenced_pet_id" = 9223372036854775807;
ALTER TABLE "pet_event_horizon" ALTER COLUMN "sequenced_pet_id" DROP DEFAULT,
ALTER COLUMN "sequenced_txid" DROP DEFAULT;
