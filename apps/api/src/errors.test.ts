// operationError: a service can only raise a code its operation declares (type tests, checked by `pnpm typecheck`).
import { describe, expect, it } from 'vitest';
import { AppError, operationError } from './errors.js';

describe('operationError', () => {
  it('is an AppError with the code, message, status and headers given', () => {
    const error = operationError<'getPet'>('pet_not_found', 'no pet with id 7');
    expect(error).toBeInstanceOf(AppError);
    expect(error.toBody()).toEqual({ code: 'pet_not_found', message: 'no pet with id 7', status: 404 });
    expect(operationError<'createPet'>('rate_limited', 'slow down', { 'Retry-After': '1' }).headers).toEqual({
      'Retry-After': '1',
    });
  });

  it('does not compile with a code the operation does not declare', () => {
    const raise = () => {
      // @ts-expect-error createPet declares no pet_not_found
      operationError<'createPet'>('pet_not_found', 'x');
      // @ts-expect-error getPet does not declare idempotency_key_in_use, so a helper serving both may not raise it
      operationError<'createPet' | 'getPet'>('idempotency_key_in_use', 'x');
      // @ts-expect-error without the operation, no code at all
      operationError('pet_not_found', 'x');
      // @ts-expect-error a code that does not exist
      operationError<'getPet'>('not_a_code', 'x');
    };
    expect(raise).toBeTypeOf('function');
  });
});
