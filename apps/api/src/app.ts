import type { OpenApiServer } from '@petstore/schema';
import cors from 'cors';
import express from 'express';
import helmet from 'helmet';
import type { PrismaClient } from './generated/prisma/client.js';
import { createAccessGuard, createKeyVerifier, requireAccess } from './http/auth.js';
import { createDocsRouter } from './http/docs.js';
import { errorHandler, routeNotFound } from './http/errors.js';
import { createHealth, type Health } from './http/health.js';
import { createRateLimiter } from './http/rate-limit.js';
import { requestContext } from './http/request-context.js';
import { createApiKeysService, ISSUED_KEY_PREFIX } from './keys/api-keys.service.js';
import type { Logger } from './logger.js';
import { petsRestRouter } from './pets/pets.rest.js';
import { createPetsService } from './pets/pets.service.js';
import { createAppRouter } from './trpc/router.js';
import { trpcMiddleware } from './trpc/trpc.express.js';

export interface AppDeps {
  prisma: PrismaClient;
  logger: Logger;
  /** Keys accepted besides those issued with `pnpm keys` (API_KEYS, or the development key). */
  apiKeys: readonly string[];
  /** Migrations that /readyz requires to be applied. */
  migrations: readonly string[];
  /** /healthz and /readyz, when the caller needs to drive readiness (main: draining); made here otherwise. */
  health?: Health | undefined;
  /** Browser origins allowed by CORS; none when absent. */
  corsOrigins?: readonly string[] | undefined;
  /** Requests per minute per key, shared across instances; unlimited when absent. */
  rateLimitPerMinute?: number | undefined;
  /** The OpenAPI `servers` (public URLs of the environments); the serving host when absent. */
  servers?: readonly OpenApiServer[] | undefined;
}

/** Headers a browser client may read from our responses (CORS). */
const EXPOSED_HEADERS = [
  'Location',
  'X-Request-Id',
  'Deprecation',
  'Sunset',
  'Link',
  'Retry-After',
  'WWW-Authenticate',
];

/** Builds the Express app from its dependencies. It never listens: main (or a test) does. */
export function createApp(deps: AppDeps): express.Express {
  const { prisma, logger } = deps;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // `?limit=1&limit=2` must stay two values (an error), not be merged or nested.
  app.set('query parser', 'simple');

  const pets = createPetsService(prisma);
  const verifyKey = createKeyVerifier(deps.apiKeys, {
    prefix: ISSUED_KEY_PREFIX,
    find: createApiKeysService(prisma).findActive,
  });
  const rateLimit =
    deps.rateLimitPerMinute === undefined
      ? undefined
      : createRateLimiter(prisma, { limit: deps.rateLimitPerMinute });
  const guard = createAccessGuard(verifyKey, rateLimit);

  app.use(requestContext(logger));
  app.use(helmet());
  if (deps.corsOrigins !== undefined && deps.corsOrigins.length > 0) {
    // Before authentication: a browser's preflight carries no credentials.
    app.use(
      cors({
        origin: deps.corsOrigins.includes('*') ? '*' : [...deps.corsOrigins],
        allowedHeaders: ['Authorization', 'Content-Type', 'X-Request-Id'],
        exposedHeaders: EXPOSED_HEADERS,
        maxAge: 600,
      }),
    );
  }
  app.use((deps.health ?? createHealth(deps)).router);
  // Public documentation (OpenAPI document, /docs page): no API key.
  app.use(createDocsRouter({ servers: deps.servers }));
  // Both transports call the same service and admit callers through the same guard, first.
  app.use('/v1/trpc', trpcMiddleware(createAppRouter({ pets }), guard, logger));
  app.use('/v1', petsRestRouter(pets, requireAccess(guard)));
  app.use(routeNotFound);
  app.use(errorHandler(logger));
  return app;
}
