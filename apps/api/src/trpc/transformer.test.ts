import fc from 'fast-check';
import superjson from 'superjson';
import { describe, expect, it } from 'vitest';
import { serializeOutput } from './transformer.js';

/** Values our procedures return (and anything else JSON-like with bigints, odd keys included). */
const jsonWithBigints = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.string(),
    fc.boolean(),
    fc.constant(null),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.bigInt(),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.string({ maxLength: 6 }), tie('value'), { maxKeys: 4 }),
  ),
})).value;

describe('the tRPC output transformer', () => {
  it('is read back by superjson exactly as superjson.serialize would be', () => {
    fc.assert(
      fc.property(jsonWithBigints, (value) => {
        expect(superjson.deserialize(serializeOutput(value))).toEqual(
          superjson.deserialize(superjson.serialize(value)),
        );
        expect(superjson.deserialize(serializeOutput(value))).toEqual(value);
      }),
      { seed: 11, numRuns: 1000 },
    );
  });

  it('writes a pet list in superjson format without a generic walk', () => {
    const pets = [
      { id: 9223372036854775807n, name: 'a.b\\c', categoryId: 1n, status: 'sold' },
      { id: 2n, name: 'x', categoryId: 2n },
    ];
    expect(serializeOutput(pets)).toEqual({
      json: [
        { id: '9223372036854775807', name: 'a.b\\c', categoryId: '1', status: 'sold' },
        { id: '2', name: 'x', categoryId: '2' },
      ],
      meta: {
        values: {
          '0.id': ['bigint'],
          '0.categoryId': ['bigint'],
          '1.id': ['bigint'],
          '1.categoryId': ['bigint'],
        },
        v: 1,
      },
    });
  });

  it('falls back to superjson for what it does not handle', () => {
    for (const value of [5n, { at: new Date(0) }, { n: Number.NaN }, { u: undefined }, new Map([[1, 2]])]) {
      expect(serializeOutput(value)).toEqual(superjson.serialize(value));
    }
  });
});
