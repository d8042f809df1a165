import { createExpressMiddleware } from '@trpc/server/adapters/express';
import type { RequestHandler } from 'express';
import { toAppError } from '../errors.js';
import type { AccessGuard } from '../http/auth.js';
import { methodNotAllowed } from '../http/errors.js';
import { BODY_LIMIT_BYTES } from '../http/json-body.js';
import type { Logger } from '../logger.js';
import { GET_PET_DEPRECATION_HEADERS } from '../pets/get-pet-deprecation.js';
import type { AppRouter } from './router.js';

/**
 * Serves the tRPC router over HTTP (mounted at /v1/trpc), with the same keys and limits as REST. tRPC speaks
 * GET (queries) and POST (mutations); any other method is refused here, after the key check as on REST,
 * because tRPC itself answers some of them (TRACE) with a 500.
 */
export function trpcMiddleware(appRouter: AppRouter, guard: AccessGuard, logger: Logger): RequestHandler {
  const handler = trpcHandler(appRouter, guard, logger);
  const refuseMethod = methodNotAllowed(['GET', 'POST']);
  return async (req, res, next) => {
    if (req.method === 'GET' || req.method === 'POST') return handler(req, res, next);
    await guard(req.headers.authorization);
    return refuseMethod(req, res, next);
  };
}

function trpcHandler(appRouter: AppRouter, guard: AccessGuard, logger: Logger): RequestHandler {
  return createExpressMiddleware({
    router: appRouter,
    maxBodySize: BODY_LIMIT_BYTES,
    createContext: ({ req }) => ({
      authorization: req.headers.authorization,
      guard,
      onInternalError: (error: unknown, path: string | undefined) =>
        logger.error({ err: error, procedure: path }, 'unhandled error'),
    }),
    responseMeta({ info, errors }) {
      const headers: Record<string, string> = {};
      if (info?.calls.some((call) => call.path === 'pets.get'))
        Object.assign(headers, GET_PET_DEPRECATION_HEADERS);
      // The extra headers of our errors (WWW-Authenticate, Retry-After), as REST sends them.
      for (const error of errors) {
        const known = toAppError(error.cause);
        if (known !== undefined) Object.assign(headers, known.headers);
      }
      return { headers };
    },
  });
}
