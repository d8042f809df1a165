import type { PrismaClient } from '../generated/prisma/client.js';

/** Per-key request counts per window, in the database so that every instance on it shares them. */
export interface RateLimitStore {
  /** Adds `cost` to the subject's count in the window and returns the new count (one statement). */
  charge(subject: string, windowStart: Date, cost: number): Promise<number>;
  /** Forgets windows that started before `before`. */
  sweep(before: Date): Promise<void>;
}

export function createRateLimitStore(prisma: PrismaClient): RateLimitStore {
  return {
    async charge(subject, windowStart, cost) {
      const [row] = await prisma.$queryRaw<{ count: number }[]>`
        INSERT INTO rate_limit_windows (subject, window_start, count) VALUES (${subject}, ${windowStart}, ${cost})
        ON CONFLICT (subject, window_start) DO UPDATE SET count = rate_limit_windows.count + ${cost}
        RETURNING count`;
      return row?.count ?? cost;
    },
    async sweep(before) {
      await prisma.rateLimitWindow.deleteMany({ where: { windowStart: { lt: before } } });
    },
  };
}
