import { describe, expect, it } from 'vitest';
import { BAD_LIST_QUERIES, BAD_NEW_PETS, BAD_PET_IDS } from './reference-cases.js';
import {
  createKeyChecker,
  isJsonContentType,
  parseJsonExact,
  parseListInput,
  parseListSearch,
  parseNewPet,
  parsePetId,
} from './reference-rules.js';

// The reference must refuse what the api refuses (README, "our decisions where it is silent"), or the
// comparison would measure less work on one side.
describe('reference server rules', () => {
  it('checks bearer keys', () => {
    const check = createKeyChecker(['bench-key-0123456789abcdef']);
    expect(check('bearer  bench-key-0123456789abcdef')).toBe('ok');
    expect(check('Bearer wrong-key-0123456789abcdef')).toBe('invalid');
    expect(check(undefined)).toBe('missing');
    expect(check('Basic abc')).toBe('missing');
  });

  it('reads limit and status like the api', () => {
    expect(parseListSearch('')).toEqual({ limit: 20, status: undefined });
    expect(parseListSearch('limit=100&status=available')).toEqual({ limit: 100, status: 'available' });
    for (const bad of BAD_LIST_QUERIES) {
      expect(() => parseListSearch(bad), bad).toThrow();
    }
    expect(parseListInput({ limit: 5 })).toEqual({ limit: 5, status: undefined });
    expect(() => parseListInput({ limit: '5' })).toThrow();
  });

  it('reads petId as a positive int64', () => {
    expect(parsePetId('9223372036854775807')).toBe(9223372036854775807n);
    for (const bad of BAD_PET_IDS) expect(() => parsePetId(bad), bad).toThrow();
  });

  it('validates NewPet with exact int64', () => {
    const body = parseJsonExact('{"name":"Rex","categoryId":9007199254740993}');
    expect(parseNewPet(body)).toEqual({ name: 'Rex', categoryId: '9007199254740993', status: null });
    for (const bad of BAD_NEW_PETS) {
      expect(() => parseNewPet(parseJsonExact(bad)), bad).toThrow();
    }
    expect(isJsonContentType('application/json; charset=utf-8')).toBe(true);
    expect(isJsonContentType('text/plain')).toBe(false);
  });
});
