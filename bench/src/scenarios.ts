// What each server is asked to do. Every scenario is the same request to both servers, so the ratio compares
// the code, not the work.
import { createHash } from 'node:crypto';
import type { LoadRequest } from './wrk.js';

export const API_KEY = 'bench-key-0123456789abcdef';
const WRONG_KEY = 'wrong-key-0123456789abcdef';

export interface Scenario {
  name: string;
  description: string;
  /** Most responses must have this status class; a scenario that gets anything else is flagged. */
  expectErrors: boolean;
  load: LoadRequest;
  /** Only the api serves it (the references implement the spec's minimum, without paging). */
  apiOnly?: boolean;
}

/**
 * The cursor the api puts in `Link: rel="next"` after pet `after` (no status filter), in its documented format
 * (docs/interface-decisions.md): base64url(payload) "." base64url(first 12 bytes of sha256). The walk to it
 * would be 90 requests of 100; the bench asks for the page it leads to directly, so every request is deep.
 */
function cursorAfter(after: number): string {
  const payload = JSON.stringify({ v: 1, after: String(after) });
  const sum = createHash('sha256')
    .update(`petstore-cursor-v1\n${payload}`)
    .digest()
    .subarray(0, 12)
    .toString('base64url');
  return `${Buffer.from(payload).toString('base64url')}.${sum}`;
}

const auth = { Authorization: `Bearer ${API_KEY}` };
const json = { ...auth, 'Content-Type': 'application/json' };

/**
 * A tools/call of the api's MCP endpoint (/v1/mcp) in the stateless 2025 form any HTTP client can send: one POST,
 * no session, no handshake first (the 2026-07-28 revision's client sends the same call with its version in `_meta`).
 */
export const MCP_LIST20 = {
  path: '/v1/mcp',
  headers: {
    ...json,
    Accept: 'application/json, text/event-stream',
    'MCP-Protocol-Version': '2025-06-18',
  },
  body: '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"listPets","arguments":{"limit":20}}}',
};

const trpcInput = (value: unknown) => `input=${encodeURIComponent(JSON.stringify({ json: value }))}`;

/** 1,000 ids spread over the seeded rows, in a fixed pseudo-random order (same for every server and run). */
function seededIds(count: number, max: number): number[] {
  let state = 0x2545f491;
  const ids: number[] = [];
  for (let i = 0; i < count; i++) {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    ids.push((state % max) + 1);
  }
  return ids;
}

export function createScenarios(seededPets: number): Scenario[] {
  return [
    {
      name: 'list20',
      description: 'GET /v1/pets?limit=20',
      expectErrors: false,
      load: { method: 'GET', paths: ['/v1/pets?limit=20'], headers: auth },
    },
    {
      name: 'list20-deep',
      description: `GET /v1/pets?limit=20&cursor=<after id ${Math.round(seededPets * 0.9)}> (page 451 of ${seededPets / 20})`,
      expectErrors: false,
      apiOnly: true,
      load: {
        method: 'GET',
        paths: [`/v1/pets?limit=20&cursor=${cursorAfter(Math.round(seededPets * 0.9))}`],
        headers: auth,
      },
    },
    {
      name: 'list100-available',
      description: 'GET /v1/pets?limit=100&status=available',
      expectErrors: false,
      load: { method: 'GET', paths: ['/v1/pets?limit=100&status=available'], headers: auth },
    },
    // The same page compressed (the `compression` middleware, apps/api/src/app.ts): the CPU cost of compression is the difference
    // from list100-available in the CPU µs/req column. Browsers ask for br as well as gzip and get br.
    ...(['gzip', 'br'] as const).map(
      (coding): Scenario => ({
        name: `list100-available-${coding}`,
        description: `GET /v1/pets?limit=100&status=available with Accept-Encoding: ${coding}`,
        expectErrors: false,
        apiOnly: true,
        load: {
          method: 'GET',
          paths: ['/v1/pets?limit=100&status=available'],
          headers: { ...auth, 'Accept-Encoding': coding },
        },
      }),
    ),
    {
      name: 'get-by-id',
      description: 'GET /v1/pets/{id}, 1,000 seeded ids in turn',
      expectErrors: false,
      load: {
        method: 'GET',
        paths: seededIds(1000, seededPets).map((id) => `/v1/pets/${id}`),
        headers: auth,
      },
    },
    {
      name: 'create',
      description: 'POST /v1/pets',
      expectErrors: false,
      load: {
        method: 'POST',
        paths: ['/v1/pets'],
        headers: json,
        // Above 2^53: the int64-exact path (source-text parsing) is part of the measured work.
        body: '{"name":"Bench Rex","categoryId":9007199254740993,"status":"available"}',
      },
    },
    {
      name: 'create-with-key',
      description: 'POST /v1/pets with a new Idempotency-Key each time (key stored with the pet)',
      expectErrors: false,
      apiOnly: true,
      load: {
        method: 'POST',
        paths: ['/v1/pets'],
        headers: json,
        body: '{"name":"Bench Rex","categoryId":9007199254740993,"status":"available"}',
        uniqueIdempotencyKeys: true,
      },
    },
    {
      name: 'unauthorized',
      description: 'GET /v1/pets with a wrong key (401)',
      expectErrors: true,
      load: {
        method: 'GET',
        paths: ['/v1/pets?limit=20'],
        headers: { Authorization: `Bearer ${WRONG_KEY}` },
      },
    },
    {
      name: 'trpc-list20',
      description: 'tRPC pets.list { limit: 20 }',
      expectErrors: false,
      load: { method: 'GET', paths: [`/v1/trpc/pets.list?${trpcInput({ limit: 20 })}`], headers: auth },
    },
    {
      name: 'trpc-create',
      description: 'tRPC pets.create',
      expectErrors: false,
      load: {
        method: 'POST',
        paths: ['/v1/trpc/pets.create'],
        headers: json,
        body: JSON.stringify({ json: { name: 'Bench Rex', categoryId: 7, status: 'available' } }),
      },
    },
    {
      name: 'mcp-list20',
      description: 'MCP tools/call listPets { limit: 20 } (POST /v1/mcp, stateless 2025 form)',
      expectErrors: false,
      // The references speak REST and tRPC only; against the api's own list20 is the comparison.
      apiOnly: true,
      load: { method: 'POST', paths: [MCP_LIST20.path], headers: MCP_LIST20.headers, body: MCP_LIST20.body },
    },
  ];
}

/** A mix of every successful request, for warm-up and the soak run. */
export function mixedLoad(seededPets: number): LoadRequest {
  const ids = seededIds(50, seededPets);
  return {
    method: 'GET',
    headers: auth,
    paths: [
      ...ids.map((id) => `/v1/pets/${id}`),
      ...Array.from({ length: 25 }, () => '/v1/pets?limit=20'),
      ...Array.from({ length: 15 }, () => '/v1/pets?limit=100&status=available'),
      ...Array.from({ length: 10 }, () => `/v1/trpc/pets.list?${trpcInput({ limit: 20 })}`),
    ],
    posts: [
      ...Array.from({ length: 15 }, () => ({ path: '/v1/pets', body: '{"name":"Soak Rex","categoryId":3}' })),
      ...Array.from({ length: 5 }, () => ({
        path: '/v1/trpc/pets.create',
        body: '{"json":{"name":"Soak Rex","categoryId":3,"status":"sold"}}',
      })),
    ],
  };
}
