import { appliedMigrationNames } from '@petstore/migrations';
import {
  API_BASE_PATH,
  contract as defaultContract,
  IDEMPOTENCY_KEY_HEADER,
  type OpenApiServer,
  type OperationContract,
  READ_AFTER_HEADER,
  TRPC_ENDPOINT,
  trpcPath,
} from '@petstore/schema';
import { STABILITY_HEADER } from '@petstore/schema/internal';
import compression from 'compression';
import cors from 'cors';
import express from 'express';
import helmet from 'helmet';
import { EVENTS_DEFAULTS } from './config.js';
import type { ReadReplicas } from './db/read-replicas.js';
import type { Sql } from './db/sql.js';
import { silentWakeups } from './db/wakeups.js';
import { createPetFeed, type PetFeed } from './events/pet-feed.js';
import { createStreamPetEvents } from './events/stream-pet-events.js';
import { createAccessGuard, createKeyVerifier } from './http/auth.js';
import { createDocsRouter, OPENAPI_PATH } from './http/docs.js';
import { edge, SERVER_METHODS } from './http/edge.js';
import { errorHandler, routeNotFound } from './http/errors.js';
import { createHealth, type Health } from './http/health.js';
import { labelOtherRoutes, requestContext } from './http/request-context.js';
import { operationHeadersOf, restHandler } from './http/rest.js';
import { createIssuedKeyLookup, ISSUED_KEY_PREFIX } from './keys/api-keys.service.js';
import { createRateLimitStore } from './limits/rate-limit.store.js';
import { createFailureLimiter, createRateLimiter } from './limits/rate-limiter.js';
import { createAccessLog, type Logger } from './logger.js';
import { mcpRouter } from './mcp/mcp.js';
import type { Metrics } from './observability/metrics.js';
import type { RequestTracer } from './observability/request-tracer.js';
import type { OperationHandler, OperationHandlers } from './operations.js';
import { PET_BODY_WRITERS, PET_SUPERJSON_WRITERS } from './pets/pets.json.js';
import { createPetsService } from './pets/pets.service.js';
import { createAppRouter } from './trpc/router.js';
import { TRPC_MOUNT_PATH, trpcMiddleware } from './trpc/trpc.express.js';

export interface AppDeps {
  /**
   * The database: the hot statements (db/sql.ts). Everything the server asks, /readyz and the rate-limit sweep
   * included, goes this way and never through the Prisma client, whose first query would load its WebAssembly
   * query compiler (about 24 MB resident, issue 28).
   */
  sql: Sql;
  /** Reads on streaming replicas with read-your-writes (DATABASE_READ_URL); every read on `sql` when absent. */
  replicas?: Pick<ReadReplicas, 'reads' | 'afterWrite' | 'withRequest'> | undefined;
  logger: Logger;
  /** Keys accepted besides those issued with `pnpm keys` (API_KEYS, or the development key). */
  apiKeys: readonly string[];
  /** Migrations that /readyz requires to be applied. */
  migrations: readonly string[];
  /** /healthz and /readyz, when the caller needs to drive readiness (main: draining); made here otherwise. */
  health?: Health | undefined;
  /** Browser origins allowed by CORS; none when absent. */
  corsOrigins?: readonly string[] | undefined;
  /**
   * Requests per minute per key, shared across instances; unlimited when absent. When set, failed
   * authentications are limited to the same number per minute per client address.
   */
  rateLimitPerMinute?: number | undefined;
  /** Deprecated operations (getPet) as MCP tools too; hidden when absent. */
  mcpDeprecatedTools?: boolean | undefined;
  /** How long createPet's idempotency keys are remembered (seconds); 24 hours when absent. */
  idempotencyKeyTtlSeconds?: number | undefined;
  /** The OpenAPI `servers` (public URLs of the environments); the serving host when absent. */
  servers?: readonly OpenApiServer[] | undefined;
  /**
   * The public base URL (ending in /v1) of the running environment, the start of `Link: rel="next"` URLs;
   * when absent they are built from the request's Host.
   */
  publicBaseUrl?: string | undefined;
  /** tRPC's plain JSON calls served without its fetch adapter (default true; the tests compare both). */
  trpcFastPath?: boolean | undefined;
  /**
   * The change feed streamPetEvents follows (events/pet-feed.ts), with its wake-ups; when absent, one made on the
   * first subscription over `sql`, woken by polling alone, with the default settings.
   */
  petFeed?: Pick<PetFeed, 'follow' | 'wake'> | undefined;
  /** A keep-alive comment on an idle event stream this often (EVENTS_KEEPALIVE_MS; 15 s when absent). */
  eventsKeepAliveMs?: number | undefined;
  /** Request metrics (METRICS_PORT); none when absent. */
  metrics?: Pick<Metrics, 'observe'> | undefined;
  /** A server span per request (OpenTelemetry configured); none when absent. */
  tracer?: RequestTracer | undefined;
  /**
   * Another contract to serve, keyed by operationId, with the handlers of the operations it adds to the
   * interface's (the pets service serves the rest); the interface's contract when absent. The extra-operation
   * test (test/add-operation.test.ts) serves the real contract plus one operation through it.
   */
  contract?:
    | {
        operations: Readonly<Record<string, OperationContract>>;
        handlers: Readonly<Record<string, OperationHandler>>;
      }
    | undefined;
}

/** Headers a browser client may read from our responses (CORS). */
const EXPOSED_HEADERS = [
  'Location',
  'X-Request-Id',
  'Deprecation',
  'Sunset',
  'Link',
  'Retry-After',
  'RateLimit',
  'RateLimit-Policy',
  'WWW-Authenticate',
  // The operation's stability level (stable, beta, experimental), on every REST response.
  STABILITY_HEADER,
  // The W3C trace context of the answer, so a traced page can join its spans to ours.
  'traceresponse',
  // The database position after a write: our clients send it back for read-your-writes (db/read-replicas.ts).
  READ_AFTER_HEADER,
];

/** The tRPC fast path's output writers: each procedure whose contract body has a hot writer gets it. */
function trpcOutputWriters(operations: Readonly<Record<string, OperationContract>>) {
  const writers = new Map<string, (value: unknown) => string | undefined>();
  for (const op of Object.values(operations)) {
    const write = op.success.body === undefined ? undefined : PET_SUPERJSON_WRITERS[op.success.body.id];
    if (write !== undefined) writers.set(trpcPath(op), write);
  }
  return writers;
}

/** How long an EventSource waits before it reconnects to a stream that ended (its `retry:`). */
const EVENT_STREAM_RETRY_MS = 1_000;

/**
 * The domain layer every transport calls: one function per operation of the contract (the pets service, and the
 * change feed's stream). A feed is made on the first subscription when none is handed in.
 */
export function createOperationHandlers(
  deps: Pick<AppDeps, 'sql' | 'logger' | 'replicas' | 'idempotencyKeyTtlSeconds' | 'petFeed'>,
): OperationHandlers {
  const { logger } = deps;
  let feed = deps.petFeed;
  const pets = createPetsService(deps.sql, {
    idempotencyKeyTtlSeconds: deps.idempotencyKeyTtlSeconds,
    onSweepError: (error) => logger.warn({ err: error }, 'could not sweep expired idempotency keys'),
    replicas: deps.replicas,
  });
  return {
    ...pets,
    // The feed is told of each pet created here, so the event reaches followers without waiting for its poll.
    async createPet(newPet, context) {
      const pet = await pets.createPet(newPet, context);
      feed?.wake();
      return pet;
    },
    streamPetEvents: createStreamPetEvents({
      follow: (options) => {
        feed ??= createPetFeed(deps.sql, silentWakeups(), {
          ...EVENTS_DEFAULTS,
          onError: (error) => logger.warn({ err: error }, 'the change feed could not read the outbox'),
        });
        return feed.follow(options);
      },
    }),
  };
}

/** Builds the Express app from its dependencies. It never listens: main (or a test) does. */
export function createApp(deps: AppDeps): express.Express {
  const { logger } = deps;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // `?limit=1&limit=2` must stay two values (an error), not be merged or nested.
  app.set('query parser', 'simple');

  // One domain layer: the service functions serve the contract's operations, on both transports.
  const service = createOperationHandlers(deps);
  const handlers: OperationHandlers =
    deps.contract === undefined ? service : { ...service, ...deps.contract.handlers };
  const contract = deps.contract?.operations;
  const verifyKey = createKeyVerifier(deps.apiKeys, {
    prefix: ISSUED_KEY_PREFIX,
    find: createIssuedKeyLookup(deps.sql),
  });
  const limit = deps.rateLimitPerMinute;
  const guard = createAccessGuard(verifyKey, {
    rateLimit:
      limit === undefined
        ? undefined
        : createRateLimiter(createRateLimitStore(deps.sql), {
            limit,
            onSweepError: (error) => logger.warn({ err: error }, 'could not sweep old rate-limit windows'),
          }),
    failures: limit === undefined ? undefined : createFailureLimiter({ limit }),
  });
  const logInternalError = (error: unknown, where: Record<string, unknown>) =>
    logger.error({ err: error, ...where }, 'unhandled error');
  const onInternalError = (error: unknown, req: { method?: string | undefined; url?: string | undefined }) =>
    logInternalError(error, { method: req.method, path: req.url?.split('?')[0] });

  app.use(requestContext({ accessLog: createAccessLog(logger), metrics: deps.metrics, tracer: deps.tracer }));
  // Every request is read once by the edge (method, target, header fields) before any route sees it.
  app.use(edge(operationHeadersOf(contract)));
  // Everything after the edge is routed by a router of its own, which starts from the target as the edge left it
  // (Express's router keeps the scheme and host of an absolute-form target it started with: RFC 9112 section
  // 3.2.2's absolute-form is made origin-form by the edge, before any route reads it).
  const routes = express.Router();
  app.use(routes);
  // Each request's database position (its Petstore-Read-After), for the reads and writes it makes.
  const replicas = deps.replicas;
  if (replicas !== undefined) routes.use((req, res, next) => replicas.withRequest(req, res, next));
  // The answers that can be large may be compressed (the stock middleware): a page of pets, tRPC queries (a list,
  // or a batch) and the documentation, each once the request is admitted (REST and tRPC call compressAnswer after
  // the key check: a refused request is not wrapped). A single pet, a created pet and an Error body are not: they
  // are about 100-300 bytes, under the middleware's 1 KB threshold, and the middleware costs about 10 µs a request
  // even when it codes nothing (get-by-id 81 -> 92 µs of CPU, 12.5k -> 11.1k req/s in one A/B run of pnpm bench,
  // 2026-11-27); their answers carry no Vary. compression leaves HEAD uncoded; it is shown a HEAD as the GET it
  // stands for, so HEAD reports GET's coding and length (RFC 9110 section 9.3.2). It sets itself up at once.
  const compress = compression();
  const compressAnswer = (req: express.Request, res: express.Response) =>
    compress(req.method === 'HEAD' ? Object.create(req, { method: { value: 'GET' } }) : req, res, () => {});
  routes.use(['/docs', OPENAPI_PATH], (req, res, next) => {
    compressAnswer(req, res);
    next();
  });
  if (deps.corsOrigins !== undefined && deps.corsOrigins.length > 0) {
    const options: cors.CorsOptions = {
      origin: deps.corsOrigins.includes('*') ? '*' : [...deps.corsOrigins],
      // The methods the server serves, not the package's default list (which names PUT, PATCH and DELETE).
      methods: SERVER_METHODS,
      // traceparent/tracestate: a page instrumented with OpenTelemetry sends its W3C trace context along.
      allowedHeaders: [
        'Authorization',
        'Content-Type',
        'X-Request-Id',
        IDEMPOTENCY_KEY_HEADER,
        READ_AFTER_HEADER,
        'If-Match',
        'If-None-Match',
        'traceparent',
        'tracestate',
        // A browser MCP client (/v1/mcp) sends the revision it negotiated, and may resume a stream.
        'Mcp-Protocol-Version',
        'Last-Event-ID',
      ],
      exposedHeaders: EXPOSED_HEADERS,
      maxAge: 600,
    };
    // A browser's preflight (OPTIONS with Access-Control-Request-Method) carries no credentials: answered here,
    // before authentication. Any other OPTIONS is the route's (204 with Allow, or 404), as without CORS.
    const preflight = cors(options);
    const actual = cors({ ...options, preflightContinue: true });
    routes.use((req, res, next) =>
      req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined
        ? preflight(req, res, next)
        : actual(req, res, next),
    );
  }
  // The hot path first: every REST operation of the contract, matched from one table.
  routes.use(
    restHandler({
      handlers,
      contract,
      guard,
      bodyWriters: PET_BODY_WRITERS,
      onInternalError,
      publicBaseUrl: deps.publicBaseUrl,
      compressAnswer,
      eventStream: {
        keepAliveMs: deps.eventsKeepAliveMs ?? EVENTS_DEFAULTS.keepAliveMs,
        retryMs: EVENT_STREAM_RETRY_MS,
      },
    }),
  );
  routes.use(
    TRPC_MOUNT_PATH,
    trpcMiddleware(createAppRouter(handlers, contract), {
      fastPath: deps.trpcFastPath ?? true,
      outputWriters: trpcOutputWriters(contract ?? defaultContract),
      guard,
      onInternalError: (error, procedure) => logInternalError(error, { procedure }),
      compressAnswer,
    }),
  );
  // The third transport: the same operations as MCP tools for agents (mcp/mcp.ts).
  routes.use(
    mcpRouter({
      handlers,
      contract,
      guard,
      onInternalError,
      onToolError: (error, tool) => logInternalError(error, { tool }),
      deprecatedTools: deps.mcpDeprecatedTools,
      publicBaseUrl: deps.publicBaseUrl,
    }),
  );
  if (deps.metrics !== undefined || deps.tracer !== undefined) routes.use(labelOtherRoutes);
  routes.use(
    (deps.health ?? createHealth({ ...deps, appliedMigrations: () => appliedMigrationNames(deps.sql) }))
      .router,
  );
  // Public documentation (OpenAPI document, /docs page): no API key; the page keeps helmet's HTML policy.
  routes.use('/docs', helmet());
  routes.use(createDocsRouter({ servers: deps.servers, publicBaseUrl: deps.publicBaseUrl, contract }));
  routes.use(routeNotFound(guard));
  routes.use(errorHandler(onInternalError));
  return app;
}
