import type { Server } from 'node:http';
import type { Database } from './db/database.js';
import type { Health } from './http/health.js';
import type { Logger } from './logger.js';

interface ShutdownOptions {
  server: Server;
  database: Pick<Database, 'close'>;
  health: Pick<Health, 'startDraining'>;
  logger: Logger;
  /** SHUTDOWN_DRAIN_MS: how long the server serves on with /readyz at 503 before it stops listening. */
  drainMs?: number;
  /** Ends the open streams of the change feed, which never finish by themselves (clients resume elsewhere). */
  endStreams?: () => Promise<void>;
  /** Closed with the database (the metrics server, the trace exporter), under the same timeout. */
  closers?: readonly (() => Promise<void>)[];
}

// Once the server stops listening, in-flight requests get this long before their connections are closed; then the
// database and the closers get the other, before the process exits 1 anyway.
const DRAIN_DEADLINE_MS = 10_000;
const CLOSE_TIMEOUT_MS = 5_000;

/** Graceful shutdown on SIGTERM and SIGINT, as docs/operations.md#health-outages-shutdown-logs-and-headers says. */
export function exitGracefullyOnSignals({
  server,
  database,
  health,
  logger,
  drainMs = 0,
  closers = [],
  endStreams,
}: ShutdownOptions): void {
  const exit = (code: number) => logger.flush(() => process.exit(code));
  let stopping = false;

  const shutdown = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting now, without waiting for requests or the database');
      exit(1);
      return;
    }
    stopping = true;
    health.startDraining();
    logger.info({ signal, drainMs }, 'shutting down: /readyz is 503; serving on while load balancers notice');
    setTimeout(stopListening, drainMs);
  };

  const stopListening = () => {
    logger.info('no longer accepting connections; draining in-flight requests');
    const deadline = setTimeout(() => {
      logger.warn('shutdown deadline reached: closing remaining connections');
      server.closeAllConnections();
    }, DRAIN_DEADLINE_MS);
    deadline.unref();
    // server.close() closes the connections idle at that moment only; a kept-alive connection whose request
    // finishes later would stay open for the keep-alive timeout (65 s). Close each as it becomes idle.
    const sweep = setInterval(() => server.closeIdleConnections(), 100);
    server.close(() => {
      clearTimeout(deadline);
      clearInterval(sweep);
      const hung = setTimeout(() => {
        logger.error(`the database did not close within ${CLOSE_TIMEOUT_MS} ms: exiting anyway`);
        exit(1);
      }, CLOSE_TIMEOUT_MS);
      Promise.all(
        [() => database.close(), ...closers].map((close) =>
          close().catch((error: unknown) => logger.error({ err: error }, 'error while closing')),
        ),
      ).finally(() => {
        clearTimeout(hung);
        logger.info('stopped');
        exit(0);
      });
    });
    server.closeIdleConnections();
    endStreams?.().catch((error: unknown) => logger.error({ err: error }, 'error while ending the streams'));
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
}
