// Another team's Pet Store: it follows the interface to the letter, shares no code with this repository (not even
// @petstore/schema), and decides every gap of the interface its own way. The conformance tests hold it up as the
// deployment that `--profile interface` must pass and `--profile reference` must fail on decisions only.
//
// Its own decisions, each different from the reference implementation's:
// - errors: codes `invalid_credentials`, `bad_request`, `invalid_query`, `not_found`, `method_not_allowed`;
//   WWW-Authenticate realm "pets-api", without error="invalid_token"; the query and the path are validated
//   before the key (a bad request without a key is 400/404, not 401);
// - no X-Request-Id, no Location, no Deprecation/Sunset headers, OPTIONS and other methods 405 without Allow;
// - listPets: in creation order, which is descending id order; `limit` clamped into 1..100 (text is 422 invalid_query); `status` case-insensitive,
//   empty ignored, unknown 422; unknown parameters ignored; its own paging parameter `offset`;
// - createPet: any Content-Type read as JSON, bodies up to 1 MiB, unknown fields dropped, "status": null taken
//   as absent, status defaults to "available", names of 1..100 characters (not blank, well-formed, no NUL);
// - ids: positive int64 values counting down from 2^62 in random steps (never increasing); getPet answers 404 for any id that names no pet, valid
//   or not.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const STATUSES = ['available', 'pending', 'sold'] as const;
type Status = (typeof STATUSES)[number];

interface StoredPet {
  id: bigint;
  name: string;
  categoryId: bigint;
  status: Status;
}

export interface IndependentServer {
  baseUrl: string;
  close(): Promise<void>;
}

/** JSON with int64 values exact: integers read from their source text, bigint written as raw JSON numbers. */
function parseExact(text: string): unknown {
  return JSON.parse(text, (_key, value, context?: { source?: string }) =>
    typeof value === 'number' && context?.source !== undefined && /^-?\d+$/.test(context.source)
      ? BigInt(context.source)
      : value,
  );
}
const stringifyExact = (value: unknown) =>
  JSON.stringify(value, (_key, item) =>
    typeof item === 'bigint'
      ? (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON(String(item))
      : item,
  );

/** The document it publishes at /v1/openapi.json: true to what it does. */
export const INDEPENDENT_OPENAPI = {
  openapi: '3.1.0',
  info: { title: 'Independent pet store', version: '1.0.0' },
  servers: [{ url: '/v1' }],
  components: {
    schemas: {
      Pet: {
        type: 'object',
        required: ['id', 'name', 'categoryId', 'status'],
        properties: {
          id: { type: 'integer', format: 'int64' },
          name: { type: 'string', minLength: 1, maxLength: 100 },
          categoryId: { type: 'integer', format: 'int64' },
          status: { enum: STATUSES },
        },
      },
      Problem: {
        type: 'object',
        required: ['code', 'message', 'status'],
        properties: { code: { type: 'string' }, message: { type: 'string' }, status: { type: 'integer' } },
      },
    },
  },
  paths: {
    '/pets': {
      get: {
        operationId: 'listPets',
        responses: {
          200: json({ type: 'array', items: { $ref: '#/components/schemas/Pet' } }),
          401: json({ $ref: '#/components/schemas/Problem' }),
          422: json({ $ref: '#/components/schemas/Problem' }),
        },
      },
      post: {
        operationId: 'createPet',
        responses: {
          201: json({ $ref: '#/components/schemas/Pet' }),
          400: json({ $ref: '#/components/schemas/Problem' }),
          401: json({ $ref: '#/components/schemas/Problem' }),
          413: json({ $ref: '#/components/schemas/Problem' }),
        },
      },
    },
    '/pets/{petId}': {
      get: {
        operationId: 'getPet',
        deprecated: true,
        responses: {
          200: json({ $ref: '#/components/schemas/Pet' }),
          401: json({ $ref: '#/components/schemas/Problem' }),
          404: json({ $ref: '#/components/schemas/Problem' }),
        },
      },
    },
  },
};
function json(schema: object) {
  return { description: 'JSON', content: { 'application/json': { schema } } };
}

/** `createStatus`: the status of a successful create (201), to break the suite's createPet fixture on purpose. */
export async function startIndependentServer(
  apiKey: string,
  { createStatus = 201 }: { createStatus?: number } = {},
): Promise<IndependentServer> {
  const pets: StoredPet[] = [];
  let lastId = 2n ** 62n;

  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(stringifyExact(body));
  };
  const problem = (res: ServerResponse, status: number, code: string, message: string, headers = {}) =>
    send(res, status, { code, message, status }, headers);
  const authorised = (req: IncomingMessage, res: ServerResponse) => {
    const match = /^bearer +(\S+)$/i.exec(req.headers.authorization ?? '');
    if (match?.[1] === apiKey) return true;
    problem(res, 401, 'invalid_credentials', 'a valid bearer key is needed', {
      'www-authenticate': 'Bearer realm="pets-api"',
    });
    return false;
  };
  const newId = () => {
    lastId -= 1n + BigInt(randomBytes(2).readUInt16BE() % 1000);
    return lastId;
  };

  const list = (req: IncomingMessage, res: ServerResponse, query: URLSearchParams) => {
    const limitText = query.get('limit');
    let limit = 20;
    if (limitText !== null) {
      if (!/^-?\d+$/.test(limitText)) return problem(res, 422, 'invalid_query', 'limit must be a number');
      limit = Math.min(100, Math.max(1, Number(limitText)));
    }
    const statusText = query.get('status')?.toLowerCase() ?? '';
    if (statusText !== '' && !(STATUSES as readonly string[]).includes(statusText))
      return problem(res, 422, 'invalid_query', `unknown status ${statusText}`);
    const offsetText = query.get('offset') ?? '0';
    if (!/^\d+$/.test(offsetText)) return problem(res, 422, 'invalid_query', 'offset must be a number');
    if (!authorised(req, res)) return;
    const chosen = pets.filter((pet) => statusText === '' || pet.status === statusText);
    const offset = Number(offsetText);
    send(res, 200, chosen.slice(offset, offset + limit));
  };

  const create = (req: IncomingMessage, res: ServerResponse, text: string) => {
    if (!authorised(req, res)) return;
    let body: unknown;
    try {
      body = parseExact(text);
    } catch {
      return problem(res, 400, 'bad_request', 'the body is not JSON');
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      return problem(res, 400, 'bad_request', 'the body must be an object');
    const { name, categoryId, status } = body as Record<string, unknown>;
    if (
      typeof name !== 'string' ||
      name.trim() === '' ||
      name.length > 100 ||
      name.includes('\u0000') ||
      !name.isWellFormed()
    )
      return problem(res, 400, 'bad_request', 'name must be 1 to 100 characters');
    const category =
      typeof categoryId === 'number' && Number.isSafeInteger(categoryId) ? BigInt(categoryId) : categoryId;
    if (typeof category !== 'bigint' || category < INT64_MIN || category > INT64_MAX)
      return problem(res, 400, 'bad_request', 'categoryId must be an int64');
    if (status !== undefined && status !== null && !(STATUSES as readonly unknown[]).includes(status))
      return problem(res, 400, 'bad_request', 'status must be available, pending or sold');
    const pet: StoredPet = {
      id: newId(),
      name,
      categoryId: category,
      status: (status ?? 'available') as Status,
    };
    pets.push(pet);
    send(res, createStatus, pet);
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= 1024 * 1024) chunks.push(chunk);
    });
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://independent');
      const path = url.pathname;
      if (path === '/v1/openapi.json' && req.method === 'GET') return send(res, 200, INDEPENDENT_OPENAPI);
      if (path === '/v1/pets') {
        if (req.method === 'GET') return list(req, res, url.searchParams);
        if (req.method === 'POST') {
          if (size > 1024 * 1024) return problem(res, 413, 'too_large', 'at most 1 MiB');
          return create(req, res, Buffer.concat(chunks).toString('utf8'));
        }
        return problem(res, 405, 'method_not_allowed', `${req.method} is not supported here`);
      }
      const one = /^\/v1\/pets\/([^/]+)$/.exec(path);
      if (one !== null) {
        if (req.method !== 'GET')
          return problem(res, 405, 'method_not_allowed', `${req.method} is not supported here`);
        const segment = one[1] as string;
        // A segment that cannot be an id names no pet: 404, decided before the key is looked at.
        const id = /^\d{1,19}$/.test(segment) ? BigInt(segment) : undefined;
        if (id === undefined) return problem(res, 404, 'not_found', `no pet ${segment}`);
        if (!authorised(req, res)) return;
        const pet = pets.find((candidate) => candidate.id === id);
        if (pet === undefined) return problem(res, 404, 'not_found', `no pet ${segment}`);
        return send(res, 200, pet);
      }
      problem(res, 404, 'not_found', `nothing at ${path}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
