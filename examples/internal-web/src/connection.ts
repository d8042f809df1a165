// Whether the API is answering, as the page's requests see it. The client (`@petstore/client`) retries a 503 or a
// dropped connection by itself, honouring Retry-After, and TanStack Query retries a query (or a keyed create)
// again once the client gives up. Both are silent; this monitor sits in the client's `fetch` so that the page can
// say "retrying" while they work, and stop saying it as soon as an answer comes back.
import { apiErrorOf } from '@petstore/client';

export type Connection =
  | { state: 'ok' }
  | { state: 'retrying'; status: number | undefined; retryAfterSeconds: number | undefined };

/** Statuses the client retries: the service is there but cannot answer now. */
const UNAVAILABLE = new Set([429, 502, 503, 504]);

/** A failure worth trying again: the service unavailable or unreachable (no `Error` body), never a 4xx. */
export function isTransient(error: unknown): boolean {
  const apiError = apiErrorOf(error);
  return apiError === undefined || UNAVAILABLE.has(apiError.status);
}

export interface ConnectionMonitor {
  fetch: typeof globalThis.fetch;
  subscribe(listener: () => void): () => void;
  current(): Connection;
}

export function createConnectionMonitor(): ConnectionMonitor {
  let connection: Connection = { state: 'ok' };
  const listeners = new Set<() => void>();
  const set = (next: Connection) => {
    connection = next;
    for (const listener of listeners) listener();
  };
  return {
    fetch: async (input, init) => {
      try {
        const response = await globalThis.fetch(input, init);
        if (UNAVAILABLE.has(response.status)) {
          const retryAfter = Number(response.headers.get('retry-after') ?? Number.NaN);
          set({
            state: 'retrying',
            status: response.status,
            retryAfterSeconds: Number.isInteger(retryAfter) ? retryAfter : undefined,
          });
        } else if (connection.state !== 'ok') {
          set({ state: 'ok' });
        }
        return response;
      } catch (error) {
        if (!init?.signal?.aborted)
          set({ state: 'retrying', status: undefined, retryAfterSeconds: undefined });
        throw error;
      }
    },
    subscribe: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    current: () => connection,
  };
}
