import { NewPetSchema } from '@petstore/schema';
import { describeIssues } from '@petstore/schema/internal';
import { describe, expect, it } from 'vitest';
import { fieldErrorsOf, int64FromText, validateDraft } from './pet-form.js';
import { hashQueryKey } from './query-client.js';

describe('the Add form', () => {
  it('keeps an int64 above 2^53 exact', () => {
    expect(int64FromText(' 9007199254740993 ')).toBe(9007199254740993n);
    expect(validateDraft({ name: 'Rex', categoryId: '9007199254740993', status: '' })).toEqual({
      pet: { name: 'Rex', categoryId: 9007199254740993n },
    });
  });

  it("refuses what NewPet refuses, with NewPet's messages", () => {
    expect(validateDraft({ name: '   ', categoryId: '1.5', status: '' })).toEqual({
      errors: {
        name: 'must contain a visible character, not only whitespace or control characters',
        categoryId: 'must be an integer (int64)',
      },
    });
    expect(validateDraft({ name: '', categoryId: '', status: '' })).toEqual({
      errors: { name: 'must not be empty', categoryId: 'is required' },
    });
    expect(validateDraft({ name: 'Rex', categoryId: '9223372036854775808', status: 'sold' })).toEqual({
      errors: { categoryId: expect.stringMatching(/^must be an integer between/) },
    });
  });

  it("maps the server's 400 onto the same fields with the same messages", () => {
    // What the service sends for a body the form would refuse: its message is describeIssues' text.
    for (const body of [
      { name: '', categoryId: 'x' },
      { name: 'a'.repeat(256), categoryId: 2n ** 63n },
      { name: 'Rex', categoryId: 1, status: 'lost' },
    ]) {
      const parsed = NewPetSchema.safeParse(body);
      if (parsed.success) throw new Error('expected a refusal');
      const error = {
        code: 'validation_failed',
        message: describeIssues(parsed.error, 'field'),
        status: 400,
      };
      const draft = {
        name: body.name,
        categoryId: String(body.categoryId),
        status: (body.status ?? '') as never,
      };
      const checked = validateDraft(draft);
      expect('errors' in checked).toBe(true);
      expect(fieldErrorsOf(error)).toEqual('errors' in checked ? checked.errors : undefined);
    }
  });

  it('maps nothing from other errors or from problems naming no field of the form', () => {
    expect(fieldErrorsOf({ code: 'service_unavailable', message: 'name: x', status: 503 })).toEqual({});
    expect(fieldErrorsOf({ code: 'validation_failed', message: 'unknown field "id"', status: 400 })).toEqual(
      {},
    );
  });
});

describe('query keys', () => {
  it('hash int64 values exactly, apart from numbers, whatever the key order', () => {
    const key = (petId: unknown) => [['pets', 'get'], { input: { petId }, type: 'query' }];
    expect(hashQueryKey(key(9007199254740993n))).not.toBe(hashQueryKey(key(9007199254740992n)));
    expect(hashQueryKey(key(1n))).not.toBe(hashQueryKey(key(1)));
    expect(hashQueryKey([{ a: 1, b: 2 }])).toBe(hashQueryKey([{ b: 2, a: 1 }]));
  });
});
