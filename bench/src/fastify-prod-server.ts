// The "fastify-prod" reference: the Fastify reference (the same routes, schemas and rules: `addPetstoreRoutes` from
// fastify-server.ts) with what the api also does on every request in production, done the stock Fastify way, so
// that the api is compared with a Fastify service carrying the same duties:
//   - a request log: Fastify's own pino logger at `info`, one line per request (Fastify's log controller, its
//     "incoming request" line dropped and its "request completed" line given the method, path and status), on
//     sonic-boom on stdout, asynchronous, 8 KiB blocks: the api's destination (apps/api/src/logger.ts); the
//     bench sends both stdouts to /dev/null;
//   - `@fastify/rate-limit` per API key, fixed windows of a minute (the api's RATE_LIMIT_PER_MINUTE semantics),
//     charged once the key is known, requests without a valid key not charged (they get their 401);
//   - the api's five security headers and `X-Request-Id` on every answer;
//   - the same key check (SHA-256 digests compared in constant time against every key), once per request.
// It shares no code with the api.
import rateLimit from '@fastify/rate-limit';
import Fastify, {
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify';
import type pg from 'pg';
import { type DestinationStream, pino } from 'pino';
import { addPetstoreRoutes, FASTIFY_OPTIONS } from './fastify-server.js';
import { createKeyIdentifier, type KeyIdentity, RequestError } from './reference-rules.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The key the request carries (its index in the configured keys), or why none. */
    keyIdentity: KeyIdentity;
  }
}

/** The security headers the api sends on every answer (OWASP's REST cheat sheet). */
const SECURITY_HEADERS = {
  'Cache-Control': 'no-store',
  'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
  'Strict-Transport-Security': 'max-age=31536000; includeSubDomains',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
} as const;

const RATE_WINDOW_MS = 60_000;
/** The api's log destination: written asynchronously, in blocks of this many bytes. */
const LOG_BLOCK_BYTES = 8 * 1024;

/**
 * One line per request, as the api writes: Fastify logs "incoming request" and "request completed" by default; here
 * only the second, with what the api's line has (id, method, path without the query, status, time). Errors are
 * logged as Fastify logs them.
 */
class OneLinePerRequest extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, req: FastifyRequest, reply: FastifyReply): void {
    if (error) {
      super.requestCompleted(error, req, reply);
      return;
    }
    const url = req.url;
    const query = url.indexOf('?');
    reply.log.info(
      {
        method: req.method,
        path: query === -1 ? url : url.slice(0, query),
        status: reply.statusCode,
        ms: reply.elapsedTime,
      },
      'request',
    );
  }
}

export interface ProductionOptions {
  /** Requests each key may make per minute. */
  rateLimitPerMinute: number;
  /** Where the request log goes; by default sonic-boom on stdout (fd 1), as the api writes it. */
  logStream?: DestinationStream;
}

export async function createProductionFastifyServer(
  pool: pg.Pool,
  apiKeys: readonly string[],
  { rateLimitPerMinute, logStream }: ProductionOptions,
): Promise<FastifyInstance> {
  const identify = createKeyIdentifier(apiKeys);
  /** What the rate limit counts under: the key's position, never the key. */
  const subjects = apiKeys.map((_, index) => `key-${index}`);
  const app = Fastify({
    ...FASTIFY_OPTIONS,
    logger: {
      level: 'info',
      stream: logStream ?? pino.destination({ dest: 1, sync: false, minLength: LOG_BLOCK_BYTES }),
    },
    logController: new OneLinePerRequest({ requestIdLogLabel: 'requestId' }),
  });
  app.decorateRequest('keyIdentity', 'missing');

  // First on every request: the headers, then the key, checked once (the routes and tRPC read the result).
  app.addHook('onRequest', (req, reply, done) => {
    reply.headers(SECURITY_HEADERS);
    req.keyIdentity = identify(req.headers.authorization);
    done();
  });

  // Registered (and awaited) before the routes: it adds its hook to each route as the route is declared. The
  // hook runs after a REST route's own key check, so a 401 is never charged; tRPC checks the key in a procedure,
  // so requests without a valid key are let through here (allowList) and refused there.
  await app.register(rateLimit, {
    max: rateLimitPerMinute,
    timeWindow: RATE_WINDOW_MS,
    hook: 'onRequest',
    keyGenerator: (req) => (typeof req.keyIdentity === 'number' ? (subjects[req.keyIdentity] as string) : ''),
    allowList: (req) => typeof req.keyIdentity !== 'number',
    errorResponseBuilder: (_req, context) =>
      new RequestError(
        context.statusCode,
        'rate_limited',
        `rate limit of ${context.max} requests per ${RATE_WINDOW_MS / 1000} s exceeded`,
      ),
  });

  addPetstoreRoutes(app, pool, (req) => (typeof req.keyIdentity === 'number' ? 'ok' : req.keyIdentity));
  return app;
}
