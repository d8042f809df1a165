/**
 * The hostile probes: fixed requests, each with the answer the API must give, one group per defect an outside
 * review found by probing a running API (and fixed since), each group sampling the rule that fixed it rather
 * than only the review's examples. `probes.scenario.ts` sends them over raw HTTP to the real API in a child
 * process and checks every answer. No vitest import: the report script uses this too.
 */
import { gzipSync } from 'node:zlib';
import type { ErrorCode } from '@petstore/schema';
import type { RawRequest } from './raw-http.js';

/** Which finding of the review a probe samples. */
export type Defect =
  | 'prototype names'
  | 'unauthenticated batch'
  | 'batch size'
  | 'inexact numbers'
  | 'bigint text'
  | 'invalid utf-8'
  | '__proto__ key'
  | 'media type'
  | 'plain tRPC input'
  | 'name length'
  | 'duplicate keys'
  | 'ambiguous requests'
  | 'edge';

export interface Expectation {
  status: number;
  /** The Error code, for an error status (REST: the body; tRPC: `error.data.error`). */
  code?: ErrorCode;
  /** Refused at the HTTP parser, before the app: no X-Request-Id, an Error body written by the server. */
  byNodeParser?: boolean;
  /** Largest accepted body, in bytes (an error about a 1,000-call batch must stay small). */
  maxBytes?: number;
}

export interface Probe {
  name: string;
  defect: Defect;
  /** How errors are written: the Error body (REST, /docs) or tRPC's envelope with `error.data.error`. */
  transport: 'rest' | 'trpc';
  request: RawRequest;
  expect: Expectation;
  /** Checks of a success that need the decoded value (a Pet, a batch): see probes.scenario.ts. */
  success?: SuccessCheck;
}

/** What a 2xx must carry. */
export type SuccessCheck =
  | { kind: 'pet'; name?: string; categoryId?: bigint }
  | { kind: 'pets' }
  | { kind: 'batch'; calls: number };

// Request builders ----------------------------------------------------------------------------------------------

interface Options {
  /** Leave Authorization out. */
  anonymous?: boolean;
  /** Send this Authorization instead of the right key. */
  authorization?: string;
  /** Content-Type of a body; null: none. Default application/json. */
  contentType?: string | null;
  /** More header lines, sent after the others (a name may repeat one already sent). */
  extraHeaders?: [string, string][];
}

/** The request, with Host, Authorization (unless anonymous), Content-Type and Content-Length. */
function raw(
  method: string,
  target: string,
  body: Buffer | undefined,
  options: Options,
  host: string,
  apiKey: string,
): RawRequest {
  const headers: [string, string][] = [['Host', host]];
  if (options.authorization !== undefined) headers.push(['Authorization', options.authorization]);
  else if (!options.anonymous) headers.push(['Authorization', `Bearer ${apiKey}`]);
  if (body !== undefined) {
    const contentType = options.contentType === undefined ? 'application/json' : options.contentType;
    if (contentType !== null) headers.push(['Content-Type', contentType]);
    headers.push(['Content-Length', String(body.length)]);
  }
  headers.push(...(options.extraHeaders ?? []));
  return { method, target, headers, ...(body === undefined ? {} : { body }) };
}

const bytes = (body: string | Buffer) => (typeof body === 'string' ? Buffer.from(body, 'utf8') : body);

/** JSON text for a tRPC create of `name` with categoryId written as a superjson bigint (`"12"`). */
const trpcNewPet = (name: string, categoryId = '1') =>
  `{"json":{"name":${JSON.stringify(name)},"categoryId":"${categoryId}"},"meta":{"values":{"categoryId":["bigint"]}}}`;

/** `count` calls of `procedure`, the path of a batch. */
const batchPath = (procedure: string, count: number) => Array(count).fill(procedure).join(',');

/** A batch input `{"0": envelope, "1": envelope, ...}`. */
const batchInput = (count: number, envelope: (index: number) => string) =>
  `{${Array.from({ length: count }, (_, index) => `"${index}":${envelope(index)}`).join(',')}}`;

const PROTOTYPE_NAMES = [
  'constructor',
  '__proto__',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'isPrototypeOf',
  'propertyIsEnumerable',
  'toLocaleString',
  '__defineGetter__',
  '__lookupSetter__',
];

/** Every probe, in the order they are sent. */
export function hostileProbes(host: string, apiKey: string): Probe[] {
  const probes: Probe[] = [];
  const add = (probe: Probe) => probes.push(probe);

  const rest = (
    defect: Defect,
    name: string,
    method: string,
    target: string,
    expect: Expectation,
    body?: string | Buffer,
    options: Options & { success?: SuccessCheck } = {},
  ) =>
    add({
      name,
      defect,
      transport: 'rest',
      request: raw(method, target, body === undefined ? undefined : bytes(body), options, host, apiKey),
      expect,
      ...(options.success ? { success: options.success } : {}),
    });
  const trpcGet = (
    defect: Defect,
    name: string,
    path: string,
    input: string | undefined,
    expect: Expectation,
    options: Options & { batch?: boolean; success?: SuccessCheck; encodedInput?: string } = {},
  ) => {
    const query = [
      ...(options.batch ? ['batch=1'] : []),
      ...(options.encodedInput !== undefined
        ? [`input=${options.encodedInput}`]
        : input !== undefined
          ? [`input=${encodeURIComponent(input)}`]
          : []),
    ].join('&');
    add({
      name,
      defect,
      transport: 'trpc',
      request: raw(
        'GET',
        `/v1/trpc/${path}${query === '' ? '' : `?${query}`}`,
        undefined,
        options,
        host,
        apiKey,
      ),
      expect,
      ...(options.success ? { success: options.success } : {}),
    });
  };
  const trpcPost = (
    defect: Defect,
    name: string,
    path: string,
    body: string | Buffer,
    expect: Expectation,
    options: Options & { batch?: boolean; success?: SuccessCheck } = {},
  ) =>
    add({
      name,
      defect,
      transport: 'trpc',
      request: raw(
        'POST',
        `/v1/trpc/${path}${options.batch ? '?batch=1' : ''}`,
        bytes(body),
        options,
        host,
        apiKey,
      ),
      expect,
      ...(options.success ? { success: options.success } : {}),
    });

  const notFound: Expectation = { status: 404, code: 'route_not_found' };
  const invalid: Expectation = { status: 400, code: 'validation_failed' };
  const malformed: Expectation = { status: 400, code: 'malformed_json' };
  const unauthorized: Expectation = { status: 401, code: 'unauthorized', maxBytes: 1_000 };
  const unsupported: Expectation = { status: 415, code: 'unsupported_media_type' };
  const created: Expectation = { status: 201 };
  const ok: Expectation = { status: 200 };

  // 1. Names of Object.prototype's members used as keys of a lookup table: /docs/assets/constructor was a 500.
  for (const name of PROTOTYPE_NAMES) {
    rest('prototype names', `docs asset ${name}`, 'GET', `/docs/assets/${name}`, notFound, undefined, {
      anonymous: true,
    });
  }
  rest('prototype names', 'docs asset %5F%5Fproto%5F%5F', 'GET', '/docs/assets/%5F%5Fproto%5F%5F', notFound);
  rest('prototype names', 'docs asset unknown.css', 'GET', '/docs/assets/unknown.css', notFound);
  rest('prototype names', 'docs asset swagger-ui.css (control)', 'GET', '/docs/assets/swagger-ui.css', {
    status: 200,
  });
  for (const path of [
    'pets.constructor',
    'pets.__proto__',
    'pets.toString',
    'constructor',
    '__proto__.list',
  ]) {
    trpcGet('prototype names', `tRPC procedure ${path}`, path, '{"json":{}}', notFound);
  }
  rest('prototype names', 'REST /v1/pets/constructor', 'GET', '/v1/pets/constructor', invalid);
  rest('prototype names', 'REST /v1/constructor', 'GET', '/v1/constructor', notFound);
  for (const key of ['constructor', 'toString', '__proto__']) {
    rest('prototype names', `REST query ?${key}=1`, 'GET', `/v1/pets?${key}=1`, invalid);
  }
  rest(
    'prototype names',
    'REST body field "constructor"',
    'POST',
    '/v1/pets',
    invalid,
    '{"name":"p","categoryId":1,"constructor":{"prototype":{"x":1}}}',
  );
  trpcGet(
    'prototype names',
    'tRPC batch input key "constructor"',
    'pets.list',
    '{"constructor":{"json":{}}}',
    invalid,
    {
      batch: true,
    },
  );

  // 2. A batch without a key: 401 in one small error, the key checked once per HTTP request before any parsing.
  trpcGet(
    'unauthenticated batch',
    'GET 1,000 x pets.list, no key',
    batchPath('pets.list', 1_000),
    undefined,
    unauthorized,
    {
      anonymous: true,
      batch: true,
    },
  );
  trpcGet(
    'unauthenticated batch',
    'GET 1,000 x pets.list with inputs, no key',
    batchPath('pets.list', 1_000),
    batchInput(100, () => '{"json":{}}'),
    unauthorized,
    { anonymous: true, batch: true },
  );
  trpcGet(
    'unauthenticated batch',
    'GET 1,000 x pets.list, wrong key',
    batchPath('pets.list', 1_000),
    undefined,
    unauthorized,
    { batch: true, authorization: 'Bearer wrong-key-0123456789abcdef' },
  );
  trpcGet(
    'unauthenticated batch',
    'GET 10 x pets.list, no key',
    batchPath('pets.list', 10),
    undefined,
    unauthorized,
    {
      anonymous: true,
      batch: true,
    },
  );
  trpcGet(
    'unauthenticated batch',
    'GET 1,000 x unknown procedure, no key',
    batchPath('pets.nope', 1_000),
    undefined,
    unauthorized,
    {
      anonymous: true,
      batch: true,
    },
  );
  trpcGet(
    'unauthenticated batch',
    'GET 1,560 x pets.list (15.6 KB URL), no key',
    batchPath('pets.list', 1_560),
    undefined,
    unauthorized,
    {
      anonymous: true,
      batch: true,
    },
  );
  trpcPost(
    'unauthenticated batch',
    'POST 1,000 x pets.create, no key',
    `${batchPath('pets.create', 1_000)}`,
    batchInput(1_000, () => '{"json":{"name":"n","categoryId":1}}'),
    unauthorized,
    { anonymous: true, batch: true },
  );
  trpcPost(
    'unauthenticated batch',
    'POST pets.create as multipart, no key',
    'pets.create',
    '--x--',
    unauthorized,
    {
      anonymous: true,
      contentType: 'multipart/form-data; boundary=x',
    },
  );

  // 3. Batch size: at most 10 calls, more is 400 validation_failed before any call runs (and nothing written).
  const createEnvelope = (index: number) => trpcNewPet(`batch pet ${index}`, String(index + 1));
  trpcPost(
    'batch size',
    'POST batch of 10 creates',
    batchPath('pets.create', 10),
    batchInput(10, createEnvelope),
    ok,
    {
      batch: true,
      success: { kind: 'batch', calls: 10 },
    },
  );
  trpcPost(
    'batch size',
    'POST batch of 11 creates',
    batchPath('pets.create', 11),
    batchInput(11, createEnvelope),
    invalid,
    {
      batch: true,
    },
  );
  const bigCreateBatch = batchInput(1_300, () => '{"json":{"name":"n","categoryId":1}}');
  trpcPost(
    'batch size',
    'POST batch of 1,300 creates (review: ~1,500)',
    batchPath('pets.create', 1_300),
    bigCreateBatch,
    invalid,
    {
      batch: true,
    },
  );
  trpcPost(
    'batch size',
    'POST batch of 1,400 creates: URL over 16 KiB',
    batchPath('pets.create', 1_400),
    '{}',
    { status: 431, code: 'headers_too_large', byNodeParser: true },
    { batch: true },
  );
  trpcGet(
    'batch size',
    'GET batch of 10 x pets.list',
    batchPath('pets.list', 10),
    batchInput(10, () => '{"json":{"limit":1}}'),
    ok,
    {
      batch: true,
      success: { kind: 'batch', calls: 10 },
    },
  );
  trpcGet('batch size', 'GET batch of 11 x pets.list', batchPath('pets.list', 11), undefined, invalid, {
    batch: true,
  });
  trpcGet(
    'batch size',
    'GET batch of 1,000 x pets.list with a key',
    batchPath('pets.list', 1_000),
    undefined,
    invalid,
    {
      batch: true,
    },
  );
  trpcGet(
    'batch size',
    'GET batch of 2 with an input for call 5',
    batchPath('pets.list', 2),
    '{"5":{"json":{}}}',
    invalid,
    { batch: true },
  );
  trpcGet('batch size', 'GET batch=1 of one call', 'pets.list', '{"0":{"json":{"limit":1}}}', ok, {
    batch: true,
    success: { kind: 'batch', calls: 1 },
  });

  // 4. Numbers: exact integers in any notation are that integer; anything JSON.parse would change is refused.
  const categoryIdBody = (text: string) => `{"name":"number probe","categoryId":${text}}`;
  for (const text of [
    '4.0000000000000000001',
    '1e-400',
    '-1e-400',
    '4.5',
    '1e-7',
    '5e-324',
    '9007199254740993.5',
    '9223372036854775808',
    '-9223372036854775809',
    '1e19',
    '1e400',
  ]) {
    rest('inexact numbers', `REST categoryId ${text}`, 'POST', '/v1/pets', invalid, categoryIdBody(text));
  }
  for (const [text, value] of [
    ['1.0', 1n],
    ['1e3', 1000n],
    ['1E3', 1000n],
    ['7000e-3', 7n],
    ['4.00000000000000000000', 4n],
    ['0.0000000000000000000001e22', 1n],
    ['-0', 0n],
    ['9007199254740993', 9007199254740993n],
    ['9.223372036854775807e18', 9223372036854775807n],
    ['-9223372036854775808.000', -9223372036854775808n],
  ] as const) {
    rest(
      'inexact numbers',
      `REST categoryId ${text} = ${value}`,
      'POST',
      '/v1/pets',
      created,
      categoryIdBody(text),
      {
        success: { kind: 'pet', categoryId: value },
      },
    );
  }
  const trpcNumberBody = (text: string) => `{"json":{"name":"number probe","categoryId":${text}}}`;
  for (const text of ['4.0000000000000000001', '1e-400', '4.5', '9223372036854775808', '1e400']) {
    trpcPost('inexact numbers', `tRPC categoryId ${text}`, 'pets.create', trpcNumberBody(text), invalid);
  }
  for (const [text, value] of [
    ['1.0', 1n],
    ['1e3', 1000n],
    ['7000e-3', 7n],
    ['9007199254740991', 9007199254740991n],
    // Past 2^53 too, exactly, as on REST (docs/interface-decisions.md "REST and tRPC inputs").
    ['9007199254740993', 9007199254740993n],
    ['9.223372036854775807e18', 9223372036854775807n],
  ] as const) {
    trpcPost(
      'inexact numbers',
      `tRPC categoryId ${text} = ${value}`,
      'pets.create',
      trpcNumberBody(text),
      ok,
      {
        success: { kind: 'pet', categoryId: value },
      },
    );
  }
  trpcGet(
    'inexact numbers',
    'tRPC pets.list limit 5.0000000000000000001',
    'pets.list',
    '{"json":{"limit":5.0000000000000000001}}',
    invalid,
  );
  trpcGet('inexact numbers', 'tRPC pets.list limit 5.0', 'pets.list', '{"json":{"limit":5.0}}', ok, {
    success: { kind: 'pets' },
  });
  rest('inexact numbers', 'REST ?limit=5.0', 'GET', '/v1/pets?limit=5.0', invalid);

  // 5. bigint texts in superjson meta: only decimal digits; BigInt() would read hex, binary, octal, blanks, "".
  const bigintBody = (text: string) =>
    `{"json":{"name":"bigint probe","categoryId":${JSON.stringify(text)}},"meta":{"values":{"categoryId":["bigint"]}}}`;
  for (const text of [
    '0x10',
    '0b11',
    '',
    ' 12 ',
    '0o17',
    '0X10',
    '\t12',
    '12\n',
    '+12',
    '1e3',
    '12n',
    '1_000',
    '12.0',
    '١٢',
    '-0x1',
  ]) {
    trpcPost('bigint text', `tRPC bigint ${JSON.stringify(text)}`, 'pets.create', bigintBody(text), invalid);
  }
  trpcPost(
    'bigint text',
    'tRPC bigint "9223372036854775808" (past int64)',
    'pets.create',
    bigintBody('9223372036854775808'),
    invalid,
  );
  for (const [text, value] of [
    ['12', 12n],
    ['-9223372036854775808', -9223372036854775808n],
    ['007', 7n],
  ] as const) {
    trpcPost('bigint text', `tRPC bigint "${text}" = ${value}`, 'pets.create', bigintBody(text), ok, {
      success: { kind: 'pet', categoryId: value },
    });
  }
  trpcGet(
    'bigint text',
    'tRPC pets.get petId "0x1"',
    'pets.get',
    '{"json":{"petId":"0x1"},"meta":{"values":{"petId":["bigint"]}}}',
    invalid,
  );
  trpcGet(
    'bigint text',
    'tRPC batch: call 1 has petId " 1"',
    'pets.get,pets.get',
    '{"0":{"json":{"petId":"1"},"meta":{"values":{"petId":["bigint"]}}},"1":{"json":{"petId":" 1"},"meta":{"values":{"petId":["bigint"]}}}}',
    invalid,
    { batch: true },
  );
  trpcPost(
    'bigint text',
    'tRPC bigint annotation on a missing field',
    'pets.create',
    '{"json":{"name":"b","categoryId":"1"},"meta":{"values":{"categoryId":["bigint"],"nope":["bigint"]}}}',
    invalid,
  );
  // superjson's "number" annotation reads its text with Number(): "0x10" is 16, " 12 " is 12, "" is 0. Its own
  // serializer writes only "NaN", "Infinity", "-Infinity" and "-0" that way; -0 is the integer 0, as on REST.
  const numberAnnotated = (text: string) =>
    `{"json":{"name":"number-annotated","categoryId":${JSON.stringify(text)}},"meta":{"values":{"categoryId":["number"]}}}`;
  trpcPost('bigint text', 'tRPC "number" annotation "-0" = 0', 'pets.create', numberAnnotated('-0'), ok, {
    success: { kind: 'pet', categoryId: 0n },
  });
  trpcPost('bigint text', 'tRPC "number" annotation "NaN"', 'pets.create', numberAnnotated('NaN'), invalid);
  // superjson's "undefined" annotation: how @trpc/client sends a field set to undefined; the same as leaving it out.
  trpcPost(
    'bigint text',
    'tRPC "undefined" annotation on status (as absent)',
    'pets.create',
    '{"json":{"name":"u","categoryId":"1","status":null},"meta":{"values":{"categoryId":["bigint"],"status":["undefined"]}}}',
    ok,
    { success: { kind: 'pet', name: 'u' } },
  );
  for (const text of ['0x10', ' 12 ', '', '1e3']) {
    trpcPost(
      'bigint text',
      `tRPC "number" annotation ${JSON.stringify(text)}`,
      'pets.create',
      numberAnnotated(text),
      invalid,
    );
  }
  trpcGet(
    'bigint text',
    'tRPC pets.list limit "0x10" as "number"',
    'pets.list',
    '{"json":{"limit":"0x10"},"meta":{"values":{"limit":["number"]}}}',
    invalid,
  );
  rest('bigint text', 'REST /v1/pets/0x10', 'GET', '/v1/pets/0x10', invalid);
  rest('bigint text', 'REST /v1/pets/%2012%20', 'GET', '/v1/pets/%2012%20', invalid);
  rest('bigint text', 'REST ?limit=0x10', 'GET', '/v1/pets?limit=0x10', invalid);

  // 6. Invalid UTF-8: refused (400 malformed_json on bodies and tRPC input), never replaced by U+FFFD.
  const invalidSequences: [string, Buffer][] = [
    ['ff fe', Buffer.from([0xff, 0xfe])],
    ['c3 28', Buffer.from([0xc3, 0x28])],
    ['overlong c0 af', Buffer.from([0xc0, 0xaf])],
    ['surrogate ed a0 80', Buffer.from([0xed, 0xa0, 0x80])],
    ['truncated e2 82', Buffer.from([0xe2, 0x82])],
    ['past U+10FFFF f4 90 80 80', Buffer.from([0xf4, 0x90, 0x80, 0x80])],
  ];
  const nameWithBytes = (prefix: string, sequence: Buffer, suffix: string) =>
    Buffer.concat([Buffer.from(prefix), sequence, Buffer.from(suffix)]);
  for (const [label, sequence] of invalidSequences) {
    rest(
      'invalid utf-8',
      `REST body bytes ${label}`,
      'POST',
      '/v1/pets',
      malformed,
      nameWithBytes('{"name":"a', sequence, '","categoryId":1}'),
    );
    trpcPost(
      'invalid utf-8',
      `tRPC POST body bytes ${label}`,
      'pets.create',
      nameWithBytes('{"json":{"name":"a', sequence, '","categoryId":1}}'),
      malformed,
    );
    const encoded = [...sequence]
      .map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`)
      .join('');
    trpcGet('invalid utf-8', `tRPC GET input %-encoded ${label}`, 'pets.list', undefined, malformed, {
      encodedInput: `%7B%22json%22%3A%7B%22status%22%3A%22${encoded}%22%7D%7D`,
    });
  }
  trpcPost(
    'invalid utf-8',
    'tRPC batch POST, call 1 with byte ff',
    'pets.create,pets.create',
    nameWithBytes(
      `{"0":${trpcNewPet('ok')},"1":{"json":{"name":"a`,
      Buffer.from([0xff]),
      '","categoryId":1}}}',
    ),
    malformed,
    {
      batch: true,
    },
  );
  rest('invalid utf-8', 'REST ?status=%FF', 'GET', '/v1/pets?status=%FF', invalid);
  rest('invalid utf-8', 'REST /v1/pets/%FF', 'GET', '/v1/pets/%FF', invalid);
  rest(
    'invalid utf-8',
    'REST lone surrogate escape \\ud800 in name',
    'POST',
    '/v1/pets',
    invalid,
    '{"name":"a\\ud800","categoryId":1}',
  );
  trpcPost(
    'invalid utf-8',
    'tRPC lone surrogate escape \\ud800 in name',
    'pets.create',
    '{"json":{"name":"a\\ud800","categoryId":1}}',
    invalid,
  );
  // RFC 8259 section 8.1 lets a parser ignore a byte order mark; both transports do, alike.
  rest(
    'invalid utf-8',
    'REST byte order mark before the body (ignored)',
    'POST',
    '/v1/pets',
    created,
    '\ufeff{"name":"bom","categoryId":1}',
    {
      success: { kind: 'pet', name: 'bom' },
    },
  );
  trpcPost(
    'invalid utf-8',
    'tRPC byte order mark before the body (ignored)',
    'pets.create',
    `\ufeff${trpcNewPet('bom')}`,
    ok,
    {
      success: { kind: 'pet', name: 'bom' },
    },
  );
  rest(
    'invalid utf-8',
    'REST name U+FFFD itself (control)',
    'POST',
    '/v1/pets',
    created,
    '{"name":"a\ufffd","categoryId":1}',
    {
      success: { kind: 'pet', name: 'a\ufffd' },
    },
  );
  trpcPost('invalid utf-8', 'tRPC name U+FFFD itself (control)', 'pets.create', trpcNewPet('a\ufffd'), ok, {
    success: { kind: 'pet', name: 'a\ufffd' },
  });

  // 7. A "__proto__" key is refused on both transports, wherever it is (JSON.parse keeps it as an own key).
  rest(
    '__proto__ key',
    'REST body __proto__',
    'POST',
    '/v1/pets',
    invalid,
    '{"name":"p","categoryId":1,"__proto__":{"status":"sold"}}',
  );
  rest(
    '__proto__ key',
    'REST body \\u005f_proto__ (escaped)',
    'POST',
    '/v1/pets',
    invalid,
    '{"name":"p","categoryId":1,"\\u005f_proto__":{}}',
  );
  rest(
    '__proto__ key',
    'REST body prototype',
    'POST',
    '/v1/pets',
    invalid,
    '{"name":"p","categoryId":1,"prototype":{}}',
  );
  trpcPost(
    '__proto__ key',
    'tRPC body __proto__',
    'pets.create',
    '{"json":{"name":"p","categoryId":1,"__proto__":{"status":"sold"}}}',
    invalid,
  );
  trpcPost(
    '__proto__ key',
    'tRPC body \\u005f_proto__ (escaped)',
    'pets.create',
    '{"json":{"name":"p","categoryId":1,"\\u005f_proto__":{}}}',
    invalid,
  );
  trpcPost(
    '__proto__ key',
    'tRPC envelope-level __proto__',
    'pets.create',
    '{"json":{"name":"p","categoryId":1},"__proto__":{}}',
    invalid,
  );
  trpcPost(
    '__proto__ key',
    'tRPC meta-level __proto__',
    'pets.create',
    '{"json":{"name":"p","categoryId":1},"meta":{"__proto__":{}}}',
    invalid,
  );
  trpcGet(
    '__proto__ key',
    'tRPC GET input __proto__',
    'pets.list',
    '{"json":{"__proto__":{"limit":1}}}',
    invalid,
  );
  trpcGet(
    '__proto__ key',
    'tRPC GET nested __proto__',
    'pets.list',
    '{"json":{"status":{"__proto__":"sold"}}}',
    invalid,
  );
  trpcGet(
    '__proto__ key',
    'tRPC batch input key __proto__',
    'pets.list',
    '{"__proto__":{"json":{}}}',
    invalid,
    { batch: true },
  );
  trpcPost(
    '__proto__ key',
    'tRPC meta values path __proto__.x',
    'pets.create',
    '{"json":{"name":"p","categoryId":"1"},"meta":{"values":{"categoryId":["bigint"],"__proto__.x":["bigint"]}}}',
    invalid,
  );
  trpcPost(
    '__proto__ key',
    'tRPC referentialEqualities onto __proto__',
    'pets.create',
    '{"json":{"name":"p","categoryId":"1"},"meta":{"values":{"categoryId":["bigint"]},"referentialEqualities":{"name":["__proto__"]}}}',
    invalid,
  );

  // 8. Media types: only application/json (or +json) in UTF-8, on both transports; the rest is 415.
  const newPet = '{"name":"media","categoryId":1}';
  for (const contentType of [
    'application/json; charset=latin1',
    'application/json; charset=iso-8859-1',
    'application/json; charset=utf-16',
    'multipart/form-data; boundary=x',
    'application/octet-stream',
    'text/plain',
    'application/x-www-form-urlencoded',
    null,
  ]) {
    const label = contentType ?? 'no Content-Type';
    rest('media type', `REST ${label}`, 'POST', '/v1/pets', unsupported, newPet, { contentType });
    trpcPost('media type', `tRPC ${label}`, 'pets.create', `{"json":${newPet}}`, unsupported, {
      contentType,
    });
  }
  for (const contentType of [
    'application/json; charset=UTF-8',
    'APPLICATION/JSON',
    'application/json;charset="utf-8"',
    'application/merge-patch+json',
  ]) {
    rest('media type', `REST ${contentType} (accepted)`, 'POST', '/v1/pets', created, newPet, {
      contentType,
      success: { kind: 'pet', name: 'media' },
    });
    trpcPost('media type', `tRPC ${contentType} (accepted)`, 'pets.create', `{"json":${newPet}}`, ok, {
      contentType,
      success: { kind: 'pet', name: 'media' },
    });
  }

  // 9. A tRPC input must be a superjson envelope: a plain value is refused, never read as "no input".
  trpcGet('plain tRPC input', 'tRPC GET plain {"limit":101}', 'pets.list', '{"limit":101}', invalid);
  trpcGet('plain tRPC input', 'tRPC GET plain {"limit":5}', 'pets.list', '{"limit":5}', invalid);
  trpcGet(
    'plain tRPC input',
    'tRPC GET {"json":{"limit":101}}',
    'pets.list',
    '{"json":{"limit":101}}',
    invalid,
  );
  trpcGet(
    'plain tRPC input',
    'tRPC GET envelope with an extra key',
    'pets.list',
    '{"json":{"limit":5},"extra":1}',
    invalid,
  );
  trpcGet(
    'plain tRPC input',
    'tRPC GET meta with an extra key',
    'pets.list',
    '{"json":{"limit":5},"meta":{"x":1}}',
    invalid,
  );
  for (const input of ['[]', '"x"', 'null', '5']) {
    trpcGet('plain tRPC input', `tRPC GET input ${input}`, 'pets.list', input, invalid);
  }
  trpcPost('plain tRPC input', 'tRPC POST plain NewPet', 'pets.create', newPet, invalid);
  trpcGet(
    'plain tRPC input',
    'tRPC GET batch with a plain call',
    'pets.list,pets.list',
    '{"0":{"json":{}},"1":{"limit":101}}',
    invalid,
    {
      batch: true,
    },
  );
  trpcGet(
    'plain tRPC input',
    'tRPC GET {"json":{"limit":5}} (control)',
    'pets.list',
    '{"json":{"limit":5}}',
    ok,
    {
      success: { kind: 'pets' },
    },
  );
  trpcGet('plain tRPC input', 'tRPC GET no input (control)', 'pets.list', undefined, ok, {
    success: { kind: 'pets' },
  });

  // 10. Names: at most 255 Unicode code points, whatever their UTF-16 or UTF-8 length.
  const names: [string, string, boolean][] = [
    ['256 ASCII', 'x'.repeat(256), false],
    ['255 ASCII', 'x'.repeat(255), true],
    ['255 emoji', '🐾'.repeat(255), true],
    ['256 emoji', '🐾'.repeat(256), false],
    ['255 CJK', '猫'.repeat(255), true],
    ['256 CJK', '猫'.repeat(256), false],
    ['128 e + combining acute (256 code points)', 'e\u0301'.repeat(128), false],
    ['127 e + combining acute, 1 e (255 code points)', `${'e\u0301'.repeat(127)}e`, true],
    ['51 ZWJ families (255 code points)', '👨‍👩‍👧'.repeat(51), true],
    ['52 ZWJ families (260 code points)', '👨‍👩‍👧'.repeat(52), false],
    ['254 emoji and 1 ASCII', `${'🐾'.repeat(254)}x`, true],
  ];
  for (const [label, name, accepted] of names) {
    rest(
      'name length',
      `REST name ${label}`,
      'POST',
      '/v1/pets',
      accepted ? created : invalid,
      JSON.stringify({ name, categoryId: 1 }),
      {
        ...(accepted ? { success: { kind: 'pet', name } } : {}),
      },
    );
    trpcPost('name length', `tRPC name ${label}`, 'pets.create', trpcNewPet(name), accepted ? ok : invalid, {
      ...(accepted ? { success: { kind: 'pet', name } } : {}),
    });
  }
  trpcPost(
    'name length',
    'tRPC name 256 ASCII, \\u-escaped',
    'pets.create',
    `{"json":{"name":"${'\\u0078'.repeat(256)}","categoryId":1}}`,
    invalid,
  );

  // 11. Duplicate keys: JSON.parse keeps the last value, other parsers the first, so a body naming a key twice
  // could mean two different pets to two readers. Refused on both transports, at any depth, however escaped.
  rest(
    'duplicate keys',
    'REST name twice',
    'POST',
    '/v1/pets',
    malformed,
    '{"name":"a","categoryId":1,"name":"b"}',
  );
  rest(
    'duplicate keys',
    'REST categoryId twice, same value',
    'POST',
    '/v1/pets',
    malformed,
    '{"name":"a","categoryId":1,"categoryId":1}',
  );
  rest(
    'duplicate keys',
    'REST escaped twin \\u006e',
    'POST',
    '/v1/pets',
    malformed,
    '{"name":"a","\\u006eame":"b","categoryId":1}',
  );
  trpcPost(
    'duplicate keys',
    'tRPC name twice',
    'pets.create',
    '{"json":{"name":"a","categoryId":1,"name":"b"}}',
    malformed,
  );
  trpcPost(
    'duplicate keys',
    'tRPC envelope json twice',
    'pets.create',
    `{"json":{"name":"a","categoryId":1},"json":{"name":"b","categoryId":2}}`,
    malformed,
  );
  trpcGet(
    'duplicate keys',
    'tRPC GET input limit twice',
    'pets.list',
    '{"json":{"limit":1,"limit":100}}',
    malformed,
  );
  trpcPost(
    'duplicate keys',
    'tRPC batch, call key 0 twice',
    'pets.create,pets.create',
    `{"0":${trpcNewPet('dup-a')},"0":${trpcNewPet('dup-b')}}`,
    malformed,
    { batch: true },
  );

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
  rest('edge', 'REST absolute-form target', 'GET', `http://${host}/v1/pets`, malformedRequest);
  // Refused by the edge before tRPC: the answer is the Error body, as on REST.
  rest(
    'edge',
    'tRPC absolute-form target',
    'GET',
    `http://${host}/v1/trpc/pets.list?input=${encodeURIComponent('{"json":{}}')}`,
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
    expect: { status: 405, code: 'method_not_allowed', byNodeParser: true },
  });

  return probes;
}
