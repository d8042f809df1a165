import {
  ListPetsQuerySchema,
  NewPetSchema,
  PetSchema,
  PetsSchema,
  PositiveInt64Schema,
} from '@petstore/schema';
import type { TRPCRouterRecord } from '@trpc/server';
import { z } from 'zod';
import { procedure } from '../trpc/trpc.js';
import { GET_PET_DEPRECATION } from './get-pet-deprecation.js';
import type { PetsService } from './pets.service.js';

/**
 * The pets procedures: the same service and the same schemas as the REST routes, so the two transports
 * cannot drift. Inputs take int64 values as `number` or `bigint`; outputs carry them as `bigint`.
 */
export function petsTrpcRouter(pets: PetsService) {
  return {
    /** listPets: pets ordered by id ascending; `limit` 1..100 (default 20), optional `status` filter. */
    list: procedure
      .input(ListPetsQuerySchema.prefault({}))
      .output(PetsSchema)
      .query(({ input }) => pets.list(input)),

    /** createPet: stores a NewPet and returns the Pet with the id the database assigned. */
    create: procedure
      .input(NewPetSchema)
      .output(PetSchema)
      .mutation(({ input }) => pets.create(input)),

    /**
     * getPet: one pet by id.
     * @deprecated Removed on 5 December 2030, like REST `GET /v1/pets/{petId}`. Use `pets.list` with `status`.
     */
    get: procedure
      .meta({ deprecated: { sunset: GET_PET_DEPRECATION.sunset, replacement: 'pets.list' } })
      .input(z.strictObject({ petId: PositiveInt64Schema }))
      .output(PetSchema)
      .query(({ input }) => pets.get(input.petId)),
  } satisfies TRPCRouterRecord;
}
