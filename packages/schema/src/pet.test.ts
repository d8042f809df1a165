import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IdempotencyKeySchema } from './idempotency.js';
import { PositiveInt64Schema } from './int64.js';
import { describeIssues } from './issues.js';
import { parseJson } from './json.js';
import { NewPetSchema, PET_NAME_MAX_LENGTH, PetSchema, PetStatusSchema, PetsSchema } from './pet.js';

const errorOf = (result: { success: boolean; error?: unknown }) =>
  result.success ? 'accepted' : describeIssues(result.error as never, 'field');

describe('PetStatus', () => {
  it.each(['available', 'pending', 'sold'])('accepts %s', (status) => {
    expect(PetStatusSchema.parse(status)).toBe(status);
  });

  it.each(['Available', 'lost', '', null, 1])('refuses %j', (status) => {
    expect(PetStatusSchema.safeParse(status).success).toBe(false);
  });
});

describe('NewPet', () => {
  it('accepts name and categoryId, status optional, and returns int64 values as bigint', () => {
    expect(NewPetSchema.parse({ name: 'Rex', categoryId: 7 })).toEqual({ name: 'Rex', categoryId: 7n });
    expect(NewPetSchema.parse({ name: 'Rex', categoryId: 7n, status: 'sold' })).toEqual({
      name: 'Rex',
      categoryId: 7n,
      status: 'sold',
    });
  });

  it('leaves an omitted status absent instead of inventing a value', () => {
    expect(NewPetSchema.parse({ name: 'Rex', categoryId: 1 })).not.toHaveProperty('status');
  });

  it('requires name and categoryId', () => {
    expect(errorOf(NewPetSchema.safeParse({}))).toBe('name: is required; categoryId: is required');
    expect(errorOf(NewPetSchema.safeParse({ name: 'Rex' }))).toBe('categoryId: is required');
    expect(errorOf(NewPetSchema.safeParse({ categoryId: 1 }))).toBe('name: is required');
  });

  it('refuses a body that is not an object', () => {
    for (const body of [null, [], 'Rex', 42, true]) {
      expect(errorOf(NewPetSchema.safeParse(body))).toBe('must be a JSON object');
    }
  });

  it.each([
    [{ name: 42, categoryId: 1 }, 'name: must be a string'],
    [{ name: '', categoryId: 1 }, 'name: must not be empty'],
    [
      { name: ' \t\n', categoryId: 1 },
      'name: must contain a visible character, not only whitespace or control characters',
    ],
    [
      { name: 'a'.repeat(PET_NAME_MAX_LENGTH + 1), categoryId: 1 },
      'name: must be at most 255 characters long',
    ],
    [{ name: 'bad\u0000name', categoryId: 1 }, 'name: must be valid Unicode text without NUL characters'],
    [
      { name: 'lone \ud800 surrogate', categoryId: 1 },
      'name: must be valid Unicode text without NUL characters',
    ],
    [{ name: 'Rex', categoryId: '1' }, 'categoryId: must be an integer (int64)'],
    [{ name: 'Rex', categoryId: 1.5 }, 'categoryId: must be an integer (int64)'],
    [{ name: 'Rex', categoryId: null }, 'categoryId: must be an integer (int64)'],
    [{ name: 'Rex', categoryId: 2 ** 60 }, 'categoryId: must be an integer (int64)'],
    [{ name: 'Rex', categoryId: 1, status: 'lost' }, 'status: must be one of available, pending, sold'],
  ])('refuses %j with a message naming the field', (body, message) => {
    expect(errorOf(NewPetSchema.safeParse(body))).toBe(message);
  });

  it('refuses "status": null rather than treating it as absent', () => {
    expect(errorOf(NewPetSchema.safeParse({ name: 'Rex', categoryId: 1, status: null }))).toMatch(
      /^status: must be one of available, pending, sold \(omit the field/,
    );
  });

  it('refuses unknown fields, a client-chosen id included', () => {
    expect(errorOf(NewPetSchema.safeParse({ name: 'Rex', categoryId: 1, id: 5 }))).toBe('unknown field "id"');
    expect(errorOf(NewPetSchema.safeParse({ name: 'Rex', categoryId: 1, stauts: 'sold', x: 1 }))).toBe(
      'unknown fields "stauts", "x"',
    );
  });

  it('keeps a name exactly as sent: unicode, inner and outer spaces, maximum length', () => {
    for (const name of ['  Rex  ', 'Müsli 🐶', '名前', 'a'.repeat(PET_NAME_MAX_LENGTH)]) {
      expect(NewPetSchema.parse({ name, categoryId: 1 }).name).toBe(name);
    }
  });

  it('counts the name length in Unicode code points, at the boundary in both units', () => {
    const emoji = '\u{1F436}'; // one code point, two UTF-16 code units
    const accepted = [emoji.repeat(255), 'a'.repeat(255), `${emoji.repeat(254)}a`];
    const refused = [emoji.repeat(256), 'a'.repeat(256), `${emoji.repeat(255)}a`];
    for (const name of accepted)
      expect(errorOf(NewPetSchema.safeParse({ name, categoryId: 1 }))).toBe('accepted');
    for (const name of refused) {
      expect(errorOf(NewPetSchema.safeParse({ name, categoryId: 1 }))).toBe(
        'name: must be at most 255 characters long',
      );
    }
    expect(emoji.repeat(255).length).toBe(510);
  });

  it('refuses a categoryId whose JSON text is not exactly an integer', () => {
    for (const text of ['4.0000000000000000001', '1e-400', '1.5']) {
      expect(errorOf(NewPetSchema.safeParse(parseJson(`{"name":"Rex","categoryId":${text}}`)))).toBe(
        'categoryId: must be an integer (int64)',
      );
    }
    for (const [text, value] of [
      ['1.0', 1n],
      ['1e3', 1000n],
      ['7000e-3', 7n],
    ] as const) {
      expect(NewPetSchema.parse(parseJson(`{"name":"Rex","categoryId":${text}}`)).categoryId).toBe(value);
    }
  });

  it('takes every int64 exactly, at both ends of the range, from JSON text', () => {
    for (const text of ['-9223372036854775808', '9223372036854775807', '9007199254740993', '0']) {
      const parsed = NewPetSchema.parse(parseJson(`{"name":"Rex","categoryId":${text}}`));
      expect(parsed.categoryId).toBe(BigInt(text));
    }
  });

  it('refuses int64 values out of range instead of wrapping or rounding them', () => {
    for (const text of ['9223372036854775808', '-9223372036854775809', '1e30']) {
      const result = NewPetSchema.safeParse(parseJson(`{"name":"Rex","categoryId":${text}}`));
      expect(errorOf(result)).toMatch(/^categoryId: must be an integer/);
    }
  });
});

describe('Pet', () => {
  it('is a NewPet plus a positive int64 id', () => {
    expect(PetSchema.parse({ id: 1, name: 'Rex', categoryId: 2 })).toEqual({
      id: 1n,
      name: 'Rex',
      categoryId: 2n,
    });
    expect(errorOf(PetSchema.safeParse({ name: 'Rex', categoryId: 2 }))).toBe('id: is required');
    expect(errorOf(PetSchema.safeParse({ id: 0, name: 'Rex', categoryId: 2 }))).toMatch(
      /^id: must be a positive/,
    );
  });

  it('has no "status": null form', () => {
    expect(PetSchema.safeParse({ id: 1, name: 'Rex', categoryId: 2, status: null }).success).toBe(false);
  });

  it('Pets is a bare array of Pet', () => {
    expect(PetsSchema.parse([{ id: 1, name: 'Rex', categoryId: 2 }])).toHaveLength(1);
    expect(PetsSchema.safeParse({ items: [] }).success).toBe(false);
  });
});

describe('messages for many unknown fields', () => {
  it('name five and count the rest, so a body of thousands of keys gets a short answer', () => {
    const body = Object.fromEntries([
      ['name', 'Rex'],
      ['categoryId', 1],
      ...Array.from({ length: 6000 }, (_, i) => [`k${i}`, 1]),
    ]);
    const message = errorOf(NewPetSchema.safeParse(body));
    expect(message).toBe('unknown fields "k0", "k1", "k2", "k3", "k4" and 5995 more');
  });
});

// Unicode's White_Space property (PropList.txt), written out here as the oracle: JavaScript's `\s` and `trim`
// miss U+0085 NEXT LINE, and a rule written with them let a name of NEXT LINEs be stored.
const UNICODE_WHITE_SPACE = [
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005,
  0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000,
].map((code) => String.fromCodePoint(code));
// Invisible by definition (Default_Ignorable_Code_Point), a sample; and every control (Cc) but NUL (refused on its own).
const INVISIBLE = [
  '\ufeff',
  '\u200b',
  '\u200d',
  '\u2060',
  '\u00ad',
  '\u034f',
  ...[
    ...Array.from({ length: 0x1f }, (_, i) => i + 1),
    ...Array.from({ length: 0x21 }, (_, i) => i + 0x7f),
  ].map((code) => String.fromCodePoint(code)),
];

const codePoint = (char: string) => `U+${(char.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`;

describe('NewPet name: not only whitespace, in any of Unicode White_Space, or controls', () => {
  it('refuses every name made only of White_Space, invisible and control characters, in any mix', () => {
    for (const char of [...UNICODE_WHITE_SPACE, ...INVISIBLE]) {
      expect(NewPetSchema.safeParse({ name: char.repeat(3), categoryId: 1 }).success, codePoint(char)).toBe(
        false,
      );
    }
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...UNICODE_WHITE_SPACE, ...INVISIBLE), { minLength: 1, maxLength: 20 }),
        (chars) => {
          const result = NewPetSchema.safeParse({ name: chars.join(''), categoryId: 1 });
          expect(result.success).toBe(false);
        },
      ),
    );
  });
  it('accepts such characters around a visible one', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...UNICODE_WHITE_SPACE, ...INVISIBLE), { maxLength: 10 }),
        fc.constantFrom('a', 'é', '\u{1f600}', '猫', '\u0301'),
        (around, visible) => {
          const name = `${around.join('')}${visible}${around.join('')}`;
          expect(NewPetSchema.parse({ name, categoryId: 1 }).name).toBe(name);
        },
      ),
    );
  });
});

describe('Idempotency-Key: one rule for the header and the tRPC field', () => {
  it('refuses a key that starts or ends with a space (a header cannot carry one), accepts inner spaces', () => {
    for (const key of [' ', '   ', ' a', 'a ', ' a b '])
      expect(IdempotencyKeySchema.safeParse(key).success).toBe(false);
    for (const key of ['a', 'a b', 'x'.repeat(255), '!~'])
      expect(IdempotencyKeySchema.safeParse(key).success).toBe(true);
    for (const key of ['', 'x'.repeat(256), 'a\tb', 'é'])
      expect(IdempotencyKeySchema.safeParse(key).success).toBe(false);
  });
});

describe('PositiveInt64: one message for every integer out of range', () => {
  it.each([0n, -1n, 2n ** 63n, 10n ** 20n, -(2n ** 63n) - 1n])('%s', (value) => {
    const result = PositiveInt64Schema.safeParse(value);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toBe('must be a positive integer (1 to 9223372036854775807)');
  });
});
