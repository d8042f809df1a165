import { assertExactJsonSupport } from '@petstore/schema';

/**
 * The oldest runtimes the client runs on: the exact-JSON features of @petstore/schema (Chrome 114, Firefox 135,
 * Safari 18.4, Node 22) and `AbortSignal.any` for a call's deadline with the caller's signal (Chrome 116).
 */
export const CLIENT_RUNTIMES = 'Node >= 22, Chrome/Edge >= 116, Firefox >= 135, Safari >= 18.4';

/**
 * Throws one error naming what the client needs when this runtime lacks it, so an old runtime is refused when a
 * client is created instead of failing its first call as a "network" error or rounding an int64.
 */
export function assertClientRuntime(): void {
  assertExactJsonSupport({
    packageName: '@petstore/client',
    runtimes: CLIENT_RUNTIMES,
    features: {
      'AbortSignal.any': typeof AbortSignal === 'function' && typeof AbortSignal.any === 'function',
    },
  });
}
