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
    expect(parseJson('[1, -0, 1.5, 1e-5]')).toEqual([1, -0, 1.5, 1e-5]);
    expect(typeof parseJson('9007199254740993.5')).toBe('number');
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
