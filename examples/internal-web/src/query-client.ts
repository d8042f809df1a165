import { QueryClient, type QueryKey } from '@tanstack/react-query';
import { isTransient } from './connection.js';

/**
 * TanStack Query's own key hash (JSON, object keys sorted) with int64 values: a key holds `{ petId: 9007199254740993n }`,
 * which JSON.stringify refuses. A bigint is hashed as `{ "$bigint": "<digits>" }`, so 1n and 1 stay apart.
 */
export function hashQueryKey(queryKey: QueryKey): string {
  return JSON.stringify(queryKey, (_key, value: unknown) => {
    if (typeof value === 'bigint') return { $bigint: String(value) };
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
    const record = value as Record<string, unknown>;
    return Object.fromEntries(
      Object.keys(record)
        .sort()
        .map((key) => [key, record[key]]),
    );
  });
}

/**
 * Queries keep trying while the API is unavailable (TanStack's backoff, up to 30 s apart), so the page recovers by
 * itself; a 4xx is an answer, never retried.
 */
export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: { queryKeyHashFn: hashQueryKey, retry: (_failures, error) => isTransient(error) },
    },
  });
}
