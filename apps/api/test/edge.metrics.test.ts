// Every listener we open answers every request with the documented status and an Error body: the metrics
// server too (it answered text/plain 404, and Node closed CONNECT without a word). And every answer of it keeps
// the API's answer rules: the security headers, and an error never stored nor carrying a validator (its 404, 405
// and 400 went out without them, where Node's parser refusals on the same port had them).
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SECURITY_HEADER_CONTRACTS } from '@petstore/schema/internal';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scaled } from '../../../tooling/vitest.shared.js';
import { serveMetrics } from '../src/http/metrics-server.js';
import { createMetrics } from '../src/observability/metrics.js';
import { type RawResponse, sendRaw } from './reliability/raw-http.js';
import { fuzzParameters, fuzzTimeout } from './support/fuzz.js';

/** Each security header by lower-case name (as the raw reader keys them), with the one value it must have. */
const SECURITY_HEADERS = Object.entries(SECURITY_HEADER_CONTRACTS).map(
  ([name, { value }]) => [name.toLowerCase(), value] as const,
);

let server: Server;
let port: number;

beforeAll(async () => {
  server = await serveMetrics(createMetrics({}), 0, '127.0.0.1');
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
});

async function send(method: string, target: string, headers: [string, string][] = [['Host', 'm']]) {
  const outcome = await sendRaw('127.0.0.1', port, { method, target, headers }, scaled(5_000));
  if (outcome.kind !== 'response') throw new Error(`no response: ${JSON.stringify(outcome)}`);
  return outcome.response;
}

function expectError(response: RawResponse, status: number, code: string): void {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')?.[0]).toMatch(/^application\/json/);
  expect(JSON.parse(response.body.toString('utf8'))).toMatchObject({ code, status });
}

describe('the metrics listener', () => {
  it('serves GET /metrics', async () => {
    const response = await send('GET', '/metrics');
    expect(response.status).toBe(200);
    expect(response.body.toString()).toMatch(/petstore_http_requests_total|# HELP/);
  });

  it('an unknown path is 404 route_not_found', async () => {
    expectError(await send('GET', '/nope'), 404, 'route_not_found');
  });

  it.each(['POST', 'DELETE', 'TRACE', 'PUT'])('%s /metrics is 405 with Allow', async (method) => {
    const response = await send(method, '/metrics');
    expectError(response, 405, 'method_not_allowed');
    expect(response.headers.get('allow')).toEqual(['GET, HEAD, OPTIONS']);
  });

  it.each(['127.0.0.1:9', '/metrics'])(
    'CONNECT %s is 501 with an Error body and no Allow',
    async (target) => {
      const response = await send('CONNECT', target, [['Host', '127.0.0.1:9']]);
      expectError(response, 501, 'not_implemented');
      expect(response.headers.get('allow')).toBeUndefined();
    },
  );

  it('the edge rules apply: a userinfo target, repeated Host, a missing Host, a query', async () => {
    expectError(await send('GET', 'http://u@m/metrics'), 400, 'malformed_request');
    expectError(
      await send('GET', '/metrics', [
        ['Host', 'm'],
        ['Host', 'n'],
      ]),
      400,
      'malformed_request',
    );
    expectError(await send('GET', '/metrics', []), 400, 'malformed_request');
    expectError(await send('GET', '/metrics?x=1'), 400, 'validation_failed');
  });

  it(
    'every answer carries the security headers; every error says no-store and has no validator',
    async () => {
      const statuses = new Set<number>();
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom('GET', 'HEAD', 'OPTIONS', 'POST', 'PUT', 'PATCH', 'DELETE', 'TRACE'),
          fc.oneof(
            fc.constantFrom('/metrics', '/metrics/', '/', '*', '/nope', '//metrics', '/METRICS'),
            fc.webSegment().map((segment) => `/${segment}`),
            fc.webSegment().map((segment) => `/metrics/${segment}`),
          ),
          fc.option(fc.webQueryParameters(), { nil: undefined }),
          // A precondition: the scrape answered 304 or 412 (or not at all, when the request fails before).
          fc.option(fc.constantFrom<[string, string]>(['If-None-Match', '*'], ['If-Match', '"gone"']), {
            nil: undefined,
          }),
          async (method, path, query, precondition) => {
            const target = query === undefined ? path : `${path}?${query}`;
            const headers: [string, string][] = [['Host', 'm'], ...(precondition ? [precondition] : [])];
            const response = await send(method, target, headers);
            statuses.add(response.status);
            // Cache-Control: no-store among them: no answer here is stored, an error least of all.
            for (const [name, value] of SECURITY_HEADERS) {
              expect(response.headers.get(name), `${name} on ${response.status}`).toEqual([value]);
            }
            if (response.status >= 400) {
              for (const validator of ['etag', 'last-modified', 'expires']) {
                expect(response.headers.get(validator), `${validator} on ${response.status}`).toBeUndefined();
              }
            }
          },
        ),
        {
          ...fuzzParameters(200),
          // The scrape and its conditional answers, which generated requests rarely hit exactly.
          examples: [
            ['GET', '/metrics', undefined, undefined],
            ['HEAD', '/metrics', undefined, ['If-None-Match', '*']],
            ['GET', '/metrics', undefined, ['If-Match', '"gone"']],
          ],
        },
      );
      // The property saw the answers it is about: the scrape (200, 304, 412) and the listener's own refusals.
      expect([...statuses]).toEqual(expect.arrayContaining([200, 304, 400, 404, 405, 412]));
    },
    fuzzTimeout(200),
  );
});
