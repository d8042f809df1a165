import { contract, INT64_MAX } from '@petstore/schema';
import { deprecationHeaders } from '@petstore/schema/internal';
import {
  type Check,
  type CheckContext,
  check,
  expectPet,
  expectRefused,
  expectSamePet,
  reference,
  type Strictness,
} from '../check.js';
import type { Exchange } from '../http-client.js';

const headers = deprecationHeaders(contract.getPet) as Record<'Deprecation' | 'Sunset' | 'Link', string>;

/** The deprecation of getPet, from the contract (RFC 9745 Deprecation, RFC 8594 Sunset, successor link). */
const GET_PET_DEPRECATION = {
  deprecation: headers.Deprecation,
  sunset: headers.Sunset,
  successor: /<([^>]*\/v1\/pets)>\s*;\s*rel="?successor-version"?/,
} as const;

const INVALID_PET_IDS: Array<[label: string, segment: string]> = [
  ['text', 'abc'],
  ['zero', '0'],
  ['negative', '-1'],
  ['decimal', '1.5'],
  ['above-int64', '9223372036854775808'],
];

function expectDeprecated(exchange: Exchange): void {
  const deprecation = exchange.headers.get('deprecation');
  check(
    deprecation === GET_PET_DEPRECATION.deprecation,
    `expected Deprecation: ${GET_PET_DEPRECATION.deprecation}, got ${deprecation ?? 'none'} (status ${exchange.status})`,
    exchange,
  );
  const sunset = exchange.headers.get('sunset');
  check(
    sunset === GET_PET_DEPRECATION.sunset,
    `expected Sunset: ${GET_PET_DEPRECATION.sunset}, got ${sunset ?? 'none'} (status ${exchange.status})`,
    exchange,
  );
  const link = exchange.headers.get('link');
  check(
    link !== null && GET_PET_DEPRECATION.successor.test(link),
    `expected Link: </v1/pets>; rel="successor-version", got ${link ?? 'none'} (status ${exchange.status})`,
    exchange,
  );
}

/** Each kind of getPet response that must carry the deprecation headers, by label. */
const DEPRECATED_RESPONSES: Array<
  [label: string, what: string, send: (ctx: CheckContext) => Promise<Exchange>]
> = [
  ['ok', '200', async (ctx) => ctx.http.send(`/pets/${(await ctx.fixtures.samplePet()).id}`)],
  ['not-found', '404', async (ctx) => ctx.http.send(`/pets/${INT64_MAX}`)],
  ['invalid-id', '400', async (ctx) => ctx.http.send('/pets/abc')],
  [
    'unauthorized',
    '401',
    async (ctx) => ctx.http.send(`/pets/${(await ctx.fixtures.samplePet()).id}`, { auth: null }),
  ],
];

const INVALID_ID_SPEC =
  'Endpoints / GET /pets/{petId}: petId is an int64; the answer to one that is not (or names no pet) is not ' +
  'shown beyond 404 (400 or 404 with an Error body, never a 5xx)';
const INVALID_ID_DECISION = 'Decision: a petId that is not a positive int64 is 400 validation_failed';

/** A petId that can name no pet: 400 validation_failed under `reference`; 400 or 404 (an Error) under `interface`. */
export function expectInvalidPetIdRefused(ctx: Strictness, exchange: Exchange): void {
  if (reference(ctx)) {
    expectRefused(ctx, exchange, 400, 'validation_failed');
    return;
  }
  check(
    exchange.status === 400 || exchange.status === 404,
    `expected 400 or 404 for a petId that names no pet, got ${exchange.status}: ${exchange.text.slice(0, 300)}`,
    exchange,
  );
  expectRefused(ctx, exchange, exchange.status);
}

export const getPetChecks: Check[] = [
  {
    id: 'getPet.ok',
    description: 'GET /pets/{id} of a created pet is 200 with that Pet, identical to what createPet returned',
    spec: 'Endpoints / GET /pets/{petId}: 200 with the requested Pet',
    async run(ctx) {
      const name = ctx.fixtures.uniqueName('get');
      const { pet } = await ctx.fixtures.createPet({ name, categoryId: 11, status: 'sold' });
      const exchange = await ctx.http.send(`/pets/${pet.id}`);
      expectSamePet(ctx, expectPet(ctx, exchange, 200), pet, exchange);
    },
  },
  {
    id: 'getPet.not-found',
    interfaceDescription: 'a well-formed id with no pet (2^63-1) is 404 with an Error body',
    description: 'a well-formed id with no pet (2^63-1) is 404 pet_not_found',
    spec: 'Endpoints / GET /pets/{petId}, Errors / Conditions: 404 with an Error body when no animal has the id',
    decision: 'Decision: errors (code pet_not_found)',
    async run(ctx) {
      expectRefused(ctx, await ctx.http.send(`/pets/${INT64_MAX}`), 404, 'pet_not_found');
    },
  },
  ...INVALID_PET_IDS.map(
    ([label, segment]): Check => ({
      id: `getPet.invalid-id.${label}`,
      interfaceDescription: `getPet with petId ${segment} (not a positive int64, it can name no pet) is 400 or 404 with an Error body`,
      description: `getPet with petId ${segment} (not a positive int64, it can name no pet) is 400 validation_failed`,
      spec: INVALID_ID_SPEC,
      decision: INVALID_ID_DECISION,
      async run(ctx) {
        expectInvalidPetIdRefused(ctx, await ctx.http.send(`/pets/${segment}`));
      },
    }),
  ),
  ...DEPRECATED_RESPONSES.map(
    ([label, what, send]): Check => ({
      id: `getPet.deprecation.${label}`,
      description: `a ${what} from getPet carries Deprecation: ${headers.Deprecation}, Sunset: ${headers.Sunset} and Link rel="successor-version"`,
      decision: 'Decision: deprecation of getPet (Deprecation, Sunset and Link headers on every response)',
      async run(ctx) {
        expectDeprecated(await send(ctx));
      },
    }),
  ),
];
