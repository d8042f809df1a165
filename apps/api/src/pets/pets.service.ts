import type { OperationParsedInput, Pet } from '@petstore/schema';
import { int8, type Sql } from '../db/sql.js';
import { AppError } from '../errors.js';

const COLUMNS = 'id, name, category_id, status::text';
// The statements the pet operations run: fixed texts, so each is prepared once per connection. The filtered list
// is exactly the shape pets_status_id_idx serves (an index range scan, no sort); the unfiltered one walks the
// primary key.
const LIST_ALL = `SELECT ${COLUMNS} FROM pets ORDER BY id LIMIT $1`;
const LIST_BY_STATUS = `SELECT ${COLUMNS} FROM pets WHERE status = $1::pet_status ORDER BY id LIMIT $2`;
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
  return {
    async listPets({ limit, status }) {
      const rows =
        status === undefined
          ? await sql.rows(LIST_ALL, [{ value: limit, type: 'int' }])
          : await sql.rows(LIST_BY_STATUS, [
              { value: status, type: 'string' },
              { value: limit, type: 'int' },
            ]);
      return rows.map(toPet);
    },
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
