// Client-only behaviours, against a tiny local node:http server that answers whatever each test needs:
// what the real service never does (HTML from a proxy, a body that breaks the schema) and what it cannot be
// asked to do (be unreachable).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PetStoreApiError } from './client-error.js';
import { createRestClient, nextCursorFromLink } from './rest-client.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

let server: Server;
let baseUrl: string;
let reply: (res: ServerResponse) => void;
let seen: Seen[];

const sendText = (status: number, contentType: string, text: string) => (res: ServerResponse) => {
  res.writeHead(status, { 'content-type': contentType });
  res.end(text);
};

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      seen.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      reply(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  seen = [];
  reply = sendText(200, 'application/json', '[]');
});

const client = (validateResponses?: boolean) =>
  createRestClient({
    baseUrl,
    apiKey: 'key-0123456789abcdef',
    ...(validateResponses === undefined ? {} : { validateResponses }),
  });

const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => expect.unreachable('the call should have failed'),
    (error: unknown) => {
      expect(error).toBeInstanceOf(PetStoreApiError);
      return error as PetStoreApiError;
    },
  );

describe('REST client requests', () => {
  it('sends the bearer key, Accept, and int64 values digit for digit', async () => {
    reply = sendText(
      201,
      'application/json',
      '{"id":9223372036854775807,"name":"Rex","categoryId":9007199254740993}',
    );
    const pet = await client().createPet({ name: 'Rex', categoryId: 9007199254740993n, status: 'sold' });
    expect(pet).toEqual({ id: 9223372036854775807n, name: 'Rex', categoryId: 9007199254740993n });
    expect(seen).toEqual([
      expect.objectContaining({
        method: 'POST',
        url: '/v1/pets',
        body: '{"name":"Rex","categoryId":9007199254740993,"status":"sold"}',
      }),
    ]);
    expect(seen[0]?.headers).toMatchObject({
      authorization: 'Bearer key-0123456789abcdef',
      'content-type': 'application/json',
      accept: 'application/json',
    });
  });

  it('encodes query parameters and path segments', async () => {
    await client().listPets({ limit: 5, status: 'pending' });
    await client().listPets();
    await client().listPets({ status: 'a&b=c' as never });
    reply = sendText(200, 'application/json', '{"id":1,"name":"Rex","categoryId":1}');
    await client()
      .getPet(12345678901234567890n as never)
      .catch(() => {});
    await client()
      .getPet('../x?y' as never)
      .catch(() => {});
    expect(seen.map((request) => request.url)).toEqual([
      '/v1/pets?limit=5&status=pending',
      '/v1/pets',
      '/v1/pets?status=a%26b%3Dc',
      '/v1/pets/12345678901234567890',
      '/v1/pets/..%2Fx%3Fy',
    ]);
  });
});

describe('REST client failures', () => {
  it('an Error body is kind "api" with the body and the HTTP status', async () => {
    reply = sendText(
      404,
      'application/json',
      '{"code":"pet_not_found","message":"no pet with id 7","status":404}',
    );
    const error = await failureOf(client().getPet(7n));
    expect(error).toMatchObject({
      kind: 'api',
      status: 404,
      code: 'pet_not_found',
      error: { code: 'pet_not_found', message: 'no pet with id 7', status: 404 },
      responseText: undefined,
    });
    expect(error.message).toBe('pet_not_found (404): no pet with id 7');
  });

  it('no reply at all is kind "network", with the cause', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const error = await failureOf(
      createRestClient({ baseUrl: `http://127.0.0.1:${port}/v1`, apiKey: 'k' }).listPets(),
    );
    expect(error).toMatchObject({ kind: 'network', status: undefined, error: undefined, code: 'network' });
    expect(error.message).toMatch(new RegExp(`^GET http://127.0.0.1:${port}/v1/pets got no reply: `));
    expect(error.cause).toBeInstanceOf(Error);
  });

  it('a fetch that throws is kind "network" too', async () => {
    const failingFetch = async () => {
      throw new TypeError('fetch failed');
    };
    const error = await failureOf(createRestClient({ baseUrl, apiKey: 'k', fetch: failingFetch }).listPets());
    expect(error).toMatchObject({
      kind: 'network',
      message: `GET ${baseUrl}/pets got no reply: fetch failed (after 3 attempts)`,
      attempts: 3,
    });
  });

  it.each([
    [502, 'text/html', '<html><body>Bad Gateway</body></html>'],
    [200, 'application/json', '[{"id":1,'],
    [200, 'application/json', ''],
  ])('a %i reply that is not JSON is kind "non_json" with the text', async (status, type, text) => {
    reply = sendText(status, type, text);
    const error = await failureOf(client().listPets());
    expect(error).toMatchObject({ kind: 'non_json', status, responseText: text, error: undefined });
    // A 502 is retried (3 attempts by default) before the call gives up; a 200 is final at once.
    const after = status === 502 ? ' (after 3 attempts)' : '';
    expect(error.message).toBe(`GET ${baseUrl}/pets answered ${status} with a body that is not JSON${after}`);
  });

  it('an error status whose JSON is not an Error body is kind "invalid_body"', async () => {
    reply = sendText(503, 'application/json', '{"message":"upstream down"}');
    const error = await failureOf(client().listPets());
    expect(error).toMatchObject({
      kind: 'invalid_body',
      status: 503,
      responseText: '{"message":"upstream down"}',
    });
  });

  it('a success body that breaks the schema is kind "invalid_body", naming the fields', async () => {
    reply = sendText(200, 'application/json', '[{"id":0,"name":"Rex","categoryId":"7","status":null}]');
    const error = await failureOf(client().listPets());
    expect(error.kind).toBe('invalid_body');
    expect(error.message).toMatch(
      /does not match the interface: 0\.id: must be a positive.*0\.categoryId: must be an integer \(int64\).*0\.status: must be one of/,
    );
  });
});

describe('REST client with validateResponses: false', () => {
  it('returns the body unchecked, with int64 fields as bigint', async () => {
    reply = sendText(
      200,
      'application/json',
      '[{"id":1,"name":"","categoryId":9007199254740993,"extra":true}]',
    );
    expect(await client(false).listPets()).toEqual([
      { id: 1n, name: '', categoryId: 9007199254740993n, extra: true },
    ]);
    await expect(client(true).listPets()).rejects.toMatchObject({ kind: 'invalid_body' });
  });

  it('still reports errors and non-JSON replies', async () => {
    reply = sendText(
      401,
      'application/json',
      '{"code":"unauthorized","message":"invalid API key","status":401}',
    );
    await expect(client(false).listPets()).rejects.toMatchObject({ kind: 'api', status: 401 });
    reply = sendText(200, 'text/plain', 'ok');
    await expect(client(false).listPets()).rejects.toMatchObject({ kind: 'non_json' });
  });
});

describe('nextCursorFromLink', () => {
  it('reads the cursor of the rel="next" link and nothing else', () => {
    expect(nextCursorFromLink(null)).toBeNull();
    expect(nextCursorFromLink('<https://h/v1/pets?limit=5&cursor=abc.def>; rel="next"')).toBe('abc.def');
    expect(
      nextCursorFromLink(
        '</v1/pets>; rel="successor-version", <http://h/v1/pets?cursor=x.y&limit=2>; rel=next',
      ),
    ).toBe('x.y');
    expect(nextCursorFromLink('</v1/pets>; rel="successor-version"')).toBeNull();
    expect(nextCursorFromLink('<http://h/v1/pets?cursor=a.b>; rel="prev"')).toBeNull();
  });
});
