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
} from '../check.js';

/** A 31-bit seed per check, from the run's seed and the check id: one check's cases do not shift another's. */
export function seedFor(runSeed: number, id: string): number {
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
    description:
      'generated valid NewPets (unicode names, int64 edges, status or none) are 201 and read back identical by getPet',
    async run(ctx) {
      await property(ctx, this.id, validNewPetArbitrary, async (newPet: NewPet) => {
        const created = await ctx.http.send('/pets', {
          method: 'POST',
          headers: JSON_TYPE,
          body: stringifyJson(newPet),
        });
        const pet = expectPet(created, 201);
        expectSamePet(pet, newPet, created);
        const read = await ctx.http.send(`/pets/${pet.id}`);
        expectSamePet(expectPet(read, 200), pet, read);
      });
    },
  },
  {
    id: 'generated.invalid-newpet.refused',
    description:
      'generated invalid NewPets (each rule broken in turn: missing, wrong type, int64 edges, huge or bad strings, unknown fields) are 400 validation_failed, never 5xx',
    async run(ctx) {
      await property(ctx, this.id, invalidNewPetArbitrary, async ({ rule, body }) => {
        const exchange = await ctx.http.send('/pets', { method: 'POST', headers: JSON_TYPE, body });
        try {
          expectRefused(exchange, 400, 'validation_failed');
        } catch (error) {
          throw new CheckFailure(`${rule}: ${(error as Error).message}`, exchange);
        }
      });
    },
  },
  {
    id: 'generated.malformed-json.refused',
    description:
      'generated malformed JSON bodies (truncated, stray characters) are 400 malformed_json, never 5xx',
    async run(ctx) {
      await property(ctx, this.id, malformedJsonArbitrary, async (body) => {
        expectRefused(
          await ctx.http.send('/pets', { method: 'POST', headers: JSON_TYPE, body }),
          400,
          'malformed_json',
        );
      });
    },
  },
  {
    id: 'generated.list-limit.valid',
    description:
      'listPets?limit=N for generated N in 1..100 returns exactly N pets (100+ exist), ids ascending',
    async run(ctx) {
      await ctx.fixtures.ensurePets(LIST_LIMIT.max);
      const limit = fc.integer({ min: LIST_LIMIT.min, max: LIST_LIMIT.max });
      await property(ctx, this.id, limit, async (n) => {
        const exchange = await ctx.http.send(`/pets?limit=${n}`);
        const pets = expectPets(exchange);
        check(pets.length === n, `expected ${n} pets, got ${pets.length}`, exchange);
        expectAscendingIds(pets, exchange);
      });
    },
  },
  {
    id: 'generated.list-limit.invalid',
    description:
      'listPets with a generated invalid limit (out of range, fractions, text) is 400 validation_failed',
    async run(ctx) {
      await property(ctx, this.id, invalidLimitArbitrary, async (limit) => {
        const query = new URLSearchParams({ limit }).toString();
        expectRefused(await ctx.http.send(`/pets?${query}`), 400, 'validation_failed');
      });
    },
  },
  {
    id: 'generated.pet-id.invalid',
    description:
      'getPet with a generated petId that is not a positive int64 is 400 validation_failed, never 5xx',
    async run(ctx) {
      await property(ctx, this.id, invalidPetIdArbitrary, async (segment) => {
        expectRefused(await ctx.http.send(`/pets/${encodeURIComponent(segment)}`), 400, 'validation_failed');
      });
    },
  },
];
