/**
 * fast-check arbitraries for hostile HTTP requests at every route, REST and tRPC: oversized and malformed
 * bodies, deep nesting, wrong types, odd query strings, unknown methods, traversal and encoded ids, header
 * abuse. Each case says which family it belongs to, so the fuzz report can say where Node's own parser
 * answered instead of the app.
 */
import fc from 'fast-check';
import type { RawRequest } from './raw-http.js';

export type RequestFamily = 'body' | 'query' | 'path' | 'method' | 'headers' | 'trpc';

export interface HostileCase {
  family: RequestFamily;
  /** Short human label of what is abusive about it, for reports and counterexamples. */
  label: string;
  /** Where the app's answer is a tRPC envelope rather than a bare Error body. */
  transport: 'rest' | 'trpc';
  request: RawRequest;
}

const BODY_LIMIT = 64 * 1024;

// Building blocks ------------------------------------------------------------------------------------

const validPetIds = fc.oneof(fc.constant('1'), fc.bigInt({ min: 1n, max: (1n << 63n) - 1n }).map(String));

/** Path segments that must never name a file, escape the route, or reach the database as anything but a 400/404. */
const hostileIdSegment = fc.oneof(
  fc.constantFrom(
    '..%2f..',
    '..%2F..%2F..%2Fetc%2Fpasswd',
    '%2e%2e',
    '%2e%2e%2f%2e%2e',
    '..',
    '.',
    '%00',
    '1%00',
    '%',
    '%zz',
    '%c3%28',
    '%ff%fe',
    '%ef%bf%bd',
    '0',
    '-1',
    '1.5',
    '1e3',
    '0x10',
    '+1',
    '%201',
    '1%20',
    '9223372036854775807',
    '9223372036854775808',
    '99999999999999999999999999999999',
    '%D9%A1%D9%A2%D9%A3', // Arabic-Indic digits
    'null',
    'undefined',
    '__proto__',
    'constructor',
    'NaN',
    'Infinity',
    '1;DROP%20TABLE%20pets',
    "1'%20OR%20'1'='1",
  ),
  fc.integer({ min: 100, max: 6000 }).map((length) => '9'.repeat(length)), // overlong
  fc.string({ unit: 'grapheme', maxLength: 40 }).map(encodeURIComponent),
  fc
    .string({ unit: 'binary', maxLength: 20 })
    .map((text) =>
      [...Buffer.from(text, 'utf8')].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join(''),
    ),
);

const hostilePaths = fc.oneof(
  hostileIdSegment.map((segment) => `/v1/pets/${segment}`),
  fc.tuple(validPetIds, hostileIdSegment).map(([id, extra]) => `/v1/pets/${id}/${extra}`),
  fc.constantFrom(
    '/v1/pets/',
    '/v1//pets',
    '/v1/pets//1',
    '/v1/pets;jsessionid=1',
    '/V1/PETS',
    '/v1/Pets',
    '/v1/pets/../pets',
    '/v1/pets/..%2f..%2f..%2fpackage.json',
    '/v1/./pets',
    '/v1/%2e%2e/%2e%2e/etc/passwd',
    '/../../etc/passwd',
    '/v1/pets%00',
    '/v1/pets%2f1',
    '/v1',
    '/v1/',
    '/',
    '//',
    '*',
    'http://evil.example/v1/pets',
    '/store/orders',
    '/v1/store/orders',
    '/v1/trpc',
    '/v1/trpc/',
    '/v1/trpc/..%2f..%2fpets',
    '/v1/trpc/__proto__',
    '/v1/trpc/pets.__proto__',
    '/v1/trpc/pets.constructor',
    '/v1/trpc/constructor.prototype',
    '/v1/trpc/pets.create.x',
    '/healthz',
    '/readyz',
    '/healthz/..%2f',
  ),
);

/** Query strings: repeated parameters, unicode, broken percent-encoding, pollution keys, very long. */
const hostileQuery = fc.oneof(
  fc.constantFrom(
    'limit=1&limit=2',
    'limit=',
    'limit',
    '=1',
    '&&&',
    'limit=%',
    'limit=%zz',
    'limit=%c3%28',
    'limit=1%00',
    'limit=0',
    'limit=101',
    'limit=1e1',
    'limit=0x10',
    'limit=%EF%BC%91', // fullwidth digit one
    'limit[]=1',
    'limit[a]=1',
    'status=AVAILABLE',
    'status=available&status=sold',
    'status[]=sold',
    '__proto__=1',
    '__proto__[limit]=1',
    'constructor[prototype][x]=1',
    'offset=20',
    'cursor=abc',
    'limit=5;status=sold',
  ),
  fc
    .array(
      fc.tuple(
        fc.oneof(fc.constantFrom('limit', 'status', 'offset', '__proto__', ''), fc.string({ maxLength: 12 })),
        fc.oneof(fc.string({ unit: 'grapheme', maxLength: 30 }), fc.integer().map(String)),
      ),
      { maxLength: 12 },
    )
    .map((pairs) =>
      pairs.map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`).join('&'),
    ),
  fc.integer({ min: 1, max: 3000 }).map((count) => Array.from({ length: count }, () => 'limit=1').join('&')),
  fc.integer({ min: 1000, max: 15_000 }).map((length) => `status=${'a'.repeat(length)}`),
  // Past Node's 16 KiB header limit: Node answers 431 itself.
  fc.integer({ min: 17_000, max: 40_000 }).map((length) => `limit=${'1'.repeat(length)}`),
);

/** Nested arrays or objects, deep enough to overflow a recursive parser or validator, within 64 KiB. */
const deepNesting = fc
  .tuple(fc.constantFrom(100, 1_000, 10_000, 32_000), fc.constantFrom('array', 'object', 'in-field'))
  .map(([depth, shape]) => {
    if (shape === 'array')
      return { label: `${depth} nested arrays`, text: `${'['.repeat(depth)}${']'.repeat(depth)}` };
    if (shape === 'object') {
      const d = Math.min(depth, 6_000); // `{"a":` is 5 bytes
      return { label: `${d} nested objects`, text: `${'{"a":'.repeat(d)}1${'}'.repeat(d)}` };
    }
    const d = Math.min(depth, 30_000);
    return {
      label: `name holding ${d} nested arrays`,
      text: `{"name":${'['.repeat(d)}${']'.repeat(d)},"categoryId":1}`,
    };
  });

const wrongTypedField = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    '\ud800',
    'x'.repeat(256),
    -1,
    0,
    1.5,
    1e308,
    -0,
    '1',
    '9223372036854775808',
    true,
    null,
    [],
    {},
  ),
);

/** NewPet-shaped objects with wrong types, extra and missing fields; serialised as JSON text. */
const wrongNewPet = fc
  .record(
    {
      name: wrongTypedField,
      categoryId: wrongTypedField,
      status: wrongTypedField,
      id: wrongTypedField,
      __proto__: fc.jsonValue({ maxDepth: 1 }),
      extra: wrongTypedField,
    },
    { requiredKeys: [] },
  )
  .map((value) => JSON.stringify(value) ?? 'null');

/** Texts that are not JSON: truncations, garbage, JSON5-isms, duplicated keys, numbers past int64. */
const malformedJson = fc.oneof(
  fc.constantFrom(
    '{',
    '{"name":',
    '{"name":"a",}',
    "{'name':'a'}",
    '{name:"a"}',
    '[1,2',
    'NaN',
    '{"name":"a","categoryId":1} trailing',
    '{"name":"a","name":"b","categoryId":1}',
    '{"name":"a","categoryId":99999999999999999999999}',
    '{"name":"a","categoryId":1e400}',
    '{"name":"a","categoryId":-9223372036854775809}',
    '\ufeff{"name":"a","categoryId":1}',
    '"just a string"',
    'null',
    '0',
    '{"name":"\\ud800","categoryId":1}',
    '{"name":"a\\u0000b","categoryId":1}',
  ),
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.json({ maxDepth: 4 }).map((text) => text.slice(0, Math.max(1, text.length - 1))),
);

const contentTypes = fc.oneof(
  { weight: 6, arbitrary: fc.constant('application/json') },
  fc.constantFrom(
    undefined,
    '',
    'text/plain',
    'application/json; charset=latin1',
    'application/json; charset=utf-16',
    'application/json; charset="utf-8"',
    'application/json;;;',
    'application/vnd.petstore+json',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'APPLICATION/JSON',
    'application/json, text/plain',
    ';',
    'application/json; charset=utf-8; charset=latin1',
    `application/json; x=${'y'.repeat(4000)}`,
  ),
);

// Families -----------------------------------------------------------------------------------------

interface Parts {
  family: RequestFamily;
  label: string;
  method: string;
  target: string;
  headers?: [string, string][];
  body?: Buffer;
  contentType?: string | undefined;
  /** Leave Authorization out. */
  anonymous?: boolean;
  incomplete?: boolean;
}

const bodyFamily: fc.Arbitrary<Parts> = fc
  .tuple(
    fc.constantFrom('/v1/pets', '/v1/trpc/pets.create'),
    fc.oneof(
      wrongNewPet.map((text) => ({ label: 'wrong types', body: Buffer.from(text) })),
      malformedJson.map((text) => ({ label: 'malformed JSON', body: Buffer.from(text, 'utf8') })),
      deepNesting.map(({ label, text }) => ({ label, body: Buffer.from(text) })),
      fc.uint8Array({ maxLength: 300 }).map((bytes) => ({ label: 'random bytes', body: Buffer.from(bytes) })),
      fc
        .constantFrom(BODY_LIMIT - 20, BODY_LIMIT, BODY_LIMIT + 1, 256 * 1024, 2 * 1024 * 1024)
        .map((size) => ({
          label: `${size}-byte body`,
          body: Buffer.from(`{"name":"${'n'.repeat(Math.max(0, size - 30))}","categoryId":1}`),
        })),
      fc.constant({ label: 'empty body', body: Buffer.alloc(0) }),
    ),
    contentTypes,
    fc.boolean(),
  )
  .map(([target, { label, body }, contentType, wrapForTrpc]) => ({
    family: 'body',
    label: `POST ${target}: ${label}`,
    method: 'POST',
    target,
    // tRPC takes `{"json": <input>}` (superjson); sometimes send that envelope, sometimes the bare text.
    body:
      target.includes('trpc') && wrapForTrpc && body.length < BODY_LIMIT
        ? Buffer.concat([
            Buffer.from('{"json":'),
            body.length === 0 ? Buffer.from('null') : body,
            Buffer.from('}'),
          ])
        : body,
    contentType,
  }));

const queryFamily: fc.Arbitrary<Parts> = fc
  .tuple(fc.constantFrom('/v1/pets', '/v1/pets/1', '/v1/trpc/pets.list'), hostileQuery)
  .map(([path, query]) => ({
    family: 'query',
    label: `GET ${path}?${query.slice(0, 40)}${query.length > 40 ? `… (${query.length} chars)` : ''}`,
    method: 'GET',
    target: `${path}?${query}`,
  }));

const pathFamily: fc.Arbitrary<Parts> = fc
  .tuple(hostilePaths, fc.constantFrom('GET', 'GET', 'POST', 'HEAD', 'OPTIONS'))
  .map(([target, method]) => ({
    family: 'path',
    label: `${method} ${target.slice(0, 60)}`,
    method,
    target,
    ...(method === 'POST' ? { body: Buffer.from('{"name":"p","categoryId":1}') } : {}),
  }));

const methodFamily: fc.Arbitrary<Parts> = fc
  .tuple(
    fc.constantFrom(
      'PUT',
      'PATCH',
      'DELETE',
      'OPTIONS',
      'HEAD',
      'TRACE',
      'PROPFIND',
      'MKCOL',
      'SEARCH',
      'PURGE',
      'LINK',
      'QUERY',
      'get', // lower case: not a method token Node knows
      'FOO',
      'GETX',
      'G ET',
    ),
    fc.constantFrom(
      '/v1/pets',
      '/v1/pets/1',
      '/v1/trpc/pets.list',
      '/v1/trpc/pets.create',
      '/v1/nope',
      '/healthz',
    ),
    fc.boolean(),
  )
  .map(([method, target, withBody]) => ({
    family: 'method',
    label: `${method} ${target}`,
    method,
    target,
    ...(withBody ? { body: Buffer.from('{"name":"m","categoryId":1}') } : {}),
  }));

const authorizationValues = fc.oneof(
  fc.constantFrom(
    '',
    'Bearer',
    'Bearer ',
    'bearer  KEY',
    'Basic dXNlcjpwYXNz',
    'Bearer KEY KEY',
    'Bearer KEY\t',
    'Bearer wrong-key-0123456789abcdef',
    `Bearer ${'k'.repeat(10_000)}`,
    'Bearer ключ-0123456789abcdef',
  ),
  fc.string({ unit: 'grapheme-ascii', maxLength: 80 }).map((text) => `Bearer ${text}`),
);

const headerFamily: fc.Arbitrary<Parts> = fc
  .tuple(
    fc.oneof(
      fc.integer({ min: 50, max: 1_500 }).map((count) => ({
        label: `${count} extra headers`,
        headers: Array.from({ length: count }, (_, i) => [`X-Fuzz-${i}`, `v${i}`] as [string, string]),
      })),
      fc.integer({ min: 1_000, max: 40_000 }).map((length) => ({
        label: `${length}-char header value`,
        headers: [['X-Big', 'b'.repeat(length)]] as [string, string][],
      })),
      fc.tuple(authorizationValues, authorizationValues).map(([first, second]) => ({
        label: 'two Authorization headers',
        headers: [
          ['Authorization', first],
          ['Authorization', second],
        ] as [string, string][],
        anonymous: true,
      })),
      authorizationValues.map((value) => ({
        label: 'odd Authorization',
        headers: [['Authorization', value]] as [string, string][],
        anonymous: true,
      })),
      fc.constantFrom(
        { label: 'invalid header name', headers: [['Bad Header', 'x']] as [string, string][] },
        { label: 'control character in value', headers: [['X-Ctl', 'a\u0001b']] as [string, string][] },
        { label: 'bare CR in value', headers: [['X-Ctl', 'a\rb']] as [string, string][] },
        { label: 'obsolete line folding', headers: [['X-Fold', 'a\r\n b']] as [string, string][] },
        { label: 'no Host', headers: [] as [string, string][], noHost: true },
        {
          label: 'two Host headers',
          headers: [['Host', 'evil.example']] as [string, string][],
        },
        {
          label: 'odd X-Request-Id',
          headers: [['X-Request-Id', '<script>/../\u00e9']] as [string, string][],
        },
        { label: 'long X-Request-Id', headers: [['X-Request-Id', 'r'.repeat(5000)]] as [string, string][] },
        { label: 'Expect: 100-continue', headers: [['Expect', '100-continue']] as [string, string][] },
        { label: 'Expect: garbage', headers: [['Expect', 'teapot']] as [string, string][] },
        { label: 'Origin header', headers: [['Origin', 'https://evil.example']] as [string, string][] },
        {
          label: 'Content-Encoding gzip on plain body',
          headers: [['Content-Encoding', 'gzip']] as [string, string][],
          post: true,
        },
        {
          label: 'Content-Encoding: unknown',
          headers: [['Content-Encoding', 'br, zstd, x']] as [string, string][],
          post: true,
        },
        {
          label: 'Transfer-Encoding and Content-Length',
          headers: [['Transfer-Encoding', 'chunked']] as [string, string][],
          post: true,
        },
        {
          label: 'Content-Length: -1',
          headers: [['Content-Length', '-1']] as [string, string][],
          rawLength: true,
        },
        {
          label: 'Content-Length: abc',
          headers: [['Content-Length', 'abc']] as [string, string][],
          rawLength: true,
        },
        {
          label: 'two different Content-Lengths',
          headers: [
            ['Content-Length', '5'],
            ['Content-Length', '6'],
          ] as [string, string][],
          rawLength: true,
        },
        {
          label: 'Content-Length larger than the body',
          headers: [['Content-Length', '1000']] as [string, string][],
          rawLength: true,
          incomplete: true,
        },
        {
          label: 'Content-Length past the limit, no body',
          headers: [['Content-Length', '99999999999']] as [string, string][],
          rawLength: true,
          incomplete: true,
        },
        {
          label: 'Content-Length shorter than the body',
          headers: [['Content-Length', '3']] as [string, string][],
          rawLength: true,
        },
        {
          label: 'bad chunked encoding',
          headers: [['Transfer-Encoding', 'chunked']] as [string, string][],
          rawLength: true,
          chunkedGarbage: true,
        },
      ),
    ),
    fc.constantFrom('/v1/pets', '/v1/pets/1', '/v1/trpc/pets.list', '/v1/trpc/pets.create'),
  )
  .map(([abuse, target]) => {
    const spec = abuse as {
      label: string;
      headers: [string, string][];
      anonymous?: boolean;
      noHost?: boolean;
      post?: boolean;
      rawLength?: boolean;
      incomplete?: boolean;
      chunkedGarbage?: boolean;
    };
    const post = spec.post || spec.rawLength || target.endsWith('create');
    const body = spec.chunkedGarbage
      ? Buffer.from('zz\r\n{"name"\r\n0\r\n\r\n')
      : post
        ? Buffer.from('{"name":"h","categoryId":1}')
        : undefined;
    return {
      family: 'headers',
      label: `${spec.label} on ${target}`,
      method: post ? 'POST' : 'GET',
      target,
      headers: spec.headers,
      ...(body ? { body } : {}),
      contentType: 'application/json',
      ...(spec.anonymous ? { anonymous: true } : {}),
      ...(spec.noHost ? { noHost: true } : {}),
      ...(spec.rawLength ? { rawLength: true } : {}),
      ...(spec.incomplete ? { incomplete: true } : {}),
    } as Parts;
  });

/** tRPC specifics: broken `input`, batches, superjson meta abuse, unknown procedures. */
const trpcFamily: fc.Arbitrary<Parts> = fc
  .oneof(
    fc.json({ maxDepth: 3 }).map((input) => `/v1/trpc/pets.list?input=${encodeURIComponent(input)}`),
    fc.string({ maxLength: 60 }).map((input) => `/v1/trpc/pets.get?input=${encodeURIComponent(input)}`),
    fc.constantFrom(
      '/v1/trpc/pets.list?input=%7B',
      '/v1/trpc/pets.list?input=%',
      '/v1/trpc/pets.list?input=1&input=2',
      '/v1/trpc/pets.get?input={"json":{"petId":"1"},"meta":{"values":{"petId":["bigint"]}}}',
      '/v1/trpc/pets.get?input={"json":{"petId":"x"},"meta":{"values":{"petId":["bigint"]}}}',
      '/v1/trpc/pets.get?input={"json":{"petId":"1"},"meta":{"values":{"petId":["custom","x"]}}}',
      '/v1/trpc/pets.get?input={"json":{"petId":1},"meta":{"values":{"__proto__":["bigint"]}}}',
      '/v1/trpc/pets.get?input={"json":{"petId":1},"meta":{"referentialEqualities":{"petId":["__proto__"]}}}',
      '/v1/trpc/pets.get?input={"json":{"a":{}},"meta":{"values":{"a":[["class","X"]]}}}',
      '/v1/trpc/pets.list,pets.get?batch=1&input={"0":{"json":{}},"1":{"json":{"petId":"x"}}}',
      '/v1/trpc/pets.list,pets.list?batch=1&input=[]',
      '/v1/trpc/pets.list?batch=1&input=null',
      '/v1/trpc/pets.list?batch=abc',
      '/v1/trpc/pets.create?input={}',
      '/v1/trpc/pets.list,pets.create?batch=1',
      '/v1/trpc/nope',
      '/v1/trpc/pets',
    ),
    fc
      .integer({ min: 2, max: 400 })
      .map((count) => `/v1/trpc/${Array(count).fill('pets.list').join(',')}?batch=1&input={}`),
  )
  .map((target) => ({
    family: 'trpc',
    label: `GET ${target.slice(0, 70)}`,
    method: 'GET',
    target: target.replace(/[{}"[\] ]/g, (char) => encodeURIComponent(char)),
  }));

/** Any hostile request at any route; `apiKey` is sent (as `Bearer`) unless the case abuses Authorization. */
export function hostileRequestArbitrary(host: string, apiKey: string): fc.Arbitrary<HostileCase> {
  return fc
    .oneof(bodyFamily, queryFamily, pathFamily, methodFamily, headerFamily, trpcFamily)
    .map((parts) => toCase(parts, host, apiKey));
}

function toCase(parts: Parts, host: string, apiKey: string): HostileCase {
  const extra = parts as Parts & { noHost?: boolean; rawLength?: boolean };
  const headers: [string, string][] = [];
  if (!extra.noHost) headers.push(['Host', host]);
  if (!parts.anonymous) headers.push(['Authorization', `Bearer ${apiKey}`]);
  if (parts.body !== undefined && parts.contentType !== undefined)
    headers.push(['Content-Type', parts.contentType]);
  if (parts.body !== undefined && !extra.rawLength)
    headers.push(['Content-Length', String(parts.body.length)]);
  for (const header of parts.headers ?? []) {
    headers.push(header[1].includes('KEY') ? [header[0], header[1].replaceAll('KEY', apiKey)] : header);
  }
  return {
    family: parts.family,
    label: parts.label,
    transport: parts.target.startsWith('/v1/trpc') ? 'trpc' : 'rest',
    request: {
      method: parts.method,
      target: parts.target,
      headers,
      ...(parts.body !== undefined ? { body: parts.body } : {}),
      ...(parts.incomplete ? { incomplete: true } : {}),
    },
  };
}

/** Fixed cases every run includes, whatever the seed: the ones named in the issue. */
export function mandatoryCases(host: string, apiKey: string): HostileCase[] {
  const cases: Parts[] = [
    {
      family: 'body',
      label: '32k nested arrays (64 KiB)',
      method: 'POST',
      target: '/v1/pets',
      body: Buffer.from(`${'['.repeat(32_000)}${']'.repeat(32_000)}`),
      contentType: 'application/json',
    },
    {
      family: 'body',
      label: '32k nested arrays to tRPC',
      method: 'POST',
      target: '/v1/trpc/pets.create',
      body: Buffer.from(`{"json":${'['.repeat(32_000)}${']'.repeat(32_000)}}`),
      contentType: 'application/json',
    },
    {
      family: 'trpc',
      label: 'deeply nested tRPC query input',
      method: 'GET',
      target: `/v1/trpc/pets.list?input=${'%5B'.repeat(2_000)}${'%5D'.repeat(2_000)}`,
    },
    {
      family: 'body',
      label: '1 MiB body',
      method: 'POST',
      target: '/v1/pets',
      body: Buffer.alloc(1024 * 1024, 0x20),
      contentType: 'application/json',
    },
    { family: 'path', label: 'traversal', method: 'GET', target: '/v1/pets/..%2f..' },
    { family: 'path', label: 'NUL', method: 'GET', target: '/v1/pets/%00' },
    { family: 'path', label: 'overlong id', method: 'GET', target: `/v1/pets/${'9'.repeat(5000)}` },
    { family: 'method', label: 'unknown method', method: 'FOO', target: '/v1/pets' },
    {
      family: 'headers',
      label: 'duplicated Authorization',
      method: 'GET',
      target: '/v1/pets',
      headers: [
        ['Authorization', 'Bearer KEY'],
        ['Authorization', 'Bearer wrong-key-0123456789abcdef'],
      ],
      anonymous: true,
    },
  ];
  return cases.map((parts) => toCase(parts, host, apiKey));
}
