import { createExpressMiddleware } from '@trpc/server/adapters/express';
import type { RequestHandler } from 'express';
import { UnauthorizedError } from '../http/auth.js';
import { BODY_LIMIT_BYTES } from '../http/json-body.js';
import type { Logger } from '../logger.js';
import { GET_PET_DEPRECATION_HEADERS } from '../pets/get-pet-deprecation.js';
import type { AppRouter } from './router.js';

/** Serves the tRPC router over HTTP (mounted at /v1/trpc), with the same keys and limits as REST. */
export function trpcMiddleware(
  appRouter: AppRouter,
  isKnownKey: (key: string) => boolean,
  logger: Logger,
): RequestHandler {
  return createExpressMiddleware({
    router: appRouter,
    maxBodySize: BODY_LIMIT_BYTES,
    createContext: ({ req }) => ({
      authorization: req.headers.authorization,
      isKnownKey,
      onInternalError: (error: unknown, path: string | undefined) =>
        logger.error({ err: error, procedure: path }, 'unhandled error'),
    }),
    responseMeta({ info, errors }) {
      const headers: Record<string, string> = {};
      if (info?.calls.some((call) => call.path === 'pets.get'))
        Object.assign(headers, GET_PET_DEPRECATION_HEADERS);
      const unauthorized = errors.find((error) => error.cause instanceof UnauthorizedError)?.cause;
      if (unauthorized instanceof UnauthorizedError) headers['WWW-Authenticate'] = unauthorized.challenge;
      return { headers };
    },
  });
}
