-- CreateTable
CREATE TABLE "pet_events" (
    "id" BIGSERIAL NOT NULL,
    "kind" TEXT NOT NULL,
    "pet_id" BIGINT NOT NULL,
    "name" TEXT NOT NULL,
    "category_id" BIGINT NOT NULL,
    "status" "pet_status",
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "pet_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "pet_event_horizon" (
    "id" BOOLEAN NOT NULL DEFAULT true,
    "pruned_through" BIGINT NOT NULL,

    CONSTRAINT "pet_event_horizon_pkey" PRIMARY KEY ("id")
);

-- Written by hand from here on: Prisma models neither CHECK constraints nor triggers, and seeds no rows.

-- The horizon has exactly one row: its key can only be true.
ALTER TABLE "pet_event_horizon" ADD CONSTRAINT "pet_event_horizon_one_row" CHECK ("id");
INSERT INTO "pet_event_horizon" ("id", "pruned_through") VALUES (true, 0);

-- Every created pet records a `pet.created` event in its own transaction, whoever inserts it (the api, a script,
-- psql): the outbox cannot miss a pet, and an event exists exactly when its pet committed.
--
-- Ids in commit order: a sequence hands out ids when rows are inserted, not when they commit, so two creates that
-- overlap could commit 6 before 5, and a follower that has read 6 would skip 5 for good when it commits. The
-- transaction-scoped advisory lock, taken BEFORE the event's id is drawn and held until commit (or rollback),
-- makes the creates that reach this point take their ids and commit one at a time: an id is drawn only after every
-- smaller one committed or rolled back, so a reader that has seen id N never later sees a smaller id commit (and a
-- gap, from a rollback, stays a gap). PostgreSQL marks a transaction committed before it releases its locks, so the
-- next holder's commit is always visible after this one's.
-- The key is two int4s (1885697119 is 'pet_' in ASCII; 1: events): the two-int key space never meets the bigint
-- keys of createPet's idempotency locks (pets/pets.service.ts), which are a space of their own.
--
-- pg_notify is delivered at commit, and only if the transaction commits: it only wakes the followers (the id is the
-- payload, well under NOTIFY's 8000 bytes); they read the events from the table, so a lost notification delays an
-- event, never drops it.
CREATE FUNCTION "pet_events_record"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  event_id bigint;
BEGIN
  PERFORM pg_advisory_xact_lock(1885697119, 1);
  INSERT INTO "pet_events" ("kind", "pet_id", "name", "category_id", "status")
  VALUES ('pet.created', NEW."id", NEW."name", NEW."category_id", NEW."status")
  RETURNING "id" INTO event_id;
  PERFORM pg_notify('pet_events', event_id::text);
  RETURN NULL;
END;
$$;

CREATE TRIGGER "pets_record_event" AFTER INSERT ON "pets" FOR EACH ROW EXECUTE FUNCTION "pet_events_record"();
