// The error codes each operation declares, as types (what a service may raise for it, what a client may narrow
// a failure to) and as one runtime test. They come from the `errors` of each operation in operations.ts, the
// shared ones (401, 429, 500, 503; 413 and 415 with a body) included.
import type { ERROR_CODES, ErrorCode } from '../error.js';
import type { Contract, OperationId } from './operation-types.js';
import { operations } from './operations.js';

type ErrorsOf<Id extends OperationId> = Contract[Id]['errors'];
type DeclaredBy<Id extends OperationId> = {
  [Status in keyof ErrorsOf<Id>]: ErrorsOf<Id>[Status] extends { codes: readonly (infer Code)[] }
    ? Code
    : never;
}[keyof ErrorsOf<Id>];

/**
 * The `Error.code`s operation `Id` declares: `OperationErrorCode<'getPet'>` is `'pet_not_found' |
 * 'validation_failed' | 'unauthorized' | ...`. For a union of operations, the codes every one of them declares
 * (what a helper serving all of them may raise); `never` for `never`.
 */
export type OperationErrorCode<Id extends OperationId> = [Id] extends [never]
  ? never
  : (Id extends OperationId ? (code: DeclaredBy<Id>) => void : never) extends (code: infer Code) => void
    ? Code & ErrorCode
    : never;

/** The codes every operation declares (401, 429, 500, 503 and `validation_failed`): what auth and limits raise. */
export type CommonErrorCode = OperationErrorCode<OperationId>;

/**
 * The codes no operation declares: answered before a request reaches an operation (an unknown route or method,
 * a malformed request, a timeout, an `Expect` refused, headers too large; the MCP endpoint's refused `Origin` or
 * `Accept`).
 */
export type EdgeErrorCode = Exclude<ErrorCode, { [Id in OperationId]: DeclaredBy<Id> }[OperationId]>;

/**
 * The `Error` body of a failure of operation `Id`: a union by code, each with the status that code always has,
 * so that narrowing `code` narrows `status`.
 */
export type OperationApiError<Id extends OperationId> = {
  [Code in OperationErrorCode<Id>]: { code: Code; message: string; status: (typeof ERROR_CODES)[Code] };
}[OperationErrorCode<Id>];

const declared = new Map<string, ReadonlySet<string>>(
  operations.map((op) => [op.id, new Set(Object.values(op.errors).flatMap((error) => error.codes))]),
);

/**
 * Whether `code` is one operation `id` declares. A code this version does not know (a newer server may add
 * codes in a minor version) is not, so a caller narrowing by it also handles the rest by `status`.
 */
export function isOperationErrorCode<Id extends OperationId>(
  id: Id,
  code: string,
): code is OperationErrorCode<Id> {
  return declared.get(id)?.has(code) ?? false;
}
