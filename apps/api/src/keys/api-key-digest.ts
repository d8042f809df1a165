import { createHash } from 'node:crypto';

/**
 * The digest by which a key is stored (issued keys) and compared (API_KEYS, in constant time). Keys are
 * long random strings, so a fast hash is enough: a slow one would buy nothing and cost every request.
 */
export const sha256 = (key: string) => createHash('sha256').update(key).digest();

/**
 * The caller identity of a key, from its {@link sha256} digest: `key:` and the digest's first 16 bytes in hex.
 * It depends on the key alone, not on where the key is configured (its place in API_KEYS, its api_keys row), so
 * every instance names a caller the same way, across restarts, reorderings and rotations. 128 bits keep distinct
 * keys apart; the key itself cannot be read back from it.
 */
export const callerIdentity = (digest: Buffer): string => `key:${digest.toString('hex', 0, 16)}`;
