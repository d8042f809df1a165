import { randomBytes } from 'node:crypto';
import { LIST_LIMIT, type NewPetInput, type Pet, stringifyJson } from '@petstore/schema';
import { expectPet, expectPets } from './check.js';
import type { Exchange, HttpClient } from './http-client.js';

export interface Fixtures {
  /** A name no other run has used: `conformance <run> <purpose> <n>`, so runs can repeat on a live database. */
  uniqueName(purpose: string): string;
  /** POST /pets with a JSON body, expecting 201 and a Pet. */
  createPet(newPet: NewPetInput): Promise<{ pet: Pet; exchange: Exchange }>;
  /**
   * Makes sure the deployment holds at least `count` pets (at most 100: listing has no paging), creating the
   * missing ones, so limit checks can expect exactly `limit` pets back. Pets are never deleted (the interface
   * has no delete), so this creates nothing on a deployment that already has data.
   */
  ensurePets(count: number): Promise<void>;
  /** One pet of this run, created on first use, for checks that need any existing pet. */
  samplePet(): Promise<Pet>;
}

export function createFixtures(http: HttpClient): Fixtures {
  const run = randomBytes(4).toString('hex');
  let counter = 0;
  let known = 0;
  let sample: Promise<Pet> | undefined;

  const fixtures: Fixtures = {
    uniqueName(purpose) {
      counter += 1;
      return `conformance ${run} ${purpose} ${counter}`;
    },

    async createPet(newPet) {
      const exchange = await http.send('/pets', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: stringifyJson(newPet),
      });
      return { pet: expectPet(exchange, 201), exchange };
    },

    async ensurePets(count) {
      const wanted = Math.min(count, LIST_LIMIT.max);
      if (known >= wanted) return;
      const listed = expectPets(await http.send(`/pets?limit=${LIST_LIMIT.max}`)).length;
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

    samplePet() {
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
