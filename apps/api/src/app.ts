import express from 'express';
import type { PrismaClient } from './generated/prisma/client.js';
import { createKeyChecker, requireApiKey } from './http/auth.js';
import { errorHandler, routeNotFound } from './http/errors.js';
import { requestContext } from './http/request-context.js';
import type { Logger } from './logger.js';
import { petsRestRouter } from './pets/pets.rest.js';
import { createPetsService } from './pets/pets.service.js';
import { createAppRouter } from './trpc/router.js';
import { trpcMiddleware } from './trpc/trpc.express.js';

export interface AppDeps {
  prisma: PrismaClient;
  /** The API keys accepted in `Authorization: Bearer <key>`. */
  apiKeys: readonly string[];
  logger: Logger;
}

/** Builds the Express app from its dependencies. It never listens: main (or a test) does. */
export function createApp({ prisma, apiKeys, logger }: AppDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // `?limit=1&limit=2` must stay two values (an error), not be merged or nested.
  app.set('query parser', 'simple');

  const pets = createPetsService(prisma);
  const isKnownKey = createKeyChecker(apiKeys);

  app.use(requestContext(logger));
  // Both transports call the same service; each checks the API key first.
  app.use('/v1/trpc', trpcMiddleware(createAppRouter({ pets }), isKnownKey, logger));
  app.use('/v1', petsRestRouter(pets, requireApiKey(isKnownKey)));
  app.use(routeNotFound);
  app.use(errorHandler(logger));
  return app;
}
