import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { callerIdentity, sha256 } from '../keys/api-key-digest.js';
import { createSweeper, idempotencyKeyHash, idempotencyLockId, idempotencyScope } from './idempotency.js';

/** Two callers' identities, as the key verifier derives them. */
const MINE = callerIdentity(sha256('my-key-0123456789abcdef'));
const THEIRS = callerIdentity(sha256('their-key-0123456789abcdef'));

describe('createSweeper', () => {
  it('sweeps at once, then at most once per interval, never waiting for the sweep', async () => {
    let now = 1_000;
    let started = 0;
    let finish: () => void = () => {};
    const trigger = createSweeper(
      () => {
        started++;
        return new Promise<void>((resolve) => {
          finish = resolve;
        });
      },
      { everyMs: 60_000, now: () => now },
    );
    trigger(); // returns while the sweep is still running
    expect(started).toBe(1);
    now += 59_999;
    trigger();
    expect(started).toBe(1);
    now += 1;
    trigger();
    expect(started).toBe(2);
    finish();
  });

  it('hands a failed sweep to onError instead of throwing into the request that started it', async () => {
    const errors: unknown[] = [];
    const trigger = createSweeper(() => Promise.reject(new Error('database gone')), {
      onError: (error) => errors.push(error),
    });
    expect(() => trigger()).not.toThrow();
    await new Promise((resolve) => setImmediate(resolve));
    expect(errors).toEqual([new Error('database gone')]);
  });
});

describe('idempotencyScope', () => {
  it('hashes caller and key together: the same key of two callers gives two scopes', () => {
    const mine = idempotencyScope(MINE, 'k-1', '["a","1",null]');
    const theirs = idempotencyScope(THEIRS, 'k-1', '["a","1",null]');
    expect(mine.keyHash.equals(theirs.keyHash)).toBe(false);
    expect(mine.fingerprint.equals(theirs.fingerprint)).toBe(true);
    expect(mine.keyHash).toEqual(createHash('sha256').update(`${MINE}\nk-1`).digest());
    expect(mine.lockId).toBe(idempotencyLockId(idempotencyKeyHash(MINE, 'k-1')));
    expect(mine.lockId).toBe(mine.keyHash.readBigInt64BE(0));
  });

  it('refuses a key outside 1..255 printable ASCII with 400 invalid_idempotency_key', () => {
    for (const key of ['', 'k'.repeat(256), 'new\nline', 'caf\u00e9', '\u007f']) {
      expect(() => idempotencyScope(MINE, key, '[]')).toThrow(
        expect.objectContaining({ code: 'invalid_idempotency_key', status: 400 }),
      );
    }
    expect(() => idempotencyScope(MINE, 'k'.repeat(255), '[]')).not.toThrow();
    expect(() => idempotencyScope(MINE, '! ~', '[]')).not.toThrow();
    // A space at either end cannot travel in a header (HTTP drops it): refused on every transport.
    expect(() => idempotencyScope(MINE, ' ~', '[]')).toThrow(
      expect.objectContaining({ code: 'invalid_idempotency_key' }),
    );
  });
});
