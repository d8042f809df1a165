import type { Router } from 'express';
import { serviceUnavailable } from '../errors.js';
import type { Logger } from '../logger.js';
import { createRouter, readRoute } from './edge.js';
import { answeredConditionally } from './preconditions.js';
import { sendJsonText } from './send.js';

export interface HealthOptions {
  /** The migrations the database has applied, asked on each check (handed in: a transport never imports db/). */
  appliedMigrations: () => Promise<readonly string[]>;
  /** Migrations the database must have applied for this build to serve. */
  migrations: readonly string[];
  logger: Logger;
  /** How long one readiness check answers every /readyz; a flood costs one query per period. */
  cacheMs?: number;
}

export interface Health {
  router: Router;
  /** From now on /readyz is 503, so load balancers stop sending traffic (graceful shutdown). */
  startDraining(): void;
}

/**
 * Probes, without a key: `GET /healthz` (liveness, never the database) and `GET /readyz` (ready while the database
 * answers with every migration this build expects and the process is not draining; else 503).
 */
export function createHealth(options: HealthOptions): Health {
  const { appliedMigrations, migrations, logger, cacheMs = 1_000 } = options;
  let draining = false;
  let last: { at: number; ready: Promise<boolean> } | undefined;

  const check = async (): Promise<boolean> => {
    try {
      const applied = new Set(await appliedMigrations());
      const missing = migrations.filter((name) => !applied.has(name));
      if (missing.length > 0) logger.warn({ missing }, 'not ready: the database lacks migrations');
      return missing.length === 0;
    } catch (error) {
      logger.warn({ err: error }, 'not ready: the readiness query failed');
      return false;
    }
  };
  // Concurrent probes share the check in flight; the period counts from when it started.
  const isReady = (): Promise<boolean> => {
    const now = Date.now();
    if (last === undefined || now - last.at >= cacheMs) last = { at: now, ready: check() };
    return last.ready;
  };

  const router = createRouter();
  readRoute(router, '/healthz', (req, res) => {
    if (!answeredConditionally(req, res)) sendJsonText(res, 200, '{"status":"ok"}');
  });
  readRoute(router, '/readyz', async (req, res) => {
    // The reason is logged, never published.
    if (draining || !(await isReady())) throw serviceUnavailable('not ready to serve traffic; retry shortly');
    if (!answeredConditionally(req, res)) sendJsonText(res, 200, '{"status":"ready"}');
  });
  return {
    router,
    startDraining() {
      draining = true;
    },
  };
}
