// Every listener we open answers every request with the documented status and an Error body: the metrics
// server too (it answered text/plain 404, and Node closed CONNECT without a word).
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scaled } from '../../../tooling/vitest.shared.js';
import { serveMetrics } from '../src/http/metrics-server.js';
import { createMetrics } from '../src/observability/metrics.js';
import { type RawResponse, sendRaw } from './reliability/raw-http.js';

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
});
