import { type CheckResult, runConformance } from '@petstore/conformance';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS, startTestServer, TEST_API_KEY, type TestServer } from './support/test-server.js';

/** Failures shown with their reproduction, so a red run says what the deployment did. */
const explain = (results: CheckResult[]) =>
  results
    .filter((result) => !result.ok)
    .map(
      (result) =>
        `${result.id}: ${result.reason}\n  ${result.reproduction?.method} ${result.reproduction?.url}`,
    )
    .join('\n');

describe.each(DATABASE_KINDS)('@petstore/conformance against the real API on %s', (kind) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer(kind, 'conformance');
  });
  afterAll(async () => {
    await server?.close();
  });

  it('passes every check of the reference profile, twice in a row on the same database, its own OpenAPI document included', async () => {
    for (const seed of [1, 2]) {
      const report = await runConformance({
        baseUrl: server.baseUrl,
        apiKey: TEST_API_KEY,
        seed,
        numRuns: 15,
        profile: 'reference',
      });
      expect(explain(report.results)).toBe('');
      expect(report.results.length).toBeGreaterThan(80);
      expect(report.openapi).toBe(`${server.baseUrl}/openapi.json`);
      expect(report.skipped).toBe(0);
    }
  });

  it('passes the interface profile (what another team runs)', async () => {
    const report = await runConformance({
      baseUrl: server.baseUrl,
      apiKey: TEST_API_KEY,
      seed: 3,
      numRuns: 5,
    });
    expect(report.profile).toBe('interface');
    expect(explain(report.results)).toBe('');
  });
});

describe("@petstore/conformance --profile reference after the README's first calls, on a fresh database", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('pglite', 'conformance-first-calls');
  });
  afterAll(async () => {
    await server?.close();
  });

  it("passes with pet 1 the README's available Rex (a forged cursor must still differ from the genuine one)", async () => {
    // README "A first call": createPet, so pet 1 is `available` and the first page of available pets ends at it.
    const created = await fetch(`${server.baseUrl}/pets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_API_KEY}`, 'content-type': 'application/json' },
      body: '{"name":"Rex","categoryId":9007199254740993,"status":"available"}',
    });
    expect(created.status).toBe(201);
    expect(await created.text()).toBe(
      '{"id":1,"name":"Rex","categoryId":9007199254740993,"status":"available"}',
    );
    const report = await runConformance({
      baseUrl: server.baseUrl,
      apiKey: TEST_API_KEY,
      seed: 4,
      numRuns: 5,
      profile: 'reference',
    });
    expect(explain(report.results)).toBe('');
  });
});
