import { Router } from 'express';
import { serviceUnavailable } from '../errors.js';
import type { PrismaClient } from '../generated/prisma/client.js';
import { sendJson } from './send.js';

/**
 * Probes for load balancers and orchestrators, outside /v1 and without a key:
 * - `GET /healthz`: the process is up and serving (liveness). Never touches the database.
 * - `GET /readyz`: the database answers and has every migration this build expects (readiness);
 *   503 `service_unavailable` otherwise, so traffic is routed elsewhere until it recovers.
 */
export function healthRouter(prisma: PrismaClient, expectedMigrations: readonly string[]): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => sendJson(res, 200, { status: 'ok' }));
  router.get('/readyz', async (_req, res) => {
    // A lost database throws here and the error handler answers 503 service_unavailable.
    const applied = await prisma.$queryRaw<{ migration_name: string }[]>`
      SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`;
    const names = new Set(applied.map((row) => row.migration_name));
    const missing = expectedMigrations.filter((name) => !names.has(name));
    if (missing.length > 0) {
      throw serviceUnavailable(`database is missing migrations: ${missing.join(', ')}`);
    }
    sendJson(res, 200, { status: 'ready' });
  });
  return router;
}
