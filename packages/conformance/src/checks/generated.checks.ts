import { LIST_LIMIT, type NewPet, stringifyJson } from '@petstore/schema';
import fc from 'fast-check';
import {
  invalidLimitArbitrary,
  invalidNewPetArbitrary,
  invalidPetIdArbitrary,
  malformedJsonArbitrary,
  validNewPetArbitrary,
} from '../arbitraries.js';
import {
  type Check,
  type CheckContext,
  CheckFailure,
  check,
  expectAscendingIds,
  expectPet,
  expectPets,
  expectRefused,
  expectSamePet,
  reference,
} from '../check.js';
import { expectInvalidPetIdRefused } from './get-pet.checks.js';
import { expectRefusedOrPage } from './list-pets.checks.js';

/** A 31-bit seed per check, from the run's seed and the check id: one check's cases do not shift another's. */
function seedFor(runSeed: number, id: string): number {
  let hash = runSeed | 0;
  for (const char of id) hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193);
  return hash & 0x7fffffff;
}

/**
 * Runs a property against the deployment. On failure the reason names the (shrunk) counterexample and how to
 * replay exactly this case, and the reproduction is the request that failed.
 */
async function property<T>(
  ctx: CheckContext,
  id: string,
  arbitrary: fc.Arbitrary<T>,
  predicate: (value: T) => Promise<void>,
): Promise<void> {
  const seed = seedFor(ctx.seed, id);
  const details = await fc.check(fc.asyncProperty(arbitrary, predicate), { seed, numRuns: ctx.numRuns });
  if (!details.failed) return;
  const cause = details.errorInstance;
  const reason = cause instanceof Error ? cause.message : String(cause);
  const example = fc.stringify(details.counterexample?.[0]);
  const message =
    `${reason} [counterexample ${example.length > 300 ? `${example.slice(0, 300)}…` : example}; ` +
    `fast-check seed ${seed}, path ${details.counterexamplePath}; rerun with --seed ${ctx.seed}]`;
  throw cause instanceof CheckFailure
    ? new CheckFailure(message, cause.exchange, cause.request)
    : new CheckFailure(message);
}

const JSON_TYPE = { 'content-type': 'application/json' };

export const generatedChecks: Check[] = [
  {
    id: 'generated.valid-newpet.roundtrip',
    interfaceDescription:
      'generated valid NewPets (unicode names, int64 edges, status or none) are 201 and read back identical by getPet, or refused with 400 and an Error body',
    description:
      'generated valid NewPets (unicode names, int64 edges, status or none) are 201 and read back identical by getPet',
    spec: 'Resources / NewPet, Pet: a created Pet has every field of NewPet as sent (name constraints are not shown: a name may be refused with a 400 Error, never changed)',
    decision:
      'Decision: name is 1-255 code points, not only whitespace, valid Unicode without NUL (all such names are accepted)',
    async run(ctx) {
      ctx.fixtures.dependOnCreate();
      await property(ctx, this.id, validNewPetArbitrary, async (newPet: NewPet) => {
        const created = await ctx.http.send('/pets', {
          method: 'POST',
          headers: JSON_TYPE,
          body: stringifyJson(newPet),
        });
        if (!reference(ctx) && created.status === 400) return expectRefused(ctx, created, 400);
        const pet = expectPet(ctx, created, 201);
        expectSamePet(ctx, pet, newPet, created);
        const read = await ctx.http.send(`/pets/${pet.id}`);
        expectSamePet(ctx, expectPet(ctx, read, 200), pet, read);
      });
    },
  },
  {
    id: 'generated.invalid-newpet.refused',
    interfaceDescription:
      'generated NewPets that break a rule of the interface (missing, wrong type, int64 edges) are 400 with an Error body, never 5xx',
    description:
      'generated invalid NewPets (each rule broken in turn: missing, wrong type, int64 edges, huge or bad strings, unknown fields) are 400 validation_failed, never 5xx',
    spec: 'Endpoints / POST /pets, Errors / Conditions: a required field missing or an invalid value is 400 with an Error body (the name and unknown-field rules are decisions)',
    decision:
      'Decision: errors (code validation_failed); name rules; unknown fields refused; "status": null refused',
    async run(ctx) {
      await property(ctx, this.id, invalidNewPetArbitrary, async ({ rule, body }) => {
        // Rules of ours that the interface leaves open: under `interface` such a body may be taken.
        const decided = rule === 'invalid name' || rule === 'unknown field' || /"status":null/.test(body);
        if (decided && !reference(ctx)) return;
        const exchange = await ctx.http.send('/pets', { method: 'POST', headers: JSON_TYPE, body });
        try {
          expectRefused(ctx, exchange, 400, 'validation_failed');
        } catch (error) {
          throw new CheckFailure(`${rule}: ${(error as Error).message}`, exchange);
        }
      });
    },
  },
  {
    id: 'generated.malformed-json.refused',
    interfaceDescription:
      'generated malformed JSON bodies (truncated, stray characters) are 400 with an Error body, never 5xx',
    description:
      'generated malformed JSON bodies (truncated, stray characters) are 400 malformed_json, never 5xx',
    spec: 'Endpoints / POST /pets: 400 with an Error body when the body is not JSON (bodies are application/json)',
    decision: 'Decision: errors (code malformed_json)',
    async run(ctx) {
      await property(ctx, this.id, malformedJsonArbitrary, async (body) => {
        expectRefused(
          ctx,
          await ctx.http.send('/pets', { method: 'POST', headers: JSON_TYPE, body }),
          400,
          'malformed_json',
        );
      });
    },
  },
  {
    id: 'generated.list-limit.valid',
    interfaceDescription: 'listPets?limit=N for generated N in 1..100 returns exactly N pets (100+ exist)',
    description:
      'listPets?limit=N for generated N in 1..100 returns exactly N pets (100+ exist), ids ascending',
    spec: 'Endpoints / GET /pets, Limits: limit from 1 to 100 returns at most that many animals (exactly that many when more exist)',
    decision: 'Decision: ordering of listPets (id ascending)',
    async run(ctx) {
      await ctx.fixtures.ensurePets(LIST_LIMIT.max);
      const limit = fc.integer({ min: LIST_LIMIT.min, max: LIST_LIMIT.max });
      await property(ctx, this.id, limit, async (n) => {
        const exchange = await ctx.http.send(`/pets?limit=${n}`);
        const pets = expectPets(ctx, exchange);
        check(pets.length === n, `expected ${n} pets, got ${pets.length}`, exchange);
        if (reference(ctx)) expectAscendingIds(pets, exchange);
      });
    },
  },
  {
    id: 'generated.list-limit.invalid',
    interfaceDescription:
      'listPets with a generated invalid limit (out of range, fractions, text) is refused with a 4xx Error body or answered with a valid page, never a 5xx',
    description:
      'listPets with a generated invalid limit (out of range, fractions, text) is 400 validation_failed',
    spec: 'Limits: limit is 1..100; Errors / Gaps: the answer to another limit is not shown (a 4xx Error body, or a page of at most 100 Pets, never a 5xx)',
    decision: 'Decision: bad limit or status is 400 validation_failed',
    async run(ctx) {
      await property(ctx, this.id, invalidLimitArbitrary, async (limit) => {
        const query = new URLSearchParams({ limit }).toString();
        expectRefusedOrPage(ctx, await ctx.http.send(`/pets?${query}`));
      });
    },
  },
  {
    id: 'generated.pet-id.invalid',
    interfaceDescription:
      'getPet with a generated petId that is not a positive int64 is 400 or 404 with an Error body, never 5xx',
    description:
      'getPet with a generated petId that is not a positive int64 is 400 validation_failed, never 5xx',
    spec: 'Endpoints / GET /pets/{petId}: petId is an int64 (the answer to one that is not: 400 or 404 with an Error body, never a 5xx)',
    decision: 'Decision: a petId that is not a positive int64 is 400 validation_failed',
    async run(ctx) {
      await property(ctx, this.id, invalidPetIdArbitrary, async (segment) => {
        expectInvalidPetIdRefused(ctx, await ctx.http.send(`/pets/${encodeURIComponent(segment)}`));
      });
    },
  },
];
