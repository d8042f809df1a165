import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { operations } from './contract/operations.js';
import { describeIssues } from './issues.js';

// Every operation's input, at its root and at each of its fields, given a value of every other JSON type: the
// message names the problem in this API's words, never zod's default ("Invalid input: expected object, received
// null"), so that a type error reads the same whichever schema met it and whichever transport carried it.
const WRONG_VALUES: unknown[] = [null, 7, 1.5, 'text', true, [], {}, [1], { a: 1 }, undefined];

describe('describeIssues', () => {
  for (const operation of operations) {
    const input = operation.input as z.ZodMiniType;
    const shape = (input as { def?: { shape?: Record<string, unknown> } }).def?.shape ?? {};
    it(`words every type error of ${operation.id}'s input itself`, () => {
      const inputs = [
        ...WRONG_VALUES,
        ...Object.keys(shape).flatMap((field) => WRONG_VALUES.map((value) => ({ [field]: value }))),
      ];
      for (const value of inputs) {
        const result = z.safeParse(input, value);
        if (result.success) continue;
        const message = describeIssues(result.error, 'field', value);
        expect(message, JSON.stringify(value)).not.toMatch(/Invalid input|expected [a-z]+, received/);
      }
    });
  }

  it('says "is required" for a missing field and "must be a JSON object" for a body of another type', () => {
    const schema = z.strictObject({ name: z.string() });
    const words = (value: unknown) =>
      describeIssues((z.safeParse(schema, value) as { error: z.core.$ZodError }).error, 'field', value);
    expect(words({})).toBe('name: is required');
    expect(words({ name: 5 })).toBe('name: must be a string');
    expect(words(null)).toBe('must be a JSON object');
  });
});
