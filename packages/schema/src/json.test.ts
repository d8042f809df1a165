import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { integerOfText, parseJson, stringifyJson } from './json.js';

describe('int64-exact JSON', () => {
  it('ignores one byte order mark at the start of a text, and no other (RFC 8259 section 8.1)', () => {
    expect(parseJson('\uFEFF{"a":1}')).toEqual({ a: 1 });
    expect(() => parseJson('\uFEFF\uFEFF{"a":1}')).toThrow(SyntaxError);
    expect(() => parseJson('{"a":\uFEFF1}')).toThrow(SyntaxError);
    expect(parseJson('\uFEFF{"a":"\uFEFF\\ufeff"}')).toEqual({ a: '\uFEFF\uFEFF' });
  });

  it('keeps integers beyond 2^53 exact where JSON.parse rounds them', () => {
    const text = '{"categoryId":9007199254740993}';
    expect((JSON.parse(text) as { categoryId: number }).categoryId).toBe(9007199254740992);
    expect(parseJson(text)).toEqual({ categoryId: 9007199254740993n });
    expect(stringifyJson(parseJson(text))).toBe(text);
  });

  it('reads exponent forms of integers exactly', () => {
    expect(parseJson('9.2e18')).toBe(9200000000000000000n);
    expect(parseJson('12345678901234567.0')).toBe(12345678901234567n);
  });

  it('leaves safe numbers and non-integers as numbers (`-0` is the integer 0)', () => {
    expect(parseJson('[1, -0, 1.5, 1e-5, 0.1]')).toEqual([1, 0, 1.5, 1e-5, 0.1]);
  });

  it('reads text that denotes an integer exactly in another form as that integer', () => {
    expect(parseJson('[1.0, 1e3, 1E2, 7000e-3, 100e-2, -5.00]')).toEqual([1, 1000, 100, 7, 1, -5]);
  });

  it('never turns a number that is not exactly an integer into one: NaN, which no integer schema accepts', () => {
    // JSON.parse reads each of these as an integer (4, 0, 9007199254740994, 1) although the text denotes none.
    for (const text of ['4.0000000000000000001', '1e-400', '9007199254740993.5', '0.99999999999999999999']) {
      expect(Number.isInteger(JSON.parse(text)), text).toBe(true);
      expect(parseJson(text), text).toBeNaN();
    }
    expect(parseJson('{"categoryId":4.0000000000000000001}')).toEqual({ categoryId: Number.NaN });
  });

  it('writes bigint as bare JSON numbers', () => {
    expect(stringifyJson({ id: 9223372036854775807n, list: [1n, -2n] })).toBe(
      '{"id":9223372036854775807,"list":[1,-2]}',
    );
  });

  it('rejects malformed JSON with a SyntaxError', () => {
    expect(() => parseJson('{"name":')).toThrow(SyntaxError);
  });
});

describe('duplicate keys', () => {
  it('refuses an object that names a key twice, at any depth, however the key is escaped', () => {
    for (const text of [
      '{"name":"a","name":"b"}',
      '{"name":"a","categoryId":1,"name":"a"}',
      '[{"a":1},{"b":1,"b":2}]',
      '{"outer":{"x":1,"x":1}}',
      '{"name":"a","na\\u006de":"b"}',
      '{"\\"":1,"\\"":2}',
    ]) {
      expect(() => parseJson(text), text).toThrow(/appears twice/);
      expect(() => JSON.parse(text), text).not.toThrow(); // JSON.parse keeps the last value silently
    }
  });

  it('accepts the same key in different objects, and key-like text inside strings', () => {
    expect(parseJson('[{"a":1},{"a":2}]')).toEqual([{ a: 1 }, { a: 2 }]);
    expect(parseJson('{"a":{"a":1},"b":{"a":2}}')).toEqual({ a: { a: 1 }, b: { a: 2 } });
    expect(parseJson('{"name":"\\",\\"name\\":\\"x","x":"{\\"name\\":1,"}')).toEqual({
      name: '","name":"x',
      x: '{"name":1,',
    });
    expect(parseJson('{"a\\\\":1,"a":2}')).toEqual({ 'a\\': 1, a: 2 });
  });
});

describe('the one rule for an integer spelled as a JSON number (generated spellings)', () => {
  // The oracle: the number's exact value as a fraction m / 10^k, an integer when 10^k divides m. Below 10^40 in
  // magnitude it is read (a safe integer as a number, past 2^53 a bigint); from 10^40 on it is refused, as is any
  // fraction. No zeros trimmed, no digits compared: a different route to the same verdict.
  function oracle(text: string): number | bigint | undefined {
    const [, sign, whole, fraction = '', exponent = '0'] = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(
      text,
    ) as string[];
    const m = BigInt(`${whole}${fraction}`);
    const power = Number(exponent) - fraction.length;
    let value: bigint;
    if (m === 0n) value = 0n;
    else if (power >= 0) value = m * 10n ** BigInt(power);
    else if (m % 10n ** BigInt(-power) === 0n) value = m / 10n ** BigInt(-power);
    else return undefined;
    if (value >= 10n ** 40n) return undefined;
    const signed = sign === '-' ? -value : value;
    return Number.isSafeInteger(Number(signed)) ? Number(signed) : signed;
  }

  const digits = (min: number, max: number) =>
    fc
      .array(fc.constantFrom('0', '0', '0', '1', '5', '9'), { minLength: min, maxLength: max })
      .map((d) => d.join(''));
  const spelling = fc
    .record({
      sign: fc.constantFrom('', '-'),
      whole: fc.oneof(
        fc.constant('0'),
        fc.tuple(fc.constantFrom('1', '7', '9'), digits(0, 22)).map(([a, b]) => a + b),
      ),
      fraction: fc.option(digits(1, 24), { nil: undefined }),
      exponent: fc.option(
        fc.tuple(fc.constantFrom('e', 'E'), fc.constantFrom('', '+', '-'), fc.integer({ min: 0, max: 60 })),
        { nil: undefined },
      ),
    })
    .map(
      ({ sign, whole, fraction, exponent }) =>
        `${sign}${whole}${fraction === undefined ? '' : `.${fraction}`}${exponent === undefined ? '' : exponent.join('')}`,
    );

  it('reads every spelling as the oracle does, zero included (0.0, -0e5, 0.000e60)', () => {
    fc.assert(
      fc.property(spelling, (text) => {
        const expected = oracle(text);
        expect(integerOfText(text), text).toEqual(expected);
        // In a JSON document: the integer, or NaN when the text names no integer JSON.parse would have made one of.
        const parsed = parseJson(text);
        if (expected !== undefined) expect(parsed, text).toEqual(expected);
        else if (Number.isInteger(JSON.parse(text))) expect(parsed, text).toBeNaN();
      }),
      { numRuns: 20_000 },
    );
  });

  it('reads zero however it is spelled', () => {
    for (const text of ['0', '-0', '0.0', '-0.0', '0.00e0', '0e-1', '0e40', '0.000e99']) {
      expect(integerOfText(text), text).toBe(0);
    }
  });
});
