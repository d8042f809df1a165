import { createHash } from 'node:crypto';

/**
 * A paging cursor for `payload` with a valid checksum, built from the documented format rather than the service's
 * code: what a forger who read the format could make.
 */
export function forgeCursor(payload: string): string {
  const sum = createHash('sha256')
    .update(`petstore-cursor-v1\n${payload}`)
    .digest()
    .subarray(0, 12)
    .toString('base64url');
  return `${Buffer.from(payload).toString('base64url')}.${sum}`;
}
