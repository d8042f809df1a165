import type { OperationParsedInput, Pet, PetsPage } from '@petstore/schema';
import { int8, type Sql } from '../db/sql.js';
import { AppError } from '../errors.js';
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
  /** Stores a new pet; the database assigns its id. */
  createPet(newPet: OperationParsedInput<'createPet'>): Promise<Pet>;
  /** One pet by id; AppError pet_not_found when there is none. */
  getPet(input: OperationParsedInput<'getPet'>): Promise<Pet>;
}

/**
 * The pet rules, shared by REST and tRPC. Inputs are already validated against @petstore/schema by the
 * transport that received them; this layer owns ordering, defaults applied at storage and not-found.
 */
export function createPetsService(sql: Sql): PetsService {
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
    async createPet({ name, categoryId, status }) {
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
