// The ceiling the api is compared against: the same routes, auth and validation rules on bare `node:http` +
// `pg`, with prepared statements and hand-built JSON. No framework, no ORM, no schema library, no logging.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type pg from 'pg';
import {
  createKeyChecker,
  isJsonContentType,
  type ListQuery,
  type NewPet,
  parseJsonExact,
  parseListInput,
  parseListSearch,
  parseNewPet,
  parsePetId,
  RequestError,
} from './reference-rules.js';

const BODY_LIMIT_BYTES = 64 * 1024;
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const JSON_TYPE = 'application/json; charset=utf-8';
const DEPRECATION_HEADERS = {
  Deprecation: '@1795219200',
  Sunset: 'Thu, 05 Dec 2030 00:00:00 GMT',
  Link: '</v1/pets>; rel="successor-version"',
};
const utf8 = new TextDecoder('utf-8', { fatal: true });

// Named queries are prepared once per connection by pg, then only bound and executed. `ORDER BY pets.id`, not
// `id`: a bare `id` would name the text output column and sort the whole table as text.
const COLUMNS = 'id::text AS id, name, category_id::text AS category_id, status::text AS status';
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

interface Row {
  id: string;
  name: string;
  category_id: string;
  status: string | null;
}

const petJson = (row: Row) =>
  `{"id":${row.id},"name":${JSON.stringify(row.name)},"categoryId":${row.category_id}${
    row.status === null ? '' : `,"status":"${row.status}"`
  }}`;

// superjson's form, as tRPC sends it: int64 values as strings, their paths listed in meta.
const petSuperJson = (row: Row) =>
  `{"id":"${row.id}","name":${JSON.stringify(row.name)},"categoryId":"${row.category_id}"${
    row.status === null ? '' : `,"status":"${row.status}"`
  }}`;

function send(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'Content-Type': JSON_TYPE, 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

function sendError(res: ServerResponse, status: number, code: string, message: string): void {
  send(res, status, JSON.stringify({ code, message, status }));
}

const TRPC_CODES: Record<number, [number, string]> = {
  400: [-32600, 'BAD_REQUEST'],
  401: [-32001, 'UNAUTHORIZED'],
  404: [-32004, 'NOT_FOUND'],
  405: [-32005, 'METHOD_NOT_SUPPORTED'],
  413: [-32022, 'PAYLOAD_TOO_LARGE'],
  415: [-32015, 'UNSUPPORTED_MEDIA_TYPE'],
  500: [-32603, 'INTERNAL_SERVER_ERROR'],
};

function sendTrpcError(
  res: ServerResponse,
  path: string,
  status: number,
  code: string,
  message: string,
): void {
  const [rpcCode, name] = TRPC_CODES[status] ?? [-32603, 'INTERNAL_SERVER_ERROR'];
  const data = { code: name, httpStatus: status, path, error: { code, message, status } };
  send(res, status, JSON.stringify({ error: { json: { message, code: rpcCode, data } } }));
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (declared > BODY_LIMIT_BYTES) {
      reject(new RequestError(413, 'payload_too_large', 'request body is too large'));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > BODY_LIMIT_BYTES) {
        reject(new RequestError(413, 'payload_too_large', 'request body is too large'));
        req.removeAllListeners('data');
        req.resume();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** A required JSON body (415 / 413 / 400 as the api), parsed int64-exact. */
async function readJson(req: IncomingMessage): Promise<unknown> {
  const contentType = req.headers['content-type'];
  if (contentType !== undefined && !isJsonContentType(contentType)) {
    throw new RequestError(415, 'unsupported_media_type', 'Content-Type must be application/json');
  }
  const raw = await readBody(req);
  if (raw.length === 0)
    throw new RequestError(400, 'validation_failed', 'request body is required: a JSON object');
  if (contentType === undefined) {
    throw new RequestError(415, 'unsupported_media_type', 'Content-Type must be application/json');
  }
  let text: string;
  try {
    text = utf8.decode(raw);
  } catch {
    throw new RequestError(400, 'malformed_json', 'request body is not valid UTF-8');
  }
  try {
    return parseJsonExact(text);
  } catch (error) {
    throw new RequestError(
      400,
      'malformed_json',
      `request body is not valid JSON: ${(error as Error).message}`,
    );
  }
}

export function createReferenceServer(pool: pg.Pool, apiKeys: readonly string[]): Server {
  const checkKey = createKeyChecker(apiKeys);

  const list = async ({ limit, status }: ListQuery) =>
    (status === undefined
      ? await pool.query<Row>({ ...LIST_ALL, values: [limit] })
      : await pool.query<Row>({ ...LIST_BY_STATUS, values: [status, limit] })
    ).rows;

  const insert = async ({ name, categoryId, status }: NewPet) =>
    (await pool.query<Row>({ ...INSERT, values: [name, categoryId, status] })).rows[0] as Row;

  /** Rejects a request without a valid key (401 with the challenge); true when the caller may go on. */
  const authorized = (req: IncomingMessage, res: ServerResponse, onError: typeof sendError): boolean => {
    const result = checkKey(req.headers.authorization);
    if (result === 'ok') return true;
    res.setHeader(
      'WWW-Authenticate',
      result === 'invalid' ? 'Bearer realm="petstore", error="invalid_token"' : 'Bearer realm="petstore"',
    );
    onError(res, 401, 'unauthorized', result === 'invalid' ? 'invalid API key' : 'missing API key');
    return false;
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const given = req.headers['x-request-id'];
    res.setHeader('X-Request-Id', typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID());

    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    const search = q === -1 ? '' : url.slice(q + 1);
    const method = req.method ?? 'GET';

    if (path === '/v1/pets') {
      if (method !== 'GET' && method !== 'POST') {
        res.setHeader('Allow', 'GET, HEAD, POST');
        return sendError(res, 405, 'method_not_allowed', `${method} is not allowed here`);
      }
      if (!authorized(req, res, sendError)) return;
      if (method === 'GET') {
        const rows = await list(parseListSearch(search));
        return send(res, 200, `[${rows.map(petJson).join(',')}]`);
      }
      const row = await insert(parseNewPet(await readJson(req)));
      res.setHeader('Location', `/v1/pets/${row.id}`);
      return send(res, 201, petJson(row));
    }

    if (path.startsWith('/v1/pets/') && path.indexOf('/', 9) === -1) {
      res.setHeader('Deprecation', DEPRECATION_HEADERS.Deprecation);
      res.setHeader('Sunset', DEPRECATION_HEADERS.Sunset);
      res.setHeader('Link', DEPRECATION_HEADERS.Link);
      if (method !== 'GET') {
        res.setHeader('Allow', 'GET, HEAD');
        return sendError(res, 405, 'method_not_allowed', `${method} is not allowed here`);
      }
      if (!authorized(req, res, sendError)) return;
      const id = parsePetId(path.slice(9));
      const row = (await pool.query<Row>({ ...GET_ONE, values: [id.toString()] })).rows[0];
      if (row === undefined) return sendError(res, 404, 'pet_not_found', `no pet with id ${id}`);
      return send(res, 200, petJson(row));
    }

    if (path.startsWith('/v1/trpc/')) return handleTrpc(req, res, path.slice(9), search, method);

    return sendError(res, 404, 'route_not_found', `no route for ${method} ${path}`);
  }

  /** tRPC's HTTP wire format (non-batched, superjson), for pets.list and pets.create. */
  async function handleTrpc(
    req: IncomingMessage,
    res: ServerResponse,
    procedure: string,
    search: string,
    method: string,
  ): Promise<void> {
    const fail = (r: ServerResponse, status: number, code: string, message: string) =>
      sendTrpcError(r, procedure, status, code, message);
    try {
      if (procedure === 'pets.list') {
        if (method !== 'GET') return fail(res, 405, 'method_not_allowed', 'use GET for queries');
        if (!authorized(req, res, fail)) return;
        const inputText = new URLSearchParams(search).get('input');
        const envelope = inputText === null ? undefined : (JSON.parse(inputText) as { json?: unknown });
        const rows = await list(parseListInput(envelope?.json));
        const meta = rows.map((_, i) => `"${i}.id":["bigint"],"${i}.categoryId":["bigint"]`).join(',');
        const json = `[${rows.map(petSuperJson).join(',')}]`;
        const data = rows.length === 0 ? `{"json":[]}` : `{"json":${json},"meta":{"values":{${meta}},"v":1}}`;
        return send(res, 200, `{"result":{"data":${data}}}`);
      }
      if (procedure === 'pets.create') {
        if (method !== 'POST') return fail(res, 405, 'method_not_allowed', 'use POST for mutations');
        if (!authorized(req, res, fail)) return;
        const envelope = (await readJson(req)) as {
          json?: Record<string, unknown>;
          meta?: { values?: Record<string, unknown> };
        } | null;
        const input = envelope?.json;
        // superjson sends a bigint as a string and names its path in meta.
        if (
          input &&
          typeof input.categoryId === 'string' &&
          envelope?.meta?.values?.categoryId !== undefined
        ) {
          input.categoryId = /^-?\d+$/.test(input.categoryId) ? BigInt(input.categoryId) : input.categoryId;
        }
        const row = await insert(parseNewPet(input));
        const value = `{"json":${petSuperJson(row)},"meta":{"values":{"id":["bigint"],"categoryId":["bigint"]},"v":1}}`;
        return send(res, 200, `{"result":{"data":${value}}}`);
      }
      return fail(res, 404, 'route_not_found', 'no such procedure');
    } catch (error) {
      if (error instanceof RequestError) return fail(res, error.status, error.code, error.message);
      if (error instanceof SyntaxError)
        return fail(res, 400, 'malformed_json', 'request input is not valid JSON');
      throw error;
    }
  }

  return createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (res.headersSent) {
        res.destroy();
      } else if (error instanceof RequestError) {
        sendError(res, error.status, error.code, error.message);
      } else {
        process.stderr.write(`reference server: ${(error as Error).stack ?? String(error)}\n`);
        sendError(res, 500, 'internal_error', 'the server failed to handle the request');
      }
    });
  });
}
