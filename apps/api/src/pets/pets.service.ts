import type { OperationParsedInput, Pet, PetsPage } from '@petstore/schema';
import { type PetRecord, type Sql, type SqlArg, statement } from '../db/sql.js';
import { operationError } from '../errors.js';
import {
  createSweeper,
  DEFAULT_IDEMPOTENCY_KEY_TTL_SECONDS,
  type IdempotencyScope,
  idempotencyScope,
  keyInUse,
  keyReused,
} from '../idempotency/idempotency.js';
import type { OperationContext } from '../operations.js';
import { decodePetCursor, encodePetCursor } from './pet-cursor.js';

// Each column named as the Pet model's field (PetRecord): rows are read by these names, never by position.
const COLUMNS = 'id, name, category_id AS "categoryId", status::text AS status';
// Fixed texts, each prepared once per connection. The filtered list is the shape pets_status_id_idx serves (a range
// scan, no sort). Pages are keyset, never OFFSET: page 400 costs what page 1 costs, and rows inserted during a walk
// (higher ids) never shift what is left to read.
const LIST_ALL = statement<PetRecord>(`SELECT ${COLUMNS} FROM pets WHERE id > $1 ORDER BY id LIMIT $2`);
const LIST_BY_STATUS = statement<PetRecord>(
  `SELECT ${COLUMNS} FROM pets WHERE status = $1::pet_status AND id > $2 ORDER BY id LIMIT $3`,
);
const GET = statement<PetRecord>(`SELECT ${COLUMNS} FROM pets WHERE id = $1`);
const CREATE = statement<PetRecord>(
  `INSERT INTO pets (name, category_id, status) VALUES ($1, $2, $3::pet_status) RETURNING ${COLUMNS}`,
);

// createPet with an idempotency key, which lives on the pet it created (pets.idempotency_key_hash): a new key is one
// insert, one round trip. Nothing is inserted when the key's advisory lock is held by a keyed create not yet
// committed, or a committed pet has the key (ON CONFLICT); only then is the key looked up: a replay (same
// fingerprint), a 422 (another body), an expired key (forgotten, then inserted again) or nothing visible (409).
const KEY_COLUMNS = `${COLUMNS}, idempotency_fingerprint = $2 AS "sameRequest",
  created_at <= now() - make_interval(secs => $3::int) AS expired`;
const CREATE_WITH_KEY =
  statement<PetRecord>(`INSERT INTO pets (name, category_id, status, idempotency_key_hash, idempotency_fingerprint)
  SELECT $1::text, $2::bigint, $3::pet_status, $4::bytea, $5::bytea WHERE pg_try_advisory_xact_lock($6::bigint)
  ON CONFLICT (idempotency_key_hash) WHERE idempotency_key_hash IS NOT NULL DO NOTHING
  RETURNING ${COLUMNS}`);
const FIND_BY_KEY = statement<PetRecord & { sameRequest: boolean; expired: boolean }>(
  `SELECT ${KEY_COLUMNS} FROM pets WHERE idempotency_key_hash = $1`,
);
// Forgetting a key clears it from its pet (the pet stays): the same key may then create again.
const FORGET_EXPIRED_KEY = `UPDATE pets SET idempotency_key_hash = NULL, idempotency_fingerprint = NULL
  WHERE idempotency_key_hash = $1 AND created_at <= now() - make_interval(secs => $2::int)`;
/** Expired keys forgotten per statement of a sweep: short transactions, a bounded number of rows locked at once. */
const SWEEP_BATCH = 1000;
const SWEEP_EXPIRED_KEYS = statement<{ swept: number }>(`WITH expired AS (
    SELECT id FROM pets WHERE idempotency_key_hash IS NOT NULL
      AND created_at <= now() - make_interval(secs => $1::int)
    ORDER BY created_at LIMIT ${SWEEP_BATCH}
  ), swept AS (
    UPDATE pets SET idempotency_key_hash = NULL, idempotency_fingerprint = NULL
    FROM expired WHERE pets.id = expired.id RETURNING 1
  )
  SELECT count(*)::int AS swept FROM swept`);

/** The new pet's columns, as CREATE and CREATE_WITH_KEY take them. */
const petArgs = ({ name, categoryId, status }: OperationParsedInput<'createPet'>): SqlArg[] => [
  { value: name, type: 'string' },
  { value: categoryId, type: 'bigint' },
  { value: status ?? null, type: 'string' },
];

/** A pet's record becomes a Pet; a NULL status is left out, never sent as `"status": null`. */
export function toPet({ id, name, categoryId, status }: PetRecord): Pet {
  const pet: Pet = { id, name, categoryId };
  if (status !== null) pet.status = status;
  return pet;
}

/**
 * The pet operations, keyed by operationId, each taking its parsed input (the contract says what they answer). In
 * wire types only: the router type built on them, copied into @petstore/client's declarations, never reaches the
 * database client's types.
 */
export interface PetsService {
  listPets(query: OperationParsedInput<'listPets'>): Promise<Pet[]>;
  /** AppError validation_failed for a cursor that is not ours for this `status`. */
  pagePets(query: OperationParsedInput<'pagePets'>): Promise<PetsPage>;
  createPet(newPet: OperationParsedInput<'createPet'>, context: OperationContext): Promise<Pet>;
  getPet(input: OperationParsedInput<'getPet'>): Promise<Pet>;
}

export interface PetsServiceOptions {
  /** How long an idempotency key is remembered (seconds); 24 hours by default. */
  idempotencyKeyTtlSeconds?: number | undefined;
  /** Told about a failed background sweep of expired idempotency keys. */
  onSweepError?: ((error: unknown) => void) | undefined;
  /**
   * Read replicas (db/read-replicas.ts): listPets, pagePets and getPet read through `reads`; `afterWrite` runs
   * after each createPet. Absent: everything on `sql`.
   */
  replicas?: { reads: Sql; afterWrite(): Promise<void> } | undefined;
}

/** The pet rules, behind every transport, on inputs the transport validated against the contract. */
export function createPetsService(sql: Sql, options: PetsServiceOptions = {}): PetsService {
  const ttlSeconds = options.idempotencyKeyTtlSeconds ?? DEFAULT_IDEMPOTENCY_KEY_TTL_SECONDS;
  const replicas = options.replicas;
  const reads = replicas?.reads ?? sql;
  const ttl = { value: ttlSeconds, type: 'int' } as const;
  const sweepExpiredKeys = createSweeper(
    async () => {
      // Batch after batch, until one comes back short: a backlog (an instance down for a day) drains in one sweep.
      for (let batch = 0; batch < 1000; batch++) {
        const [row] = await sql.rows(SWEEP_EXPIRED_KEYS, [ttl]);
        if ((row?.swept ?? 0) < SWEEP_BATCH) return;
      }
    },
    { onError: options.onSweepError },
  );

  /** createPet under a key: the pet with its key stored at once, or the stored pet, or 409/422. */
  async function createWithKey(newPet: OperationParsedInput<'createPet'>, scope: IdempotencyScope) {
    sweepExpiredKeys();
    const keyHash = { value: scope.keyHash, type: 'bytes' } as const;
    const fingerprint = { value: scope.fingerprint, type: 'bytes' } as const;
    for (let attempt = 1; attempt <= 3; attempt++) {
      const [created] = await sql.rows(CREATE_WITH_KEY, [
        ...petArgs(newPet),
        keyHash,
        fingerprint,
        { value: scope.lockId, type: 'bigint' },
      ]);
      if (created !== undefined) return toPet(created);
      const [stored] = await sql.rows(FIND_BY_KEY, [keyHash, fingerprint, ttl]);
      // Nothing committed under the key, and the insert did not run: a request with this key holds its lock.
      if (stored === undefined) throw keyInUse();
      if (stored.expired) {
        // Expired but not swept yet: forget it and start afresh, as if it had never been used.
        await sql.rows(FORGET_EXPIRED_KEY, [keyHash, ttl]);
        continue;
      }
      if (!stored.sameRequest) throw keyReused();
      // A pet never changes once stored, so its row is the response the first request got.
      return toPet(stored);
    }
    throw keyInUse();
  }

  /** A page of pets; its cursor only when asked for (listPets over tRPC has no use for one: no checksum made). */
  async function readPage({ limit, status, cursor }: OperationParsedInput<'pagePets'>, withCursor: boolean) {
    const after = cursor === undefined ? 0n : decodePetCursor(cursor, status).after;
    // One row more than asked says whether another page exists, so the last page carries no cursor.
    const page: SqlArg[] = [
      { value: after, type: 'bigint' },
      { value: limit + 1, type: 'int' },
    ];
    const rows =
      status === undefined
        ? await reads.rows(LIST_ALL, page)
        : await reads.rows(LIST_BY_STATUS, [{ value: status, type: 'string' }, ...page]);
    const items = rows.slice(0, limit).map(toPet);
    const last = items.at(-1);
    const nextCursor =
      withCursor && rows.length > limit && last !== undefined
        ? encodePetCursor({ after: last.id, status })
        : null;
    return { items, nextCursor };
  }
  async function createPet(newPet: OperationParsedInput<'createPet'>, { caller }: OperationContext) {
    const { name, categoryId, status, idempotencyKey } = newPet;
    if (idempotencyKey !== undefined) {
      // What the fingerprint covers: the body's fields in a fixed order, the int64 as its digits.
      const canonical = JSON.stringify([name, categoryId.toString(), status ?? null]);
      return createWithKey(newPet, idempotencyScope(caller.subject, idempotencyKey, canonical));
    }
    const [row] = await sql.rows(CREATE, petArgs(newPet));
    if (row === undefined) throw new Error('INSERT ... RETURNING returned no row');
    return toPet(row);
  }

  return {
    listPets: async (query) => (await readPage(query, false)).items,
    pagePets: (query) => readPage(query, true),
    createPet:
      replicas === undefined
        ? createPet
        : async (newPet, context) => {
            const pet = await createPet(newPet, context);
            await replicas.afterWrite();
            return pet;
          },
    async getPet({ petId }) {
      const [row] = await reads.rows(GET, [{ value: petId, type: 'bigint' }]);
      if (row === undefined) throw operationError<'getPet'>('pet_not_found', `no pet with id ${petId}`);
      return toPet(row);
    },
  };
}
