// Differential test of responseCompression (src/http/compression.ts) against stockResponseCompression, the stock
// `compression` middleware on every request as it was mounted before (the oracle). Two Express apps on two
// node:http servers differ only in that middleware; each answers with what the generated case asks for: status,
// Content-Type, Cache-Control, a preset Content-Encoding, Vary or Content-Length, a body of a size around the
// threshold (ASCII, or with multi-byte characters so that characters and bytes differ), written with
// `res.end(body)`, `res.write` + `res.end`, `res.writeHead` (object or flat array), `res.flushHeaders`, Express's
// `res.send`, or, a programming error, `res.end(callback)` or `res.write(number)`, which throw (before or after
// the headers are stored, as the stock wrappers order it). The request varies the method and
// Accept-Encoding (absent, empty, lists of known and unknown codings, `*`, odd case and whitespace, q-values
// including 0, repeated fields). Status line, every header line in order (Date aside) and the body's bytes as
// sent (still coded) must be equal. fast-check shrinks a difference to its smallest case and prints the seed
// and path to replay it (test/support/fuzz.ts).
import { type Agent, createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type RequestHandler } from 'express';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scaled, timeouts } from '../../../tooling/vitest.shared.js';
import {
  COMPRESSION_THRESHOLD_BYTES,
  responseCompression,
  stockResponseCompression,
} from '../src/http/compression.js';
import { fuzzParameters, fuzzTimeout } from './support/fuzz.js';
import { fuzzAgent } from './support/raw-send.js';

const RUNS = 1000;

const STYLES = [
  'end',
  'write-end',
  'writeHead',
  'writeHead-array',
  'flushHeaders',
  'send',
  'end-callback',
  'write-number',
] as const;

/** What the handler answers: sent to both servers in the X-Case header. */
interface Reply {
  status: number;
  contentType: string | null;
  cacheControl: string | null;
  contentEncoding: string | null;
  vary: string | null;
  /** Content-Length set by the handler (its true value), where the style lets it set one. */
  declaredLength: boolean;
  /** The body's length in bytes. */
  size: number;
  multiByte: boolean;
  asBuffer: boolean;
  style: (typeof STYLES)[number];
}

interface Case {
  method: string;
  /** Absent, one field, or the same field repeated. */
  acceptEncoding: string | string[] | undefined;
  /** Absent for a handler that answers on its own. */
  reply?: Reply;
}

/** `size` bytes of JSON-like text; with `multiByte`, fewer characters than bytes (é is 2 bytes in UTF-8). */
function bodyOf(size: number, multiByte: boolean): string {
  const wide = multiByte ? Math.min(Math.floor(size / 2), 40) : 0;
  const filler = '{"id":9007199254740993,"name":"Pet number 12","status":"available"},';
  return filler.repeat(Math.ceil(size / filler.length)).slice(0, size - 2 * wide) + 'é'.repeat(wide);
}

const respond: RequestHandler = (req, res) => {
  const reply = JSON.parse(String(req.headers['x-case'])) as Reply;
  const text = bodyOf(reply.size, reply.multiByte);
  const body = reply.asBuffer ? Buffer.from(text) : text;
  const headers: [string, string][] = [];
  if (reply.contentType !== null) headers.push(['Content-Type', reply.contentType]);
  if (reply.cacheControl !== null) headers.push(['Cache-Control', reply.cacheControl]);
  if (reply.contentEncoding !== null) headers.push(['Content-Encoding', reply.contentEncoding]);
  if (reply.vary !== null) headers.push(['Vary', reply.vary]);
  // Not when the handler throws: the body it declares would never come.
  if (reply.declaredLength && reply.style !== 'end-callback' && reply.style !== 'write-number') {
    headers.push(['Content-Length', String(Buffer.byteLength(text))]);
  }
  const setHeaders = () => {
    for (const [name, value] of headers) res.setHeader(name, value);
    res.statusCode = reply.status;
  };
  switch (reply.style) {
    case 'end':
      setHeaders();
      res.end(body);
      return;
    case 'write-end': {
      setHeaders();
      const half = Math.floor(body.length / 2);
      res.write(body.slice(0, half));
      res.end(body.slice(half));
      return;
    }
    case 'writeHead':
      res.writeHead(reply.status, Object.fromEntries(headers)).end(body);
      return;
    case 'writeHead-array':
      res.writeHead(reply.status, headers.flat()).end(body);
      return;
    case 'flushHeaders':
      setHeaders();
      res.flushHeaders();
      res.end(body);
      return;
    case 'send':
      setHeaders();
      res.send(body);
      return;
    case 'end-callback':
      setHeaders();
      res.end(() => undefined);
      return;
    case 'write-number':
      setHeaders();
      res.write(reply.size as never);
      return;
  }
};

/** What a throw becomes, without a stack trace (the two middlewares throw from different lines). */
const answerError = (error: Error & { code?: string }, res: express.Response) => {
  if (res.headersSent) {
    res.end();
    return;
  }
  res.statusCode = 500;
  res.setHeader('Content-Type', 'text/plain');
  res.end(`threw ${error.code ?? error.name}`);
};

interface Started {
  port: number;
  agent: Agent;
  close(): Promise<void>;
}

async function start(compression: RequestHandler, handler: RequestHandler = respond): Promise<Started> {
  const app = express();
  app.use(compression);
  app.use(handler);
  app.use((error: Error, _req: express.Request, res: express.Response, _next: express.NextFunction) =>
    answerError(error, res),
  );
  const server: Server = createServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const agent = fuzzAgent();
  return {
    port: (server.address() as AddressInfo).port,
    agent,
    async close() {
      agent.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

interface Answer {
  /** The status line, or how the exchange failed (a reset, a timeout). */
  status: string;
  /** `name: value` as sent, in order; Date left out (the two servers answer at different instants). */
  headers: string[];
  /** The body's bytes as sent (chunked framing removed, coding kept). */
  body: string;
}

function send(server: Started, testCase: Case): Promise<Answer> {
  const headers: Record<string, string | string[]> = {};
  if (testCase.reply !== undefined) headers['x-case'] = JSON.stringify(testCase.reply);
  if (testCase.acceptEncoding !== undefined) headers['accept-encoding'] = testCase.acceptEncoding;
  return new Promise((resolve) => {
    const failed = (error: NodeJS.ErrnoException) =>
      resolve({ status: `failed: ${error.code ?? error.message}`, headers: [], body: '' });
    const req = request(
      {
        host: '127.0.0.1',
        port: server.port,
        method: testCase.method,
        path: '/',
        headers,
        agent: server.agent,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', failed);
        res.on('end', () => {
          const lines: string[] = [];
          for (let i = 0; i < res.rawHeaders.length; i += 2) {
            if (res.rawHeaders[i]?.toLowerCase() !== 'date')
              lines.push(`${res.rawHeaders[i]}: ${res.rawHeaders[i + 1]}`);
          }
          resolve({
            status: `${res.statusCode} ${res.statusMessage}`,
            headers: lines,
            body: Buffer.concat(chunks).toString('base64'),
          });
        });
      },
    );
    // A failed exchange is an answer too (the two must fail alike); a hung one ends after the timeout.
    req.on('error', failed);
    req.setTimeout(scaled(5_000), () =>
      req.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })),
    );
    req.end();
  });
}

/** Accept-Encoding as clients (and others) write it: codings in any case, q-values valid and not, odd spacing. */
const coding = fc.constantFrom(
  'br',
  'gzip',
  'deflate',
  'identity',
  '*',
  'compress',
  'x-gzip',
  'zstd',
  'GZIP',
  'Br',
  'IDENTITY',
  'DeFlate',
);
const parameter = fc.constantFrom(
  '',
  '',
  ';q=0',
  ';q=0.0',
  ';q=0.000',
  ';q=0.001',
  ';q=0.5',
  ';q=1',
  ';q=1.0',
  ' ; q=0',
  '; q=0.8',
  ';Q=0',
  ';q=',
  ';q=abc',
  ';level=1',
  ';q=0;x=y',
);
const separator = fc.constantFrom(',', ', ', ' ,', ',\t', ' , ', ',,');
const codingList = fc
  .tuple(fc.array(fc.tuple(coding, parameter), { minLength: 1, maxLength: 5 }), separator, fc.boolean())
  .map(([items, sep, padded]) => {
    const list = items.map(([name, param]) => name + param).join(sep);
    return padded ? ` ${list} ` : list;
  });
const acceptEncoding = fc.oneof(
  { weight: 3, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: fc.constantFrom('', ' ') },
  // What clients send: fetch and curl --compressed, browsers, and the refusals of identity.
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      'gzip',
      'gzip, deflate',
      'gzip, deflate, br, zstd',
      'br;q=1.0, gzip;q=0.8, *;q=0.1',
      'identity',
      'gzip, identity;q=0',
      '*;q=0',
    ),
  },
  { weight: 6, arbitrary: codingList },
  { weight: 1, arbitrary: fc.tuple(codingList, codingList).map(([a, b]) => [a, b]) },
);

/** One of `options`, each `[value, weight]`: the common answers more often than the odd ones. */
const weighted = <T>(...options: [T, number][]) =>
  fc.oneof(...options.map(([value, weight]) => ({ weight, arbitrary: fc.constant(value) })));

const reply: fc.Arbitrary<Reply> = fc.record({
  status: weighted<number>([200, 6], [201, 1], [204, 1], [304, 1], [400, 1], [401, 2], [404, 1], [500, 1]),
  contentType: weighted<string | null>(
    [null, 1],
    ['application/json', 2],
    ['application/json; charset=utf-8', 3],
    ['application/problem+json', 1],
    ['text/html; charset=utf-8', 1],
    ['image/png', 1],
  ),
  cacheControl: weighted<string | null>(
    [null, 3],
    ['no-store', 3],
    ['no-transform', 1],
    ['public, No-Transform', 1],
    ['no-store, max-age=0', 1],
  ),
  contentEncoding: weighted<string | null>([null, 6], ['gzip', 1], ['identity', 1]),
  vary: weighted<string | null>(
    [null, 6],
    ['Origin', 1],
    ['*', 1],
    ['accept-encoding', 1],
    ['Accept, Origin', 1],
  ),
  declaredLength: fc.boolean(),
  size: weighted(
    [0, 1],
    [1, 1],
    [COMPRESSION_THRESHOLD_BYTES - 1, 2],
    [COMPRESSION_THRESHOLD_BYTES, 2],
    [COMPRESSION_THRESHOLD_BYTES + 1, 2],
    [8 * 1024, 3],
  ),
  multiByte: fc.boolean(),
  asBuffer: fc.boolean(),
  style: weighted<Reply['style']>(
    ['end', 3],
    ['write-end', 2],
    ['writeHead', 2],
    ['writeHead-array', 1],
    ['flushHeaders', 1],
    ['send', 2],
    ['end-callback', 1],
    ['write-number', 1],
  ),
});

const testCase: fc.Arbitrary<Case> = fc.record({
  method: weighted(['GET', 4], ['HEAD', 1], ['POST', 2], ['OPTIONS', 1]),
  acceptEncoding,
  reply,
});

describe('responseCompression against the stock middleware', () => {
  let stock: Started;
  let cheap: Started;

  beforeAll(async () => {
    stock = await start(stockResponseCompression());
    cheap = await start(responseCompression());
  }, timeouts.hook);
  afterAll(async () => {
    await Promise.all([stock?.close(), cheap?.close()]);
  }, timeouts.hook);

  it(
    'answers every generated case exactly as the stock middleware does',
    async () => {
      await fc.assert(
        fc.asyncProperty(testCase, async (generated) => {
          const [expected, actual] = await Promise.all([send(stock, generated), send(cheap, generated)]);
          expect(actual).toEqual(expected);
        }),
        fuzzParameters(RUNS),
      );
    },
    fuzzTimeout(RUNS),
  );

  it(
    'takes the stock path only for a request that accepts a coding',
    async () => {
      // The stock middleware gives every response it wraps a `flush`; the identity-only path does not.
      const probe = await start(responseCompression(), (_req, res) => {
        res.setHeader('Content-Type', 'text/plain');
        res.setHeader('Cache-Control', 'no-transform'); // read as sent, never coded
        res.end(typeof (res as { flush?: unknown }).flush);
      });
      try {
        const pathOf = async (accept: string | undefined) => {
          const answer = await send(probe, { method: 'GET', acceptEncoding: accept });
          return { accept, path: Buffer.from(answer.body, 'base64').toString() };
        };
        for (const accept of [
          undefined,
          '',
          'identity',
          'gzip;q=0, br;q=0',
          '*;q=0',
          'compress, x-unknown',
        ]) {
          expect(await pathOf(accept)).toEqual({ accept, path: 'undefined' });
        }
        for (const accept of ['gzip', 'br', 'gzip, deflate, br, zstd', '*', 'identity;q=0, gzip']) {
          expect(await pathOf(accept)).toEqual({ accept, path: 'function' });
        }
      } finally {
        await probe.close();
      }
    },
    timeouts.server,
  );
});
