// Keeps the recipe "Adding an operation" (docs/development.md) true: a test contract, the real one plus one
// operation with a path parameter AND a body (updatePet: PUT /pets/{petId}, tRPC pets.update), and every surface
// built from it with no code written for the operation but its entry and its handler: the REST route and the
// tRPC procedure (the real app on a real port), the MCP tool, the OpenAPI document, a REST client method, the
// conformance suite's status list and the contract guard's description. The handler is a function here: what is under test
// is the surfaces, not the database.

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
// As the other client tests do until the client no longer depends on this app (issue 26, item 1).
import { createRestClient } from '@petstore/client';
import { documentedStatusTable } from '@petstore/conformance';
import { describeContract, type SchemaModule } from '@petstore/contract-guard/describe-contract';
import { diffWire } from '@petstore/contract-guard/wire-diff';
import * as schema from '@petstore/schema';
import {
  contract,
  createOpenApiJson,
  GetPetInputSchema,
  NewPetSchema,
  type OperationContract,
  type Pet,
  parseJson,
} from '@petstore/schema';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import * as z from 'zod/mini';
import { timeouts } from '../../../tooling/vitest.shared.js';
import { AppError } from '../src/errors.js';
import { responseValidator } from './support/response-validator.js';
import { startTestServer, TEST_API_KEY, type TestServer } from './support/test-server.js';

vi.setConfig({ testTimeout: timeouts.server });

// biome-ignore lint/suspicious/noExplicitAny: JSON documents and bodies walked by path
type Json = Record<string, any>;

// ---- the test contract: step 1 of the recipe ------------------------------------------------------------

/** The body of updatePet: a NewPet under its own name, so the document gets a component it has never had. */
const PetUpdateSchema = z.extend(NewPetSchema, {});

// The errors every body operation shares (401, 408, 412, 413, 415, 417, 429, 431, 500, 503), as the contract's
// `operation()` adds them.
const { 400: _validation, 409: _inUse, 422: _reused, ...sharedErrors } = contract.createPet.errors;

const updatePet = {
  id: 'updatePet',
  method: 'PUT',
  path: '/pets/{petId}',
  summary: 'Replace an animal (test operation)',
  description: 'Replaces the animal `petId` with the body.',
  request: {
    params: contract.getPet.request.params,
    body: { id: 'PetUpdate', schema: PetUpdateSchema },
  },
  // The typed input is the union of the parts: the path parameter and the body's fields.
  input: z.extend(PetUpdateSchema, { petId: GetPetInputSchema.shape.petId }),
  success: { status: 200, description: 'The animal as stored', body: contract.getPet.success.body },
  errors: {
    400: {
      description:
        '`petId` is not a positive int64, or the body is invalid; or the edge could not read the message.',
      codes: ['validation_failed', 'malformed_json', 'malformed_request'],
    },
    404: { description: 'No animal has this id.', codes: ['pet_not_found'] },
    ...sharedErrors,
  },
  // New, so experimental: the level the REST responses name and the document marks with a badge.
  stability: 'experimental',
  trpc: { router: 'pets', procedure: 'update', kind: 'mutation' },
} as const satisfies OperationContract;

const testContract = { ...contract, updatePet };
const testOperations: readonly OperationContract[] = Object.values(testContract);

// ---- the service function: step 2 ----------------------------------------------------------------------

/** Every input the handler was given, as parsed by the transport. */
const received: Record<string, unknown>[] = [];
const MISSING_PET = 404n;
async function updatePetHandler(input: z.output<typeof updatePet.input>): Promise<Pet> {
  received.push(input);
  if (input.petId === MISSING_PET) throw new AppError('pet_not_found', `no pet with id ${input.petId}`);
  const { petId, ...pet } = input;
  return { ...pet, id: petId };
}

// ---- every surface, built from the test contract -------------------------------------------------------

const document = JSON.parse(createOpenApiJson({ contract: testContract })) as Json;
/** What the test server checks every answer with (support/response-validator.ts), for this contract's document. */
const checker = await responseValidator(testContract);

describe('an operation added to the contract (docs/development.md, "Adding an operation")', () => {
  let server: TestServer;
  let base: string;

  beforeAll(async () => {
    server = await startTestServer('pglite', 'add-operation', {
      contract: { operations: testContract, handlers: { updatePet: updatePetHandler } },
    });
    base = server.baseUrl;
  });
  afterAll(async () => {
    await server?.close();
  });

  /** A raw call, its reply checked against the test contract's document. */
  async function send(method: string, path: string, body?: unknown) {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${TEST_API_KEY}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const reply = { status: response.status, headers: response.headers, text: await response.text() };
    return { ...reply, body: (reply.text === '' ? {} : parseJson(reply.text)) as Json };
  }

  it('REST: PUT /v1/pets/7 reaches the handler with the union of path parameter and body', async () => {
    received.length = 0;
    const reply = await send('PUT', '/pets/7', { name: 'Rex', categoryId: 1, status: 'sold' });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ id: 7, name: 'Rex', categoryId: 1, status: 'sold' });
    expect(received).toEqual([{ petId: 7n, name: 'Rex', categoryId: 1n, status: 'sold' }]);
  });

  it('REST: validation errors name the part that is wrong', async () => {
    const badId = await send('PUT', '/pets/abc', { name: 'Rex', categoryId: 1 });
    expect(badId.status).toBe(400);
    expect(badId.body.message).toMatch(/^petId: /);
    const badBody = await send('PUT', '/pets/7', { name: '', categoryId: 1 });
    expect(badBody.status).toBe(400);
    expect(badBody.body.message).toMatch(/^name: /);
    // The path parameter is not a body field: sent in the body, it is an unknown field.
    const idInBody = await send('PUT', '/pets/7', { name: 'Rex', categoryId: 1, petId: 7 });
    expect(idInBody.body).toMatchObject({ status: 400, message: 'unknown field "petId"' });
    const query = await send('PUT', '/pets/7?x=1', { name: 'Rex', categoryId: 1 });
    expect(query.body).toMatchObject({ status: 400, message: 'unknown query parameter "x"' });
    expect((await send('PUT', '/pets/7', '{')).body).toMatchObject({ code: 'malformed_json' });
    expect((await send('PUT', '/pets/404', { name: 'Rex', categoryId: 1 })).body).toMatchObject({
      code: 'pet_not_found',
    });
  });

  it('REST: the path serves both methods, and only getPet carries its deprecation headers', async () => {
    const options = await send('OPTIONS', '/pets/7');
    expect(options.headers.get('allow')).toBe('GET, HEAD, PUT, OPTIONS');
    const put = await send('PUT', '/pets/7', { name: 'Rex', categoryId: 1 });
    expect(put.headers.get('deprecation')).toBeNull();
    const get = await send('GET', '/pets/7');
    expect(get.status).toBe(404);
    expect(get.headers.get('deprecation')).not.toBeNull();
  });

  it("REST: each response names its operation's stability level; the path's answers the least settled", async () => {
    const level = (reply: { headers: Headers }) => reply.headers.get('petstore-stability');
    const put = await send('PUT', '/pets/7', { name: 'Rex', categoryId: 1 });
    expect(put.status).toBe(200);
    expect(level(put)).toBe('experimental');
    const missing = await send('PUT', '/pets/404', { name: 'Rex', categoryId: 1 });
    expect(missing.status).toBe(404);
    expect(level(missing)).toBe('experimental');
    // getPet, on the same path, stays what the real contract says.
    expect(level(await send('GET', '/pets/7'))).toBe(contract.getPet.stability);
    // OPTIONS and 405 answer for the path: no more settled than its least settled operation.
    expect(level(await send('OPTIONS', '/pets/7'))).toBe('experimental');
    const refused = await send('DELETE', '/pets/7');
    expect(refused.status).toBe(405);
    expect(level(refused)).toBe('experimental');
  });

  it('REST client: a method for the operation, sent to /v1/pets/7 with the body alone', async () => {
    const sent: { method: string; url: string; body: string }[] = [];
    const client = createRestClient({
      baseUrl: base,
      apiKey: TEST_API_KEY,
      contract: testContract,
      fetch: (input, init) => {
        sent.push({ method: String(init?.method), url: String(input), body: String(init?.body) });
        return fetch(input, init);
      },
    });
    received.length = 0;
    const pet = await client.updatePet({ petId: 7n, name: 'Rex', categoryId: 1n, status: 'pending' });
    expect(pet).toEqual({ id: 7n, name: 'Rex', categoryId: 1n, status: 'pending' });
    expect(sent).toEqual([
      { method: 'PUT', url: `${base}/pets/7`, body: '{"name":"Rex","categoryId":1,"status":"pending"}' },
    ]);
    expect(received).toEqual([{ petId: 7n, name: 'Rex', categoryId: 1n, status: 'pending' }]);
    await expect(client.updatePet({ petId: MISSING_PET, name: 'Rex', categoryId: 1 })).rejects.toMatchObject({
      error: { code: 'pet_not_found', status: 404 },
    });
    // Options per operation: an idempotency key only where the entry declares the Idempotency-Key header.
    const createOptions: Parameters<typeof client.createPet>[1] = { idempotencyKey: 'k' };
    // @ts-expect-error updatePet declares no Idempotency-Key header, so its options have no key
    const updateOptions: Parameters<typeof client.updatePet>[1] = { idempotencyKey: 'k' };
    expect([createOptions, updateOptions]).toHaveLength(2);
    // The methods of the real contract are there too, unchanged; its stream (streamPetEvents) is followed, not
    // called: no generic method, the follower instead.
    expect(Object.keys(client).sort()).toEqual(
      ['allPets', 'createPet', 'followPetEvents', 'getPet', 'listPets', 'listPetsPage', 'updatePet'].sort(),
    );
  });

  it('tRPC: pets.update is a mutation over the same handler, input as one object', async () => {
    received.length = 0;
    const reply = await send('POST', '/trpc/pets.update', { json: { petId: 7, name: 'Rex', categoryId: 1 } });
    expect(reply.status).toBe(200);
    expect(reply.body.result.data.json).toEqual({ id: '7', name: 'Rex', categoryId: '1' });
    expect(received).toEqual([{ petId: 7n, name: 'Rex', categoryId: 1n }]);
    const invalid = await send('POST', '/trpc/pets.update', {
      json: { petId: 0, name: 'Rex', categoryId: 1 },
    });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.json.data.error.message).toMatch(/^petId: /);
    // A mutation, as the contract says: not served to GET.
    expect((await send('GET', '/trpc/pets.update')).status).toBe(405);
  });

  it('MCP: an updatePet tool, its schemas and annotations from the entry, over the same handler', async () => {
    const client = new Client({ name: 'add-operation', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${TEST_API_KEY}` } },
      }),
    );
    try {
      const { tools } = await client.listTools();
      // The new operation's tool beside the real contract's (getPet, deprecated, stays hidden).
      expect(tools.map((tool) => tool.name).sort()).toEqual(['createPet', 'listPets', 'updatePet']);
      const update = tools.find((tool) => tool.name === 'updatePet');
      expect(update?.title).toBe(updatePet.summary);
      // What the tool does, for an agent: the operation's summary (REST's description speaks of headers).
      expect(update?.description).toBe(`${updatePet.summary}.`);
      expect(update?._meta).toMatchObject({ stability: 'experimental' });
      // The input is the union of the path parameter and the body's fields; int64 as an integer or its digits.
      const input = update?.inputSchema as { properties: Record<string, Json>; required: string[] };
      expect(Object.keys(input.properties).sort()).toEqual(['categoryId', 'name', 'petId', 'status']);
      expect(input.required.sort()).toEqual(['categoryId', 'name', 'petId']);
      for (const int64 of ['petId', 'categoryId']) {
        expect(input.properties[int64], int64).toMatchObject({
          anyOf: [{ type: 'integer' }, { type: 'string' }],
        });
      }
      // The output is the success body (a Pet), int64 as digits.
      const output = update?.outputSchema as { properties: Record<string, Json>; required: string[] };
      expect(Object.keys(output.properties).sort()).toEqual(['categoryId', 'id', 'name', 'status']);
      expect(output.required.sort()).toEqual(['categoryId', 'id', 'name']);
      expect(output.properties.id).toMatchObject({ type: 'string', pattern: '^-?[0-9]+$' });
      // A PUT writes (not read-only), replaces what was there (destructive, as MCP means it: more than additive)
      // and is idempotent by HTTP's definition.
      expect(update?.annotations).toEqual({
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: true,
        openWorldHint: false,
      });

      received.length = 0;
      const answer = (await client.callTool({
        name: 'updatePet',
        arguments: { petId: '7', name: 'Rex', categoryId: 1, status: 'sold' },
      })) as { isError?: boolean; structuredContent?: Json };
      expect(answer.isError).toBeFalsy();
      expect(answer.structuredContent).toEqual({ id: '7', name: 'Rex', categoryId: '1', status: 'sold' });
      expect(received).toEqual([{ petId: 7n, name: 'Rex', categoryId: 1n, status: 'sold' }]);
      // The handler's error is the contract's Error body, as REST answers it.
      const missing = (await client.callTool({
        name: 'updatePet',
        arguments: { petId: String(MISSING_PET), name: 'Rex', categoryId: 1 },
      })) as { isError?: boolean; structuredContent?: Json };
      expect(missing.isError).toBe(true);
      expect(missing.structuredContent).toEqual(
        (await send('PUT', `/pets/${MISSING_PET}`, { name: 'Rex', categoryId: 1 })).body,
      );
    } finally {
      await client.close();
    }
  });

  it('OpenAPI: the document of the test contract has the path with its parameter and request body', async () => {
    const put = document.paths['/pets/{petId}'].put;
    expect(put.operationId).toBe('updatePet');
    expect(put['x-stability']).toBe('experimental');
    expect(put['x-badges']).toEqual([{ name: 'Experimental', position: 'after' }]);
    expect(put.parameters[0]).toMatchObject({ name: 'petId', in: 'path', required: true });
    expect(put.requestBody).toEqual({
      required: true,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/PetUpdate' } } },
    });
    expect(Object.keys(put.responses)).toEqual([
      '200',
      '400',
      '401',
      '404',
      '408',
      '412',
      '413',
      '415',
      '417',
      '429',
      '431',
      '500',
      '503',
    ]);
    expect(document.paths['/pets/{petId}'].get.operationId).toBe('getPet');
    // The new body takes its place among the components without an edit to the generator.
    expect(Object.keys(document.components.schemas)).toEqual([
      'PetStatus',
      'NewPet',
      'PetUpdate',
      'Pet',
      'PetEvent',
      'Pets',
      'Error',
    ]);
    // The app serves the same document, and the real one is what it always was.
    const served = await send('GET', '/openapi.json');
    expect(served.body.paths['/pets/{petId}'].put.operationId).toBe('updatePet');
    expect(createOpenApiJson()).toBe(createOpenApiJson({ contract }));
    expect(createOpenApiJson()).not.toContain('updatePet');
  });

  it('the responses seen include every status the test exercised, each one documented', () => {
    for (const seen of ['200', '400', '404']) expect(checker.seen).toContain(`updatePet ${seen}`);
  });

  it('conformance: the status list of the operation', () => {
    expect(documentedStatusTable(testOperations).updatePet).toEqual([
      200, 400, 401, 404, 408, 412, 413, 415, 417, 429, 431, 500, 503,
    ]);
  });

  it('contract guard: describes the operation on both surfaces, and adding it breaks nobody', () => {
    const testSchema: SchemaModule = {
      ...schema,
      operations: testOperations,
      createOpenApiJson: (options, space) =>
        schema.createOpenApiJson({ ...options, contract: testContract }, space),
    };
    const before = describeContract(schema);
    const after = describeContract(testSchema);
    expect(Object.keys(after.openapi.paths as object)).toContain('/pets/{petId}');
    expect((after.trpc.paths as Record<string, unknown>)['/pets.update']).toHaveProperty('post');
    for (const surface of ['rest', 'trpc'] as const) {
      const findings = diffWire(
        surface,
        before[surface === 'rest' ? 'openapi' : 'trpc'],
        after[surface === 'rest' ? 'openapi' : 'trpc'],
        {
          today: '2026-11-25',
        },
      );
      expect(findings.length).toBeGreaterThan(0);
      expect(findings.filter((finding) => finding.kind !== 'compatible')).toEqual([]);
    }
  });
});
