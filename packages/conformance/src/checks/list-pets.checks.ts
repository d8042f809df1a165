import { LIST_LIMIT, PET_STATUSES, type Pet } from '@petstore/schema';
import {
  type Check,
  type CheckContext,
  check,
  expectAscendingIds,
  expectJsonContentType,
  expectPets,
  expectRefused,
  expectRefusedOr,
  expectSamePet,
  reference,
} from '../check.js';
import type { Exchange } from '../http-client.js';

/** Query strings the README refuses with 400 validation_failed, by label (the label is part of the check id). */
const INVALID_LIMITS: Array<[label: string, query: string, why: string]> = [
  ['zero', 'limit=0', 'below the minimum 1'],
  ['above-max', 'limit=101', 'above the maximum 100'],
  ['negative', 'limit=-1', 'negative'],
  ['decimal', 'limit=1.5', 'not an integer'],
  ['exponent', 'limit=5e-1', 'an exponent that leaves a fraction'],
  ['text', 'limit=abc', 'not a number'],
  ['empty', 'limit=', 'empty'],
  ['repeated', 'limit=1&limit=2', 'given twice'],
];

const LIMIT_SPEC =
  'Endpoints / GET /pets and Limits: limit is 1..100; Errors / Gaps: the answer to another limit is not shown ' +
  '(a 4xx Error body, or a page of at most 100 Pets, never a 5xx)';
const LIMIT_DECISION = 'Decision: bad limit or status is 400 validation_failed';

/**
 * A query the interface does not define (a limit out of range, an unknown status or paging parameter): under
 * `reference` 400 validation_failed; under `interface` a 4xx with an Error body, or a list read some other way
 * (clamped, ignored) that is still a valid page of at most 100 Pets.
 */
export function expectRefusedOrPage(
  ctx: CheckContext,
  exchange: Exchange,
  max: number = LIST_LIMIT.max,
): void {
  expectRefusedOr(ctx, exchange, { status: 400, code: 'validation_failed' }, (listed) => {
    const pets = expectPets(ctx, listed);
    check(pets.length <= max, `${pets.length} pets in one page, above the limit ${max}`, listed);
  });
}

const limitChecks: Check[] = INVALID_LIMITS.map(([label, query, why]) => ({
  id: `listPets.limit.invalid.${label}`,
  interfaceDescription: `listPets?${query} (${why}) is refused with a 4xx Error body or answered with a valid page, never a 5xx`,
  description: `listPets?${query} (${why}) is 400 validation_failed`,
  spec: LIMIT_SPEC,
  decision: LIMIT_DECISION,
  async run(ctx) {
    expectRefusedOrPage(ctx, await ctx.http.send(`/pets?${query}`));
  },
}));

export const listPetsChecks: Check[] = [
  {
    id: 'listPets.ok',
    description: 'GET /pets is 200, Content-Type application/json, a bare JSON array of valid Pets',
    spec: 'Endpoints / GET /pets: 200 with Pets; Resources / Pets: a bare JSON array of Pet, no wrapper object',
    async run(ctx) {
      await ctx.fixtures.samplePet();
      const exchange = await ctx.http.send('/pets');
      expectJsonContentType(exchange);
      check(exchange.text.trimStart().startsWith('['), 'the body is not a bare JSON array', exchange);
      const pets = expectPets(ctx, exchange);
      check(pets.length > 0, 'empty list although this run created a pet', exchange);
    },
  },
  {
    id: 'listPets.limit.default',
    description: 'without limit, listPets returns exactly 20 pets when more exist (default 20)',
    spec: 'Endpoints / GET /pets, Limits: limit default 20',
    async run(ctx) {
      await ctx.fixtures.ensurePets(LIST_LIMIT.default + 1);
      const exchange = await ctx.http.send('/pets');
      const pets = expectPets(ctx, exchange);
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
    spec: 'Endpoints / GET /pets, Limits: limit minimum 1',
    async run(ctx) {
      await ctx.fixtures.ensurePets(2);
      const exchange = await ctx.http.send('/pets?limit=1');
      check(expectPets(ctx, exchange).length === 1, 'expected exactly 1 pet', exchange);
    },
  },
  {
    id: 'listPets.limit.max',
    description: 'listPets?limit=100 (the maximum) is 200 with exactly 100 pets when at least 100 exist',
    spec: 'Endpoints / GET /pets, Limits: limit maximum 100',
    async run(ctx) {
      await ctx.fixtures.ensurePets(LIST_LIMIT.max);
      const exchange = await ctx.http.send(`/pets?limit=${LIST_LIMIT.max}`);
      const pets = expectPets(ctx, exchange);
      check(pets.length === LIST_LIMIT.max, `expected ${LIST_LIMIT.max} pets, got ${pets.length}`, exchange);
    },
  },
  ...limitChecks,
  {
    id: 'listPets.status.filter',
    interfaceDescription:
      'listPets?status=X (each of available, pending, sold) returns only pets with status X',
    description:
      'listPets?status=X (each of available, pending, sold) returns only pets with status X, ids ascending',
    spec: 'Endpoints / GET /pets: status keeps only animals with this status',
    decision: 'Decision: ordering of listPets (id ascending)',
    async run(ctx) {
      for (const status of PET_STATUSES) {
        await ctx.fixtures.createPet({
          name: ctx.fixtures.uniqueName(`filter ${status}`),
          categoryId: 7,
          status,
        });
        const exchange = await ctx.http.send(`/pets?status=${status}&limit=${LIST_LIMIT.max}`);
        const pets = expectPets(ctx, exchange);
        check(pets.length > 0, `no pet listed with status ${status} although one was just created`, exchange);
        const other = pets.find((pet) => pet.status !== status);
        check(
          other === undefined,
          `status=${status} listed pet ${other?.id} with status ${other?.status}`,
          exchange,
        );
        if (reference(ctx)) expectAscendingIds(pets, exchange);
      }
    },
  },
  {
    id: 'listPets.status.invalid',
    interfaceDescription:
      'an unknown status (lost, empty, null, given twice) is refused with a 4xx Error body or answered with a valid page, never a 5xx',
    description: 'an unknown status (lost, empty, null, given twice) is 400 validation_failed',
    spec:
      'Endpoints / GET /pets: status is one of available, pending, sold; Errors / Gaps: the answer to an unknown ' +
      'status is not shown (a 4xx Error body, or a valid page, never a 5xx)',
    decision: LIMIT_DECISION,
    async run(ctx) {
      for (const query of ['status=lost', 'status=', 'status=null', 'status=sold&status=pending']) {
        expectRefusedOrPage(ctx, await ctx.http.send(`/pets?${query}`));
      }
    },
  },
  {
    id: 'listPets.status.case-sensitive',
    description: 'status values are case-sensitive: status=Available is 400 validation_failed',
    decision: LIMIT_DECISION,
    async run(ctx) {
      for (const query of ['status=Available', 'status=SOLD']) {
        expectRefused(ctx, await ctx.http.send(`/pets?${query}`), 400, 'validation_failed');
      }
    },
  },
  {
    id: 'listPets.paging.unknown-parameter',
    interfaceDescription:
      'paging parameters other than limit (offset, cursor, page) are refused with a 4xx Error body or answered with a valid page, never a 5xx of at most limit pets',
    description:
      'paging parameters other than limit and cursor (offset, page) are refused with 400, never ignored; so is a cursor that is not ours',
    spec:
      'Endpoints / Other endpoints: paging parameters other than limit are not shown (a 4xx Error body, or a ' +
      'valid page of at most limit Pets, never a 5xx)',
    decision: 'Decision: paging (other paging parameters are refused with 400)',
    async run(ctx) {
      for (const query of ['offset=20', 'cursor=abc', 'page=2', 'limit=10&offset=10']) {
        expectRefusedOrPage(
          ctx,
          await ctx.http.send(`/pets?${query}`),
          query.startsWith('limit=10') ? 10 : undefined,
        );
      }
    },
  },
  {
    id: 'listPets.order.id-ascending',
    description:
      'listPets is ordered by id ascending (oldest first), each id once, with and without a filter',
    decision: 'Decision: ordering of listPets (id ascending)',
    async run(ctx) {
      await ctx.fixtures.ensurePets(LIST_LIMIT.max);
      for (const query of [
        `limit=${LIST_LIMIT.max}`,
        '',
        ...PET_STATUSES.map((status) => `status=${status}&limit=100`),
      ]) {
        const exchange = await ctx.http.send(`/pets?${query}`.replace(/\?$/, ''));
        expectAscendingIds(expectPets(ctx, exchange), exchange);
      }
    },
  },
  {
    id: 'listPets.order.stable',
    description:
      'the same query twice gives the same pets in the same order (pets created in between may only follow them)',
    decision: 'Decision: ordering of listPets (stable)',
    async run(ctx) {
      await ctx.fixtures.ensurePets(LIST_LIMIT.max);
      const first = expectPets(ctx, await ctx.http.send('/pets?limit=50'));
      const secondExchange = await ctx.http.send('/pets?limit=50');
      const second = expectPets(ctx, secondExchange);
      // Ids grow with creation, so concurrent creations can only append when the page is not full.
      first.forEach((pet, index) => {
        const again = second[index] as Pet | undefined;
        check(
          again !== undefined,
          `pet ${pet.id} (position ${index}) missing on the second read`,
          secondExchange,
        );
        expectSamePet(ctx, again, pet, secondExchange);
      });
    },
  },
  {
    id: 'listPets.not-deprecated',
    description: 'listPets is the successor of getPet and carries no Deprecation or Sunset header',
    spec: 'Versioning 3: getPet is deprecated; listPets with the status filter is its replacement',
    async run(ctx) {
      const exchange = await ctx.http.send('/pets?limit=1');
      expectPets(ctx, exchange);
      check(exchange.headers.get('deprecation') === null, 'listPets carries a Deprecation header', exchange);
      check(exchange.headers.get('sunset') === null, 'listPets carries a Sunset header', exchange);
    },
  },
];
