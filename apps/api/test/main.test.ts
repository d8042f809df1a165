import { type ChildProcess, spawnSync } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { type AddressInfo, connect, createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { PetSchema } from '@petstore/schema';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { scaled, timeouts } from '../../../tooling/vitest.shared.js';
import { call } from './support/http.js';
import { killProcess, makeTempDir, onCleanup, removeTempDir, spawnOwned } from './support/run-registry.js';
import { createTestDatabase, type TestDatabase } from './support/test-database.js';

// Every test here starts the API as a process (TypeScript compiled at start-up, PGlite loaded): slow on a busy
// machine, so each has the process timeout. No assertion here is on how fast the process is: "at once" is
// checked against what it must not wait for (the drain period, the drain deadline), not against a clock.
const PROCESS_TEST = timeouts.process;
/** A request timeout far longer than the headers timeout it must not be confused with. */
const REQUEST_TIMEOUT_MS = 120_000;

/** The real entry point, as `pnpm dev` runs it (TypeScript source), in its own process. */
function startMain(env: Record<string, string>, nodeOptions: string[] = []) {
  const args = [...nodeOptions, '--conditions=@petstore/source', '--import', 'tsx', 'src/main.ts'];
  const child = spawnOwned(process.execPath, args, {
    cwd: join(import.meta.dirname, '..'),
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const ready = new Promise<string>((resolve, reject) => {
    const check = () => {
      const url = /listening on (http:\/\/\S+\/v1)/.exec(stdout)?.[1];
      if (url) resolve(url);
    };
    child.stdout?.on('data', check);
    exited.then((code) => reject(new Error(`exited with ${code} before listening:\n${stderr}${stdout}`)));
  });
  ready.catch(() => {}); // tests of failed start-ups await `exited` instead
  running.push(child);
  return { child, ready, exited, output: () => ({ stdout, stderr }) };
}

/** A raw connection to `url`'s server, collecting what it sends. */
async function rawConnection(
  url: string,
): Promise<{ socket: Socket; received: () => string; closed: Promise<void> }> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  let received = '';
  socket.on('data', (chunk: Buffer) => {
    received += chunk.toString();
  });
  socket.on('error', () => {});
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  return { socket, received: () => received, closed };
}

/** Resolves once a new connection to `url`'s server is refused: the server has stopped accepting. */
async function untilRefused(url: string, withinMs = scaled(10_000)): Promise<void> {
  for (const started = Date.now(); Date.now() - started < withinMs; ) {
    const refused = await rawConnection(url).then(
      (connection) => {
        connection.socket.destroy();
        return false;
      },
      () => true,
    );
    if (refused) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`new connections were still accepted ${withinMs} ms later`);
}

/** A create whose body has not all arrived: an in-flight request the server must wait for. */
const [BODY_START, REST_OF_CREATE] = ['{"name":"Late",', '"categoryId":1}'];
const PARTIAL_CREATE = (key: string) =>
  `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\n` +
  `Content-Length: ${BODY_START.length + REST_OF_CREATE.length}\r\n\r\n${BODY_START}`;

// What a test started and did not see exit is killed after it, pass or fail.
const running: ChildProcess[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((child) => killProcess(child)));
});

describe('main: the process as users start it', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await makeTempDir('petstore-main-');
  });
  afterAll(async () => {
    if (dataDir) await removeTempDir(dataDir);
  });

  it(
    'starts on embedded PGlite with a generated key, prints the URL and a curl line, and keeps data across restarts',
    async () => {
      const first = startMain({ DATA_DIR: dataDir });
      const url = await first.ready;
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
      const key = (await readFile(join(dataDir, 'dev-api-key'), 'utf8')).trim();
      // The curl line is written after the "listening" line that `ready` waits for: wait for it, bounded.
      const curlLine = `curl -H 'Authorization: Bearer ${key}' ${url}/pets`;
      for (const deadline = Date.now() + scaled(10_000); Date.now() < deadline; ) {
        if (first.output().stdout.includes(curlLine)) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(first.output().stdout).toContain(curlLine);

      const created = await call(url, '/pets', {
        method: 'POST',
        body: '{"name":"Kept","categoryId":9007199254740993}',
        apiKey: key,
      });
      expect(created.status).toBe(201);
      const pet = PetSchema.parse(created.body);

      first.child.kill('SIGTERM');
      expect(await first.exited).toBe(0);

      const second = startMain({ DATA_DIR: dataDir });
      const url2 = await second.ready;
      const read = await call(url2, `/pets/${pet.id}`, { apiKey: key });
      expect(read.status).toBe(200);
      expect(read.text).toContain('"categoryId":9007199254740993');
      second.child.kill('SIGTERM');
      expect(await second.exited).toBe(0);
    },
    2 * PROCESS_TEST,
  ); // two PGlite start-ups, each about 1 GiB of WebAssembly

  it(
    'uses API_KEYS when given, and does not print or log them',
    async () => {
      const key = 'configured-key-0123456789';
      const proc = startMain({ DATA_DIR: dataDir, API_KEYS: key, LOG_LEVEL: 'info' });
      const url = await proc.ready;
      expect((await call(url, '/pets', { apiKey: key })).status).toBe(200);
      expect((await call(url, '/pets', { apiKey: 'wrong-key-0123456789' })).status).toBe(401);
      proc.child.kill('SIGTERM');
      await proc.exited;
      const { stdout, stderr } = proc.output();
      expect(stdout).toContain('"status":200'); // request lines are logged...
      expect(stdout + stderr).not.toContain(key); // ...but never the key
      expect(stdout + stderr).not.toContain('wrong-key-0123456789');
      expect(stdout).not.toContain('curl -H');
    },
    PROCESS_TEST,
  );

  it(
    'applies the HTTP_* server limits',
    async () => {
      const proc = startMain({
        DATA_DIR: dataDir,
        API_KEYS: 'limits-key-0123456789abcdef',
        HTTP_KEEP_ALIVE_TIMEOUT_MS: '7000',
        HTTP_HEADERS_TIMEOUT_MS: '300',
        HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
      });
      const url = new URL(await proc.ready);
      const reply = await fetch(`${url.origin}/healthz`);
      expect(reply.headers.get('keep-alive')).toBe('timeout=7');
      // Headers that never finish are cut off at the headers timeout (300 ms plus Node's check interval), not at
      // the request timeout, which is set long so the two cannot be confused.
      const socket = connect(Number(url.port), url.hostname);
      socket.on('error', () => {});
      socket.resume(); // read to the end, so that the server's close is seen
      const started = Date.now();
      socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n');
      await new Promise((resolve) => socket.once('close', resolve));
      expect(Date.now() - started).toBeLessThan(REQUEST_TIMEOUT_MS);
      proc.child.kill('SIGTERM');
      expect(await proc.exited).toBe(0);
    },
    PROCESS_TEST,
  );

  it(
    'on SIGTERM: /readyz turns 503, new connections are refused, the request in flight completes, exit 0',
    async () => {
      const key = 'drain-key-0123456789abcdef';
      const proc = startMain({ DATA_DIR: dataDir, API_KEYS: key });
      const url = await proc.ready;
      const inFlight = await rawConnection(url);
      inFlight.socket.write(PARTIAL_CREATE(key));
      await new Promise((resolve) => setTimeout(resolve, 100));

      proc.child.kill('SIGTERM');
      await untilRefused(url);
      expect(proc.child.exitCode).toBeNull(); // still waiting for the request in flight
      // The rest of the body, and a readiness probe on the same connection (pipelined).
      inFlight.socket.write(`${REST_OF_CREATE}GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n`);
      expect(await proc.exited).toBe(0);
      // Once its requests are answered, the kept-alive connection is closed: no wait for the drain deadline
      // (which, when reached, is logged at warn, the level this process logs at).
      expect(proc.output().stdout).not.toContain('shutdown deadline reached');
      await inFlight.closed;
      const statuses = [...inFlight.received().matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((match) => match[1]);
      expect(statuses).toEqual(['201', '503']);
      expect(inFlight.received()).toContain('"code":"service_unavailable"');
      // Both answered after the server stopped listening: the last one read says close, the create kept the
      // connection for the probe pipelined behind it (test/shutdown.test.ts has the cases).
      const [createAnswer, probeAnswer] = inFlight.received().split(/(?=HTTP\/1\.1 )/);
      expect(createAnswer).toMatch(/^connection: *keep-alive\r$/im);
      expect(probeAnswer).toMatch(/^connection: *close\r$/im);
    },
    PROCESS_TEST,
  );

  it(
    'exits 1 at once on a second signal, without waiting for the request in flight',
    async () => {
      const key = 'twice-key-0123456789abcdef';
      const proc = startMain({ DATA_DIR: dataDir, API_KEYS: key });
      const url = await proc.ready;
      const inFlight = await rawConnection(url);
      inFlight.socket.write(PARTIAL_CREATE(key)); // never finished
      await new Promise((resolve) => setTimeout(resolve, 100));
      proc.child.kill('SIGTERM');
      await untilRefused(url);
      proc.child.kill('SIGINT');
      expect(await proc.exited).toBe(1);
      // At once: before the drain deadline, whose warning it would log first (and then exit 0), and before the
      // request in flight (never finished) times out.
      expect(proc.output().stdout).toContain('second signal: exiting now');
      expect(proc.output().stdout).not.toContain('shutdown deadline reached');
      inFlight.socket.destroy();
    },
    PROCESS_TEST,
  );

  it(
    'drains for SHUTDOWN_DRAIN_MS: /readyz is 503 at once, new connections are still served, then refused, exit 0',
    async () => {
      const key = 'period-key-0123456789abcdef';
      // Long enough that a busy machine answers the requests below within it; "at once" means within it.
      const DRAIN_MS = scaled(6_000);
      const proc = startMain({ DATA_DIR: dataDir, API_KEYS: key, SHUTDOWN_DRAIN_MS: String(DRAIN_MS) });
      const url = await proc.ready;
      const origin = new URL(url).origin;
      expect((await fetch(`${origin}/readyz`)).status).toBe(200);
      const signalled = Date.now();
      proc.child.kill('SIGTERM');
      // Load balancers see the instance go unready at once...
      for (let status = 200; status !== 503; ) {
        const probe = await fetch(`${origin}/readyz`, { headers: { connection: 'close' } });
        status = probe.status;
        await probe.text();
        expect(Date.now() - signalled).toBeLessThan(DRAIN_MS);
      }
      // ...while requests on new connections (and creates) are served as before until the period ends.
      const created = await call(url, '/pets', {
        method: 'POST',
        body: '{"name":"During drain","categoryId":1}',
        apiKey: key,
        headers: { connection: 'close' },
      });
      expect(created.status).toBe(201);
      const listed = await call(url, '/pets', { apiKey: key, headers: { connection: 'close' } });
      expect(listed.status).toBe(200);
      // Served within the period (after it, a new connection is refused and `call` throws).
      expect(Date.now() - signalled, 'the requests took longer than the drain period').toBeLessThan(DRAIN_MS);
      expect(proc.child.exitCode).toBeNull();
      await untilRefused(url, DRAIN_MS + scaled(10_000));
      // Not before the period is over (a lower bound: a busy machine only makes it later).
      expect(Date.now() - signalled).toBeGreaterThanOrEqual(DRAIN_MS - 50);
      expect(await proc.exited).toBe(0);
    },
    PROCESS_TEST,
  );

  it(
    'exits 1 at once on a second signal during the drain period',
    async () => {
      const DRAIN_MS = 300_000; // the longest SHUTDOWN_DRAIN_MS allows: longer than the test's timeout
      const proc = startMain({
        DATA_DIR: dataDir,
        API_KEYS: 'second-key-0123456789abcdef',
        SHUTDOWN_DRAIN_MS: String(DRAIN_MS),
      });
      const origin = new URL(await proc.ready).origin;
      proc.child.kill('SIGTERM');
      await new Promise((resolve) => setTimeout(resolve, 200));
      const health = await fetch(`${origin}/healthz`, { headers: { connection: 'close' } }).catch((error) => {
        throw new Error(`${error}: ${JSON.stringify({ ...proc.output(), signal: proc.child.signalCode })}`);
      });
      expect(health.status).toBe(200);
      const second = Date.now();
      proc.child.kill('SIGTERM');
      // Exit 1 before the drain period ends (at its end it would stop listening and exit 0).
      expect(await proc.exited).toBe(1);
      expect(Date.now() - second).toBeLessThan(DRAIN_MS);
    },
    PROCESS_TEST,
  );

  it(
    'refuses to open an embedded data directory another process is using',
    async () => {
      const first = startMain({ DATA_DIR: dataDir, API_KEYS: 'lock-key-0123456789abc' });
      await first.ready;
      const second = startMain({ DATA_DIR: dataDir, API_KEYS: 'lock-key-0123456789abc' });
      expect(await second.exited).toBe(1);
      // An operator's condition: one line saying what to do, as a bad variable gets, no "failed to start" stack.
      expect(second.output().stderr).toMatch(
        new RegExp(`^the embedded database in \\S+ is in use by process ${first.child.pid}\\. [^\\n]*\\n$`),
      );
      // `pnpm keys` on the same directory while the api runs is refused too, saying how to issue keys anyway.
      const keys = spawnSync(
        process.execPath,
        [join(import.meta.dirname, '../../../scripts/api-tool.mjs'), 'keys/keys-cli.ts', 'list'],
        {
          cwd: join(import.meta.dirname, '..'),
          env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir },
          encoding: 'utf8',
        },
      );
      expect(keys.status).toBe(1);
      expect(keys.stdout).toBe('');
      expect(keys.stderr).toMatch(
        new RegExp(
          `^the embedded database in \\S+ is in use by process ${first.child.pid}\\. [^\\n]*stop the api[^\\n]*PostgreSQL[^\\n]*\\n$`,
        ),
      );
      first.child.kill('SIGTERM');
      expect(await first.exited).toBe(0);
    },
    PROCESS_TEST,
  );

  it.each(['production', 'staging'])(
    'refuses to start with APP_ENV=%s without API_KEYS, naming the variable, and makes or prints no key',
    async (appEnv) => {
      const emptyDir = await makeTempDir('petstore-main-env-');
      try {
        const proc = startMain({ DATA_DIR: emptyDir, APP_ENV: appEnv });
        expect(await Promise.race([proc.exited, proc.ready.then(() => 'listening')])).toBe(1);
        const { stdout, stderr } = proc.output();
        expect(stderr).toContain(`API_KEYS: is required when APP_ENV=${appEnv}`);
        expect(stdout + stderr).not.toMatch(/dev_|Bearer/);
        expect(await readdir(emptyDir)).toEqual([]);
      } finally {
        await removeTempDir(emptyDir);
      }
    },
    PROCESS_TEST,
  );

  // The metrics listener is bound before the API's: one it cannot have stops start-up before "listening" too.
  it.each(['PORT', 'METRICS_PORT'])(
    '%s in use: says so in one line and what to do, exit 1, before any "listening" (no EADDRINUSE stack)',
    async (variable) => {
      const taken = createServer();
      await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
      const close = () => new Promise<void>((resolve) => taken.close(() => resolve()));
      const forget = onCleanup(close);
      try {
        const { port } = taken.address() as AddressInfo;
        const proc = startMain({
          DATA_DIR: dataDir,
          API_KEYS: 'port-key-0123456789abcdef',
          PORT: '0',
          [variable]: String(port),
        });
        expect(await Promise.race([proc.exited, proc.ready.then(() => 'listening')])).toBe(1);
        expect(proc.output().stderr).toBe(
          `${variable}=${port}: 127.0.0.1:${port} is already in use (another Pet Store, or another program, listens there). ` +
            `Stop it, or choose another port (${variable}=0 for any free one).\n`,
        );
        expect(proc.output().stdout).not.toMatch(/listening/);
      } finally {
        forget();
        await close();
      }
    },
    PROCESS_TEST,
  );

  it.each(['nonexistent.invalid', 'bad host!'])(
    'HOST=%s: says in one line that it names no address here, naming HOST, exit 1, and logs nothing after it',
    async (host) => {
      // stdout and stderr into one file, so that the order of what the process wrote is the order read.
      const logDir = await makeTempDir('petstore-main-host-');
      try {
        const file = join(logDir, 'output');
        const fd = openSync(file, 'w');
        const child = spawnOwned(
          process.execPath,
          ['--conditions=@petstore/source', '--import', 'tsx', 'src/main.ts'],
          {
            cwd: join(import.meta.dirname, '..'),
            env: {
              PATH: process.env.PATH ?? '',
              HOST: host,
              PORT: '0',
              LOG_LEVEL: 'info',
              DATA_DIR: dataDir,
              API_KEYS: 'host-key-0123456789abcdef',
            },
            stdio: ['ignore', fd, fd],
          },
        );
        closeSync(fd);
        running.push(child);
        expect(await new Promise((resolve) => child.once('exit', resolve))).toBe(1);
        const lines = (await readFile(file, 'utf8')).trimEnd().split('\n');
        expect(lines.at(-1)).toMatch(new RegExp(`^HOST=${host}: `));
        expect(lines.at(-1)).toContain('HOST=127.0.0.1');
        expect(lines.filter((line) => !line.startsWith('{'))).toEqual([lines.at(-1)]); // no stack, no other line
      } finally {
        await removeTempDir(logDir);
      }
    },
    PROCESS_TEST,
  );

  it.each([
    ['nothing listens there', 'postgresql://postgres@127.0.0.1:1/petstore'],
    ['no such database', 'postgresql://postgres@127.0.0.1:5432/petstore_no_such_database'],
  ])(
    'DATABASE_URL where %s: says in one line that the database cannot serve, without the password, exit 1',
    async (_what, url) => {
      const proc = startMain({
        DATABASE_URL: url.replace('postgres@', 'postgres:s3cret-password@'),
        API_KEYS: 'db-key-0123456789abcdef',
      });
      expect(await proc.exited).toBe(1);
      const { stdout, stderr } = proc.output();
      const lines = stderr.trimEnd().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        /^DATABASE_URL=postgresql:\/\/postgres:\*\*\*@127\.0\.0\.1:\d+\/\w+: the database cannot serve \(/,
      );
      expect(stderr + stdout).not.toContain('s3cret-password');
      if (url.endsWith('no_such_database')) expect(lines[0]).toContain('createdb petstore_no_such_database');
    },
    PROCESS_TEST,
  );

  // The command-line tools say what start-up says, in the same one line, and nothing else (no JSON log lines).
  it.each([
    [
      'pnpm db:migrate',
      'nothing listens there',
      'postgresql://postgres@127.0.0.1:1/petstore',
      ['db/migrate-cli.ts'],
    ],
    [
      'pnpm db:migrate',
      'no such database',
      'postgresql://postgres@127.0.0.1:5432/petstore_no_such_database',
      ['db/migrate-cli.ts'],
    ],
    [
      'pnpm keys list',
      'nothing listens there',
      'postgresql://postgres@127.0.0.1:1/petstore',
      ['keys/keys-cli.ts', 'list'],
    ],
    [
      'pnpm keys list',
      'no such database',
      'postgresql://postgres@127.0.0.1:5432/petstore_no_such_database',
      ['keys/keys-cli.ts', 'list'],
    ],
  ])(
    '%s where %s: the one line start-up prints, naming DATABASE_URL and what to do, exit 1',
    (_tool, _what, url, args) => {
      const tool = spawnSync(
        process.execPath,
        [join(import.meta.dirname, '../../../scripts/api-tool.mjs'), ...args],
        {
          cwd: join(import.meta.dirname, '..'),
          env: {
            PATH: process.env.PATH ?? '',
            DATABASE_URL: url.replace('postgres@', 'postgres:s3cret-password@'),
          },
          encoding: 'utf8',
        },
      );
      expect(tool.status).toBe(1);
      expect(tool.stdout).toBe('');
      expect(tool.stderr).toMatch(
        /^DATABASE_URL=postgresql:\/\/postgres:\*\*\*@127\.0\.0\.1:\d+\/\w+: the database cannot serve \([^\n]*\n$/,
      );
      expect(tool.stderr).toMatch(
        url.endsWith('no_such_database') ? /createdb petstore_no_such_database/ : /Check the URL/,
      );
    },
    PROCESS_TEST,
  );

  it(
    'refuses to start on a Node without the exact-JSON features, saying which Node it needs',
    async () => {
      // What Node 20 lacks: JSON.rawJSON (and the reviver's source text).
      const proc = startMain({ DATA_DIR: dataDir, API_KEYS: 'node-key-0123456789abcdef' }, [
        '--import',
        'data:text/javascript,delete JSON.rawJSON',
      ]);
      expect(await Promise.race([proc.exited, proc.ready.then(() => 'listening')])).toBe(1);
      expect(proc.output().stderr).toBe(
        `@petstore/schema needs JSON.rawJSON and JSON.parse source text (Node >= 22, Chrome/Edge >= 114, Firefox >= 135, Safari >= 18.4); this is Node ${process.versions.node}, which lacks JSON.rawJSON\n`,
      );
      expect(proc.output().stdout).toBe('');
    },
    PROCESS_TEST,
  );

  it(
    'refuses a bad value, naming the variable',
    async () => {
      const proc = startMain({ DATA_DIR: dataDir, PORT: 'eighty' });
      expect(await proc.exited).toBe(1);
      expect(proc.output().stderr).toMatch(/PORT: must be a port number/);
    },
    PROCESS_TEST,
  );

  describe('on PostgreSQL (DATABASE_URL)', () => {
    let database: TestDatabase;
    beforeAll(async () => {
      database = await createTestDatabase('main');
    });
    afterAll(async () => {
      await database?.drop();
    });

    it(
      'migrates a new database at start-up and serves it',
      async () => {
        const key = 'pg-key-0123456789abcdef';
        const proc = startMain({ DATABASE_URL: database.url, API_KEYS: key, DATA_DIR: dataDir });
        const url = await proc.ready;
        expect(proc.output().stdout).toContain('PostgreSQL postgresql://postgres@');
        expect(
          (await call(url, '/pets', { method: 'POST', body: '{"name":"Pg","categoryId":1}', apiKey: key }))
            .status,
        ).toBe(201);
        expect(((await call(url, '/pets', { apiKey: key })).body as unknown[]).length).toBe(1);
        proc.child.kill('SIGTERM');
        expect(await proc.exited).toBe(0);
      },
      PROCESS_TEST,
    );

    it(
      'loads neither PGlite nor Swagger UI until they are needed, nor metrics or tracing modules when off',
      async () => {
        // Reports, once each, the packages of interest as Node resolves a module in them.
        const watch =
          "import { registerHooks } from 'node:module'; const seen = new Set();" +
          'registerHooks({ resolve(specifier, context, next) { const result = next(specifier, context);' +
          ' const name = /node_modules\\/(@electric-sql\\/pglite|pglite-prisma-adapter|swagger-ui-dist|prom-client|@opentelemetry\\/[^/]+|@prisma\\/instrumentation)\\//.exec(result.url)?.[1];' +
          " if (name && !seen.has(name)) { seen.add(name); process.stderr.write('loaded ' + name + '\\n'); }" +
          ' return result; } });';
        const key = 'lazy-key-0123456789abcdef';
        const proc = startMain({ DATABASE_URL: database.url, API_KEYS: key, DATA_DIR: dataDir }, [
          '--import',
          `data:text/javascript,${encodeURIComponent(watch)}`,
        ]);
        const url = await proc.ready;
        const origin = new URL(url).origin;
        expect((await call(url, '/pets', { apiKey: key })).status).toBe(200);
        expect((await fetch(`${origin}/docs`)).status).toBe(200);
        expect(proc.output().stderr).toBe('');
        // Swagger UI's files are found on first request for one (which also shows the watch works).
        const css = await fetch(`${origin}/docs/assets/swagger-ui.css`);
        expect(css.status).toBe(200);
        await css.arrayBuffer();
        expect(proc.output().stderr).toBe('loaded swagger-ui-dist\n');
        proc.child.kill('SIGTERM');
        expect(await proc.exited).toBe(0);
      },
      PROCESS_TEST,
    );

    it(
      'exits 1 with a log line when closing the database hangs',
      async () => {
        // Fault injection, loaded before the app: from SIGTERM on, the pool's end() never settles.
        const hang =
          "import { createRequire } from 'node:module';" +
          "const { Pool } = createRequire(process.cwd() + '/')('pg');" +
          "process.once('SIGTERM', () => { Pool.prototype.end = () => new Promise(() => {}); });";
        const key = 'hang-key-0123456789abcdef';
        const proc = startMain({ DATABASE_URL: database.url, API_KEYS: key, DATA_DIR: dataDir }, [
          '--import',
          `data:text/javascript,${encodeURIComponent(hang)}`,
        ]);
        const url = await proc.ready;
        expect((await call(url, '/pets', { apiKey: key })).status).toBe(200);
        proc.child.kill('SIGTERM');
        // It exits (1) rather than hang: the log line says the close timeout, not the test's clock, ended it.
        expect(await proc.exited).toBe(1);
        expect(proc.output().stdout).toContain('the database did not close within 5000 ms: exiting anyway');
      },
      PROCESS_TEST,
    );
  });
});
