// The edge's raw-HTTP fuzz corpus: generated request bytes (repeated and folded header fields, framing conflicts,
// transfer codings, absolute/authority/asterisk targets, odd methods and versions, huge counts of query pairs and
// header fields, Expect variants) sent over a socket to the API as production serves it. The rules:
// - every answer is a complete HTTP response, never a 5xx, and a 4xx carries an Error body (tRPC's envelope on
//   a tRPC route once the edge let it through);
// - an ambiguous or over-limit message is never a 2xx, and a refused create stores nothing;
// - an accepted request means exactly what its canonical form means: the same status and the same body as the
//   request without the noise (empty query segments, percent-encoded names, reordered parameters, header case,
//   unknown header fields, Expect: 100-continue, Content-Length: 0, HTTP/1.0).
//
// Bounded in `pnpm test` (FUZZ_RUNS, default 300); replay or run longer (docs/development.md):
//   FUZZ_SEED=<seed> FUZZ_PATH=<path> FUZZ_RUNS=<n> npx vitest run test/edge.fuzz.test.ts

import { connect } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scaled } from '../../../tooling/vitest.shared.js';
import { parseResponse, type RawResponse } from './reliability/raw-http.js';
import { type EdgeServer, startEdgeServer } from './support/edge-server.js';
import { TEST_API_KEY } from './support/test-server.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
const PATH = process.env.FUZZ_PATH;

/** A request as bytes are built from it: every part may be odd. */
interface Wire {
  method: string;
  target: string;
  version: string;
  headers: [string, string][];
  /** Header lines written as they are (obs-fold continuations, lines without a colon). */
  rawLines?: string[];
  body?: string;
}

interface Case {
  label: string;
  wire: Wire;
  /** `same`: must answer exactly as `canonical`; `refused`: must be a 4xx; `any`: only the common rules. */
  expect: 'same' | 'refused' | 'any';
  canonical?: Wire;
  /** A create that must never store its pet. */
  refusedCreate?: boolean;
}

const STATUSES = ['available', 'pending', 'sold'] as const;
const host: [string, string] = ['Host', '127.0.0.1'];
const auth: [string, string] = ['Authorization', `Bearer ${TEST_API_KEY}`];

function serialize(wire: Wire): Buffer {
  const lines = [`${wire.method} ${wire.target} ${wire.version}`.trimEnd()];
  for (const [name, value] of wire.headers) lines.push(`${name}: ${value}`);
  lines.push(...(wire.rawLines ?? []));
  lines.push('Connection: close');
  return Buffer.concat([
    Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'),
    Buffer.from(wire.body ?? ''),
  ]);
}

type Outcome = { kind: 'response'; response: RawResponse; interim: boolean } | { kind: 'none'; why: string };

function send(port: number, wire: Wire): Promise<Outcome> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = connect(port, '127.0.0.1');
    let done = false;
    const finish = (outcome: Outcome) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(outcome);
    };
    const timer = setTimeout(() => finish({ kind: 'none', why: 'timeout' }), scaled(5_000));
    const complete = () => {
      const data = Buffer.concat(chunks);
      const response = parseResponse(data, wire.method);
      finish(
        response === undefined
          ? { kind: 'none', why: `closed after ${JSON.stringify(data.toString('latin1').slice(0, 200))}` }
          : { kind: 'response', response, interim: data.subarray(0, 12).toString('latin1').includes(' 100') },
      );
    };
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', complete);
    socket.on('close', complete);
    socket.on('error', complete);
    socket.write(serialize(wire));
  });
}

// Canonical requests -------------------------------------------------------------------------------------

interface Param {
  name: string;
  value: string;
}

const listParams = fc
  .record(
    { status: fc.constantFrom(...STATUSES), limit: fc.integer({ min: 1, max: 100 }).map(String) },
    { requiredKeys: [] },
  )
  .map((record) => Object.entries(record).map(([name, value]): Param => ({ name, value })));

/** The GETs whose answers noise must not change: REST listPets and getPet, tRPC pets.list. */
const baseGet = fc.oneof(
  listParams.map((params) => ({ path: '/v1/pets', params })),
  fc.integer({ min: 1, max: 8 }).map((id) => ({ path: `/v1/pets/${id}`, params: [] as Param[] })),
  listParams.map((params) => ({
    path: '/v1/trpc/pets.list',
    params: [
      {
        name: 'input',
        value: JSON.stringify({
          json: Object.fromEntries(
            params.map((p) => [p.name, p.name === 'limit' ? Number(p.value) : p.value]),
          ),
        }),
      },
    ],
  })),
);

const encodeAll = (text: string) => encodeURIComponent(text);
const query = (params: Param[]) => params.map((p) => `${encodeAll(p.name)}=${encodeAll(p.value)}`).join('&');
const targetOf = (path: string, params: Param[]) => (params.length === 0 ? path : `${path}?${query(params)}`);

// Noise that keeps the meaning ----------------------------------------------------------------------------

/** Percent-encodes some characters of a name or value (either hex case): the same text once decoded. */
const spelled = (text: string) =>
  fc.array(fc.boolean(), { minLength: text.length, maxLength: text.length }).chain((picks) =>
    fc.boolean().map((upper) =>
      [...text]
        .map((char, i) => {
          if (!picks[i] || char.charCodeAt(0) > 0x7e) return encodeAll(char);
          const hex = char.charCodeAt(0).toString(16).padStart(2, '0');
          return `%${upper ? hex.toUpperCase() : hex}`;
        })
        .join(''),
    ),
  );

const caseVariant = (name: string) =>
  fc
    .array(fc.boolean(), { minLength: name.length, maxLength: name.length })
    .map((flags) => [...name].map((c, i) => (flags[i] ? c.toUpperCase() : c.toLowerCase())).join(''));

const benign: fc.Arbitrary<Case> = baseGet.chain(({ path, params }) => {
  const canonical: Wire = {
    method: 'GET',
    target: targetOf(path, params),
    version: 'HTTP/1.1',
    headers: [host, auth],
  };
  const pairs = fc.tuple(...params.map((p) => fc.tuple(spelled(p.name), spelled(p.value))));
  return fc
    .record({
      pairs: params.length === 0 ? fc.constant([] as [string, string][]) : pairs,
      order: fc.array(fc.nat(), { minLength: params.length, maxLength: params.length }),
      empties: fc.array(
        fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 3 }), fc.integer({ min: 100, max: 3_000 })),
        {
          minLength: params.length + 1,
          maxLength: params.length + 1,
        },
      ),
      hostName: caseVariant('Host'),
      authName: caseVariant('Authorization'),
      extra: fc.array(
        fc.tuple(fc.stringMatching(/^X-[A-Za-z0-9-]{1,20}$/), fc.stringMatching(/^[ -~]{0,40}$/)),
        {
          maxLength: 90,
        },
      ),
      requestId: fc.option(fc.stringMatching(/^[A-Za-z0-9._:-]{1,40}$/), { nil: undefined }),
      expectContinue: fc.boolean(),
      zeroLength: fc.boolean(),
      http10: fc.boolean(),
      // RFC 9112 section 3.2.2: the absolute-form means what its origin-form means (any scheme case).
      absolute: fc.option(fc.constantFrom('http://127.0.0.1', 'HTTP://127.0.0.1:80', 'https://127.0.0.1'), {
        nil: undefined,
      }),
    })
    .map((noise): Case => {
      const ordered = noise.pairs
        .map((pair, i) => ({ pair, key: noise.order[i] ?? 0 }))
        .sort((a, b) => a.key - b.key)
        .map(({ pair }) => `${pair[0]}=${pair[1]}`);
      let search = '&'.repeat(noise.empties[0] ?? 0);
      ordered.forEach((pair, i) => {
        search += `${i > 0 ? '&' : ''}${pair}${'&'.repeat(noise.empties[i + 1] ?? 0)}`;
      });
      const headers: [string, string][] = [
        [noise.hostName, '127.0.0.1'],
        [noise.authName, auth[1]],
        // Unknown fields: names chosen not to collide with any field we read.
        ...noise.extra.map(([name, value]): [string, string] => [`${name}-N`, value.trim()]),
      ];
      if (noise.requestId !== undefined) headers.push(['X-Request-Id', noise.requestId]);
      if (noise.expectContinue) headers.push(['Expect', '100-continue']);
      if (noise.zeroLength) headers.push(['Content-Length', '0']);
      return {
        label: 'benign noise',
        expect: 'same',
        canonical,
        wire: {
          method: 'GET',
          target: `${noise.absolute ?? ''}${search === '' && params.length === 0 ? path : `${path}?${search}`}`,
          version: noise.http10 ? 'HTTP/1.0' : 'HTTP/1.1',
          headers,
        },
      };
    });
});

// Noise that must be refused ------------------------------------------------------------------------------

const createBody = '{"name":"AMBIGUOUS","categoryId":1}';
const create = (): Wire => ({
  method: 'POST',
  target: '/v1/pets',
  version: 'HTTP/1.1',
  headers: [host, auth, ['Content-Type', 'application/json'], ['Content-Length', String(createBody.length)]],
  body: createBody,
});
const baseAny = fc.oneof(
  fc.constant(null).map(create),
  baseGet.map(
    ({ path, params }): Wire => ({
      method: 'GET',
      target: targetOf(path, params),
      version: 'HTTP/1.1',
      headers: [host, auth],
    }),
  ),
);

const SINGLETONS: [string, string, string][] = [
  ['Host', '127.0.0.1', 'evil.example'],
  ['Content-Type', 'application/json', 'text/plain'],
  ['Content-Length', '0', '5'],
  ['Content-Encoding', 'identity', 'gzip'],
  ['Transfer-Encoding', 'chunked', 'gzip'],
  ['Expect', '100-continue', '100-continue'],
  ['Idempotency-Key', 'k1', 'k2'],
  ['X-Request-Id', 'a', 'b'],
  ['trpc-accept', 'application/jsonl', 'application/json'],
  ['Origin', 'http://a.example', 'http://b.example'],
  [
    'traceparent',
    '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
    '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203332-01',
  ],
  ['Last-Event-ID', '1', '2'],
  ['Access-Control-Request-Method', 'GET', 'POST'],
  ['Authorization', auth[1], 'Bearer other-key-0123456789'],
];

type Mutation = (wire: Wire) => fc.Arbitrary<Wire>;
const withHeaders = (wire: Wire, headers: [string, string][]): Wire => ({ ...wire, headers });
const pickHeaders = (wire: Wire, drop: string) =>
  wire.headers.filter(([name]) => name.toLowerCase() !== drop);

const refusedMutations: [string, Mutation][] = [
  [
    'a repeated singleton field',
    (wire) =>
      fc
        .tuple(fc.constantFrom(...SINGLETONS), fc.boolean(), fc.nat())
        .chain(([[name, first, second], same, at]) =>
          caseVariant(name).map((spelling) => {
            const headers = pickHeaders(wire, name.toLowerCase());
            const both: [string, string][] = [
              [name, first],
              [spelling, same ? first : second],
            ];
            headers.splice(at % (headers.length + 1), 0, ...both);
            return withHeaders(wire, headers);
          }),
        ),
  ],
  ['an obs-fold continuation line', (wire) => fc.constant({ ...wire, rawLines: ['X-Folded: a', ' b'] })],
  [
    'Content-Length with Transfer-Encoding',
    (wire) =>
      fc.constant(
        withHeaders(
          { ...wire, body: `${(wire.body ?? '').length.toString(16)}\r\n${wire.body ?? ''}\r\n0\r\n\r\n` },
          [
            ...pickHeaders(wire, 'content-length'),
            ['Content-Length', String((wire.body ?? '').length)],
            ['Transfer-Encoding', 'chunked'],
          ],
        ),
      ),
  ],
  [
    'a Content-Length list or odd value',
    (wire) =>
      fc
        .constantFrom('5, 5', '5,5', '+5', '-1', '0x5', '5 5', '1e1', '', ' ')
        .map((value) =>
          withHeaders(wire, [...pickHeaders(wire, 'content-length'), ['Content-Length', value]]),
        ),
  ],
  [
    'a transfer coding other than chunked alone',
    (wire) =>
      fc
        .constantFrom(
          'gzip, chunked',
          'gzip',
          'deflate',
          'identity',
          'chunked, gzip',
          'chunked, chunked',
          'x-custom',
          'chunked;q=1',
          'compress, chunked',
        )
        .map((coding) =>
          withHeaders(
            { ...wire, body: `${(wire.body ?? '').length.toString(16)}\r\n${wire.body ?? ''}\r\n0\r\n\r\n` },
            [...pickHeaders(wire, 'content-length'), ['Transfer-Encoding', coding]],
          ),
        ),
  ],
  [
    'HTTP/1.0 with Transfer-Encoding (RFC 9112 section 6.1: faulty framing)',
    (wire) =>
      fc.constantFrom('chunked', 'Chunked').map((coding) =>
        withHeaders(
          {
            ...wire,
            version: 'HTTP/1.0',
            body: `${(wire.body ?? '').length.toString(16)}\r\n${wire.body ?? ''}\r\n0\r\n\r\n`,
          },
          [...pickHeaders(wire, 'content-length'), ['Transfer-Encoding', coding]],
        ),
      ),
  ],
  [
    'a target that is neither origin-form nor an absolute http(s) URL',
    (wire) =>
      fc
        .constantFrom(
          (t: string) => `http://user@127.0.0.1${t}`,
          (t: string) => `ftp://127.0.0.1${t}`,
          (t: string) => `http://127.0.0.1${t}#x`,
          () => '127.0.0.1:80',
          () => '*',
          (t: string) => `${t}#fragment`,
          (t: string) => `${t}${t.includes('?') ? '&' : '?'}q=\u00e9`,
          (t: string) => t.slice(1),
        )
        .map((form) => ({ ...wire, target: form(wire.target) })),
  ],
  [
    'an odd method',
    (wire) =>
      fc
        .constantFrom(
          'CONNECT',
          'TRACE',
          'PUT',
          'DELETE',
          'PATCH',
          'PROPFIND',
          'MKCOL',
          'LOCK',
          'SEARCH',
          'PURGE',
          'LINK',
          'get',
          'BREW',
          'G ET',
          'GET\t',
          '',
        )
        .map((method) => ({ ...wire, method })),
  ],
  [
    'an odd version',
    (wire) =>
      fc
        .constantFrom('HTTP/1.2', 'HTTP/2.0', 'HTTP/0.9', 'HTTP/1', 'http/1.1', 'HTTP/1.1 x', '')
        .map((version) => ({ ...wire, version })),
  ],
  [
    'too many query pairs',
    (wire) =>
      fc.tuple(fc.integer({ min: 101, max: 1_500 }), fc.boolean()).map(([count, same]) => {
        const extra = Array.from({ length: count }, (_, i) => (same ? 'x=1' : `x${i}=1`)).join('&');
        return { ...wire, target: `${wire.target}${wire.target.includes('?') ? '&' : '?'}${extra}` };
      }),
  ],
  [
    'too many header fields',
    (wire) =>
      fc
        .integer({ min: 99, max: 1_500 })
        .map((count) =>
          withHeaders(wire, [
            ...wire.headers,
            ...Array.from({ length: count }, (_, i): [string, string] => [`X${i}`, '1']),
          ]),
        ),
  ],
  [
    'an Expect other than 100-continue',
    (wire) =>
      fc
        .constantFrom('101-continue', '100-continue, foo', 'foo', '', '100-Continue;x=1')
        .map((value) => withHeaders(wire, [...pickHeaders(wire, 'expect'), ['Expect', value]])),
  ],
  [
    'a missing or invalid Host',
    (wire) =>
      fc
        .constantFrom(undefined, 'a/b', 'a b', 'a@b', 'a?b', 'a#b', '[::1', 'a:b:c', 'a:123456', 'h\u00e9')
        .map((value) =>
          withHeaders(wire, [
            ...pickHeaders(wire, 'host'),
            ...(value === undefined ? [] : [['Host', value] as [string, string]]),
          ]),
        ),
  ],
  [
    'a GET with a body',
    (wire) =>
      fc.constant(
        withHeaders({ ...wire, method: 'GET', body: '{}' }, [
          ...pickHeaders(wire, 'content-length'),
          ['Content-Length', '2'],
        ]),
      ),
  ],
];

const refused: fc.Arbitrary<Case> = fc
  .tuple(baseAny, fc.constantFrom(...refusedMutations))
  .chain(([wire, [label, mutate]]) =>
    mutate(wire).map(
      (mutated): Case => ({
        label,
        wire: mutated,
        expect: 'refused',
        refusedCreate: mutated.method === 'POST' || wire.method === 'POST',
      }),
    ),
  );

// The property --------------------------------------------------------------------------------------------

let server: EdgeServer;
const canonicalAnswers = new Map<string, { status: number; body: string }>();
let sent = 0;

beforeAll(async () => {
  server = await startEdgeServer();
  for (let i = 1; i <= 6; i++) {
    const body = `{"name":"pet ${i}","categoryId":${i},"status":"${STATUSES[i % 3]}"}`;
    const created = await send(server.port, {
      method: 'POST',
      target: '/v1/pets',
      version: 'HTTP/1.1',
      headers: [host, auth, ['Content-Type', 'application/json'], ['Content-Length', String(body.length)]],
      body,
    });
    expect(created.kind === 'response' && created.response.status).toBe(201);
  }
});
afterAll(async () => {
  await server?.close();
});

function checkCommon(c: Case, outcome: Outcome): RawResponse {
  if (outcome.kind !== 'response') throw new Error(`${c.label}: no complete HTTP response (${outcome.why})`);
  const { response } = outcome;
  // Never a fault of ours: below 500, but for the 501 of a method the API does not implement at all.
  if (response.status === 501) {
    expect(JSON.parse(response.body.toString('utf8')), c.label).toMatchObject({ code: 'not_implemented' });
  } else expect(response.status, c.label).toBeLessThan(500);
  if (response.status >= 400) {
    expect(response.headers.get('content-type')?.[0], c.label).toMatch(/^application\/json/);
    const body = JSON.parse(response.body.toString('utf8'));
    if ('code' in body)
      expect(body, c.label).toMatchObject({ status: response.status, code: expect.any(String) });
    else {
      // tRPC's envelope (superjson: the error under `json`), alone or per call of a batch.
      const error = (Array.isArray(body) ? body[0] : body)?.error;
      expect((error?.json ?? error)?.data?.httpStatus, `${c.label}: ${JSON.stringify(body)}`).toBe(
        response.status,
      );
    }
  }
  return response;
}

async function check(c: Case): Promise<void> {
  sent++;
  const outcome = await send(server.port, c.wire);
  const response = checkCommon(c, outcome);
  if (c.expect === 'refused') {
    expect(response.status, c.label).toBeGreaterThanOrEqual(400);
    if (outcome.kind === 'response')
      expect(outcome.interim, `${c.label}: 100 Continue before a refusal`).toBe(false);
  }
  if (c.expect === 'same' && c.canonical !== undefined) {
    const key = serialize(c.canonical).toString('latin1');
    let answer = canonicalAnswers.get(key);
    if (answer === undefined) {
      sent++;
      const canonical = checkCommon({ ...c, label: 'canonical' }, await send(server.port, c.canonical));
      answer = { status: canonical.status, body: canonical.body.toString('utf8') };
      canonicalAnswers.set(key, answer);
    }
    expect({ status: response.status, body: response.body.toString('utf8') }, c.label).toEqual(answer);
  }
}

describe('the edge, fuzzed with raw request bytes', () => {
  it(
    `answers every generated request by the rules (${RUNS} runs${SEED === undefined ? '' : `, seed ${SEED}`})`,
    async () => {
      await fc.assert(fc.asyncProperty(fc.oneof(benign, refused), check), {
        numRuns: RUNS,
        ...(SEED === undefined ? {} : { seed: SEED }),
        ...(PATH === undefined ? {} : { path: PATH }),
        endOnFailure: false,
      });
      const [{ stored }] = (await server.database.sql.rows(
        `SELECT count(*)::int AS stored FROM pets WHERE name = 'AMBIGUOUS'`,
      )) as [{ stored: number }];
      expect(stored, 'a refused create stored its pet').toBe(0);
      console.info(`edge fuzz: ${sent} requests sent`);
    },
    scaled(Math.max(600_000, RUNS * 20)),
  );
});
