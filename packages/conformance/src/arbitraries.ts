import {
  INT64_MAX,
  INT64_MIN,
  ListPetsSearchParamsSchema,
  type NewPet,
  NewPetSchema,
  PET_NAME_MAX_LENGTH,
  PET_STATUSES,
  PetIdPathSchema,
  PetNameSchema,
  parseJson,
  REQUEST_BODY_LIMIT_BYTES,
  stringifyJson,
} from '@petstore/schema';
import fc from 'fast-check';

// The schema package is the oracle: generated "valid" data is what NewPetSchema accepts, generated "invalid"
// data is what it refuses. The arbitraries only aim the generator at the interesting corners.

const WHITESPACE = [' ', '\t', '\n', '\r', '\u00a0', '\u2003', '\u3000', '\ufeff'];
const whitespace = fc.string({ unit: fc.constantFrom(...WHITESPACE), minLength: 1, maxLength: 6 });

/** Names the interface accepts: unicode graphemes, any code point, padded with spaces, up to the maximum length. */
const validNameArbitrary: fc.Arbitrary<string> = fc
  .oneof(
    { weight: 4, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }) },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 30 }) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(whitespace, fc.string({ unit: 'grapheme', minLength: 1, maxLength: 10 }), whitespace)
        .map((parts) => parts.join('')),
    },
    {
      weight: 1,
      arbitrary: fc.string({
        unit: 'grapheme-ascii',
        minLength: PET_NAME_MAX_LENGTH,
        maxLength: PET_NAME_MAX_LENGTH,
      }),
    },
  )
  .filter((name) => PetNameSchema.safeParse(name).success);

const int64 = fc.bigInt({ min: INT64_MIN, max: INT64_MAX });

/** NewPets the interface accepts, `status` sometimes absent. */
export const validNewPetArbitrary: fc.Arbitrary<NewPet> = fc.record(
  { name: validNameArbitrary, categoryId: int64, status: fc.constantFrom(...PET_STATUSES) },
  { requiredKeys: ['name', 'categoryId'] },
);

/** A JSON text fragment for a value of any JSON type other than the ones listed. */
const otherJsonType = (...except: Array<'string' | 'number' | 'boolean' | 'null' | 'array' | 'object'>) =>
  fc
    .oneof(
      fc.string({ maxLength: 10 }),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.array(fc.integer(), { maxLength: 3 }),
      fc.dictionary(fc.string({ maxLength: 5 }), fc.integer(), { maxKeys: 2 }),
    )
    .filter((value) => {
      const type = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
      return !(except as string[]).includes(type);
    })
    .map((value) => JSON.stringify(value));

/** JSON texts of names the interface refuses, one rule broken at a time. */
const invalidName = fc.oneof(
  fc.constant('""'),
  whitespace.map((name) => JSON.stringify(name)),
  fc
    .integer({ min: PET_NAME_MAX_LENGTH + 1, max: 60_000 })
    .map((length) => JSON.stringify('n'.repeat(length))),
  fc
    .tuple(fc.string({ maxLength: 10 }), fc.string({ maxLength: 10 }))
    .map(([before, after]) => JSON.stringify(`${before}\u0000${after}`)),
  fc
    .tuple(fc.string({ minLength: 1, maxLength: 10 }), fc.integer({ min: 0xd800, max: 0xdfff }))
    .map(([text, unit]) => JSON.stringify(`${text}${String.fromCharCode(unit)}`)),
  otherJsonType('string'),
);

/** JSON texts of categoryIds the interface refuses: past int64, fractions, exponents, other types. */
const invalidCategoryId = fc.oneof(
  fc.bigInt({ min: INT64_MAX + 1n, max: 2n ** 80n }).map(String),
  fc.bigInt({ min: -(2n ** 80n), max: INT64_MIN - 1n }).map(String),
  fc
    .double({ noNaN: true, noDefaultInfinity: true })
    .filter((value) => !Number.isInteger(value))
    .map(String),
  fc.integer({ min: 19, max: 400 }).map((exponent) => `1e${exponent}`),
  int64.map((value) => JSON.stringify(String(value))),
  otherJsonType('number'),
);

/** JSON texts of statuses the interface refuses: null, other strings, other cases, other types. */
const invalidStatus = fc.oneof(
  fc.constant('null'),
  fc.constantFrom(...PET_STATUSES).map((status) => JSON.stringify(status.toUpperCase())),
  fc.string({ maxLength: 12 }).map((status) => JSON.stringify(status)),
  otherJsonType('string', 'null'),
);

const KNOWN_FIELDS = new Set(['name', 'categoryId', 'status']);

type Entries = Array<[key: string, jsonText: string]>;

const entriesOf = (newPet: NewPet): Entries =>
  Object.entries(newPet).map(([key, value]) => [key, stringifyJson(value)]);

const objectText = (entries: Entries) =>
  `{${entries.map(([key, text]) => `${JSON.stringify(key)}:${text}`).join(',')}}`;

const replace = (entries: Entries, key: string, text: string): Entries => [
  ...entries.filter(([name]) => name !== key),
  [key, text],
];

/** Each way a body can break the NewPet rules; the label says which rule, for the report. */
export const invalidNewPetArbitrary: fc.Arbitrary<{ rule: string; body: string }> = validNewPetArbitrary
  .chain((newPet) => {
    const entries = entriesOf(newPet);
    return fc.oneof(
      fc.constantFrom('name', 'categoryId').map((key) => ({
        rule: `${key} missing`,
        body: objectText(entries.filter(([name]) => name !== key)),
      })),
      invalidName.map((text) => ({ rule: 'invalid name', body: objectText(replace(entries, 'name', text)) })),
      invalidCategoryId.map((text) => ({
        rule: 'invalid categoryId',
        body: objectText(replace(entries, 'categoryId', text)),
      })),
      invalidStatus.map((text) => ({
        rule: 'invalid status',
        body: objectText(replace(entries, 'status', text)),
      })),
      fc
        .tuple(
          fc.oneof(
            fc.constantFrom('id', 'stauts', 'Name', 'category_id'),
            fc.string({ minLength: 1, maxLength: 10 }),
          ),
          fc.jsonValue({ maxDepth: 2 }),
        )
        .filter(([key]) => !KNOWN_FIELDS.has(key))
        .map(([key, value]) => ({
          rule: 'unknown field',
          body: objectText([...entries, [key, JSON.stringify(value) ?? 'null']]),
        })),
      fc
        .jsonValue({ maxDepth: 2 })
        .filter((value) => typeof value !== 'object' || value === null || Array.isArray(value))
        .map((value) => ({ rule: 'not an object', body: JSON.stringify(value) ?? 'null' })),
    );
  })
  .filter(
    ({ body }) =>
      // Under the body limit, so a refusal is about the content, not the size.
      Buffer.byteLength(body) < REQUEST_BODY_LIMIT_BYTES && !NewPetSchema.safeParse(parseJson(body)).success,
  );

/** Bodies that are not JSON at all: a valid NewPet text truncated or with a stray character. */
export const malformedJsonArbitrary: fc.Arbitrary<string> = fc
  .tuple(
    validNewPetArbitrary.map((newPet) => stringifyJson(newPet)),
    fc.nat(),
    fc.oneof(
      fc.constant(''),
      fc.constantFrom('{', '}', '[', ']', ',', ':', '"', "'", '\\', 'x', 'NaN', '//'),
    ),
    fc.boolean(),
  )
  .map(([text, at, stray, truncate]) => {
    const position = at % text.length;
    return truncate ? text.slice(0, position) : text.slice(0, position) + stray + text.slice(position);
  })
  .filter((text) => {
    if (text.trim() === '') return false;
    try {
      JSON.parse(text);
      return false;
    } catch {
      return true;
    }
  });

/** `limit` values (as sent in the URL) that the README refuses; `01` is allowed by the oracle and so not here. */
export const invalidLimitArbitrary: fc.Arbitrary<string> = fc
  .oneof(
    fc.integer({ min: -1_000_000, max: 0 }).map(String),
    fc.integer({ min: 101, max: 1_000_000_000 }).map(String),
    fc
      .double({ noNaN: true, min: 1, max: 100 })
      .filter((value) => !Number.isInteger(value))
      .map(String),
    fc.string({ unit: 'grapheme', maxLength: 8 }),
  )
  .filter((limit) => !ListPetsSearchParamsSchema.safeParse({ limit }).success);

/** `petId` path segments that can name no pet: text, zero, negatives, fractions, past int64. */
export const invalidPetIdArbitrary: fc.Arbitrary<string> = fc
  .oneof(
    fc.bigInt({ min: -(2n ** 70n), max: 0n }).map(String),
    fc.bigInt({ min: INT64_MAX + 1n, max: 2n ** 80n }).map(String),
    fc
      .double({ noNaN: true })
      .filter((value) => !Number.isInteger(value))
      .map(String),
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 8 }),
  )
  // `.` and `..` are path navigation, not an id; a URL never carries them to the server as a segment.
  .filter((segment) => segment !== '.' && segment !== '..' && !PetIdPathSchema.safeParse(segment).success);
