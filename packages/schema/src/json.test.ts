import { describe, expect, it } from 'vitest';
import { parseJson, stringifyJson } from './json.js';

describe('int64-exact JSON', () => {
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

  it('leaves safe numbers and non-integers as numbers', () => {
    expect(parseJson('[1, -0, 1.5, 1e-5, 0.1]')).toEqual([1, -0, 1.5, 1e-5, 0.1]);
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
