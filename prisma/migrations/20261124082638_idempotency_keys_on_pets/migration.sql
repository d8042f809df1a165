-- AlterTable
ALTER TABLE "pets" ADD COLUMN     "idempotency_fingerprint" BYTEA,
ADD COLUMN     "idempotency_key_hash" BYTEA;

-- Carry the keys that are still live over to the pets they created (written by hand: Prisma only generates the
-- DDL), so that a retry in flight during the deploy is still a replay and not a second pet. The key hash is the one
-- the api computes (SHA-256 of caller, newline, key) and the fingerprint the same SHA-256, as bytes, not hex.
UPDATE "pets" AS p
SET "idempotency_key_hash" = sha256(convert_to(k."caller" || E'\n' || k."key", 'UTF8')),
    "idempotency_fingerprint" = decode(k."fingerprint", 'hex')
FROM "idempotency_keys" AS k
WHERE k."expires_at" > now() AND k."response_status" = 201 AND p."id" = (k."response_body"->>'id')::bigint;

-- DropTable
DROP TABLE "idempotency_keys";

-- CreateIndex
CREATE INDEX "pets_idempotency_created_at_idx" ON "pets"("created_at") WHERE (idempotency_key_hash IS NOT NULL);

-- CreateIndex
CREATE UNIQUE INDEX "pets_idempotency_key_hash_key" ON "pets"("idempotency_key_hash") WHERE (idempotency_key_hash IS NOT NULL);
