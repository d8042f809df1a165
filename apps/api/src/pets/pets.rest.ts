import { describeIssues, ListPetsSearchParamsSchema, NewPetSchema, PetIdPathSchema } from '@petstore/schema';
import { type RequestHandler, Router } from 'express';
import { z } from 'zod';
import { AppError } from '../errors.js';
import { methodNotAllowed } from '../http/errors.js';
import { jsonBody } from '../http/json-body.js';
import { sendJsonText } from '../http/send.js';
import { GET_PET_DEPRECATION_HEADERS } from './get-pet-deprecation.js';
import { petJson, petsJson } from './pets.json.js';
import type { PetsService } from './pets.service.js';

function parseOr400<T extends z.ZodType>(schema: T, value: unknown, subject: string): z.output<T> {
  const result = schema.safeParse(value);
  if (!result.success) throw new AppError('validation_failed', describeIssues(result.error, subject));
  return result.data;
}

const GetPetParamsSchema = z.object({ petId: PetIdPathSchema });

const markDeprecated: RequestHandler = (_req, res, next) => {
  res.set(GET_PET_DEPRECATION_HEADERS);
  next();
};

/**
 * The spec-exact REST routes, mounted under /v1 behind `authenticate`. Deprecation headers go on before
 * authentication so that every response of getPet carries them, its 401s included.
 */
export function petsRestRouter(pets: PetsService, authenticate: RequestHandler): Router {
  const router = Router();

  router.use('/pets/:petId', markDeprecated);
  router.use(authenticate);

  router
    .route('/pets')
    .get(async (req, res) => {
      const query = parseOr400(ListPetsSearchParamsSchema, req.query, 'query parameter');
      sendJsonText(res, 200, petsJson(await pets.list(query)));
    })
    .post(...jsonBody(), async (req, res) => {
      const newPet = parseOr400(NewPetSchema, req.body, 'field');
      const pet = await pets.create(newPet);
      res.location(`${req.baseUrl}/pets/${pet.id}`);
      sendJsonText(res, 201, petJson(pet));
    })
    .all(methodNotAllowed(['GET', 'HEAD', 'POST']));

  router
    .route('/pets/:petId')
    .get(async (req, res) => {
      const { petId } = parseOr400(GetPetParamsSchema, req.params, 'path parameter');
      sendJsonText(res, 200, petJson(await pets.get(petId)));
    })
    .all(methodNotAllowed(['GET', 'HEAD']));

  return router;
}
