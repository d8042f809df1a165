import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
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
  const closeAfterLastAnswers = lastAnswersSayClose(server);
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
    // server.close() closes the connections idle at that moment only. Every other connection's last answer says
    // `Connection: close`, and Node closes the connection after it; one whose answer began before (a stream, with
    // keep-alive in its head) would stay open for the keep-alive timeout (65 s): close each as it becomes idle.
    closeAfterLastAnswers();
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

/**
 * Returns what makes each connection's last answer say `Connection: close` from then on, so that Node closes the
 * connection after it (RFC 9112 section 9.6) and no client sends a request on it that would never be read: Node's
 * server.close() does not (answers after it still said keep-alive, and the sweep then closed their connections under
 * the next request). The last answer is the one to the newest request read on the connection, so one pipelined
 * behind another is still answered; an answer whose head is written keeps what it said. Node writes the field from
 * `shouldKeepAlive` when it writes the head, so the responses not finished are followed from the start.
 */
function lastAnswersSayClose(server: Server): () => void {
  const newest = new Map<Socket, ServerResponse>();
  const closedHere = new WeakSet<ServerResponse>();
  let closing = false;
  const sayClose = (res: ServerResponse) => {
    if (res.headersSent || !res.shouldKeepAlive) return;
    res.shouldKeepAlive = false;
    closedHere.add(res);
  };
  const follow = (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    const before = newest.get(socket);
    newest.set(socket, res);
    res.on('close', () => newest.get(socket) === res && newest.delete(socket));
    if (!closing) return;
    // A request read behind the one that was to be the last: that one keeps the connection for it.
    if (before !== undefined && closedHere.has(before) && !before.headersSent) before.shouldKeepAlive = true;
    sayClose(res);
  };
  // The events the server answers requests on (a first listener on the other two would change what Node does).
  for (const event of ['request', 'checkContinue', 'checkExpectation']) {
    if (server.listenerCount(event) > 0) server.prependListener(event, follow);
  }
  return () => {
    closing = true;
    for (const res of newest.values()) sayClose(res);
  };
}
