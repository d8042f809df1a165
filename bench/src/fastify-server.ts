// The "fastify" reference: what a performance-minded team would write without our code. Fastify 5 over `pg`
// with prepared statements; its JSON schemas validate (Ajv) and serialize (fast-json-stringify); auth is an
// `onRequest` hook; tRPC through Fastify's own tRPC adapter. The same routes and rules as the raw reference (the
// key check, the int64 reviver, the content-type rule and the tRPC input checks are shared from
// reference-rules.ts); it shares no code with the api. Issue 28 asks the api to be level with it. The production
// Fastify reference (fastify-prod-server.ts) mounts the same routes (`addPetstoreRoutes`) on an instance with a
// request log, a rate limit and security headers.
import { randomUUID } from 'node:crypto';
import { initTRPC, TRPCError } from '@trpc/server';
import { fastifyTRPCPlugin } from '@trpc/server/adapters/fastify';
import Fastify, {
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
  type onRequestHookHandler,
} from 'fastify';
import type pg from 'pg';
import superjson from 'superjson';
import {
  type AuthResult,
  createKeyChecker,
  isJsonContentType,
  type ListQuery,
  type NewPet,
  PET_STATUSES,
  type PetStatus,
  parseJsonExact,
  parseListInput,
  parseNewPet,
  RequestError,
} from './reference-rules.js';

const BODY_LIMIT_BYTES = 64 * 1024;
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const JSON_TYPE = 'application/json; charset=utf-8';
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

// `ORDER BY pets.id`: a bare `id` would name the output column. int8 columns arrive as bigint (the main sets
// pg's type parser), which fast-json-stringify writes as exact digits.
const COLUMNS = 'id, name, category_id AS "categoryId", status::text AS status';
const LIST_ALL = { name: 'list_all', text: `SELECT ${COLUMNS} FROM pets ORDER BY pets.id LIMIT $1` };
const LIST_BY_STATUS = {
  name: 'list_by_status',
  text: `SELECT ${COLUMNS} FROM pets WHERE status = $1::pet_status ORDER BY pets.id LIMIT $2`,
};
const GET_ONE = { name: 'get_one', text: `SELECT ${COLUMNS} FROM pets WHERE id = $1::bigint` };
const INSERT = {
  name: 'insert',
  text: `INSERT INTO pets (name, category_id, status) VALUES ($1, $2::bigint, $3::pet_status) RETURNING ${COLUMNS}`,
};

interface PetRow {
  id: bigint;
  name: string;
  categoryId: bigint;
  status?: string | null;
}

/** A NULL status is left out of the Pet (never `"status": null`, nor a superjson `undefined`). */
const toPet = (row: PetRow): PetRow =>
  row.status === null ? { id: row.id, name: row.name, categoryId: row.categoryId } : row;

// ---- JSON schemas: Ajv validates, fast-json-stringify serializes ----

const petSchema = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    name: { type: 'string' },
    categoryId: { type: 'integer' },
    status: { type: 'string' },
  },
  required: ['id', 'name', 'categoryId'],
} as const;

const listQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    // Decimal 1..100 as written: no coercion, so `1e1`, `01`, `+5` and a repeated `limit` (an array) fail.
    limit: { type: 'string', pattern: '^(100|[1-9][0-9]?)$' },
    status: { type: 'string', enum: PET_STATUSES },
  },
} as const;

const newPetSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'categoryId'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 255, pattern: '\\S', wellFormedText: true },
    categoryId: { int64: true },
    status: { type: 'string', enum: PET_STATUSES },
  },
} as const;

const petIdSchema = {
  type: 'object',
  properties: { petId: { type: 'string', pattern: '^[0-9]{1,19}$' } },
  required: ['petId'],
} as const;

interface AjvKeywords {
  addKeyword(definition: {
    keyword: string;
    errors: boolean;
    validate(schema: unknown, data: unknown): boolean;
  }): unknown;
}

/** Ajv keywords for what JSON Schema cannot say: an int64 (a number or a bigint from the reviver), good text. */
function petstoreKeywords<A extends AjvKeywords>(ajv: A): A {
  ajv.addKeyword({
    keyword: 'int64',
    errors: false,
    validate: (_schema, data) =>
      typeof data === 'number'
        ? Number.isSafeInteger(data)
        : typeof data === 'bigint' && data >= INT64_MIN && data <= INT64_MAX,
  });
  ajv.addKeyword({
    keyword: 'wellFormedText',
    errors: false,
    validate: (_schema, data) => typeof data === 'string' && data.isWellFormed() && !data.includes('\u0000'),
  });
  return ajv;
}

const sendError = (reply: FastifyReply, status: number, code: string, message: string) =>
  reply.code(status).type(JSON_TYPE).send(JSON.stringify({ code, message, status }));

/**
 * The options both Fastify references are made with: the body limit, the request id (the caller's when sane, else a
 * UUID) and Ajv without coercion, with the int64 and text keywords.
 */
export const FASTIFY_OPTIONS = {
  bodyLimit: BODY_LIMIT_BYTES,
  genReqId: (req) => {
    const given = req.headers['x-request-id'];
    return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
  },
  // Fastify's defaults coerce types and drop unknown properties: here an unknown field is an error and
  // nothing is coerced (a string is not a number).
  ajv: {
    customOptions: { coerceTypes: false, removeAdditional: false },
    plugins: [petstoreKeywords],
  },
} satisfies FastifyServerOptions;

/** Whether a request carries a configured key (`ok`), or why not. */
export type Authenticate = (req: FastifyRequest) => AuthResult;

export function createFastifyServer(pool: pg.Pool, apiKeys: readonly string[]): FastifyInstance {
  const checkKey = createKeyChecker(apiKeys);
  const app = Fastify({ ...FASTIFY_OPTIONS, logger: false });
  addPetstoreRoutes(app, pool, (req) => checkKey(req.headers.authorization));
  return app;
}

/**
 * The routes, the content-type parser, tRPC, the not-found and error handlers, and `X-Request-Id`, on `app` (made
 * with FASTIFY_OPTIONS); `authenticate` says whether a request carries a key.
 */
export function addPetstoreRoutes(app: FastifyInstance, pool: pg.Pool, authenticate: Authenticate): void {
  const list = async ({ limit, status }: ListQuery) =>
    (status === undefined
      ? await pool.query<PetRow>({ ...LIST_ALL, values: [limit] })
      : await pool.query<PetRow>({ ...LIST_BY_STATUS, values: [status, limit] })
    ).rows.map(toPet);
  const insert = async ({ name, categoryId, status }: NewPet) =>
    toPet((await pool.query<PetRow>({ ...INSERT, values: [name, categoryId, status] })).rows[0] as PetRow);

  app.addHook('onRequest', async (req, reply) => {
    reply.header('X-Request-Id', req.id);
  });

  // One JSON parser for every content type: the api's media-type rule (415), then int64-exact JSON (400).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (req, body, done) => {
    const type = req.headers['content-type'];
    if (type === undefined || !isJsonContentType(type)) {
      done(new RequestError(415, 'unsupported_media_type', 'Content-Type must be application/json'));
      return;
    }
    try {
      done(null, parseJsonExact(body as string));
    } catch (error) {
      done(
        new RequestError(
          400,
          'malformed_json',
          `request body is not valid JSON: ${(error as Error).message}`,
        ),
      );
    }
  });

  const requireKey: onRequestHookHandler = async (req, reply) => {
    const result = authenticate(req);
    if (result === 'ok') return;
    reply.header(
      'WWW-Authenticate',
      result === 'invalid' ? 'Bearer realm="petstore", error="invalid_token"' : 'Bearer realm="petstore"',
    );
    return sendError(
      reply,
      401,
      'unauthorized',
      result === 'invalid' ? 'invalid API key' : 'missing API key',
    );
  };
  const deprecated: onRequestHookHandler = async (_req, reply) => {
    reply.headers({
      Deprecation: '@1795219200',
      Sunset: 'Thu, 05 Dec 2030 00:00:00 GMT',
      Link: '</v1/pets>; rel="successor-version"',
    });
  };

  app.get<{ Querystring: { limit?: string; status?: ListQuery['status'] } }>(
    '/v1/pets',
    {
      onRequest: requireKey,
      schema: { querystring: listQuerySchema, response: { 200: { type: 'array', items: petSchema } } },
    },
    async (req) =>
      list({ limit: req.query.limit === undefined ? 20 : Number(req.query.limit), status: req.query.status }),
  );
  app.post(
    '/v1/pets',
    { onRequest: requireKey, schema: { body: newPetSchema, response: { 201: petSchema } } },
    async (req, reply) => {
      // The schema has checked it all (Ajv, with the int64 and text keywords): only the shapes change here.
      const { name, categoryId, status } = req.body as {
        name: string;
        categoryId: number | bigint;
        status?: PetStatus;
      };
      const pet = await insert({ name, categoryId: categoryId.toString(), status: status ?? null });
      return reply.code(201).header('Location', `/v1/pets/${pet.id}`).send(pet);
    },
  );
  app.get<{ Params: { petId: string } }>(
    '/v1/pets/:petId',
    { onRequest: [deprecated, requireKey], schema: { params: petIdSchema, response: { 200: petSchema } } },
    async (req, reply) => {
      const id = BigInt(req.params.petId);
      if (id < 1n || id > INT64_MAX)
        throw new RequestError(400, 'validation_failed', 'petId: must be a positive integer');
      const row = (await pool.query<PetRow>({ ...GET_ONE, values: [id.toString()] })).rows[0];
      if (row === undefined) return sendError(reply, 404, 'pet_not_found', `no pet with id ${id}`);
      return toPet(row);
    },
  );
  for (const [url, allow] of [
    ['/v1/pets', 'GET, HEAD, POST'],
    ['/v1/pets/:petId', 'GET, HEAD'],
  ] as const) {
    app.route({
      method: ['PUT', 'PATCH', 'DELETE', 'OPTIONS', ...(url === '/v1/pets' ? [] : ['POST'])],
      url,
      handler: async (req, reply) =>
        sendError(
          reply.header('Allow', allow),
          405,
          'method_not_allowed',
          `${req.method} is not allowed here`,
        ),
    });
  }

  app.register(fastifyTRPCPlugin, {
    prefix: '/v1/trpc',
    trpcOptions: {
      router: trpcRouter(authenticate, list, insert),
      createContext: ({ req }: { req: FastifyRequest }) => ({ req }),
    },
  });

  app.setNotFoundHandler((req, reply) =>
    sendError(reply, 404, 'route_not_found', `no route for ${req.method} ${req.url.split('?')[0]}`),
  );
  app.setErrorHandler((error, _req, reply) => {
    if (error instanceof RequestError) return sendError(reply, error.status, error.code, error.message);
    const failure = error as {
      validation?: unknown;
      validationContext?: string;
      statusCode?: number;
      message: string;
    };
    if (failure.validation !== undefined)
      return sendError(reply, 400, 'validation_failed', `${failure.validationContext}: ${failure.message}`);
    if (failure.statusCode === 413)
      return sendError(reply, 413, 'payload_too_large', 'request body is too large');
    if (failure.statusCode !== undefined && failure.statusCode >= 400 && failure.statusCode < 500)
      return sendError(reply, failure.statusCode, 'bad_request', failure.message);
    process.stderr.write(`fastify server: ${(error as Error).stack ?? String(error)}\n`);
    return sendError(reply, 500, 'internal_error', 'the server failed to handle the request');
  });
}

/** `pets.list` and `pets.create` in superjson, behind the key check; inputs checked by the raw reference's rules. */
function trpcRouter(
  authenticate: Authenticate,
  list: (query: ListQuery) => Promise<PetRow[]>,
  insert: (newPet: NewPet) => Promise<PetRow>,
) {
  const t = initTRPC.context<{ req: FastifyRequest }>().create({ transformer: superjson });
  const authed = t.procedure.use(({ ctx, next }) => {
    if (authenticate(ctx.req) !== 'ok') throw new TRPCError({ code: 'UNAUTHORIZED' });
    return next();
  });
  const checked =
    <T>(parse: (input: unknown) => T) =>
    (input: unknown): T => {
      try {
        return parse(input);
      } catch (error) {
        throw new TRPCError({ code: 'BAD_REQUEST', message: (error as Error).message });
      }
    };
  return t.router({
    pets: t.router({
      list: authed.input(checked(parseListInput)).query(({ input }) => list(input)),
      create: authed.input(checked(parseNewPet)).mutation(({ input }) => insert(input)),
    }),
  });
}
