import { createHash } from 'node:crypto';
import { type Contract, contract, IDEMPOTENCY_KEY_HEADER, type OperationId } from '@petstore/schema';
import { operationError } from '../errors.js';

// Idempotency keys (IETF draft "The Idempotency-Key HTTP Header Field"), whichever transport carried one. The
// statement that stores a key belongs to its operation's service, so that key and result are one atomic write.

/** How long a key is remembered by default: 24 hours. */
export const DEFAULT_IDEMPOTENCY_KEY_TTL_SECONDS = 24 * 60 * 60;

/** One request's key, scoped to its caller, with the fingerprint of what it asks for. */
export interface IdempotencyScope {
  /** {@link idempotencyKeyHash} of the caller and the key: what the pet row stores and the lookups match. */
  keyHash: Buffer;
  /** {@link idempotencyLockId} of `keyHash`: the advisory lock a keyed create holds while it runs. */
  lockId: bigint;
  /** SHA-256 of the canonical parsed request: equal exactly when two requests ask for the same thing. */
  fingerprint: Buffer;
}

/**
 * SHA-256 of the caller's subject (`key:<hex>`, see Caller), a newline and the key: keys of different callers never
 * meet, and the key itself is never stored. Neither part can hold a newline (keys are printable ASCII), so no two
 * pairs share an input. The migration that moved keys onto `pets` computes the same bytes in SQL.
 */
export const idempotencyKeyHash = (caller: string, key: string): Buffer =>
  createHash('sha256').update(caller).update('\n').update(key).digest();

/** The advisory lock of a key: the first 8 bytes of its hash, as PostgreSQL's signed int8. */
export const idempotencyLockId = (keyHash: Buffer): bigint => keyHash.readBigInt64BE(0);

const keyRule = contract.createPet.request.headers[IDEMPOTENCY_KEY_HEADER];

/** The operations that take an `Idempotency-Key`: the errors below must be codes each of them declares. */
type KeyedOperation = {
  [Id in OperationId]: Contract[Id]['request'] extends {
    headers: Record<typeof IDEMPOTENCY_KEY_HEADER, unknown>;
  }
    ? Id
    : never;
}[OperationId];

/**
 * The scope of a request that carries `key`; `canonical` is the parsed request in one fixed spelling, so
 * `{"name":"a","categoryId":1}` and `{"categoryId":1.0,"name":"a"}` get one fingerprint. 400 for a bad key.
 */
export function idempotencyScope(caller: string, key: string, canonical: string): IdempotencyScope {
  const verdict = keyRule.schema.safeParse(key);
  if (!verdict.success) {
    throw operationError<KeyedOperation>(
      keyRule.invalidCode,
      `${IDEMPOTENCY_KEY_HEADER} ${verdict.error.issues[0]?.message ?? 'is invalid'} (a UUID, for example)`,
    );
  }
  const keyHash = idempotencyKeyHash(caller, key);
  const fingerprint = createHash('sha256').update(canonical).digest();
  return { keyHash, lockId: idempotencyLockId(keyHash), fingerprint };
}

/** 409: the first request with this key has not finished. */
export const keyInUse = () =>
  operationError<KeyedOperation>(
    'idempotency_key_in_use',
    `a request with this ${IDEMPOTENCY_KEY_HEADER} is still being processed; retry shortly`,
  );

/** 422: the key was used before for a different request. */
export const keyReused = () =>
  operationError<KeyedOperation>(
    'idempotency_key_reused',
    `this ${IDEMPOTENCY_KEY_HEADER} was already used with a different request body; use a new key for a new request`,
  );

/**
 * Runs `sweep` (forget expired keys) at most once per `everyMs`, started by a request but never awaited by it:
 * cleanup stays off the request path, and an instance with no keyed traffic does no work at all.
 */
export function createSweeper(
  sweep: () => Promise<void>,
  { everyMs = 60_000, now = Date.now, onError = (_error: unknown) => {} } = {},
): () => void {
  let last = Number.NEGATIVE_INFINITY;
  return () => {
    const at = now();
    if (at - last < everyMs) return;
    last = at;
    sweep().catch(onError);
  };
}
