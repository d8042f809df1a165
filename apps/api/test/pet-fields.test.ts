// Keeps the recipe "Adding a field to Pet" (docs/development.md) true, as add-operation.test.ts keeps the one for
// an operation. Nothing here names a field of Pet: the fields are read from the served document (NewPet's and
// Pet's JSON Schemas, built from @petstore/schema's zod models), values are generated from those schemas, and each
// pet goes in and comes back through every transport on both databases. A field added to the schema and missed
// in one place of the recipe fails here, naming the field: the Prisma model (no column for it), the statements
// (not selected or not inserted, read by name: pets.service.ts), or a JSON writer (pets/pets.json.ts).

import { createTrpcClient } from '@petstore/client';
import { createOpenApiJson, INT64_MAX, INT64_MIN, parseJson } from '@petstore/schema';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { timeouts } from '../../../tooling/vitest.shared.js';
import { Prisma } from '../src/generated/prisma/browser.js';
import { DATABASE_KINDS, startTestServer, TEST_API_KEY, type TestServer } from './support/test-server.js';

vi.setConfig({ testTimeout: timeouts.server });

// biome-ignore lint/suspicious/noExplicitAny: JSON Schema objects walked by keyword
type JsonSchema = Record<string, any>;

const document = JSON.parse(createOpenApiJson()) as JsonSchema;
const schemas = document.components.schemas as Record<string, JsonSchema>;
const resolve = (schema: JsonSchema): JsonSchema =>
  typeof schema.$ref === 'string' ? (schemas[schema.$ref.split('/').at(-1) as string] as JsonSchema) : schema;

/**
 * Values a field's JSON Schema accepts (int64 as bigint). A field of a kind this does not know fails the test
 * with its name: teach it the kind as the recipe's last step.
 */
function arbitraryOf(field: string, given: JsonSchema): fc.Arbitrary<unknown> {
  const schema = resolve(given);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  if (schema.type === 'integer' && schema.format === 'int64')
    return fc.bigInt({ min: INT64_MIN, max: INT64_MAX });
  if (schema.type === 'string') {
    return fc
      .string({
        unit: 'grapheme',
        minLength: schema.minLength ?? 0,
        maxLength: Math.min(schema.maxLength ?? 40, 40),
      })
      .filter((text) => /[^\p{White_Space}\p{Default_Ignorable_Code_Point}\p{Cc}]/u.test(text));
  }
  if (schema.type === 'boolean') return fc.boolean();
  throw new Error(
    `pet-fields.test.ts cannot generate field ${field} (${JSON.stringify(schema)}): add its kind`,
  );
}

const newPetSchema = schemas.NewPet as JsonSchema;
const petSchema = schemas.Pet as JsonSchema;
const newPetFields = Object.keys(newPetSchema.properties);
const required = new Set<string>(newPetSchema.required ?? []);

/** A NewPet with every optional field present or absent, each value generated from its schema. */
const newPetArb = fc.record(
  Object.fromEntries(
    newPetFields.map((field) => [field, arbitraryOf(field, newPetSchema.properties[field])]),
  ),
  { requiredKeys: [...required] },
) as fc.Arbitrary<Record<string, unknown>>;

/** A NewPet as REST's JSON: int64 values as their digits. */
const restBody = (pet: Record<string, unknown>) =>
  `{${Object.entries(pet)
    .map(
      ([key, value]) => `${JSON.stringify(key)}:${typeof value === 'bigint' ? value : JSON.stringify(value)}`,
    )
    .join(',')}}`;

/** A Pet as REST's JSON reader gives it (int64 values as numbers when they fit), its int64 fields as bigint. */
const INT64_FIELDS = Object.keys(petSchema.properties).filter(
  (field) => resolve(petSchema.properties[field]).format === 'int64',
);
const asPet = (value: unknown) => {
  const pet = { ...(value as Record<string, unknown>) };
  for (const field of INT64_FIELDS) if (pet[field] !== undefined) pet[field] = BigInt(pet[field] as number);
  return pet;
};

describe("every field of the contract's Pet is a field of the Prisma model", () => {
  it.each(Object.keys(petSchema.properties))('%s', (field) => {
    expect(
      Object.values(Prisma.PetScalarFieldEnum),
      `model Pet in prisma/schema.prisma has ${field}`,
    ).toContain(field);
  });

  it('a created pet is the NewPet plus its id: the two schemas differ only by id', () => {
    expect(Object.keys(petSchema.properties).sort()).toEqual(['id', ...newPetFields].sort());
  });
});

describe.each(DATABASE_KINDS)('every field of a generated pet goes in and comes back on %s', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind, 'pet-fields');
  });
  afterAll(() => server?.close());

  it('REST: created, read back by id and listed with every field as sent', async () => {
    const headers = { Authorization: `Bearer ${TEST_API_KEY}` };
    await fc.assert(
      fc.asyncProperty(newPetArb, async (newPet) => {
        const created = await fetch(`${server.baseUrl}/pets`, {
          method: 'POST',
          headers: { ...headers, 'Content-Type': 'application/json' },
          body: restBody(newPet),
        });
        expect(created.status).toBe(201);
        const pet = asPet(parseJson(await created.text()));
        expect(pet).toEqual({ id: pet.id, ...newPet });
        const read = await fetch(`${server.baseUrl}/pets/${pet.id}`, { headers });
        expect(asPet(parseJson(await read.text()))).toEqual(pet);
        const listed = await fetch(`${server.baseUrl}/pets?limit=100`, { headers });
        expect((parseJson(await listed.text()) as unknown[]).map(asPet)).toContainEqual(pet);
      }),
      { numRuns: 15 },
    );
  });

  it('tRPC: created, read back by id and listed with every field as sent', async () => {
    const trpc = createTrpcClient({ url: `${server.baseUrl}/trpc`, apiKey: TEST_API_KEY });
    await fc.assert(
      fc.asyncProperty(newPetArb, async (newPet) => {
        // biome-ignore lint/suspicious/noExplicitAny: the generated pet is the NewPet the procedure takes
        const pet = (await trpc.pets.create.mutate(newPet as any)) as Record<string, unknown>;
        expect(pet).toEqual({ id: pet.id, ...newPet });
        expect(await trpc.pets.get.query({ petId: pet.id as bigint })).toEqual(pet);
        expect(await trpc.pets.list.query({ limit: 100 })).toContainEqual(pet);
      }),
      { numRuns: 15 },
    );
  });
});
