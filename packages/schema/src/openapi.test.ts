import { readFileSync, writeFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { contract } from './contract.js';
import { ERROR_CODES, ErrorSchema } from './error.js';
import { parseJson } from './json.js';
import { createOpenApiDocument, createOpenApiJson } from './openapi.js';
import { PET_NAME_MAX_LENGTH } from './pet.js';
import { LIST_LIMIT } from './queries.js';

// The committed document. A change to the generated document fails this test until the snapshot is updated
// on purpose (`pnpm --filter @petstore/schema openapi:snapshot`) and the diff reviewed with the change.
const SNAPSHOT = new URL('../openapi.snapshot.json', import.meta.url);

// biome-ignore lint/suspicious/noExplicitAny: walking a JSON document whose shape the assertions check
type Json = Record<string, any>;
const document = parseJson(createOpenApiJson()) as Json;
const operation = (path: string, method: string): Json => document.paths[path][method];

describe('OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document (@seriousme/openapi-schema-validator)', async () => {
    const validator = new Validator();
    // The validator wants JSON values: read the text as any JSON tool would.
    const result = await validator.validate(JSON.parse(createOpenApiJson()));
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('matches the committed snapshot (update it with `pnpm --filter @petstore/schema openapi:snapshot`)', () => {
    if (process.env.UPDATE_OPENAPI_SNAPSHOT === '1') writeFileSync(SNAPSHOT, `${createOpenApiJson({}, 2)}\n`);
    // Compared as values, so that reformatting the file is not a change.
    expect(parseJson(readFileSync(SNAPSHOT, 'utf8'))).toEqual(document);
  });

  it('has version 1.0.0, the four operations, getPet deprecated and the change feed beta', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.info.version).toBe('1.0.0');
    expect(operation('/pets', 'get').operationId).toBe('listPets');
    expect(operation('/pets', 'post').operationId).toBe('createPet');
    expect(operation('/pets/{petId}', 'get').operationId).toBe('getPet');
    expect(operation('/pets/{petId}', 'get').deprecated).toBe(true);
    expect(operation('/pets', 'get').deprecated).toBeUndefined();
    expect(operation('/pets/events', 'get').operationId).toBe('streamPetEvents');
    expect(operation('/pets/events', 'get')['x-stability']).toBe('beta');
    expect(Object.keys(document.paths)).toEqual(['/pets', '/pets/events', '/pets/{petId}']);
  });

  // The header a reconnecting EventSource sends is decoded by the service as `since` is (EventPositionTextSchema) or
  // is empty (none): the document said any string, so `Last-Event-ID: abc` was documented and answered 400.
  it('documents Last-Event-ID as the service decodes it: empty, or an event position as `since` is', () => {
    const parameters = operation('/pets/events', 'get').parameters as Json[];
    const named = (name: string) => parameters.find((parameter) => parameter.name === name)?.schema as Json;
    expect(named('Last-Event-ID')).toEqual({ anyOf: [{ type: 'string', const: '' }, named('since')] });
  });

  it('names its licence and a contact (Redocly and Spectral warn without them)', () => {
    expect(document.info.license).toEqual({ name: 'MIT', identifier: 'MIT' });
    expect(document.info.contact).toEqual({ name: 'Pet Store platform team' });
    const contact = { name: 'Pets on call', url: 'https://petstore.example/support' };
    expect(createOpenApiDocument({ contact }).info.contact).toEqual(contact);
  });

  it("links createPet's 201 to getPet with petId from the body's id, for tools that chain calls", () => {
    expect(operation('/pets', 'post').responses['201'].links).toEqual({
      getPet: {
        operationId: 'getPet',
        parameters: { petId: '$response.body#/id' },
        description: expect.any(String),
      },
    });
    // Only a success that names another operation's path links to it.
    expect(operation('/pets', 'get').responses['200'].links).toBeUndefined();
    expect(operation('/pets/{petId}', 'get').responses['200'].links).toBeUndefined();
  });

  it('describes the RateLimit fields, optional, on every answer to an admitted request, and 429 with Retry-After', () => {
    const resolve = (header: Json) =>
      header.$ref === undefined ? header : document.components.headers[header.$ref.split('/').pop()];
    for (const path of Object.keys(document.paths)) {
      for (const [method, op] of Object.entries(document.paths[path] as Json)) {
        for (const [status, response] of Object.entries(op.responses as Json)) {
          const names = Object.keys(response.headers);
          const where = `${method} ${path} ${status}`;
          // 401, 408, 417 and 431 are answered before a request is admitted: they never carry the rate fields.
          if (['401', '408', '417', '431'].includes(status)) {
            expect(names, where).not.toContain('RateLimit');
            continue;
          }
          expect(names, where).toEqual(expect.arrayContaining(['RateLimit', 'RateLimit-Policy']));
          expect(resolve(response.headers.RateLimit).required, where).toBe(false);
          expect(resolve(response.headers['RateLimit-Policy']).required, where).toBe(false);
          // The request id and the security headers are on every answer.
          for (const name of ['X-Request-Id', 'Cache-Control', 'X-Content-Type-Options'])
            expect(resolve(response.headers[name]).required, `${where} ${name}`).toBe(true);
        }
      }
    }
    expect(operation('/pets', 'get').responses['429'].headers['Retry-After'].required).toBe(true);
  });

  it("names every operation's stability level (x-stability) and declares Petstore-Stability on every response", () => {
    const { listPets, createPet, getPet } = contract;
    for (const [path, method, op] of [
      ['/pets', 'get', listPets],
      ['/pets', 'post', createPet],
      ['/pets/{petId}', 'get', getPet],
    ] as const) {
      const described = operation(path, method);
      expect(described['x-stability'], op.id).toBe(op.stability);
      // A stable operation has no badge: Redoc marks only what is less settled.
      expect(described['x-badges'], op.id).toBeUndefined();
      for (const [status, response] of Object.entries(described.responses as Json)) {
        // A 408 for headers that did not arrive in time cannot name its operation (the request line is unknown).
        expect(response.headers['Petstore-Stability'], `${op.id} ${status}`).toMatchObject({
          required: status !== '408',
          schema: { type: 'string' },
        });
      }
    }
    // Deprecation is another matter: getPet is deprecated and stable.
    expect(operation('/pets/{petId}', 'get')).toMatchObject({ deprecated: true, 'x-stability': 'stable' });
  });

  it('marks an operation that is not stable with its level and a Redoc badge (a test contract)', () => {
    const levels = createOpenApiDocument({
      contract: {
        ...contract,
        listPets: { ...contract.listPets, stability: 'beta' },
        createPet: { ...contract.createPet, stability: 'experimental' },
      },
    });
    const list = levels.paths['/pets']?.get as Json;
    const create = levels.paths['/pets']?.post as Json;
    expect(list['x-stability']).toBe('beta');
    expect(list['x-badges']).toEqual([{ name: 'Beta', position: 'after' }]);
    expect(create['x-stability']).toBe('experimental');
    expect(create['x-badges']).toEqual([{ name: 'Experimental', position: 'after' }]);
    expect(create.responses['415'].headers['Petstore-Stability'].required).toBe(true);
    const get = levels.paths['/pets/{petId}']?.get as Json;
    expect(get['x-stability']).toBe('stable');
    expect(get['x-badges']).toBeUndefined();
  });

  it('protects every operation with the bearer scheme', () => {
    expect(document.security).toEqual([{ bearerAuth: [] }]);
    expect(document.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('takes the limit bounds and default from the query schema', () => {
    const limit = operation('/pets', 'get').parameters.find((p: Json) => p.name === 'limit');
    expect(limit).toMatchObject({
      in: 'query',
      required: false,
      schema: {
        type: 'integer',
        minimum: LIST_LIMIT.min,
        maximum: LIST_LIMIT.max,
        default: LIST_LIMIT.default,
      },
    });
    const status = operation('/pets', 'get').parameters.find((p: Json) => p.name === 'status');
    expect(status).toMatchObject({
      in: 'query',
      required: false,
      schema: { $ref: '#/components/schemas/PetStatus' },
    });
  });

  it('documents paging: the optional cursor parameter and the Link rel="next" header; pets.page stays out', () => {
    const list = operation('/pets', 'get');
    const cursor = list.parameters.find((p: Json) => p.name === 'cursor');
    expect(cursor).toMatchObject({
      in: 'query',
      required: false,
      schema: { type: 'string', minLength: 1, maxLength: 512 },
    });
    expect(cursor.description).toMatch(/status/);
    expect(list.responses['200'].headers.Link).toMatchObject({ required: false, schema: { type: 'string' } });
    expect(list.responses['200'].headers.Link.description).toMatch(/rel="next"/);
    // The tRPC-only operation has no route, so no path, operation or component of its own.
    expect(createOpenApiJson()).not.toMatch(/pagePets|PetsPage/);
  });

  it('has the required flags of the spec tables', () => {
    const { NewPet, Pet, Error: ErrorBody, PetStatus } = document.components.schemas;
    expect(NewPet.required).toEqual(['name', 'categoryId']);
    expect(Pet.required).toEqual(['id', 'name', 'categoryId']);
    expect(ErrorBody.required).toEqual(['code', 'message', 'status']);
    expect(PetStatus.enum).toEqual(['available', 'pending', 'sold']);
    expect(operation('/pets', 'post').requestBody.required).toBe(true);
    const petId = operation('/pets/{petId}', 'get').parameters.find((p: Json) => p.name === 'petId');
    expect(petId).toMatchObject({ in: 'path', required: true, schema: { type: 'integer', format: 'int64' } });
  });

  it('writes int64 fields as format int64 with their exact bounds', () => {
    const { NewPet, Pet } = document.components.schemas;
    const int64 = { type: 'integer', format: 'int64', minimum: -(2n ** 63n), maximum: 2n ** 63n - 1n };
    expect(NewPet.properties.categoryId).toMatchObject(int64);
    expect(Pet.properties.categoryId).toMatchObject(int64);
    expect(Pet.properties.id).toMatchObject({ ...int64, minimum: 1 });
    // Exact in the JSON text, where a double would print 9223372036854776000.
    expect(createOpenApiJson()).toContain('"maximum":9223372036854775807');
    expect(createOpenApiJson()).toContain('"minimum":-9223372036854775808');
  });

  it('takes the name bounds from the name schema, and refuses unknown fields', () => {
    const { NewPet, Pet } = document.components.schemas;
    for (const schema of [NewPet, Pet]) {
      expect(schema.properties.name).toMatchObject({
        type: 'string',
        minLength: 1,
        maxLength: PET_NAME_MAX_LENGTH,
      });
      expect(schema.additionalProperties).toBe(false);
    }
  });

  it('documents every response we send, each error with the Error body', () => {
    const statuses = (path: string, method: string) => Object.keys(operation(path, method).responses);
    // The edge's 400, 415, 417 and 431 and the 412 of a false precondition are on every operation; 304 on reads.
    const shared = ['408', '412', '415', '417', '429', '431', '500', '503'];
    expect(statuses('/pets', 'get')).toEqual(['200', '304', '400', '401', ...shared]);
    expect(statuses('/pets', 'post')).toEqual(['201', '400', '401', '409', '413', '422', ...shared].sort());
    expect(statuses('/pets/{petId}', 'get')).toEqual(['200', '304', '400', '401', '404', ...shared]);
    for (const path of Object.keys(document.paths)) {
      for (const [method, op] of Object.entries(document.paths[path] as Json)) {
        for (const [status, response] of Object.entries(op.responses as Json)) {
          if (Number(status) < 400) continue;
          const media = response.content['application/json'];
          expect(media.schema, `${method} ${path} ${status}`).toEqual({ $ref: '#/components/schemas/Error' });
          // One example per code the status carries, each a valid Error body of that status.
          expect(Object.keys(media.examples), `${method} ${path} ${status}`).toEqual(
            response['x-error-codes'],
          );
          for (const [code, { value }] of Object.entries(media.examples as Json))
            expect(ErrorSchema.parse(value)).toEqual({
              code,
              message: expect.any(String),
              status: Number(status),
            });
          for (const code of response['x-error-codes'])
            expect(ERROR_CODES[code as keyof typeof ERROR_CODES]).toBe(Number(status));
        }
      }
    }
  });

  it('lists the servers it is given, and defaults to the serving server', () => {
    expect(document.servers).toEqual([{ url: '/v1', description: 'The server that serves this document' }]);
    const servers = [
      { url: 'https://api.example.com/v1', description: 'production' },
      { url: 'https://staging.example.com/v1', description: 'staging' },
    ];
    expect(createOpenApiDocument({ servers }).servers).toEqual(servers);
  });

  it('is a JSON document apart from the exact int64 bounds', () => {
    expect(() => JSON.stringify(createOpenApiDocument())).toThrow(/BigInt/);
    expect(JSON.parse(createOpenApiJson()).openapi).toBe('3.1.0');
  });
});
