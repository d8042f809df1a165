import type { PetsService } from '../pets/pets.service.js';
import { petsTrpcRouter } from '../pets/pets.trpc.js';
import { router } from './trpc.js';

/** The tRPC router, composed once from the per-resource records. */
export function createAppRouter(services: { pets: PetsService }) {
  return router({ pets: petsTrpcRouter(services.pets) });
}

export type AppRouter = ReturnType<typeof createAppRouter>;
