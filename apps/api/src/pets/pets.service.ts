import type { OperationParsedInput, Pet } from '@petstore/schema';
import { AppError } from '../errors.js';
import { Prisma, type PrismaClient } from '../generated/prisma/client.js';

/** The columns a Pet is made of, for the query builder (create) and for the SQL reads. */
const PET_COLUMNS = { id: true, name: true, categoryId: true, status: true } as const;
const SELECT_PETS = Prisma.sql`SELECT id, name, category_id AS "categoryId", status::text AS status FROM pets`;

type PetRow = { id: bigint; name: string; categoryId: bigint; status: Pet['status'] | null };

/** A row becomes a Pet; a NULL status is left out, never sent as `"status": null`. */
function toPet(row: PetRow): Pet {
  const pet: Pet = { id: row.id, name: row.name, categoryId: row.categoryId };
  if (row.status !== null) pet.status = row.status;
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
export function createPetsService(prisma: PrismaClient): PetsService {
  return {
    async listPets(query) {
      // The hottest read, as plain SQL through Prisma: it skips the query compiler (the largest cost per request
      // in the profile, see bench/PROFILE.md) and is exactly the shape pets_status_id_idx serves.
      const rows =
        query.status === undefined
          ? await prisma.$queryRaw<PetRow[]>`${SELECT_PETS} ORDER BY id LIMIT ${query.limit}`
          : await prisma.$queryRaw<PetRow[]>`
              ${SELECT_PETS} WHERE status = ${query.status}::pet_status ORDER BY id LIMIT ${query.limit}`;
      return rows.map(toPet);
    },
    async createPet(newPet) {
      const row = await prisma.pet.create({
        select: PET_COLUMNS,
        data: { name: newPet.name, categoryId: newPet.categoryId, status: newPet.status ?? null },
      });
      return toPet(row);
    },
    async getPet({ petId }) {
      const [row] = await prisma.$queryRaw<PetRow[]>`${SELECT_PETS} WHERE id = ${petId}`;
      if (row === undefined) throw new AppError('pet_not_found', `no pet with id ${petId}`);
      return toPet(row);
    },
  };
}
