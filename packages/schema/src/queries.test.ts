import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { describeIssues } from './issues.js';
import { integerFromText } from './json.js';
import {
  LIST_LIMIT,
  ListPetsQuerySchema,
  ListPetsSearchParamsSchema,
  PetEventsQuerySchema,
  PetEventsSearchParamsSchema,
  PetIdPathSchema,
} from './queries.js';

const decode = (query: Record<string, unknown>) => {
  const result = ListPetsSearchParamsSchema.safeParse(query);
  return result.success ? result.data : describeIssues(result.error, 'query parameter');
};

// One declaration per field: a query string's parameters are the typed input's fields (the feed's lastEventId is a
// header on REST), each judged by the typed field's own rule on the value its text spells.
describe('query strings built from the typed inputs', () => {
  const pairs = [
    { url: ListPetsSearchParamsSchema, typed: ListPetsQuerySchema, omitted: [] as string[] },
    { url: PetEventsSearchParamsSchema, typed: PetEventsQuerySchema, omitted: ['lastEventId'] },
  ];
  const verdict = (result: { success: boolean; data?: unknown; error?: unknown }) =>
    result.success ? { data: result.data } : { error: describeIssues(result.error as never, 'field') };

  it('have exactly the typed fields, and give each text the typed verdict on the value it spells', () => {
    for (const { url, typed, omitted } of pairs) {
      expect(Object.keys(url.shape)).toEqual(
        Object.keys(typed.shape).filter((name) => !omitted.includes(name)),
      );
      const text = fc.oneof(
        fc.constantFrom(
          '',
          '0',
          '1',
          '20',
          '10.0',
          '1e1',
          '100',
          '101',
          '-1',
          '1.5',
          'abc',
          'available',
          'sold',
          ' 1',
        ),
        fc.bigInt({ min: -(2n ** 64n), max: 2n ** 64n }).map(String),
        fc.string({ maxLength: 6 }),
      );
      fc.assert(
        fc.property(fc.constantFrom(...Object.keys(url.shape)), text, (name, value) => {
          const numeric = name === 'limit' || name === 'since';
          expect(verdict(url.safeParse({ [name]: value })), `${name}=${value}`).toEqual(
            verdict(typed.safeParse({ [name]: numeric ? integerFromText(value) : value })),
          );
        }),
        { seed: 9, numRuns: 400 },
      );
    }
  });
});

describe('listPets query', () => {
  it('defaults limit to 20 and status to none', () => {
    expect(LIST_LIMIT.default).toBe(20);
    expect(ListPetsQuerySchema.parse({})).toEqual({ limit: 20 });
    expect(decode({})).toEqual({ limit: 20 });
  });

  it.each([1, 20, 100])('accepts limit %i', (limit) => {
    expect(ListPetsQuerySchema.parse({ limit })).toEqual({ limit });
    expect(decode({ limit: String(limit) })).toEqual({ limit });
  });

  // One rule for an integer's spelling, a URL's text as a JSON number (json.ts integerOfText): exact, any form.
  it.each([
    ['10.0', 10],
    ['1e1', 10],
    ['5e0', 5],
    ['100E-0', 100],
    ['2000e-3', 2],
    ['0.5e1', 5],
  ])('reads limit=%j as %i, as a JSON number with that text is read', (limit, value) => {
    expect(decode({ limit })).toEqual({ limit: value });
  });

  // A leading zero is not JSON's (`{"limit":05}` is malformed JSON), so not the URL's either.
  it.each([
    '0',
    '101',
    '-1',
    '1.5',
    'abc',
    '',
    '1e3',
    '0x10',
    ' 5',
    '+5',
    '1e-400',
    'Infinity',
    '10.5e0',
    '007',
    '05',
    '00',
    '05.0',
    '.5e1',
    '5.',
  ])('refuses limit=%j', (limit) => {
    expect(decode({ limit })).toBe('limit: must be an integer between 1 and 100');
  });

  it.each([0, 101, -1, 1.5, '5', null])('refuses a typed limit of %j', (limit) => {
    expect(ListPetsQuerySchema.safeParse({ limit }).success).toBe(false);
  });

  it('refuses a parameter given twice', () => {
    expect(decode({ limit: ['1', '2'] })).toBe('limit: must be given at most once');
    expect(decode({ status: ['sold', 'sold'] })).toBe('status: must be given at most once');
  });

  it('takes a status filter and refuses an unknown status', () => {
    expect(decode({ status: 'pending', limit: '5' })).toEqual({ status: 'pending', limit: 5 });
    expect(decode({ status: 'lost' })).toBe('status: must be one of available, pending, sold');
    expect(decode({ status: '' })).toBe('status: must be one of available, pending, sold');
  });

  it('refuses unsupported parameters such as offset', () => {
    expect(decode({ offset: '20' })).toBe('unknown query parameter "offset"');
  });
});

describe('getPet petId path segment', () => {
  it.each(['1', '42', '9223372036854775807'])('decodes %s to a bigint', (text) => {
    expect(PetIdPathSchema.parse(text)).toBe(BigInt(text));
  });

  it.each([
    ['8e0', 8n],
    ['8.0', 8n],
    ['9.223372036854775807e18', 9223372036854775807n],
  ])('reads %s as a JSON number with that text is read: %s', (text, id) => {
    expect(PetIdPathSchema.parse(text)).toBe(id);
  });

  it.each(['0', '-1', '1.5', 'abc', '', '9223372036854775808', '1e19', ' 1', '+1', '0x1', '007', '00'])(
    'refuses %j',
    (text) => {
      expect(PetIdPathSchema.safeParse(text).success).toBe(false);
    },
  );
});
