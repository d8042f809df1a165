import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_CHECKS } from '../src/checks/all.checks.js';
import { type CheckResult, runConformance } from '../src/index.js';
import { INDEPENDENT_OPENAPI, type IndependentServer, startIndependentServer } from './independent-server.js';
import { REFERENCE_CLAIM } from './reference-claim.js';

const KEY = 'independent-team-key-0123456789';

const explain = (results: CheckResult[]) =>
  results
    .filter((result) => !result.ok)
    .map((result) => `${result.id}: ${result.reason}`)
    .join('\n');

describe('profiles against an independent implementation that decides every gap its own way', () => {
  let server: IndependentServer;
  beforeAll(async () => {
    server = await startIndependentServer(KEY);
  });
  afterAll(async () => {
    await server?.close();
  });

  it('passes --profile interface (the default), its own OpenAPI document included', async () => {
    const report = await runConformance({ baseUrl: server.baseUrl, apiKey: KEY, seed: 11, numRuns: 10 });
    expect(report.profile).toBe('interface');
    expect(explain(report.results)).toBe('');
    expect(report.openapi).toBe(`${server.baseUrl}/openapi.json`);
    expect(report.skipped).toBe(0);
    // Every check with a section of the interface ran; none that only enforces a decision of ours did.
    expect(report.results.map((result) => result.id)).toEqual(
      ALL_CHECKS.filter((check) => check.spec !== undefined).map((check) => check.id),
    );
    // `ok <id> - <line>`: each line says what this profile asserted, none of our decisions.
    expect(report.results.filter((result) => REFERENCE_CLAIM.test(result.description))).toEqual([]);
  });

  it('fails --profile reference on checks that enforce a decision of ours, and on no other', async () => {
    const report = await runConformance({
      baseUrl: server.baseUrl,
      apiKey: KEY,
      seed: 11,
      numRuns: 10,
      profile: 'reference',
    });
    const failed = report.results.filter((result) => !result.ok);
    // Each failure is a decision of ours, named in the result.
    expect(failed.filter((result) => result.decision === undefined).map((result) => result.id)).toEqual([]);
    // And the checks that carry only the interface all pass.
    const interfaceOnly = report.results.filter((result) => result.decision === undefined);
    expect(explain(interfaceOnly)).toBe('');
    // The decisions it takes differently, every one of them caught.
    expect(failed.map((result) => result.id).sort()).toEqual(EXPECTED_REFERENCE_FAILURES);
  });
});

describe('a broken fixture: createPet answers 200 instead of 201', () => {
  let server: IndependentServer;
  beforeAll(async () => {
    server = await startIndependentServer(KEY, { createStatus: 200 });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('is reported once by the first check that needs it; its dependents are skipped, saying why', async () => {
    const report = await runConformance({ baseUrl: server.baseUrl, apiKey: KEY, seed: 11, numRuns: 5 });
    const failed = report.results.filter((result) => !result.ok);
    const [first, ...others] = failed;
    expect(first?.reason).toMatch(
      /^createPet, which this and later checks need to make pets, answered wrongly: expected status 201, got 200/,
    );
    // Besides it, only the checks whose subject is createPet's answer itself.
    expect(others.map((result) => result.id)).toEqual([
      'createPet.created',
      'responses.documented-status',
      'responses.openapi',
    ]);
    const dependents = report.results.filter((result) => result.skipped !== undefined);
    expect(dependents.length).toBeGreaterThan(15);
    for (const result of dependents)
      expect(result.skipped).toMatch(
        /^needs pets made by createPet, which answered wrongly earlier in this run \(expected status 201, got 200/,
      );
  });
});

describe("--openapi: the deployment's own document", () => {
  let server: IndependentServer;
  let dir: string;
  beforeAll(async () => {
    server = await startIndependentServer(KEY);
    dir = await mkdtemp(join(tmpdir(), 'conformance-openapi-'));
  });
  afterAll(async () => {
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  });
  const run = (openapi: string | false) =>
    runConformance({ baseUrl: server.baseUrl, apiKey: KEY, openapi, only: ['listPets.', 'responses.'] });

  it('flags a status the document does not list for the operation, naming both', async () => {
    // The same document without listPets' 422, which the server answers to limit=abc.
    const document = structuredClone(INDEPENDENT_OPENAPI) as typeof INDEPENDENT_OPENAPI;
    delete (document.paths['/pets'].get.responses as Record<string, unknown>)['422'];
    const file = join(dir, 'no-422.json');
    await writeFile(file, JSON.stringify(document));
    const report = await run(file);
    const result = report.results.find((item) => item.id === 'responses.openapi');
    expect(result?.ok).toBe(false);
    expect(result?.reason).toMatch(
      /^listPets answered 422, a status its OpenAPI document \(.*no-422\.json\) does not list/,
    );
    expect(result?.reproduction?.url).toMatch(/\/v1\/pets\?/);
  });

  it('flags a body the document describes otherwise', async () => {
    const document = structuredClone(INDEPENDENT_OPENAPI) as typeof INDEPENDENT_OPENAPI;
    document.components.schemas.Pet.properties.name.maxLength = 3;
    const file = join(dir, 'short-names.json');
    await writeFile(file, JSON.stringify(document));
    const result = (await run(file)).results.find((item) => item.id === 'responses.openapi');
    expect(result?.reason).toMatch(
      /body its OpenAPI document's schema refuses: .*name must NOT have more than 3 characters/,
    );
  });

  it('is skipped, not failed, with --openapi none or when the deployment publishes none', async () => {
    const off = (await run(false)).results.find((item) => item.id === 'responses.openapi');
    expect(off).toMatchObject({ ok: true, skipped: 'turned off (--openapi none)' });
    const report = await runConformance({
      baseUrl: server.baseUrl.replace(/\/v1$/, '/elsewhere/v1'),
      apiKey: KEY,
      only: ['responses.openapi'],
    });
    expect(report.results[0]?.skipped).toMatch(
      /publishes no OpenAPI document at .*\/elsewhere\/v1\/openapi\.json/,
    );
    expect(report.skipped).toBe(1);
  });

  it('refuses to start when a named document cannot be read', async () => {
    await expect(run(join(dir, 'missing.json'))).rejects.toThrow(/OpenAPI document could not be read/);
  });
});

/** The decision checks the independent server fails under `reference`, one group per decision it takes. */
const EXPECTED_REFERENCE_FAILURES: string[] = [
  'auth.before-routing',
  'auth.before-validation.createPet',
  'auth.before-validation.getPet',
  'auth.before-validation.listPets',
  'auth.malformed.createPet',
  'auth.malformed.getPet',
  'auth.malformed.listPets',
  'auth.missing-key.createPet',
  'auth.missing-key.getPet',
  'auth.missing-key.listPets',
  'auth.wrong-key.createPet',
  'auth.wrong-key.getPet',
  'auth.wrong-key.listPets',
  'createPet.body.malformed-json',
  'createPet.body.missing',
  'createPet.body.not-object',
  'createPet.body.not-utf8',
  'createPet.content-type.json',
  'createPet.content-type.unsupported',
  'createPet.created',
  'createPet.idempotency-key.invalid',
  'createPet.idempotency-key.other-body',
  'createPet.idempotency-key.replayed',
  'createPet.int64.out-of-range',
  'createPet.name.invalid',
  'createPet.name.kept-exactly',
  'createPet.required.categoryId',
  'createPet.required.name',
  'createPet.status-omitted',
  'createPet.status.invalid',
  'createPet.too-large',
  'createPet.unknown-field',
  'createPet.wrong-types',
  'generated.invalid-newpet.refused',
  'generated.list-limit.invalid',
  'generated.list-limit.valid',
  'generated.malformed-json.refused',
  'generated.pet-id.invalid',
  'generated.valid-newpet.roundtrip',
  'getPet.deprecation.invalid-id',
  'getPet.deprecation.not-found',
  'getPet.deprecation.ok',
  'getPet.deprecation.unauthorized',
  'getPet.invalid-id.above-int64',
  'getPet.invalid-id.decimal',
  'getPet.invalid-id.negative',
  'getPet.invalid-id.text',
  'getPet.invalid-id.zero',
  'getPet.not-found',
  'http.method-not-allowed',
  'http.options',
  'http.request-id',
  'http.unknown-route',
  'listPets.limit.invalid.above-max',
  'listPets.limit.invalid.decimal',
  'listPets.limit.invalid.empty',
  'listPets.limit.invalid.exponent',
  'listPets.limit.invalid.negative',
  'listPets.limit.invalid.repeated',
  'listPets.limit.invalid.text',
  'listPets.limit.invalid.zero',
  'listPets.order.id-ascending',
  'listPets.paging.cursor.forged',
  'listPets.paging.unknown-parameter',
  'listPets.paging.walk.no-gap-no-duplicate',
  'listPets.paging.walk.to-the-end',
  'listPets.status.case-sensitive',
  'listPets.status.filter',
  'listPets.status.invalid',
  'responses.documented-status',
  'stateful.create-read-list',
  'stateful.ids-increasing',
  // It has no change feed (GET /pets/events is a decision of ours, beta, not in the interface): 404 to each.
  'streamPetEvents.auth.missing-key',
  'streamPetEvents.auth.wrong-key',
  'streamPetEvents.delivers-created',
  'streamPetEvents.from-now',
  'streamPetEvents.last-event-id.before-since',
  'streamPetEvents.last-event-id.invalid',
  'streamPetEvents.open',
  'streamPetEvents.resume.last-event-id',
  'streamPetEvents.since.invalid.above-int64',
  'streamPetEvents.since.invalid.decimal',
  'streamPetEvents.since.invalid.negative',
  'streamPetEvents.since.invalid.repeated',
  'streamPetEvents.since.invalid.text',
  'streamPetEvents.since.zero',
  'streamPetEvents.status.filter',
  'streamPetEvents.status.invalid',
].sort();
