import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REFERENCE_CLAIM } from '../test/reference-claim.js';
import { checkTable } from './check-table.js';
import { ALL_CHECKS } from './checks/all.checks.js';
import { EXIT, runCli } from './run-cli.js';

async function cli(argv: string[], env: NodeJS.ProcessEnv = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, env, { out: (line) => out.push(line), err: (line) => err.push(line) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('petstore-conformance CLI', () => {
  // A deployment that gets everything wrong: every request is a 500 with a text body.
  let server: Server;
  let baseUrl: string;
  beforeAll(async () => {
    server = createServer((_req, res) => res.writeHead(500, { 'content-type': 'text/plain' }).end('boom'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it('exits 2 with the usage when the base URL or key is missing or the base URL is not /v1', async () => {
    expect((await cli([])).code).toBe(EXIT.usage);
    expect((await cli(['--base-url', baseUrl])).err).toMatch(/PETSTORE_API_KEY \(or --api-key\) is required/);
    expect((await cli(['--base-url', 'http://127.0.0.1:1/api', '--api-key', 'k'])).err).toMatch(
      /must end with/,
    );
    expect((await cli(['--bogus'])).code).toBe(EXIT.usage);
    expect((await cli(['--only', 'no-such-check'], { BASE_URL: baseUrl, API_KEY: 'k' })).code).toBe(
      EXIT.usage,
    );
  });

  it('lists each check of a profile with its description and where it comes from', async () => {
    const ids = (out: string) => out.split('\n').filter((line) => !line.startsWith('  # '));
    const reference = await cli(['--list', '--profile', 'reference']);
    expect(reference.code).toBe(EXIT.passed);
    expect(ids(reference.out)).toHaveLength(ALL_CHECKS.length);
    expect(new Set(ALL_CHECKS.map((check) => check.id)).size).toBe(ALL_CHECKS.length);
    expect(reference.out).toContain(
      'listPets.limit.invalid.above-max - listPets?limit=101 (above the maximum 100) is 400 validation_failed\n' +
        '  # interface: Endpoints / GET /pets and Limits',
    );
    expect(reference.out).toMatch(/\n {2}# Decision: bad limit or status is 400 validation_failed\n/);
    // The default profile is `interface`: the checks with a section of the interface, and no decision line.
    const { out } = await cli(['--list']);
    expect(ids(out)).toHaveLength(ALL_CHECKS.filter((check) => check.spec !== undefined).length);
    expect(out).not.toContain('http.options');
    expect(out).not.toContain('# Decision');
    // Each line says what the interface profile asserts, not our decisions (an error code, our challenge).
    expect(out).toContain(
      'listPets.limit.invalid.zero - listPets?limit=0 (below the minimum 1) is refused with a 4xx Error body or answered with a valid page, never a 5xx',
    );
    expect(out.split('\n').filter((line) => REFERENCE_CLAIM.test(line))).toEqual([]);
  });

  it('takes the key from PETSTORE_API_KEY, and its help says why not --api-key', async () => {
    const help = await cli(['--help']);
    expect(help.out).toMatch(/^Usage: PETSTORE_API_KEY=<key> petstore-conformance/);
    expect(help.out).toContain("printed by the\npackage manager's command echo");
    const run = await cli(['--only', 'listPets.ok'], { PETSTORE_BASE_URL: baseUrl, PETSTORE_API_KEY: 'k' });
    expect(run.err).toBe('');
    expect(run.code).toBe(EXIT.failed);
  });

  it('exits 2 on an unknown profile or an --openapi document it cannot read', async () => {
    const bad = await cli(['--profile', 'strict'], { BASE_URL: baseUrl, API_KEY: 'k' });
    expect(bad.code).toBe(EXIT.usage);
    expect(bad.err).toMatch(/profile must be one of interface, reference, got "strict"/);
    const missing = await cli(['--openapi', '/no/such/openapi.json', '--only', 'listPets.ok'], {
      BASE_URL: baseUrl,
      API_KEY: 'k',
    });
    expect(missing.code).toBe(EXIT.usage);
    expect(missing.err).toMatch(/the OpenAPI document could not be read/);
  });

  it('reports a failure with its reproduction, writes JUnit, exits 1 and closes with "N passed, M failed"', async () => {
    const report = join(mkdtempSync(join(tmpdir(), 'conformance-')), 'junit.xml');
    const { code, out } = await cli(
      ['--only', 'listPets.limit.invalid.zero', '--report', report, '--seed', '3'],
      {
        PETSTORE_BASE_URL: `${baseUrl}/`,
        PETSTORE_API_KEY: 'secret-key-0123456789',
      },
    );
    expect(code).toBe(EXIT.failed);
    const lines = out.split('\n');
    expect(lines[0]).toMatch(
      /^# petstore-conformance: 1 checks of the interface profile against http:\/\/127\.0\.0\.1:\d+\/v1, seed 3/,
    );
    expect(lines[1]).toBe('not ok listPets.limit.invalid.zero - server error 500 on bad input: boom');
    expect(lines[2]).toBe('  # request: GET /v1/pets?limit=0');
    expect(out).toContain("  # reproduce: curl -i -X GET 'http://127.0.0.1:");
    expect(out).toContain(`-H 'authorization: Bearer '"$API_KEY"''`);
    expect(out).not.toContain('secret-key-0123456789');
    expect(lines.at(-1)).toBe('0 passed, 1 failed');
    const xml = readFileSync(report, 'utf8');
    expect(xml).toContain('<testsuites name="petstore-conformance" tests="1" failures="1"');
    expect(xml).toContain(
      '<testcase classname="petstore-conformance.listPets" name="listPets.limit.invalid.zero"',
    );
    expect(xml).toContain('<failure message="server error 500 on bad input: boom"');
    expect(xml).not.toContain('secret-key-0123456789');
  });
});

describe('petstore-conformance CLI: the pre-flight call', () => {
  // A deployment that refuses the key, as the reference does: 401 with an Error body.
  let server: Server;
  let baseUrl: string;
  let requests = 0;
  beforeAll(async () => {
    server = createServer((_req, res) => {
      requests++;
      res
        .writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer' })
        .end('{"code":"unauthorized","message":"the API key is not valid","status":401}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it('a refused key: one line that says so, exit 2, and no check run', async () => {
    const run = await cli([], { PETSTORE_BASE_URL: baseUrl, PETSTORE_API_KEY: 'wrong-key-0123456789' });
    expect(run.code).toBe(EXIT.usage);
    expect(run.out).toBe('');
    expect(run.err).toBe(
      `petstore-conformance: the API key was refused: GET ${baseUrl}/pets?limit=1 answered 401: unauthorized: ` +
        'the API key is not valid. Check PETSTORE_API_KEY (or --api-key)',
    );
    expect(run.err).not.toContain('wrong-key');
    expect(requests).toBe(1);
  });

  it('a base URL where nothing listens: one line, exit 2', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const run = await cli([], { PETSTORE_BASE_URL: `http://127.0.0.1:${port}/v1`, PETSTORE_API_KEY: 'k' });
    expect(run.code).toBe(EXIT.usage);
    expect(run.out).toBe('');
    expect(run.err).toMatch(/^petstore-conformance: the base URL could not be reached: GET .*ECONNREFUSED/);
    expect(run.err.split('\n')).toHaveLength(1);
  });
});

describe('README', () => {
  it('lists every check with the source it enforces, as checkTable() writes it', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    expect(readme).toContain(checkTable());
  });
});
