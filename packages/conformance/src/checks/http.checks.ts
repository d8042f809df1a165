import { type Check, check, expectError, expectRefused } from '../check.js';
import type { Exchange } from '../http-client.js';

function expectAllow(exchange: Exchange, methods: string[]): void {
  const allow = exchange.headers.get('allow');
  const listed = (allow ?? '').split(',').map((method) => method.trim().toUpperCase());
  const missing = methods.filter((method) => !listed.includes(method));
  check(
    allow !== null && missing.length === 0,
    `expected Allow listing ${methods.join(', ')}, got ${allow === null ? 'none' : JSON.stringify(allow)}`,
    exchange,
  );
}

export const httpChecks: Check[] = [
  {
    id: 'http.unknown-route',
    description: 'an unknown path under /v1 is 404 route_not_found (an Error body)',
    decision: 'Decision: other methods and paths (404 route_not_found for an unknown path)',
    async run(ctx) {
      expectRefused(ctx, await ctx.http.send('/no-such-route'), 404, 'route_not_found');
      expectRefused(ctx, await ctx.http.send('/pets/1/owner'), 404, 'route_not_found');
    },
  },
  {
    id: 'http.store-orders',
    description: 'GET /store/orders, named by the interface without a definition, is not implemented: 404',
    decision: 'Decision: other methods and paths (GET /store/orders is not implemented)',
    async run(ctx) {
      expectError(ctx, await ctx.http.send('/store/orders'), 404);
    },
  },
  {
    id: 'http.method-not-allowed',
    description: 'an unsupported method on /pets or /pets/{id} is 405 method_not_allowed with Allow',
    decision: 'Decision: other methods and paths (405 with Allow)',
    async run(ctx) {
      for (const method of ['DELETE', 'PUT', 'PATCH']) {
        const exchange = await ctx.http.send('/pets', { method });
        expectRefused(ctx, exchange, 405, 'method_not_allowed');
        expectAllow(exchange, ['GET', 'POST']);
      }
      for (const method of ['DELETE', 'PUT', 'POST']) {
        const exchange = await ctx.http.send('/pets/1', { method });
        expectRefused(ctx, exchange, 405, 'method_not_allowed');
        expectAllow(exchange, ['GET']);
      }
    },
  },
  {
    id: 'http.options',
    description: 'OPTIONS on /pets and /pets/{id} is 204 with Allow',
    decision: 'Decision: other methods and paths (OPTIONS is 204 with Allow)',
    async run(ctx) {
      const pets = await ctx.http.send('/pets', { method: 'OPTIONS' });
      check(pets.status === 204, `expected 204, got ${pets.status}`, pets);
      expectAllow(pets, ['GET', 'POST']);
      const pet = await ctx.http.send('/pets/1', { method: 'OPTIONS' });
      check(pet.status === 204, `expected 204, got ${pet.status}`, pet);
      expectAllow(pet, ['GET']);
    },
  },
  {
    id: 'http.request-id',
    description:
      'X-Request-Id is echoed when valid (1-128 of A-Za-z0-9._:-), generated when absent or invalid',
    decision: 'Decision: request ids (X-Request-Id accepted or generated, and echoed)',
    async run(ctx) {
      const given = 'conformance.request-id:01';
      const echoed = await ctx.http.send('/pets?limit=1', { headers: { 'x-request-id': given } });
      check(echoed.headers.get('x-request-id') === given, `X-Request-Id ${given} not echoed`, echoed);
      const generated = await ctx.http.send('/pets?limit=1');
      check(Boolean(generated.headers.get('x-request-id')), 'no X-Request-Id generated', generated);
      const invalid = await ctx.http.send('/pets?limit=1', {
        headers: { 'x-request-id': 'bad id with spaces' },
      });
      const replaced = invalid.headers.get('x-request-id');
      check(
        replaced !== null && replaced !== 'bad id with spaces',
        'an invalid X-Request-Id was echoed',
        invalid,
      );
    },
  },
];
