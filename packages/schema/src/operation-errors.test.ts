// Type tests (checked by `pnpm typecheck`) and the runtime test of the codes each operation declares.
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  type CommonErrorCode,
  type EdgeErrorCode,
  isOperationErrorCode,
  type OperationApiError,
  type OperationErrorCode,
} from './contract.js';

/**
 * The codes every operation declares: 401, 429, 500, 503 and validation, the edge's (400, 408, 415, 417, 431) and
 * 412. Written out, not derived: this list is what the types are checked against.
 */
type SharedCode =
  | 'validation_failed'
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

describe('OperationErrorCode', () => {
  it("is the operation's own codes and the shared ones", () => {
    expectTypeOf<OperationErrorCode<'getPet'>>().toEqualTypeOf<SharedCode | 'pet_not_found'>();
    expectTypeOf<OperationErrorCode<'createPet'>>().toEqualTypeOf<
      | SharedCode
      | 'malformed_json'
      | 'invalid_idempotency_key'
      | 'idempotency_key_in_use'
      | 'idempotency_key_reused'
      | 'payload_too_large'
    >();
    // @ts-expect-error getPet declares no idempotency errors
    const undeclared: OperationErrorCode<'getPet'> = 'idempotency_key_in_use';
    void undeclared;
  });

  it('is, for several operations, what every one of them declares', () => {
    expectTypeOf<OperationErrorCode<'listPets' | 'getPet'>>().toEqualTypeOf<CommonErrorCode>();
    expectTypeOf<CommonErrorCode>().toEqualTypeOf<SharedCode>();
    expectTypeOf<OperationErrorCode<never>>().toBeNever();
  });

  it('leaves to the edge the codes no operation declares', () => {
    expectTypeOf<EdgeErrorCode>().toEqualTypeOf<
      'route_not_found' | 'method_not_allowed' | 'not_implemented' | 'forbidden' | 'not_acceptable'
    >();
  });

  it('pairs each code of an error body with its status', () => {
    const error = {} as OperationApiError<'getPet'>;
    if (error.code === 'pet_not_found') expectTypeOf(error.status).toEqualTypeOf<404>();
  });
});

describe('isOperationErrorCode', () => {
  it('accepts exactly the codes the operation declares', () => {
    expect(isOperationErrorCode('getPet', 'pet_not_found')).toBe(true);
    expect(isOperationErrorCode('getPet', 'unauthorized')).toBe(true);
    expect(isOperationErrorCode('getPet', 'idempotency_key_in_use')).toBe(false);
    expect(isOperationErrorCode('createPet', 'payload_too_large')).toBe(true);
    expect(isOperationErrorCode('listPets', 'payload_too_large')).toBe(false);
    expect(isOperationErrorCode('listPets', 'a_code_from_a_newer_server')).toBe(false);
  });
});
