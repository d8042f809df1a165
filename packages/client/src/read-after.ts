import { READ_AFTER_HEADER } from '@petstore/schema';
import { laterReadPosition } from '@petstore/schema/internal';

/**
 * Read-your-writes across the service's read replicas, without the caller's help: remembers the latest database
 * position the service returned (Petstore-Read-After, on writes) and sends it with every later request of this
 * client, so that a read is served by a replica only once that replica has the write, else by the primary.
 * A service without replicas sends no position, and nothing is added.
 */
export function readAfterFetch(inner: typeof globalThis.fetch): typeof globalThis.fetch {
  let position: string | undefined;
  return async (input, init = {}) => {
    let headers = init.headers;
    if (position !== undefined) {
      headers = new Headers(init.headers);
      headers.set(READ_AFTER_HEADER, position);
    }
    const response = await inner(input, { ...init, headers });
    position = laterReadPosition(position, response.headers.get(READ_AFTER_HEADER));
    return response;
  };
}
