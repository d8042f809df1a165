import { createHash } from 'node:crypto';

/**
 * The digest by which a key is stored (issued keys) and compared (API_KEYS, in constant time). Keys are
 * long random strings, so a fast hash is enough: a slow one would buy nothing and cost every request.
 */
export const sha256 = (key: string) => createHash('sha256').update(key).digest();
