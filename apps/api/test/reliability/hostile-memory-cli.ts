/**
 * Which hostile inputs drive the API's resident memory up: one family of input at a time, each in a fresh API
 * process (so families cannot lend each other memory), after the same short normal load as the probes
 * scenario. Prints, per family, the peak RSS under the normal load, the peak under the family, their ratio and
 * the RSS a few seconds after. A measuring tool, not a test:
 *
 *   node --conditions=@petstore/source --import tsx apps/api/test/reliability/hostile-memory-cli.ts \
 *     [--database=pglite|postgresql] [--only=deep-nesting,held-bodies,...]
 */
import { connect, type Socket } from 'node:net';
import { REQUEST_BODY_LIMIT_BYTES } from '@petstore/schema';
import { acquirePostgresServer } from '../support/postgres-server.js';
import { type ApiProcess, RELIABILITY_API_KEY, startApiProcess } from './api-process.js';
import { memoryMeter, normalLoad } from './probes.scenario.js';
import { type RawRequest, sendRaw } from './raw-http.js';
import {
  createPet,
  mapConcurrently,
  type ScenarioDatabase,
  sleep,
  withDatabase,
} from './scenario-support.js';

const MIB = 1024 * 1024;

interface Family {
  name: string;
  description: string;
  /** Sends the family's load; returns how many requests (or connections) it used and the statuses seen. */
  run(api: ApiProcess): Promise<{ sent: number; statuses: Record<string, number> }>;
}

const host = (api: ApiProcess) => `${api.host}:${api.port}`;

function request(api: ApiProcess, method: string, target: string, body?: string | Buffer, anonymous = false) {
  const headers: [string, string][] = [['Host', host(api)]];
  if (!anonymous) headers.push(['Authorization', `Bearer ${RELIABILITY_API_KEY}`]);
  if (body !== undefined) {
    headers.push(['Content-Type', 'application/json']);
    headers.push(['Content-Length', String(Buffer.byteLength(body))]);
  }
  return {
    method,
    target,
    headers,
    ...(body === undefined ? {} : { body: typeof body === 'string' ? Buffer.from(body) : body }),
  } satisfies RawRequest;
}

/** `count` requests from `make`, `concurrency` at a time, each on its own connection. */
async function blast(api: ApiProcess, count: number, concurrency: number, make: (i: number) => RawRequest) {
  const statuses: Record<string, number> = {};
  await mapConcurrently(
    Array.from({ length: count }, (_, i) => i),
    concurrency,
    async (i) => {
      const outcome = await sendRaw(api.host, api.port, make(i), 30_000);
      const key = outcome.kind === 'response' ? String(outcome.response.status) : outcome.kind;
      statuses[key] = (statuses[key] ?? 0) + 1;
    },
  );
  return { sent: count, statuses };
}

/** Opens `count` connections that each send `head` and then hold; returns them once all are open. */
async function holdConnections(api: ApiProcess, count: number, head: (i: number) => Buffer) {
  const sockets: Socket[] = [];
  const statuses: Record<string, number> = {};
  for (let i = 0; i < count; i += 100) {
    await Promise.all(
      Array.from(
        { length: Math.min(100, count - i) },
        (_, j) =>
          new Promise<void>((resolve) => {
            const socket = connect({ host: api.host, port: api.port });
            sockets.push(socket);
            socket.on('error', () => resolve());
            socket.once('data', (chunk: Buffer) => {
              const status = /^HTTP\/1\.1 (\d+)/.exec(chunk.toString('latin1'))?.[1] ?? 'other';
              statuses[status] = (statuses[status] ?? 0) + 1;
            });
            socket.on('connect', () => socket.write(head(i + j), () => resolve()));
          }),
      ),
    );
  }
  return { sockets, statuses };
}

const batch = (procedure: string, count: number) => Array(count).fill(procedure).join(',');
const batchInput = (count: number, envelope: string) =>
  `{${Array.from({ length: count }, (_, i) => `"${i}":${envelope}`).join(',')}}`;

const FAMILIES: Family[] = [
  {
    name: 'normal-volume',
    description: 'not hostile, for scale: 4,000 more normal reads and creates (10x the reference load)',
    run: async (api) => {
      const serverErrors = await normalLoad(api.baseUrl, 4_000);
      return { sent: 4_000, statuses: { '5xx': serverErrors } };
    },
  },
  {
    name: 'rest-lists',
    description:
      'not hostile, for scale: 20,000 GET /v1/pets?limit=100 (the pets of trpc-batches, 100 a request), 16 at once',
    async run(api) {
      for (let i = 0; i < 100; i++) await createPet(api.baseUrl, { name: `filler ${i}`, categoryId: 1n });
      return blast(api, 20_000, 16, () => request(api, 'GET', '/v1/pets?limit=100'));
    },
  },
  {
    name: 'trpc-batches',
    description:
      '2,000 GET batches of 10 x pets.list limit 100 (the largest answer a batch can ask for), 16 at once',
    async run(api) {
      for (let i = 0; i < 100; i++) await createPet(api.baseUrl, { name: `filler ${i}`, categoryId: 1n });
      const target = `/v1/trpc/${batch('pets.list', 10)}?batch=1&input=${encodeURIComponent(batchInput(10, '{"json":{"limit":100}}'))}`;
      return blast(api, 2_000, 16, () => request(api, 'GET', target));
    },
  },
  {
    name: 'trpc-create-batches',
    description: '300 POST batches of 10 creates, 16 at once',
    run: (api) =>
      blast(api, 300, 16, () =>
        request(
          api,
          'POST',
          `/v1/trpc/${batch('pets.create', 10)}?batch=1`,
          batchInput(
            10,
            '{"json":{"name":"b","categoryId":"1"},"meta":{"values":{"categoryId":["bigint"]}}}',
          ),
        ),
      ),
  },
  {
    name: 'refused-batches',
    description:
      '1,500 refused batches: 1,560 x pets.list without a key, 1,000 x with a key, 1,300 creates (52 KB body), 16 at once',
    run: (api) =>
      blast(api, 1_500, 16, (i) =>
        i % 3 === 0
          ? request(api, 'GET', `/v1/trpc/${batch('pets.list', 1_560)}?batch=1`, undefined, true)
          : i % 3 === 1
            ? request(api, 'GET', `/v1/trpc/${batch('pets.list', 1_000)}?batch=1`)
            : request(
                api,
                'POST',
                `/v1/trpc/${batch('pets.create', 1_300)}?batch=1`,
                batchInput(1_300, '{"json":{"name":"n","categoryId":1}}'),
              ),
      ),
  },
  {
    name: 'deep-nesting',
    description: '2,000 bodies of 32,000 nested arrays (64 KiB) to REST and tRPC, 16 at once',
    run: (api) => {
      const deep = `${'['.repeat(32_000)}${']'.repeat(32_000)}`;
      return blast(api, 2_000, 16, (i) =>
        i % 2 === 0
          ? request(api, 'POST', '/v1/pets', deep)
          : request(api, 'POST', '/v1/trpc/pets.create', `{"json":${deep}}`),
      );
    },
  },
  {
    name: 'deep-nesting-parsed',
    description:
      '2,000 tRPC bodies of 2,000 nested arrays: deep, yet under the depth at which parsing gives up, so the input checks walk it',
    run: (api) => {
      const body = `{"json":${'['.repeat(2_000)}${']'.repeat(2_000)}}`;
      return blast(api, 2_000, 16, () => request(api, 'POST', '/v1/trpc/pets.create', body));
    },
  },
  {
    name: 'many-keys',
    description:
      '2,000 bodies of 6,000 unknown keys (59 KB; the 400 lists every key) to REST and tRPC, 16 at once',
    run: (api) => {
      const keys = Array.from({ length: 6_000 }, (_, i) => `"k${i}":0`).join(',');
      const pet = `{"name":"a","categoryId":1,${keys}}`;
      return blast(api, 2_000, 16, (i) =>
        i % 2 === 0
          ? request(api, 'POST', '/v1/pets', pet)
          : request(api, 'POST', '/v1/trpc/pets.create', `{"json":${pet}}`),
      );
    },
  },
  {
    name: 'long-urls',
    description: '3,000 URLs just under the 16 KiB header limit (query, tRPC input, path), 16 at once',
    run: (api) =>
      blast(api, 3_000, 16, (i) =>
        i % 3 === 0
          ? request(api, 'GET', `/v1/pets?status=${'a'.repeat(16_000)}`)
          : i % 3 === 1
            ? request(
                api,
                'GET',
                `/v1/trpc/pets.list?input=${encodeURIComponent(`{"json":{"status":"${'a'.repeat(15_900)}"}}`)}`,
              )
            : request(api, 'GET', `/v1/pets/${'9'.repeat(16_000)}`),
      ),
  },
  {
    name: 'max-bodies',
    description: '2,000 bodies just under 64 KiB (a 65,000-character name: 400), 64 at once',
    run: (api) => {
      const body = `{"name":"${'n'.repeat(REQUEST_BODY_LIMIT_BYTES - 600)}","categoryId":1}`;
      return blast(api, 2_000, 64, () => request(api, 'POST', '/v1/pets', body));
    },
  },
  {
    name: 'slow-headers',
    description: '5,000 connections holding 8 KiB of unfinished headers each, for 10 s',
    async run(api) {
      const { sockets, statuses } = await holdConnections(api, 5_000, () =>
        Buffer.from(`GET /v1/pets HTTP/1.1\r\nHost: ${host(api)}\r\nX-Slow: ${'s'.repeat(8_000)}`),
      );
      await sleep(10_000);
      for (const socket of sockets) socket.destroy();
      return { sent: sockets.length, statuses };
    },
  },
  {
    name: 'held-bodies',
    description:
      '2,000 connections that send all but the last byte of a 64 KiB create body and hold, for 10 s',
    async run(api) {
      const length = REQUEST_BODY_LIMIT_BYTES;
      const { sockets, statuses } = await holdConnections(api, 2_000, () =>
        Buffer.concat([
          Buffer.from(
            `POST /v1/pets HTTP/1.1\r\nHost: ${host(api)}\r\nAuthorization: Bearer ${RELIABILITY_API_KEY}\r\n` +
              `Content-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`,
          ),
          Buffer.alloc(length - 1, 0x20),
        ]),
      );
      await sleep(10_000);
      for (const socket of sockets) socket.destroy();
      return { sent: sockets.length, statuses };
    },
  },
];

async function measure(database: ScenarioDatabase, adminUrl: string, family: Family) {
  return withDatabase({ postgresAdminUrl: adminUrl }, database, 'memory', async (target) => {
    const api = await startApiProcess({
      ...target,
      env: { LOG_LEVEL: 'silent', RATE_LIMIT_PER_MINUTE: '1000000' },
    });
    const meter = memoryMeter(api.pid);
    try {
      await normalLoad(api.baseUrl, 50);
      await meter.reset();
      await normalLoad(api.baseUrl, 400);
      const normalPeak = await meter.reset();
      const started = Date.now();
      const { sent, statuses } = await family.run(api);
      const elapsedMs = Date.now() - started;
      const peak = await meter.reset();
      await sleep(5_000);
      const after = (await meter.status()).rss;
      const alive = api.child.exitCode === null && api.child.signalCode === null;
      return { normalPeak, peak, after, sent, statuses, elapsedMs, alive };
    } finally {
      meter.stop();
      await api.kill();
    }
  });
}

async function main() {
  let database: ScenarioDatabase = 'pglite';
  let only: Set<string> | undefined;
  for (const arg of process.argv.slice(2)) {
    if (arg === '--database=postgresql' || arg === '--database=pglite')
      database = arg.slice('--database='.length) as ScenarioDatabase;
    else if (arg.startsWith('--only=')) only = new Set(arg.slice('--only='.length).split(','));
    else if (arg !== '--') throw new Error(`unknown argument ${arg}`);
  }
  const server = await acquirePostgresServer();
  const mib = (bytes: number) => (bytes / MIB).toFixed(0).padStart(5);
  process.stdout.write(
    `peak RSS per hostile input family on ${database} (MiB; normal = 400 reads and creates)\n`,
  );
  process.stdout.write('family               normal  peak  ratio  +MiB  5s-after  sent  time   statuses\n');
  try {
    for (const family of FAMILIES) {
      if (only && !only.has(family.name)) continue;
      const r = await measure(database, server.adminUrl, family);
      process.stdout.write(
        `${family.name.padEnd(20)} ${mib(r.normalPeak)} ${mib(r.peak)}  ${(r.peak / r.normalPeak).toFixed(2)}x ${mib(r.peak - r.normalPeak)} ${mib(r.after)}    ${String(r.sent).padStart(5)} ${(r.elapsedMs / 1000).toFixed(1).padStart(5)}s ${JSON.stringify(r.statuses)}${r.alive ? '' : ' DIED'}\n` +
          `  ${family.description}\n`,
      );
    }
  } finally {
    await server.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
