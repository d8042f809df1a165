import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { int8 } from './sql.js';

/** What `BigInt` itself makes of a value: the bigint, or the kind of error it throws. */
function stock(value: unknown): bigint | string {
  try {
    return BigInt(value as string | number);
  } catch (error) {
    return (error as Error).name;
  }
}

function ours(value: unknown): bigint | string {
  try {
    return int8(value);
  } catch (error) {
    return (error as Error).name;
  }
}

describe('int8 (an int8 column as a bigint)', () => {
  it('gives BigInt’s verdict for any text: the same bigint, or the same error', () => {
    const digits = fc.stringMatching(/^[-+ ]?0*[0-9]{0,22}[ .e]?[0-9]?$/);
    const int64Text = fc.bigInt({ min: -(2n ** 64n), max: 2n ** 64n }).map(String);
    fc.assert(
      fc.property(
        fc.oneof(digits, int64Text, fc.string(), fc.constantFrom('', '-', '-0', '0x10', '1e3', ' 7 ')),
        (text) => {
          expect(ours(text)).toEqual(stock(text));
        },
      ),
      { seed: 28, numRuns: 5000 },
    );
  });

  it('keeps bigints and numbers as BigInt does', () => {
    fc.assert(
      fc.property(fc.oneof(fc.bigInt(), fc.integer(), fc.double()), (value) => {
        expect(ours(value)).toEqual(stock(value));
      }),
      { seed: 29, numRuns: 2000 },
    );
  });

  it('is exact at the edges of the short form and of int64', () => {
    for (const text of [
      '999999999999999',
      '-999999999999999',
      '1000000000000000',
      '9007199254740993',
      '9223372036854775807',
      '-9223372036854775808',
    ]) {
      expect(int8(text)).toBe(BigInt(text));
    }
  });
});
