import { type OperationParsedInput, type Pet, PetSchema, type PetsPage, parseJson } from '@petstore/schema';
import { int8, type Sql } from '../db/sql.js';
import { AppError } from '../errors.js';
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

const COLUMNS = 'id, name, category_id, status::text';
// The statements the pet operations run: fixed texts, so each is prepared once per connection. The filtered list
// is exactly the shape pets_status_id_idx serves (an index range scan, no sort); the unfiltered one walks the
// primary key. Pages are keyset, never OFFSET: a page starts after the last id of the previous one, so page 400
// costs what page 1 costs, and rows inserted during a walk (higher ids) never shift what is left to read.
const LIST_ALL = `SELECT ${COLUMNS} FROM pets WHERE id > $1 ORDER BY id LIMIT $2`;
const LIST_BY_STATUS = `SELECT ${COLUMNS} FROM pets WHERE status = $1::pet_status AND id > $2 ORDER BY id LIMIT $3`;
const GET = `SELECT ${COLUMNS} FROM pets WHERE id = $1`;
const CREATE = `INSERT INTO pets (name, category_id, status) VALUES ($1, $2, $3::pet_status) RETURNING ${COLUMNS}`;

// createPet with an idempotency key, in ONE statement (so one implicit transaction, one round trip):
// - `lock`: a transaction-scoped advisory lock on (caller, key), taken without waiting. Held by a request with
//   this key that has not committed yet, it fails: that request is still running, so this one is 409.
// - `existing`: the key's row, if a committed request stored one (a replay, or a 422 when the body differs).
// - `pet` + `stored`: only with the lock and no row, the pet and the key row (with the response body) are
//   inserted together; a failure of either leaves neither.
// The statement's snapshot is taken before the lock: a first request that commits in between is invisible to
// `existing`, so this one inserts again, and the key row's primary key refuses it (unique violation): the
// whole statement is undone and run once more, when it sees the row. The answer rows say which case it was.
const CREATE_WITH_KEY = `WITH lock AS (
    SELECT pg_try_advisory_xact_lock(hashtextextended($1 || E'\\n' || $2, 0)) AS acquired
  ), existing AS (
    SELECT fingerprint, response_body::text AS body, expires_at <= now() AS expired
    FROM idempotency_keys WHERE caller = $1 AND key = $2
  ), pet AS (
    INSERT INTO pets (name, category_id, status)
    SELECT $4::text, $5::bigint, $6::pet_status FROM lock WHERE acquired AND NOT EXISTS (SELECT 1 FROM existing)
    RETURNING ${COLUMNS}
  ), stored AS (
    INSERT INTO idempotency_keys (caller, key, fingerprint, response_status, response_body, expires_at)
    SELECT $1::text, $2::text, $3::text, 201,
      json_strip_nulls(json_build_object('id', id, 'name', name, 'categoryId', category_id, 'status', status)),
      now() + make_interval(secs => $7::int)
    FROM pet
  )
  SELECT 'created', id, name, category_id, status, NULL, NULL, NULL FROM pet
  UNION ALL SELECT 'stored', NULL, NULL, NULL, NULL, fingerprint, body, expired FROM existing
  UNION ALL SELECT 'busy', NULL, NULL, NULL, NULL, NULL, NULL, NULL FROM lock WHERE NOT acquired`;
const DELETE_EXPIRED_KEY =
  'DELETE FROM idempotency_keys WHERE caller = $1 AND key = $2 AND expires_at <= now()';
const SWEEP_EXPIRED_KEYS = 'DELETE FROM idempotency_keys WHERE expires_at <= now()';

/** PostgreSQL's unique_violation, as the driver adapters report it. */
function isUniqueViolation(error: unknown): boolean {
  for (let current = error, depth = 0; current instanceof Object && depth < 5; depth++) {
    const { kind, code } = current as { kind?: unknown; code?: unknown };
    if (kind === 'UniqueConstraintViolation' || code === '23505') return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/** A row (columns in COLUMNS order) becomes a Pet; a NULL status is left out, never sent as `"status": null`. */
function toPet(row: unknown[]): Pet {
  const pet: Pet = { id: int8(row[0]), name: row[1] as string, categoryId: int8(row[2]) };
  if (row[3] !== null) pet.status = row[3] as NonNullable<Pet['status']>;
  return pet;
}

/**
 * The pet operations of the contract, keyed by operationId, in wire types only (so that the router type built on
 * them, copied into @petstore/client's published declarations, never reaches the database client's types). Each
 * takes the operation's parsed input; REST and tRPC both call these, after validating against the contract.
 */
export interface PetsService {
  /** Pets ordered by id ascending (oldest first), at most `limit`, optionally of one status. */
  listPets(query: OperationParsedInput<'listPets'>): Promise<Pet[]>;
  /**
   * One page of listPets, from `cursor` (absent: the start): the pets and the cursor of the next page, null
   * when none can follow. AppError validation_failed for a cursor that is not ours for this `status`.
   */
  pagePets(query: OperationParsedInput<'pagePets'>): Promise<PetsPage>;
  /**
   * Stores a new pet; the database assigns its id. With `idempotencyKey`, the key is stored with the pet, and a
   * repeat by the same caller with the same key and pet gets the stored pet back instead of a new one;
   * AppError idempotency_key_reused (another pet under that key), idempotency_key_in_use (the first request
   * has not finished), invalid_idempotency_key.
   */
  createPet(newPet: OperationParsedInput<'createPet'>, context: OperationContext): Promise<Pet>;
  /** One pet by id; AppError pet_not_found when there is none. */
  getPet(input: OperationParsedInput<'getPet'>): Promise<Pet>;
}

export interface PetsServiceOptions {
  /** How long an idempotency key is remembered (seconds); 24 hours by default. */
  idempotencyKeyTtlSeconds?: number | undefined;
  /** Told about a failed background sweep of expired idempotency keys. */
  onSweepError?: ((error: unknown) => void) | undefined;
}

/**
 * The pet rules, shared by REST and tRPC. Inputs are already validated against @petstore/schema by the
 * transport that received them; this layer owns ordering, defaults applied at storage, not-found and
 * idempotent creation.
 */
export function createPetsService(sql: Sql, options: PetsServiceOptions = {}): PetsService {
  const ttlSeconds = options.idempotencyKeyTtlSeconds ?? DEFAULT_IDEMPOTENCY_KEY_TTL_SECONDS;
  const sweepExpiredKeys = createSweeper(
    async () => {
      await sql.rows(SWEEP_EXPIRED_KEYS);
    },
    { onError: options.onSweepError },
  );

  /** createPet under a key: the pet and the key stored at once, or the stored answer, or 409/422. */
  async function createWithKey(newPet: OperationParsedInput<'createPet'>, scope: IdempotencyScope) {
    sweepExpiredKeys();
    const args = [
      { value: scope.caller, type: 'string' },
      { value: scope.key, type: 'string' },
      { value: scope.fingerprint, type: 'string' },
      { value: newPet.name, type: 'string' },
      { value: newPet.categoryId, type: 'bigint' },
      { value: newPet.status ?? null, type: 'string' },
      { value: ttlSeconds, type: 'int' },
    ] as const;
    for (let attempt = 1; ; attempt++) {
      let rows: unknown[][];
      try {
        rows = await sql.rows(CREATE_WITH_KEY, args);
      } catch (error) {
        // A first request committed between this statement's snapshot and its lock: run it again to see it.
        if (attempt < 3 && isUniqueViolation(error)) continue;
        throw error;
      }
      const created = rows.find((row) => row[0] === 'created');
      if (created !== undefined) return toPet(created.slice(1));
      const stored = rows.find((row) => row[0] === 'stored');
      if (stored !== undefined) {
        if (stored[7] === true) {
          // Expired but not swept yet: forget it and start afresh, as if it had never been used.
          await sql.rows(DELETE_EXPIRED_KEY, args.slice(0, 2));
          if (attempt < 3) continue;
          throw keyInUse();
        }
        if (stored[5] !== scope.fingerprint) throw keyReused();
        return PetSchema.parse(parseJson(stored[6] as string));
      }
      throw keyInUse();
    }
  }

  async function pagePets({ limit, status, cursor }: OperationParsedInput<'pagePets'>): Promise<PetsPage> {
    const after = cursor === undefined ? 0n : decodePetCursor(cursor, status).after;
    // One row more than asked says whether another page exists, so the last page carries no cursor.
    const rows =
      status === undefined
        ? await sql.rows(LIST_ALL, [
            { value: after, type: 'bigint' },
            { value: limit + 1, type: 'int' },
          ])
        : await sql.rows(LIST_BY_STATUS, [
            { value: status, type: 'string' },
            { value: after, type: 'bigint' },
            { value: limit + 1, type: 'int' },
          ]);
    const items = rows.slice(0, limit).map(toPet);
    const last = items.at(-1);
    const nextCursor =
      rows.length > limit && last !== undefined ? encodePetCursor({ after: last.id, status }) : null;
    return { items, nextCursor };
  }
  return {
    async listPets(query) {
      return (await pagePets(query)).items;
    },
    pagePets,
    async createPet(newPet, { caller }) {
      const { name, categoryId, status, idempotencyKey } = newPet;
      if (idempotencyKey !== undefined) {
        // What the fingerprint covers: the body's fields in a fixed order, the int64 as its digits.
        const canonical = JSON.stringify([name, categoryId.toString(), status ?? null]);
        return createWithKey(newPet, idempotencyScope(caller.subject, idempotencyKey, canonical));
      }
      const [row] = await sql.rows(CREATE, [
        { value: name, type: 'string' },
        { value: categoryId, type: 'bigint' },
        { value: status ?? null, type: 'string' },
      ]);
      if (row === undefined) throw new Error('INSERT ... RETURNING returned no row');
      return toPet(row);
    },
    async getPet({ petId }) {
      const [row] = await sql.rows(GET, [{ value: petId, type: 'bigint' }]);
      if (row === undefined) throw new AppError('pet_not_found', `no pet with id ${petId}`);
      return toPet(row);
    },
  };
}
