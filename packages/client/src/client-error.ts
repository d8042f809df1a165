import {
  type ApiError,
  isOperationErrorCode,
  type OperationApiError,
  type OperationErrorCode,
  type OperationId,
} from '@petstore/schema';
import { shareIdentity } from './shared-identity.js';

/**
 * What went wrong, so a caller can branch without parsing messages:
 * - `api`: the service answered with its `Error` body (`error`, `status` set);
 * - `network`: no HTTP reply at all (refused, reset, DNS, aborted, out of time); `cause` holds the original error;
 * - `non_json`: a reply whose body is not JSON, typically an HTML page from a proxy; `responseText` holds it;
 * - `invalid_body`: JSON that is not what the interface promises (a success body that fails the schema, or an
 *   error status without an `Error` body); `responseText` holds it.
 */
export type PetStoreErrorKind = 'api' | 'network' | 'non_json' | 'invalid_body';

interface PetStoreApiErrorInit {
  status?: number | undefined;
  error?: ApiError | undefined;
  responseText?: string | undefined;
  cause?: unknown;
  attempts?: number | undefined;
}

/** The one error every REST client call throws. */
export class PetStoreApiError extends Error {
  override name = 'PetStoreApiError';
  readonly kind: PetStoreErrorKind;
  /** The HTTP status of the reply; undefined for `network`. */
  readonly status: number | undefined;
  /** The service's `Error` body; set exactly when `kind` is `api`. */
  readonly error: ApiError | undefined;
  /** The reply's body as received, when it was not an `Error` body (`non_json`, `invalid_body`). */
  readonly responseText: string | undefined;
  /** How many HTTP requests the call made before it failed (more than 1 when it was retried). */
  readonly attempts: number;

  constructor(kind: PetStoreErrorKind, message: string, init: PetStoreApiErrorInit = {}) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.kind = kind;
    this.status = init.status;
    this.error = init.error;
    this.responseText = init.responseText;
    this.attempts = init.attempts ?? 1;
  }

  /** The service's error code (`pet_not_found`, …), or the kind when the service sent none. */
  get code(): string {
    return this.error?.code ?? this.kind;
  }
}
// One class whatever the module format: see shared-identity.ts.
shareIdentity(PetStoreApiError, '@petstore/client.PetStoreApiError');

/** A {@link PetStoreApiError} from the service, for operation `Id`: `error` and `code` typed by what it declares. */
export type PetStoreOperationError<Id extends OperationId> = PetStoreApiError & {
  readonly kind: 'api';
  readonly error: OperationApiError<Id>;
  readonly status: OperationApiError<Id>['status'];
  readonly code: OperationErrorCode<Id>;
};

/**
 * Whether `failure` is the service's answer to `operation` with a code that operation declares: a
 * {@link PetStoreApiError} (of any copy of the package) whose `error.code`, `code` and `status` are narrowed to
 * those codes: `if (isPetStoreApiError(error, 'createPet') && error.code === 'idempotency_key_reused') ...`.
 */
export function isPetStoreApiError<Id extends OperationId>(
  failure: unknown,
  operation: Id,
): failure is PetStoreOperationError<Id> {
  return (
    failure instanceof PetStoreApiError &&
    failure.error !== undefined &&
    isOperationErrorCode(operation, failure.error.code)
  );
}
