import { contract, deprecationHeaders, INT64_MAX } from '@petstore/schema';
import { type Check, type CheckContext, check, expectPet, expectRefused, expectSamePet } from '../check.js';
import type { Exchange } from '../http-client.js';

const headers = deprecationHeaders(contract.getPet) as Record<'Deprecation' | 'Sunset' | 'Link', string>;

/** The deprecation of getPet, from the contract (RFC 9745 Deprecation, RFC 8594 Sunset, successor link). */
export const GET_PET_DEPRECATION = {
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

export const getPetChecks: Check[] = [
  {
    id: 'getPet.ok',
    description: 'GET /pets/{id} of a created pet is 200 with that Pet, identical to what createPet returned',
    async run(ctx) {
      const name = ctx.fixtures.uniqueName('get');
      const { pet } = await ctx.fixtures.createPet({ name, categoryId: 11, status: 'sold' });
      const exchange = await ctx.http.send(`/pets/${pet.id}`);
      expectSamePet(expectPet(exchange, 200), pet, exchange);
    },
  },
  {
    id: 'getPet.not-found',
    description: 'a well-formed id with no pet (2^63-1) is 404 pet_not_found',
    async run(ctx) {
      expectRefused(await ctx.http.send(`/pets/${INT64_MAX}`), 404, 'pet_not_found');
    },
  },
  ...INVALID_PET_IDS.map(
    ([label, segment]): Check => ({
      id: `getPet.invalid-id.${label}`,
      description: `getPet with petId ${segment} (not a positive int64, it can name no pet) is 400 validation_failed`,
      async run(ctx) {
        expectRefused(await ctx.http.send(`/pets/${segment}`), 400, 'validation_failed');
      },
    }),
  ),
  ...DEPRECATED_RESPONSES.map(
    ([label, what, send]): Check => ({
      id: `getPet.deprecation.${label}`,
      description: `a ${what} from getPet carries Deprecation: ${headers.Deprecation}, Sunset: ${headers.Sunset} and Link rel="successor-version"`,
      async run(ctx) {
        expectDeprecated(await send(ctx));
      },
    }),
  ),
];
