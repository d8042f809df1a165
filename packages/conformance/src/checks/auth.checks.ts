import { stringifyJson } from '@petstore/schema';
import { type Check, type CheckContext, check, expectError, expectPets, reference } from '../check.js';
import type { Exchange, RequestOptions } from '../http-client.js';

interface Operation {
  name: 'listPets' | 'createPet' | 'getPet';
  /** A request that would succeed with the key. */
  request(ctx: CheckContext): Promise<{ path: string; options: RequestOptions }>;
}

const OPERATIONS: Operation[] = [
  { name: 'listPets', request: async () => ({ path: '/pets', options: {} }) },
  {
    name: 'createPet',
    request: async (ctx) => ({
      path: '/pets',
      options: {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: stringifyJson({ name: ctx.fixtures.uniqueName('auth'), categoryId: 1 }),
      },
    }),
  },
  {
    name: 'getPet',
    request: async (ctx) => ({ path: `/pets/${(await ctx.fixtures.samplePet()).id}`, options: {} }),
  },
];

const MISSING_CHALLENGE = /^bearer realm="petstore"$/i;
const INVALID_CHALLENGE = /^bearer realm="petstore", *error="invalid_token"$/i;

function expectChallenge(exchange: Exchange, pattern: RegExp, expected: string): void {
  const challenge = exchange.headers.get('www-authenticate');
  check(
    challenge !== null && pattern.test(challenge),
    `expected WWW-Authenticate: ${expected}, got ${challenge === null ? 'none' : JSON.stringify(challenge)}`,
    exchange,
  );
}

/** Authorization headers that are not `Bearer <key>`; `{key}` is replaced by the real key. */
const MALFORMED_AUTHORIZATION = [
  'Basic dXNlcjpwYXNzd29yZA==',
  'Bearer',
  'Bearer ',
  'Token {key}',
  '{key}',
  'Bearer {key} extra',
];

const SPEC_401 =
  'Authentication 1-3, Errors / Conditions: a missing or invalid API key is 401 with an Error body';
const DECISION_CHALLENGE =
  'Decision: authentication (code "unauthorized" and WWW-Authenticate: Bearer realm="petstore")';
const DECISION_AUTH_FIRST = 'Decision: authentication (the key is checked before anything else)';

function perOperation(operation: Operation): Check[] {
  const { name } = operation;
  return [
    {
      id: `auth.missing-key.${name}`,
      interfaceDescription: `${name} without Authorization is 401 with an Error body`,
      description: `${name} without Authorization is 401 unauthorized with WWW-Authenticate: Bearer realm="petstore"`,
      spec: SPEC_401,
      decision: DECISION_CHALLENGE,
      async run(ctx) {
        const { path, options } = await operation.request(ctx);
        const exchange = await ctx.http.send(path, { ...options, auth: null });
        expectError(ctx, exchange, 401, 'unauthorized');
        if (reference(ctx)) expectChallenge(exchange, MISSING_CHALLENGE, 'Bearer realm="petstore"');
      },
    },
    {
      id: `auth.wrong-key.${name}`,
      interfaceDescription: `${name} with an unknown API key is 401 with an Error body`,
      description: `${name} with an unknown API key is 401 unauthorized with a Bearer error="invalid_token" challenge`,
      spec: SPEC_401,
      decision: DECISION_CHALLENGE,
      async run(ctx) {
        const { path, options } = await operation.request(ctx);
        const exchange = await ctx.http.send(path, { ...options, auth: 'Bearer not-a-key-conformance-0000' });
        expectError(ctx, exchange, 401, 'unauthorized');
        if (reference(ctx))
          expectChallenge(exchange, INVALID_CHALLENGE, 'Bearer realm="petstore", error="invalid_token"');
      },
    },
    {
      id: `auth.malformed.${name}`,
      interfaceDescription: `${name} with a malformed Authorization header (Basic, bare key, "Bearer" alone, extra words) is 401 with an Error body`,
      description: `${name} with a malformed Authorization header (Basic, bare key, "Bearer" alone, extra words) is 401`,
      spec: `${SPEC_401} (the key travels only as "Bearer <API_KEY>")`,
      decision: DECISION_CHALLENGE,
      async run(ctx) {
        const { path, options } = await operation.request(ctx);
        for (const template of MALFORMED_AUTHORIZATION) {
          const auth = template.replaceAll('{key}', ctx.http.apiKey);
          expectError(ctx, await ctx.http.send(path, { ...options, auth }), 401, 'unauthorized');
        }
      },
    },
  ];
}

export const authChecks: Check[] = [
  ...OPERATIONS.flatMap(perOperation),
  {
    id: 'auth.valid-key',
    description: 'the API key is accepted as "Bearer <key>", the scheme in any case (RFC 9110)',
    spec: 'Authentication 1-2: an HTTP bearer scheme (RFC 6750; scheme names are case-insensitive, RFC 9110 11.1)',
    async run(ctx) {
      for (const scheme of ['Bearer', 'bearer', 'BEARER']) {
        expectPets(ctx, await ctx.http.send('/pets?limit=1', { auth: `${scheme} ${ctx.http.apiKey}` }));
      }
    },
  },
  {
    id: 'auth.before-validation.listPets',
    description: 'listPets checks the key before the query: ?limit=0&offset=5 without a key is 401, not 400',
    decision: DECISION_AUTH_FIRST,
    async run(ctx) {
      expectError(ctx, await ctx.http.send('/pets?limit=0&offset=5', { auth: null }), 401, 'unauthorized');
      expectError(ctx, await ctx.http.send('/pets?status=lost', { auth: 'Bearer wrong-key-000000000' }), 401);
    },
  },
  {
    id: 'auth.before-validation.createPet',
    description:
      'createPet checks the key before the body: malformed JSON, a bad field or text/plain without a key is 401',
    decision: DECISION_AUTH_FIRST,
    async run(ctx) {
      const json = { 'content-type': 'application/json' };
      const bodies: RequestOptions[] = [
        { headers: json, body: '{"name":' },
        { headers: json, body: '{"name":"","categoryId":"x"}' },
        { headers: { 'content-type': 'text/plain' }, body: 'Rex' },
        { headers: json, body: '' },
      ];
      for (const options of bodies) {
        expectError(
          ctx,
          await ctx.http.send('/pets', { ...options, method: 'POST', auth: null }),
          401,
          'unauthorized',
        );
      }
    },
  },
  {
    id: 'auth.before-validation.getPet',
    description:
      'getPet checks the key before the path: /pets/abc and /pets/0 without a key are 401, not 400',
    decision: DECISION_AUTH_FIRST,
    async run(ctx) {
      expectError(ctx, await ctx.http.send('/pets/abc', { auth: null }), 401, 'unauthorized');
      expectError(ctx, await ctx.http.send('/pets/0', { auth: null }), 401, 'unauthorized');
    },
  },
  {
    id: 'auth.before-routing',
    description:
      'without a key, an unknown path or an unsupported method is 401 too: nothing is revealed first',
    decision: DECISION_AUTH_FIRST,
    async run(ctx) {
      expectError(ctx, await ctx.http.send('/no-such-route', { auth: null }), 401, 'unauthorized');
      expectError(ctx, await ctx.http.send('/pets', { method: 'DELETE', auth: null }), 401, 'unauthorized');
    },
  },
];
