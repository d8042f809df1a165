// The error of either client narrowed by operation: at run time by the codes the operation declares, at compile
// time (`pnpm typecheck`) to those codes, status paired with code.
import { TRPCClientError } from '@trpc/client';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { apiErrorOf, operationErrorOf } from './api-error-of.js';
import { isPetStoreApiError, PetStoreApiError } from './client-error.js';

const restError = (code: string, status: number) =>
  new PetStoreApiError('api', `${code} (${status})`, { status, error: { code, message: 'm', status } });
const trpcError = (code: string, status: number) =>
  TRPCClientError.from({
    error: { code: -32600, message: 'm', data: { error: { code, message: 'm', status } } },
  });

/** The codes getPet declares, written out: what the narrowing is checked against. */
type GetPetCode =
  | 'validation_failed'
  | 'pet_not_found'
  | 'unauthorized'
  | 'rate_limited'
  | 'internal_error'
  | 'service_unavailable'
  | 'malformed_request'
  | 'unsupported_media_type'
  | 'expectation_failed'
  | 'headers_too_large'
  | 'precondition_failed'
  | 'request_timeout';

describe('operationErrorOf(failure, operation)', () => {
  it('reads the body of either client when the operation declares its code', () => {
    for (const failure of [
      restError('idempotency_key_reused', 422),
      trpcError('idempotency_key_reused', 422),
    ]) {
      expect(operationErrorOf(failure, 'createPet')).toEqual({
        code: 'idempotency_key_reused',
        message: 'm',
        status: 422,
      });
      expect(operationErrorOf(failure, 'getPet')).toBeUndefined();
      expect(apiErrorOf(failure)?.code).toBe('idempotency_key_reused');
    }
    expect(operationErrorOf(restError('a_newer_code', 400), 'createPet')).toBeUndefined();
    expect(operationErrorOf(new PetStoreApiError('network', 'refused'), 'createPet')).toBeUndefined();
  });

  it('narrows code to the operation, and status with it', () => {
    const error = operationErrorOf(restError('pet_not_found', 404), 'getPet');
    if (error === undefined) throw new Error('expected the body');
    expectTypeOf(error.code).toEqualTypeOf<GetPetCode>();
    if (error.code === 'pet_not_found') expectTypeOf(error.status).toEqualTypeOf<404>();
    // @ts-expect-error getPet never answers idempotency_key_reused
    expect(error.code === 'idempotency_key_reused').toBe(false);
  });
});

describe('isPetStoreApiError', () => {
  it('tells an answer of the service with a code the operation declares', () => {
    expect(isPetStoreApiError(new Error('x'), 'getPet')).toBe(false);
    expect(isPetStoreApiError(new PetStoreApiError('network', 'refused'), 'getPet')).toBe(false);
    expect(isPetStoreApiError(restError('pet_not_found', 404), 'createPet')).toBe(false);
    const failure: unknown = restError('pet_not_found', 404);
    if (!isPetStoreApiError(failure, 'getPet')) throw new Error('expected a getPet error');
    expect(failure.code).toBe('pet_not_found');
    expectTypeOf(failure.error.code).toEqualTypeOf<GetPetCode>();
    expectTypeOf(failure.code).toEqualTypeOf(failure.error.code);
  });
});
