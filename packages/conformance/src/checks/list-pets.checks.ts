import { LIST_LIMIT, PET_STATUSES, type Pet } from '@petstore/schema';
import {
  type Check,
  check,
  expectAscendingIds,
  expectJsonContentType,
  expectPets,
  expectRefused,
  expectSamePet,
} from '../check.js';

/** Query strings the README refuses with 400 validation_failed, by label (the label is part of the check id). */
const INVALID_LIMITS: Array<[label: string, query: string, why: string]> = [
  ['zero', 'limit=0', 'below the minimum 1'],
  ['above-max', 'limit=101', 'above the maximum 100'],
  ['negative', 'limit=-1', 'negative'],
  ['decimal', 'limit=1.5', 'not an integer'],
  ['exponent', 'limit=1e1', 'not a plain decimal integer'],
  ['text', 'limit=abc', 'not a number'],
  ['empty', 'limit=', 'empty'],
  ['repeated', 'limit=1&limit=2', 'given twice'],
];

const limitChecks: Check[] = INVALID_LIMITS.map(([label, query, why]) => ({
  id: `listPets.limit.invalid.${label}`,
  description: `listPets?${query} (${why}) is 400 validation_failed`,
  async run(ctx) {
    expectRefused(await ctx.http.send(`/pets?${query}`), 400, 'validation_failed');
  },
}));

export const listPetsChecks: Check[] = [
  {
    id: 'listPets.ok',
    description: 'GET /pets is 200, Content-Type application/json, a bare JSON array of valid Pets',
    async run(ctx) {
      await ctx.fixtures.samplePet();
      const exchange = await ctx.http.send('/pets');
      expectJsonContentType(exchange);
      check(exchange.text.trimStart().startsWith('['), 'the body is not a bare JSON array', exchange);
      const pets = expectPets(exchange);
      check(pets.length > 0, 'empty list although this run created a pet', exchange);
    },
  },
  {
    id: 'listPets.limit.default',
    description: 'without limit, listPets returns exactly 20 pets when more exist (default 20)',
    async run(ctx) {
      await ctx.fixtures.ensurePets(LIST_LIMIT.default + 1);
      const exchange = await ctx.http.send('/pets');
      const pets = expectPets(exchange);
      check(
        pets.length === LIST_LIMIT.default,
        `expected ${LIST_LIMIT.default} pets (the default limit) with more stored, got ${pets.length}`,
        exchange,
      );
    },
  },
  {
    id: 'listPets.limit.min',
    description: 'listPets?limit=1 (the minimum) is 200 with exactly one pet',
    async run(ctx) {
      await ctx.fixtures.ensurePets(2);
      const exchange = await ctx.http.send('/pets?limit=1');
      check(expectPets(exchange).length === 1, 'expected exactly 1 pet', exchange);
    },
  },
  {
    id: 'listPets.limit.max',
    description: 'listPets?limit=100 (the maximum) is 200 with exactly 100 pets when at least 100 exist',
    async run(ctx) {
      await ctx.fixtures.ensurePets(LIST_LIMIT.max);
      const exchange = await ctx.http.send(`/pets?limit=${LIST_LIMIT.max}`);
      const pets = expectPets(exchange);
      check(pets.length === LIST_LIMIT.max, `expected ${LIST_LIMIT.max} pets, got ${pets.length}`, exchange);
    },
  },
  ...limitChecks,
  {
    id: 'listPets.status.filter',
    description:
      'listPets?status=X (each of available, pending, sold) returns only pets with status X, ids ascending',
    async run(ctx) {
      for (const status of PET_STATUSES) {
        await ctx.fixtures.createPet({
          name: ctx.fixtures.uniqueName(`filter ${status}`),
          categoryId: 7,
          status,
        });
        const exchange = await ctx.http.send(`/pets?status=${status}&limit=${LIST_LIMIT.max}`);
        const pets = expectPets(exchange);
        check(pets.length > 0, `no pet listed with status ${status} although one was just created`, exchange);
        const other = pets.find((pet) => pet.status !== status);
        check(
          other === undefined,
          `status=${status} listed pet ${other?.id} with status ${other?.status}`,
          exchange,
        );
        expectAscendingIds(pets, exchange);
      }
    },
  },
  {
    id: 'listPets.status.invalid',
    description: 'an unknown status (lost, empty, null, given twice) is 400 validation_failed',
    async run(ctx) {
      for (const query of ['status=lost', 'status=', 'status=null', 'status=sold&status=pending']) {
        expectRefused(await ctx.http.send(`/pets?${query}`), 400, 'validation_failed');
      }
    },
  },
  {
    id: 'listPets.status.case-sensitive',
    description: 'status values are case-sensitive: status=Available is 400 validation_failed',
    async run(ctx) {
      for (const query of ['status=Available', 'status=SOLD']) {
        expectRefused(await ctx.http.send(`/pets?${query}`), 400, 'validation_failed');
      }
    },
  },
  {
    id: 'listPets.paging.unknown-parameter',
    description:
      'paging parameters other than limit and cursor (offset, page) are refused with 400, never ignored; so is a cursor that is not ours',
    async run(ctx) {
      for (const query of ['offset=20', 'cursor=abc', 'page=2', 'limit=10&offset=10']) {
        expectRefused(await ctx.http.send(`/pets?${query}`), 400, 'validation_failed');
      }
    },
  },
  {
    id: 'listPets.order.id-ascending',
    description:
      'listPets is ordered by id ascending (oldest first), each id once, with and without a filter',
    async run(ctx) {
      await ctx.fixtures.ensurePets(LIST_LIMIT.max);
      for (const query of [
        `limit=${LIST_LIMIT.max}`,
        '',
        ...PET_STATUSES.map((status) => `status=${status}&limit=100`),
      ]) {
        const exchange = await ctx.http.send(`/pets?${query}`.replace(/\?$/, ''));
        expectAscendingIds(expectPets(exchange), exchange);
      }
    },
  },
  {
    id: 'listPets.order.stable',
    description:
      'the same query twice gives the same pets in the same order (pets created in between may only follow them)',
    async run(ctx) {
      await ctx.fixtures.ensurePets(LIST_LIMIT.max);
      const first = expectPets(await ctx.http.send('/pets?limit=50'));
      const secondExchange = await ctx.http.send('/pets?limit=50');
      const second = expectPets(secondExchange);
      // Ids grow with creation, so concurrent creations can only append when the page is not full.
      first.forEach((pet, index) => {
        const again = second[index] as Pet | undefined;
        check(
          again !== undefined,
          `pet ${pet.id} (position ${index}) missing on the second read`,
          secondExchange,
        );
        expectSamePet(again, pet, secondExchange);
      });
    },
  },
  {
    id: 'listPets.not-deprecated',
    description: 'listPets is the successor of getPet and carries no Deprecation or Sunset header',
    async run(ctx) {
      const exchange = await ctx.http.send('/pets?limit=1');
      expectPets(exchange);
      check(exchange.headers.get('deprecation') === null, 'listPets carries a Deprecation header', exchange);
      check(exchange.headers.get('sunset') === null, 'listPets carries a Sunset header', exchange);
    },
  },
];
