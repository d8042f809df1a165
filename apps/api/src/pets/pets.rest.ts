import { describeIssues, ListPetsSearchParamsSchema, NewPetSchema, PetIdPathSchema } from '@petstore/schema';
import { type RequestHandler, Router } from 'express';
import { z } from 'zod';
import { AppError } from '../errors.js';
import { methodNotAllowed } from '../http/errors.js';
import { jsonBody } from '../http/json-body.js';
import { sendJson } from '../http/send.js';
import type { PetsService } from './pets.service.js';

/** getPet is deprecated (RFC 9745) and removed on 5 December 2030 (RFC 8594); listPets replaces it. */
export const GET_PET_DEPRECATION = {
  // @<unix seconds>: 2026-11-21, when this implementation first shipped getPet, already deprecated.
  deprecation: '@1795219200',
  sunset: 'Thu, 05 Dec 2030 00:00:00 GMT',
  link: '</v1/pets>; rel="successor-version"',
};

function parseOr400<T extends z.ZodType>(schema: T, value: unknown, subject: string): z.output<T> {
  const result = schema.safeParse(value);
  if (!result.success) throw new AppError('validation_failed', describeIssues(result.error, subject));
  return result.data;
}

const GetPetParamsSchema = z.object({ petId: PetIdPathSchema });

const markDeprecated: RequestHandler = (_req, res, next) => {
  res.set({
    Deprecation: GET_PET_DEPRECATION.deprecation,
    Sunset: GET_PET_DEPRECATION.sunset,
    Link: GET_PET_DEPRECATION.link,
  });
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
      sendJson(res, 200, await pets.list(query));
    })
    .post(...jsonBody(), async (req, res) => {
      const newPet = parseOr400(NewPetSchema, req.body, 'field');
      const pet = await pets.create(newPet);
      res.location(`${req.baseUrl}/pets/${pet.id}`);
      sendJson(res, 201, pet);
    })
    .all(methodNotAllowed(['GET', 'HEAD', 'POST']));

  router
    .route('/pets/:petId')
    .get(async (req, res) => {
      const { petId } = parseOr400(GetPetParamsSchema, req.params, 'path parameter');
      sendJson(res, 200, await pets.get(petId));
    })
    .all(methodNotAllowed(['GET', 'HEAD']));

  return router;
}
