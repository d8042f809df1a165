/** The message itself: ambiguous requests and the edge's rules for every request (groups 12 and 13). */
import { gzipSync } from 'node:zlib';
import {
  created,
  type Expectation,
  invalid,
  type Options,
  ok,
  type ProbeKit,
  trpcNewPet,
  unsupported,
} from './kit.js';

export function ambiguousRequestProbes({ rest, trpcGet, trpcPost, apiKey }: ProbeKit): void {
  // 12. Ambiguous requests: what one reader could take one way and another reader another is refused, never
  // resolved silently. Two credentials (Node keeps the first Authorization, a proxy may read the last); query
  // parameters an operation does not take (listPets already refused unknown ones; the others ignored them); a
  // compressed body (it was read as bytes and called "not UTF-8").
  const unauthorized401: Expectation = { status: 401, code: 'unauthorized' };
  const secondKey: Options = { extraHeaders: [['Authorization', 'Bearer some_other_key_0123456789']] };
  rest(
    'ambiguous requests',
    'REST listPets with two Authorization headers',
    'GET',
    '/v1/pets',
    unauthorized401,
    undefined,
    secondKey,
  );
  rest(
    'ambiguous requests',
    'REST createPet with two Authorization headers',
    'POST',
    '/v1/pets',
    unauthorized401,
    '{"name":"two keys","categoryId":1}',
    secondKey,
  );
  rest(
    'ambiguous requests',
    'REST getPet with the same Authorization twice',
    'GET',
    '/v1/pets/1',
    unauthorized401,
    undefined,
    {
      extraHeaders: [['authorization', `Bearer ${apiKey}`]],
    },
  );
  trpcGet(
    'ambiguous requests',
    'tRPC pets.list with two Authorization headers',
    'pets.list',
    '{"json":{}}',
    unauthorized401,
    secondKey,
  );
  rest(
    'ambiguous requests',
    'REST POST /v1/pets?limit=5',
    'POST',
    '/v1/pets?limit=5',
    invalid,
    '{"name":"query","categoryId":1}',
  );
  rest(
    'ambiguous requests',
    'REST POST /v1/pets?name=other',
    'POST',
    '/v1/pets?name=other',
    invalid,
    '{"name":"query","categoryId":1}',
  );
  rest('ambiguous requests', 'REST GET /v1/pets/1?status=sold', 'GET', '/v1/pets/1?status=sold', invalid);
  rest('ambiguous requests', 'REST GET /v1/pets/1?x', 'GET', '/v1/pets/1?x', invalid);
  rest('ambiguous requests', 'REST GET /v1/pets/1? (empty query, allowed)', 'GET', '/v1/pets/1?', {
    status: 200,
  });
  rest(
    'ambiguous requests',
    'REST body with Content-Encoding: gzip',
    'POST',
    '/v1/pets',
    unsupported,
    gzipSync('{"name":"gz","categoryId":1}'),
    {
      extraHeaders: [['Content-Encoding', 'gzip']],
    },
  );
  rest(
    'ambiguous requests',
    'REST plain body labelled Content-Encoding: br',
    'POST',
    '/v1/pets',
    unsupported,
    '{"name":"br","categoryId":1}',
    {
      extraHeaders: [['Content-Encoding', 'br']],
    },
  );
  rest(
    'ambiguous requests',
    'REST Content-Encoding: identity (allowed)',
    'POST',
    '/v1/pets',
    created,
    '{"name":"identity","categoryId":1}',
    {
      extraHeaders: [['Content-Encoding', 'identity']],
      success: { kind: 'pet', name: 'identity', categoryId: 1n },
    },
  );
  const deepArray = `${'['.repeat(30_000)}${']'.repeat(30_000)}`;
  const deepObject = `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`;
  const tooDeep: Expectation = { status: 400, code: 'malformed_json' };
  rest('ambiguous requests', 'REST body nested 30,000 arrays deep', 'POST', '/v1/pets', tooDeep, deepArray);
  rest('ambiguous requests', 'REST body nested 10,000 objects deep', 'POST', '/v1/pets', tooDeep, deepObject);
  trpcPost('ambiguous requests', 'tRPC body nested 10,000 objects deep', 'pets.create', deepObject, tooDeep);
  const listInput = (limit: number) => encodeURIComponent(`{"json":{"limit":${limit}}}`);
  trpcGet('ambiguous requests', 'tRPC GET input given twice', 'pets.list', undefined, invalid, {
    encodedInput: `${listInput(1)}&input=${listInput(3)}`,
  });
  trpcGet('ambiguous requests', 'tRPC GET batch given twice', 'pets.list', undefined, invalid, {
    batch: true,
    encodedInput: `${encodeURIComponent('{"0":{"json":{}}}')}&batch=0`,
  });
  trpcGet(
    'ambiguous requests',
    'tRPC GET input twice, once under the encoded name %69nput',
    'pets.list',
    undefined,
    invalid,
    {
      encodedInput: `${listInput(1)}&%69nput=${listInput(3)}`,
    },
  );
  trpcPost(
    'ambiguous requests',
    'tRPC body with Content-Encoding: gzip',
    'pets.create',
    gzipSync(trpcNewPet('gz')),
    unsupported,
    {
      extraHeaders: [['Content-Encoding', 'gzip']],
    },
  );
}

export function edgeProbes({ rest, add, host, apiKey }: ProbeKit): void {
  // 13. The edge (src/http/edge.ts): every request read once, before REST or tRPC. Ambiguous messages are a 400
  // (never a guess), no limit silently cuts input, 100 Continue only for an acceptable request, every method and
  // target form answered with an Error body.
  const malformedRequest: Expectation = { status: 400, code: 'malformed_request' };
  rest(
    'edge',
    'REST 1,000 empty query pairs before status=pending (nothing dropped)',
    'GET',
    `/v1/pets?${'&'.repeat(1_000)}status=pending&limit=100`,
    { status: 200 },
    undefined,
    { success: { kind: 'pets' } },
  );
  rest(
    'edge',
    'REST 101 query parameters',
    'GET',
    `/v1/pets?${Array.from({ length: 101 }, (_, i) => `x${i}=1`).join('&')}`,
    invalid,
  );
  rest('edge', 'REST limit and %6cimit', 'GET', '/v1/pets?limit=1&%6cimit=2', invalid);
  rest(
    'edge',
    'REST createPet with two Idempotency-Key headers',
    'POST',
    '/v1/pets',
    malformedRequest,
    '{"name":"two keys","categoryId":1}',
    {
      extraHeaders: [
        ['Idempotency-Key', 'k1'],
        ['Idempotency-Key', 'k2'],
      ],
    },
  );
  rest('edge', 'REST two Host headers', 'GET', '/v1/pets', malformedRequest, undefined, {
    extraHeaders: [['Host', 'other.example']],
  });
  rest('edge', 'REST two X-Request-Id headers', 'GET', '/v1/pets', malformedRequest, undefined, {
    extraHeaders: [
      ['X-Request-Id', 'a'],
      ['X-Request-Id', 'b'],
    ],
  });
  // RFC 9112 section 3.2.2: the absolute-form is served as its origin-form, on both transports.
  rest('edge', 'REST absolute-form target', 'GET', `http://${host}/v1/pets`, ok);
  rest(
    'edge',
    'tRPC absolute-form target',
    'GET',
    `http://${host}/v1/trpc/pets.list?input=${encodeURIComponent('{"json":{}}')}`,
    ok,
  );
  rest(
    'edge',
    'REST absolute-form target with userinfo',
    'GET',
    `http://u@${host}/v1/pets`,
    malformedRequest,
  );
  // An authority Express's router cannot parse (it answered its own HTML 404), and a stray `%` (it was served).
  rest(
    'edge',
    'REST absolute-form target, authority with "["',
    'GET',
    'http://a[b/v1/pets',
    malformedRequest,
  );
  rest(
    'edge',
    'REST absolute-form target, authority with a stray "%"',
    'GET',
    'http://a%/v1/pets',
    malformedRequest,
  );
  rest('edge', 'REST GET with a body', 'GET', '/v1/pets', malformedRequest, '{"limit":1}');
  rest(
    'edge',
    'REST 101 header fields',
    'GET',
    '/v1/pets',
    { status: 431, code: 'headers_too_large' },
    undefined,
    { extraHeaders: Array.from({ length: 99 }, (_, i): [string, string] => [`X-Extra-${i}`, 'x']) },
  );
  rest(
    'edge',
    'REST Expect: 100-continue, foo',
    'POST',
    '/v1/pets',
    { status: 417, code: 'expectation_failed' },
    '{"name":"expect","categoryId":1}',
    { extraHeaders: [['Expect', '100-continue, foo']] },
  );
  const chunkedBody = '{"name":"te","categoryId":1}';
  add({
    name: 'REST Transfer-Encoding: gzip, chunked with a plain body',
    defect: 'edge',
    transport: 'rest',
    request: {
      method: 'POST',
      target: '/v1/pets',
      headers: [
        ['Host', host],
        ['Authorization', `Bearer ${apiKey}`],
        ['Content-Type', 'application/json'],
        ['Transfer-Encoding', 'gzip, chunked'],
      ],
      body: Buffer.from(`${chunkedBody.length.toString(16)}\r\n${chunkedBody}\r\n0\r\n\r\n`),
    },
    expect: unsupported,
  });
  add({
    name: 'CONNECT (Node closed the connection without an answer)',
    defect: 'edge',
    transport: 'rest',
    request: { method: 'CONNECT', target: `${host}`, headers: [['Host', host]] },
    // 501: CONNECT's target is an authority, no resource whose methods a 405's Allow could list.
    expect: { status: 501, code: 'not_implemented', byNodeParser: true },
  });
}
