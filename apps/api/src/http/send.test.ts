// compressJsonWith (send.ts) held to the stock part, `compression` itself: over a real server, generated JSON answers
// (status, method, size, headers set before) to requests with and without Accept-Encoding get the same status,
// headers and bytes whether compression ran or the shortcut did.
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import compression from 'compression';
import express from 'express';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compressJsonWith, sendJsonText } from './send.js';

interface Answer {
  status: number;
  size: number;
  vary?: string | undefined;
  varyFirst: boolean;
  cacheControl?: string | undefined;
}

const stock = compression();
const shortcut = compressJsonWith(compression());
let server: http.Server;
let port: number;

beforeAll(async () => {
  const app = express();
  app.get('/:arm', (req, res) => {
    const answer = JSON.parse(String(req.query.answer)) as Answer;
    // What the app's other parts add to Vary (CORS, tRPC, preconditions), before or after: through `vary`, appended.
    if (answer.vary !== undefined && answer.varyFirst) res.vary(answer.vary);
    if (req.params.arm === 'stock') stock(req, res, () => {});
    else shortcut(req, res);
    if (answer.vary !== undefined && !answer.varyFirst) res.vary(answer.vary);
    if (answer.cacheControl !== undefined) res.setHeader('Cache-Control', answer.cacheControl);
    if (answer.status === 304) {
      // As rest.ts sends a 304 of a compressed read: with the Vary its 200 would carry (compression adds it only to
      // an answer with a body).
      res.vary('Accept-Encoding');
      res.statusCode = 304;
      res.end();
      return;
    }
    sendJsonText(res, answer.status, JSON.stringify({ text: 'x'.repeat(answer.size) }));
  });
  server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** One request by node:http, which sends no Accept-Encoding unless told: status, headers but Date, and body bytes. */
function ask(path: string, method: string, acceptEncoding: string | undefined) {
  return new Promise<{ status: number; headers: Record<string, unknown>; body: string }>(
    (resolve, reject) => {
      const headers = acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding };
      const request = http.request({ port, host: '127.0.0.1', path, method, headers }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const { date: _date, vary, ...rest } = response.headers;
          // Vary is a set of field names (RFC 9110 section 12.5.5): compared as one, whatever order they came in.
          const varySet = vary
            ?.split(',')
            .map((name) => name.trim().toLowerCase())
            .sort();
          resolve({
            status: response.statusCode ?? 0,
            headers: { ...rest, vary: varySet },
            body: Buffer.concat(chunks).toString('base64'),
          });
        });
        response.on('error', reject);
      });
      request.on('error', reject);
      request.end();
    },
  );
}

describe('compressJsonWith', () => {
  it('answers as compression does, for every generated JSON answer and Accept-Encoding', async () => {
    const answer = fc.record({
      status: fc.constantFrom(200, 201, 304, 400, 404, 412),
      size: fc.constantFrom(0, 10, 900, 1100, 5000),
      vary: fc.option(fc.constantFrom('Origin', 'Accept-Encoding', 'Origin, Accept-Encoding', '*'), {
        nil: undefined,
      }),
      varyFirst: fc.boolean(),
      cacheControl: fc.option(fc.constantFrom('no-store', 'no-cache', 'public, max-age=60'), {
        nil: undefined,
      }),
    });
    const acceptEncoding = fc.option(
      fc.constantFrom('gzip', 'br', 'identity', '*;q=0', 'gzip;q=0, identity', ''),
      {
        nil: undefined,
      },
    );
    await fc.assert(
      fc.asyncProperty(answer, fc.constantFrom('GET', 'HEAD'), acceptEncoding, async (a, method, accept) => {
        const query = `?answer=${encodeURIComponent(JSON.stringify(a))}`;
        const [expected, actual] = await Promise.all([
          ask(`/stock${query}`, method, accept),
          ask(`/shortcut${query}`, method, accept),
        ]);
        expect(actual).toEqual(expected);
      }),
      { numRuns: 200 },
    );
  });
});
