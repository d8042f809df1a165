import type { Server } from 'node:http';
import type { Database } from './db/database.js';
import type { Health } from './http/health.js';
import type { Logger } from './logger.js';

export interface ShutdownOptions {
  server: Server;
  database: Pick<Database, 'close'>;
  health: Pick<Health, 'startDraining'>;
  logger: Logger;
  /**
   * After the signal, how long the server keeps accepting and serving requests with /readyz at 503, so that
   * load balancers take this instance out of rotation before it stops listening (SHUTDOWN_DRAIN_MS).
   */
  drainMs?: number;
  /** Once the server stops listening, in-flight requests get this long to finish; then their connections are closed. */
  drainDeadlineMs?: number;
  /**
   * Ends the open streams (the change feed's subscribers) when the server stops listening: a stream never
   * finishes by itself, and its client reconnects to another instance and resumes from its last event.
   */
  endStreams?: () => Promise<void>;
  /** Other things to close with the database (the metrics server, the trace exporter), under the same timeout. */
  closers?: readonly (() => Promise<void>)[];
  /** Closing the database gets this long; then the process exits 1 anyway. */
  databaseCloseTimeoutMs?: number;
}

/**
 * Graceful shutdown on SIGTERM and SIGINT: /readyz turns 503 first, and for `drainMs` the server goes on
 * accepting and serving every request as before, while the load balancer's health checks notice and stop
 * routing here. Then the server stops accepting connections and lets in-flight requests finish (until the
 * drain deadline, when the remaining connections are closed), then the database (and the closers) are closed
 * and the process exits 0. A close that hangs (a partitioned network) ends in exit 1 after its timeout; a
 * second signal exits 1 at once, during the drain period too.
 */
export function exitGracefullyOnSignals({
  server,
  database,
  health,
  logger,
  drainMs = 0,
  drainDeadlineMs = 10_000,
  databaseCloseTimeoutMs = 5_000,
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
    }, drainDeadlineMs);
    deadline.unref();
    // server.close() closes the connections idle at that moment only; a kept-alive connection whose request
    // finishes later would stay open for the keep-alive timeout (65 s). Close each as it becomes idle.
    const sweep = setInterval(() => server.closeIdleConnections(), 100);
    server.close(() => {
      clearTimeout(deadline);
      clearInterval(sweep);
      const hung = setTimeout(() => {
        logger.error(`the database did not close within ${databaseCloseTimeoutMs} ms: exiting anyway`);
        exit(1);
      }, databaseCloseTimeoutMs);
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
