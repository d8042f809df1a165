// One canonical form for every token we issue: a cursor that does not re-encode to exactly the same bytes is
// refused, even when its checksum matches (the checksum needs no secret, so anyone can recompute it).
import { describe, expect, it } from 'vitest';
import { AppError } from '../src/errors.js';
import { decodePetCursor, encodePetCursor } from '../src/pets/pet-cursor.js';
import { forgeCursor } from './support/forged-cursor.js';

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

function refusal(text: string): string {
  try {
    decodePetCursor(text, undefined);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('validation_failed');
    return (error as AppError).message;
  }
  throw new Error(`accepted: ${text}`);
}

describe('cursor canonical form', () => {
  it('the canonical cursor is accepted', () => {
    expect(decodePetCursor(encodePetCursor({ after: 5n }), undefined)).toEqual({
      after: 5n,
      status: undefined,
    });
    expect(decodePetCursor(forgeCursor('{"v":1,"after":"5"}'), undefined).after).toBe(5n);
  });

  it('a cursor whose unused base64url bits were changed is refused', () => {
    const original = encodePetCursor({ after: 5n });
    const [body = '', sum] = original.split('.');
    expect(body.length % 4).not.toBe(0); // the last character carries unused bits
    const last = BASE64URL.indexOf(body.at(-1) as string);
    const altered = `${body.slice(0, -1)}${BASE64URL[last ^ 1]}.${sum}`;
    expect(Buffer.from(altered.split('.')[0] as string, 'base64url')).toEqual(Buffer.from(body, 'base64url'));
    expect(refusal(altered)).toMatch(/^cursor: /);
  });

  it.each([
    ['another key order', '{"after":"5","v":1}'],
    ['white space', '{"v":1, "after":"5"}'],
    ['a repeated key', '{"v":1,"after":"4","after":"5"}'],
    ['an escaped spelling', '{"v":1,"after":"\\u0035"}'],
    ['an explicit null status', '{"v":1,"after":"5","status":null}'],
  ])('a cursor with %s and a valid checksum is refused', (_, payload) => {
    expect(refusal(forgeCursor(payload))).toMatch(/^cursor: /);
  });
});
