import type { ListPetsQuery, NewPet, Pet } from '@petstore/schema';
import { AppError } from '../errors.js';
import type { PrismaClient } from '../generated/prisma/client.js';

/** The columns a Pet is made of; selected explicitly so the hot reads fetch nothing else. */
const PET_COLUMNS = { id: true, name: true, categoryId: true, status: true } as const;

type PetRow = { id: bigint; name: string; categoryId: bigint; status: Pet['status'] | null };

/** A row becomes a Pet; a NULL status is left out, never sent as `"status": null`. */
function toPet(row: PetRow): Pet {
  const pet: Pet = { id: row.id, name: row.name, categoryId: row.categoryId };
  if (row.status !== null) pet.status = row.status;
  return pet;
}

/**
 * The pet rules, shared by REST and tRPC. Inputs are already validated against @petstore/schema by the
 * transport that received them; this layer owns ordering, defaults applied at storage and not-found.
 */
export function createPetsService(prisma: PrismaClient) {
  return {
    /** Pets ordered by id ascending (oldest first), at most `limit`, optionally of one status. */
    async list(query: ListPetsQuery): Promise<Pet[]> {
      const rows = await prisma.pet.findMany({
        select: PET_COLUMNS,
        where: query.status === undefined ? {} : { status: query.status },
        orderBy: { id: 'asc' },
        take: query.limit,
      });
      return rows.map(toPet);
    },

    /** Stores a new pet; the database assigns its id. */
    async create(newPet: NewPet): Promise<Pet> {
      const row = await prisma.pet.create({
        select: PET_COLUMNS,
        data: { name: newPet.name, categoryId: newPet.categoryId, status: newPet.status ?? null },
      });
      return toPet(row);
    },

    /** One pet by id; AppError pet_not_found when there is none. */
    async get(id: bigint): Promise<Pet> {
      const row = await prisma.pet.findUnique({ select: PET_COLUMNS, where: { id } });
      if (row === null) throw new AppError('pet_not_found', `no pet with id ${id}`);
      return toPet(row);
    },
  };
}

export type PetsService = ReturnType<typeof createPetsService>;
