import { randomBytes } from 'node:crypto';
import { LIST_LIMIT, type Pet, stringifyJson } from '@petstore/schema';
import { CheckFailure, expectPet, expectPets, type Fixtures, type Strictness, skip } from './check.js';
import type { HttpClient } from './http-client.js';

export function createFixtures(http: HttpClient, strictness: Strictness): Fixtures {
  const run = randomBytes(4).toString('hex');
  let counter = 0;
  let known = 0;
  let sample: Promise<Pet> | undefined;
  // Set when createPet answered wrongly: the first check that needed it fails with that answer; every later one
  // is skipped with this reason, so one broken fixture is one failure, not dozens that bury the cause.
  let broken: string | undefined;

  const fixtures: Fixtures = {
    uniqueName(purpose) {
      counter += 1;
      return `conformance ${run} ${purpose} ${counter}`;
    },

    async createPet(newPet) {
      if (broken !== undefined) skip(broken);
      const exchange = await http.send('/pets', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: stringifyJson(newPet),
      });
      try {
        return { pet: expectPet(strictness, exchange, 201), exchange };
      } catch (error) {
        // A wrong answer, not a lost one (a network error is tried again by the next check).
        if (!(error instanceof CheckFailure)) throw error;
        broken ??= `needs pets made by createPet, which answered wrongly earlier in this run (${error.message.slice(0, 120)})`;
        throw new CheckFailure(
          `createPet, which this and later checks need to make pets, answered wrongly: ${error.message}`,
          error.exchange,
        );
      }
    },

    async ensurePets(count) {
      if (broken !== undefined) skip(broken);
      const wanted = Math.min(count, LIST_LIMIT.max);
      if (known >= wanted) return;
      const listed = expectPets(strictness, await http.send(`/pets?limit=${LIST_LIMIT.max}`)).length;
      const missing = wanted - listed;
      // A few at a time: quick on a local server, gentle on a remote one.
      for (let start = 0; start < missing; start += 10) {
        const batch = Array.from({ length: Math.min(10, missing - start) }, () =>
          fixtures.createPet({ name: fixtures.uniqueName('filler'), categoryId: 1, status: 'available' }),
        );
        await Promise.all(batch);
      }
      known = wanted;
    },

    dependOnCreate() {
      if (broken !== undefined) skip(broken);
    },

    samplePet() {
      if (broken !== undefined) skip(broken);
      sample ??= fixtures
        .createPet({ name: fixtures.uniqueName('sample'), categoryId: 42, status: 'pending' })
        .then(({ pet }) => pet);
      // A failed creation is retried by the next check rather than failing them all with one stale error.
      sample.catch(() => {
        sample = undefined;
      });
      return sample;
    },
  };
  return fixtures;
}
