// The checker every test server runs on its answers (support/response-validator.ts) catches what it is there for:
// a header the document does not declare for that status, a required one missing, a status not listed, a body
// off its schema, an Error code the status does not list. Exchanges made here, checked against the real document.
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { type Exchange, responseValidator, validatingListener } from './support/response-validator.js';

const json = (value: unknown) => Buffer.from(JSON.stringify(value));
/** What every answer carries, as the api sends it. */
const EVERY = {
  'x-request-id': 'r-1',
  'cache-control': 'no-store',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'petstore-stability': 'stable',
  'content-type': 'application/json; charset=utf-8',
};
const DEPRECATION = {
  deprecation: '@1795046400',
  sunset: 'Thu, 05 Dec 2030 00:00:00 GMT',
  link: '</v1/pets>; rel="successor-version"',
};
const pet = { id: 7, name: 'Rex', categoryId: 1 };

async function problemsOf(exchange: Omit<Exchange, 'method'> & { method?: string }): Promise<string[]> {
  const validator = await responseValidator();
  const method = exchange.method ?? 'GET';
  const operation = validator.operationOf(method, exchange.target);
  if (operation === undefined) throw new Error(`no operation for ${exchange.target}`);
  return validator.problems(operation, { ...exchange, method });
}

describe('the response checker of the test servers', () => {
  it('passes an answer the document describes', async () => {
    const headers = { ...EVERY, ...DEPRECATION };
    expect(await problemsOf({ target: '/v1/pets/7', status: 200, headers, body: json(pet) })).toEqual([]);
  });

  it('fails a header the document does not declare for the status', async () => {
    const headers = { ...EVERY, ...DEPRECATION, 'x-debug': '1' };
    expect(await problemsOf({ target: '/v1/pets/7', status: 200, headers, body: json(pet) })).toEqual([
      expect.stringMatching(/sends the header x-debug, which the document does not declare/),
    ]);
    // Declared elsewhere is not declared here: Location belongs to createPet's 201, not to getPet's 200.
    const located = { ...EVERY, ...DEPRECATION, location: '/v1/pets/7' };
    expect(
      await problemsOf({ target: '/v1/pets/7', status: 200, headers: located, body: json(pet) }),
    ).toEqual([expect.stringMatching(/sends the header location/)]);
  });

  it('fails a required header that is missing', async () => {
    const { sunset: _sunset, ...headers } = { ...EVERY, ...DEPRECATION };
    expect(await problemsOf({ target: '/v1/pets/7', status: 200, headers, body: json(pet) })).toEqual([
      expect.stringMatching(/the required header Sunset is missing/),
    ]);
  });

  it('fails a status the operation does not list, a body off its schema and a code its status does not list', async () => {
    const headers = { ...EVERY };
    expect(
      await problemsOf({ method: 'POST', target: '/v1/pets', status: 418, headers, body: json({}) }),
    ).toEqual([expect.stringMatching(/a status the document does not list/)]);
    expect(
      await problemsOf({
        target: '/v1/pets',
        status: 200,
        headers,
        body: json([{ id: 'seven', name: 'Rex' }]),
      }),
    ).toEqual(expect.arrayContaining([expect.stringMatching(/body \/0\/id must be integer/)]));
    const error = { code: 'pet_not_found', message: 'no', status: 400 };
    expect(await problemsOf({ target: '/v1/pets', status: 400, headers, body: json(error) })).toEqual([
      expect.stringMatching(/Error code pet_not_found is not one of/),
    ]);
  });
});

/**
 * Serves one answer, written by `answer`, through the checker as every test server does, and reads it with `read`;
 * `reported` receives what the checker reports, as it reports it.
 */
async function throughChecker(
  reported: string[],
  answer: (res: ServerResponse) => void,
  read: (response: Response) => Promise<void>,
  target = '/v1/pets/events',
): Promise<void> {
  const validator = await responseValidator();
  const server = createServer(
    validatingListener(
      validator,
      (_req, res) => answer(res),
      (problems) => reported.push(...problems),
    ),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    await read(await fetch(`http://127.0.0.1:${port}${target}`));
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

const STREAM_HEAD = {
  ...EVERY,
  'petstore-stability': 'beta',
  'content-type': 'text/event-stream; charset=utf-8',
  'x-accel-buffering': 'no',
};
const sse = (id: number, data: unknown, kind = 'pet.created') =>
  `id: ${id}\nevent: ${kind}\ndata: ${JSON.stringify(data)}\n\n`;

/** Reads a stream until `last` has arrived, then hangs up (the server never ends it). */
async function readUntil(response: Response, last: string): Promise<void> {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = '';
  while (!text.includes(last)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the stream ended before ${last}: ${text}`);
    text += decoder.decode(value, { stream: true });
  }
  await reader.cancel();
}

describe('the response checker on a stream (text/event-stream)', () => {
  it('passes a stream the document describes: events split across writes, comments, retry', async () => {
    const reported: string[] = [];
    await throughChecker(
      reported,
      (res) => {
        res.writeHead(200, STREAM_HEAD);
        res.write('retry: 2000\n\n');
        res.write(sse(1, { id: 1, kind: 'pet.created', pet }));
        res.write(': keep-alive\n\n');
        // An id past 2^53, exact in both fields.
        const exact = sse(2, { id: 2, kind: 'pet.created', pet: { ...pet, status: 'sold' } })
          .replace('id: 2', 'id: 9007199254740993')
          .replace('"id":2,', '"id":9007199254740993,');
        res.write(exact.slice(0, 10));
        res.write(exact.slice(10));
        res.write(': end\n\n');
      },
      (response) => readUntil(response, ': end'),
    );
    expect(reported).toEqual([]);
  });

  it('fails each bad event as it goes out, while the stream is still open, and a bad error event', async () => {
    const reported: string[] = [];
    let whenSeen: string[] = [];
    await throughChecker(
      reported,
      (res) => {
        res.writeHead(200, STREAM_HEAD);
        res.write('retry: 2000\n\n');
        res.write(sse(3, { id: 3, kind: 'pet.created', pet: { ...pet, name: 7 } }));
        res.write(sse(5, { id: 4, kind: 'pet.created', pet }));
        res.write(sse(6, { id: 6, kind: 'pet.created', pet }, 'pet.deleted'));
        res.write(
          `event: error\ndata: ${JSON.stringify({ code: 'pet_not_found', message: 'x', status: 404 })}\n\n`,
        );
        res.write(': end\n\n');
        // Never ended: a checker that waited for the end of the answer would report nothing.
      },
      async (response) => {
        await readUntil(response, ': end');
        whenSeen = [...reported];
      },
    );
    const expected = [
      expect.stringMatching(
        /^GET \/v1\/pets\/events \(streamPetEvents\) answered 200: an event off its schema \(\/pet\/name must be string\)/,
      ),
      expect.stringMatching(/an event whose id: is not its data's id: .*"id":"5"/),
      expect.stringMatching(/an event whose event: is not its data's kind: .*pet\.deleted/),
      expect.stringMatching(/an error event with the code pet_not_found, which the document does not list/),
    ];
    expect(whenSeen).toEqual(expected);
    expect(reported).toEqual(expected);
  });

  it("checks a stream's head at once: a required header missing, an undeclared one", async () => {
    const reported: string[] = [];
    const { 'x-accel-buffering': _dropped, ...head } = STREAM_HEAD;
    await throughChecker(
      reported,
      (res) => {
        res.writeHead(200, { ...head, 'x-debug': '1' });
        res.write(': end\n\n');
      },
      (response) => readUntil(response, ': end'),
    );
    expect(reported).toEqual([
      expect.stringMatching(/sends the header x-debug, which the document does not declare/),
      expect.stringMatching(/the required header X-Accel-Buffering is missing/),
    ]);
  });

  it('fails a stream that ends inside an event', async () => {
    const reported: string[] = [];
    await throughChecker(
      reported,
      (res) => {
        res.writeHead(200, STREAM_HEAD);
        res.end(`id: 1\nevent: pet.created\ndata: ${JSON.stringify({ id: 1, kind: 'pet.created', pet })}\n`);
      },
      async (response) => {
        await response.text();
      },
    );
    expect(reported).toEqual([expect.stringMatching(/the stream ends inside an event/)]);
  });
});
