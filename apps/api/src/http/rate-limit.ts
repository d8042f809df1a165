import { AppError } from '../errors.js';
import type { PrismaClient } from '../generated/prisma/client.js';
import type { Caller } from './auth.js';

export interface RateLimitOptions {
  /** Requests each key may make per window. */
  limit: number;
  windowSeconds?: number;
  now?: () => number;
}

/**
 * Per-key fixed-window rate limiting, counted in the database so every instance on it shares the counts
 * (one upsert per request, only when a limit is configured). Over the limit: 429 `rate_limited` with
 * `Retry-After` set to the seconds left in the window.
 */
export function createRateLimiter(
  prisma: PrismaClient,
  { limit, windowSeconds = 60, now = Date.now }: RateLimitOptions,
) {
  const windowMs = windowSeconds * 1000;
  let lastSweep = 0;

  return async (caller: Caller): Promise<void> => {
    const at = now();
    const windowStart = new Date(at - (at % windowMs));
    const [row] = await prisma.$queryRaw<{ count: number }[]>`
      INSERT INTO rate_limit_windows (subject, window_start, count) VALUES (${caller.subject}, ${windowStart}, 1)
      ON CONFLICT (subject, window_start) DO UPDATE SET count = rate_limit_windows.count + 1
      RETURNING count`;
    if (windowStart.getTime() !== lastSweep) {
      // Once per window per instance, forget windows that can no longer matter.
      lastSweep = windowStart.getTime();
      await prisma.rateLimitWindow.deleteMany({
        where: { windowStart: { lt: new Date(lastSweep - windowMs) } },
      });
    }
    if ((row?.count ?? 0) > limit) {
      const retryAfter = Math.max(1, Math.ceil((windowStart.getTime() + windowMs - at) / 1000));
      throw new AppError('rate_limited', `rate limit of ${limit} requests per ${windowSeconds} s exceeded`, {
        'Retry-After': String(retryAfter),
      });
    }
  };
}
