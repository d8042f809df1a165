import { appliedMigrationNames } from '@petstore/migrations';
import {
  contract as defaultContract,
  IDEMPOTENCY_KEY_HEADER,
  type OpenApiServer,
  type OperationContract,
  READ_AFTER_HEADER,
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
import { type AccessGuard, createAccessGuard, createKeyVerifier } from './http/auth.js';
import { createDocsRouter, OPENAPI_PATH } from './http/docs.js';
import { createRouter, edge, pathOf } from './http/edge.js';
import { corsPreflights, errorHandler, routeNotFound } from './http/errors.js';
import { createHealth, type Health } from './http/health.js';
import { answerRules, labelOtherRoutes, requestContext } from './http/request-context.js';
import { operationHeadersOf, restHandler } from './http/rest.js';
import { compressJsonWith } from './http/send.js';
import { createIssuedKeyLookup, ISSUED_KEY_PREFIX } from './keys/api-keys.service.js';
import { createRateLimitStore } from './limits/rate-limit.store.js';
import { createFailureLimiter, createRateLimiter } from './limits/rate-limiter.js';
import { createAccessLog, type Logger } from './logger.js';
import { mcpRouter } from './mcp/mcp.js';
import type { Metrics } from './observability/metrics.js';
import type { RequestTracer } from './observability/request-tracer.js';
import type { Caller, OperationHandler, OperationHandlers } from './operations.js';
import { PET_BODY_WRITERS, PET_SUPERJSON_WRITERS } from './pets/pets.json.js';
import { createPetsService } from './pets/pets.service.js';
import { createAppRouter } from './trpc/router.js';
import { TRPC_MOUNT_PATH, trpcMiddleware } from './trpc/trpc.express.js';

export interface AppDeps {
  /** Every query the server makes; never the Prisma client, whose first query loads ~24 MB of WASM (issue 28). */
  sql: Sql;
  /** Reads on streaming replicas with read-your-writes (DATABASE_READ_URL); every read on `sql` when absent. */
  replicas?: Pick<ReadReplicas, 'reads' | 'afterWrite' | 'withRequest'> | undefined;
  logger: Logger;
  /** Keys accepted besides those issued with `pnpm keys` (API_KEYS, or the development key). */
  apiKeys: readonly string[];
  /** Migrations that /readyz requires to be applied. */
  migrations: readonly string[];
  /** /healthz and /readyz, when the caller drives readiness (main: draining); made here otherwise. */
  health?: Health | undefined;
  corsOrigins?: readonly string[] | undefined;
  /** Per key and minute, shared across instances (and failed authentications per address); unlimited if absent. */
  rateLimitPerMinute?: number | undefined;
  /** Deprecated operations (getPet) as MCP tools too. */
  mcpDeprecatedTools?: boolean | undefined;
  idempotencyKeyTtlSeconds?: number | undefined;
  /** The OpenAPI `servers`; the serving host when absent. */
  servers?: readonly OpenApiServer[] | undefined;
  /** The environment's public base URL (…/v1) for `Link: rel="next"`; else built from the request's Host. */
  publicBaseUrl?: string | undefined;
  /** tRPC's plain JSON calls served without its fetch adapter (default true; the tests compare both). */
  trpcFastPath?: boolean | undefined;
  /** The change feed streamPetEvents follows; else one made on the first subscription, woken by polling alone. */
  petFeed?: Pick<PetFeed, 'follow' | 'wake'> | undefined;
  eventsKeepAliveMs?: number | undefined;
  metrics?: Pick<Metrics, 'observe'> | undefined;
  tracer?: RequestTracer | undefined;
  /** Operations to serve besides the interface's, with their handlers (test/add-operation.test.ts). */
  contract?:
    | {
        operations: Readonly<Record<string, OperationContract>>;
        handlers: Readonly<Record<string, OperationHandler>>;
      }
    | undefined;
}

// CORS, as docs/operations.md says: the headers browser code may read, and may send (operations.test.ts holds
// both to the served document: every header it declares a request or an answer carries, for code to use).
const EXPOSED_HEADERS = [
  'Location',
  'Accept-Encoding', // on 415: the codings a request body may use
  'X-Request-Id',
  'Deprecation',
  'Sunset',
  'Link',
  'Retry-After',
  'RateLimit',
  'RateLimit-Policy',
  'WWW-Authenticate',
  STABILITY_HEADER,
  'traceresponse',
  READ_AFTER_HEADER,
];
const ALLOWED_HEADERS = [
  'Authorization',
  'Content-Type',
  'X-Request-Id',
  IDEMPOTENCY_KEY_HEADER,
  READ_AFTER_HEADER,
  'If-Match',
  'If-None-Match',
  'traceparent',
  'tracestate',
  'Mcp-Protocol-Version',
  // MCP's 2026-07-28 client names the method and the tool of each message in headers.
  'Mcp-Method',
  'Mcp-Name',
  'trpc-accept', // tRPC's streaming link (httpBatchStreamLink)
  'Last-Event-ID',
];

/** The caller of a CORS preflight, which no operation sees (none is an OPTIONS). */
const PREFLIGHT_CALLER: Caller = { subject: 'cors-preflight' };

/**
 * CORS when origins are configured: the fields of every answer, and a preflight's, set where its route answers it
 * (answerOtherMethod) with the path's methods. The package takes any OPTIONS for a preflight: the empty lists keep
 * a preflight's fields off every other answer.
 */
function corsOf(origins: readonly string[] | undefined) {
  if (origins === undefined || origins.length === 0) return undefined;
  const answer: cors.CorsOptions = {
    origin: origins.includes('*') ? '*' : [...origins],
    exposedHeaders: EXPOSED_HEADERS,
    methods: [],
    allowedHeaders: [],
    preflightContinue: true,
  };
  const preflight = (allow: string) =>
    cors({ ...answer, methods: allow, allowedHeaders: ALLOWED_HEADERS, maxAge: 600 });
  return {
    answer: cors(answer),
    preflight: ((req, res, next) => {
      if (req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined)
        corsPreflights.set(res, (allow) => preflight(allow)(req, res, () => {}));
      next();
    }) satisfies express.RequestHandler,
  };
}

/** The domain layer every transport calls: the pets service, and the change feed's stream. */
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
  answerRules(app.response);
  const service = createOperationHandlers(deps);
  const handlers: OperationHandlers = { ...service, ...deps.contract?.handlers };
  const contract = deps.contract?.operations;
  const verifyKey = createKeyVerifier(deps.apiKeys, {
    prefix: ISSUED_KEY_PREFIX,
    find: createIssuedKeyLookup(deps.sql),
  });
  const limit = deps.rateLimitPerMinute;
  const admit = createAccessGuard(
    verifyKey,
    limit === undefined
      ? {}
      : {
          rateLimit: createRateLimiter(createRateLimitStore(deps.sql), {
            limit,
            onSweepError: (error) => logger.warn({ err: error }, 'could not sweep old rate-limit windows'),
          }),
          failures: createFailureLimiter({ limit }),
        },
  );
  const crossOrigin = corsOf(deps.corsOrigins);
  // A CORS preflight carries no credentials (Fetch): admitted without a key or a charge. Its route answers it as the
  // OPTIONS it is (no operation is an OPTIONS): answerOtherMethod, or the 403 or 404 any method gets there. Without
  // CORS there is no preflight to tell apart, and nothing is looked up per request.
  const guard: AccessGuard =
    crossOrigin === undefined
      ? admit
      : (authorization, request) =>
          request?.response !== undefined && corsPreflights.has(request.response)
            ? Promise.resolve(PREFLIGHT_CALLER)
            : admit(authorization, request);
  const logInternalError = (error: unknown, where: Record<string, unknown>) =>
    logger.error({ err: error, ...where }, 'unhandled error');
  const onInternalError = (error: unknown, req: { method?: string | undefined; url?: string | undefined }) =>
    logInternalError(error, { method: req.method, path: pathOf(req.url ?? '') });

  app.use(requestContext({ accessLog: createAccessLog(logger), metrics: deps.metrics, tracer: deps.tracer }));
  // CORS, as docs/operations.md says: the fields of every answer before the edge, so that its refusals carry them
  // too; a preflight is told apart once the edge has read the message (a refused one gets the refusal).
  if (crossOrigin !== undefined) app.use(crossOrigin.answer);
  app.use(edge(operationHeadersOf(contract, deps.publicBaseUrl)));
  // A router of its own after the edge: Express's app router keeps the scheme and host of an absolute-form target
  // it started with; this one starts from the origin-form the edge made of it.
  const routes = createRouter();
  app.use(routes);
  if (crossOrigin !== undefined) routes.use(crossOrigin.preflight);
  const replicas = deps.replicas;
  if (replicas !== undefined) routes.use((req, res, next) => replicas.withRequest(req, res, next));
  // Only the answers that can be large are compressed, once admitted (docs/operations.md, "Compression": the
  // middleware costs ~10 µs even when it codes nothing).
  const compress = compression();
  const compressAnswer = (req: express.Request, res: express.Response) => compress(req, res, () => {});
  const compressJson = compressJsonWith(compress);
  // The change feed's keep-alive, one value for both transports' streams.
  const keepAliveMs = deps.eventsKeepAliveMs ?? EVENTS_DEFAULTS.keepAliveMs;
  routes.use(['/docs', OPENAPI_PATH], compress);
  routes.use(
    restHandler({
      handlers,
      contract,
      guard,
      bodyWriters: PET_BODY_WRITERS,
      onInternalError,
      publicBaseUrl: deps.publicBaseUrl,
      compressAnswer: compressJson,
      eventStream: { keepAliveMs, retryMs: 1_000 },
    }),
  );
  routes.use(
    TRPC_MOUNT_PATH,
    trpcMiddleware(createAppRouter(handlers, { keepAliveMs, contract }), {
      fastPath: deps.trpcFastPath ?? true,
      publicBaseUrl: deps.publicBaseUrl,
      // Each procedure whose contract body has a hot writer gets it.
      outputWriters: new Map(
        Object.values(contract ?? defaultContract).flatMap((op) => {
          const write = op.success.body && PET_SUPERJSON_WRITERS[op.success.body.id];
          return write === undefined ? [] : [[trpcPath(op), write] as const];
        }),
      ),
      guard,
      onInternalError: (error, procedure) => logInternalError(error, { procedure }),
      compressAnswer,
      compressJson,
    }),
  );
  routes.use(
    mcpRouter({
      handlers,
      contract,
      guard,
      onInternalError,
      onToolError: (error, tool) => logInternalError(error, { tool }),
      deprecatedTools: deps.mcpDeprecatedTools,
      // The browser origins CORS serves, and the public URLs' own (docs/interface-decisions.md, "MCP": Origin).
      allowedOrigins: [
        ...(deps.corsOrigins ?? []),
        ...[...(deps.servers ?? []).map(({ url }) => url), deps.publicBaseUrl]
          .filter((url) => url !== undefined)
          .map((url) => new URL(url).origin),
      ],
    }),
  );
  if (deps.metrics !== undefined || deps.tracer !== undefined) routes.use(labelOtherRoutes);
  routes.use(
    (deps.health ?? createHealth({ ...deps, appliedMigrations: () => appliedMigrationNames(deps.sql) }))
      .router,
  );
  // The page gets helmet's headers for HTML, but is framed by nobody, as no answer of the api is: X-Frame-Options
  // stays DENY, and the CSP stays the api's (the page sets its own, with frame-ancestors 'none' too: docs.ts).
  routes.use('/docs', helmet({ contentSecurityPolicy: false, frameguard: { action: 'deny' } }));
  routes.use(createDocsRouter({ servers: deps.servers, publicBaseUrl: deps.publicBaseUrl, contract }));
  routes.use(routeNotFound(guard));
  routes.use(errorHandler(onInternalError));
  return app;
}
