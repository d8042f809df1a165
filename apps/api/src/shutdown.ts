import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Database } from './db/database.js';
import { requestsWaiting } from './http/edge.js';
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
export function exitGracefullyOnSignals(options: ShutdownOptions): void {
  const { server, database, health, logger, drainMs = 0, closers = [], endStreams } = options;
  const exit = (code: number) => logger.flush(() => process.exit(code));
  const stopServing = serverStopper(server);
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
    }, DRAIN_DEADLINE_MS).unref();
    stopServing(() => {
      clearTimeout(deadline);
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
    endStreams?.().catch((error: unknown) => logger.error({ err: error }, 'error while ending the streams'));
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
}

/** A server's connection, with the response Node is writing on it (the first of those queued, if pipelined). */
type Connection = Socket & { _httpMessage?: ServerResponse | null };

/** Node's channel for each request it has read, before any listener sees it (http.server.request.start). */
const REQUEST_READ = 'http.server.request.start';

/**
 * What stops `server` serving: it stops accepting connections, closes each connection once it is idle, and calls
 * `closed` when none is left. From the moment it is called, each connection's last answer says `Connection: close`
 * and Node closes the connection after it (RFC 9112 section 9.6), so that no client sends a request on a connection
 * about to be closed: server.close() does not (Node 24 only closes the connections idle then; answers after it
 * said keep-alive and the idle sweep then closed their connections under the client's next request).
 *
 * Nothing is added per request (a version that followed each request's response cost 27% of a get's CPU): the
 * connections are followed once each, on 'connection', and the answers are marked only at the stop and after it.
 * The last answer is that to the newest request read on the connection, so one pipelined behind another is still
 * answered; an answer whose head is already written keeps what it said (the sweep closes its connection).
 */
export function serverStopper(server: Server): (closed: () => void) => void {
  const open = new Set<Connection>();
  const forget = function (this: Connection) {
    open.delete(this);
  };
  server.on('connection', (socket: Connection) => {
    open.add(socket);
    socket.on('close', forget);
  });

  return (closed) => {
    // The answer of each connection marked to say close, while another request read behind it may take it over.
    const last = new WeakMap<Socket, ServerResponse>();
    const sayClose = (socket: Socket, res: ServerResponse) => {
      const before = last.get(socket);
      if (before !== undefined && before !== res && !before.headersSent) before.shouldKeepAlive = true;
      if (res.headersSent || !res.shouldKeepAlive) return;
      // Node writes `Connection: close` from it when it writes the head, and ends the connection after the answer.
      res.shouldKeepAlive = false;
      last.set(socket, res);
    };
    // The answer in progress, unless requests wait behind it: then the last of those, once its turn comes.
    const closeAfterLast = (socket: Connection) => {
      const current = socket._httpMessage;
      if (current == null || current.writableFinished) return;
      if (requestsWaiting(socket) === 0) sayClose(socket, current);
      // Node hands the socket to the next response on 'finish', before this listener.
      else current.once('finish', () => closeAfterLast(socket));
    };
    const onRead = (message: unknown) => {
      const read = message as { server: Server; socket: Socket; response: ServerResponse };
      if (read.server === server) sayClose(read.socket, read.response);
    };
    subscribe(REQUEST_READ, onRead);
    for (const socket of open) closeAfterLast(socket);

    // server.close() closes the connections idle at that moment only; one whose answer had said keep-alive before
    // the stop (a stream) would stay open for the keep-alive timeout (65 s). Close each as it becomes idle.
    const sweep = setInterval(() => server.closeIdleConnections(), 100);
    server.close(() => {
      clearInterval(sweep);
      unsubscribe(REQUEST_READ, onRead);
      closed();
    });
    server.closeIdleConnections();
  };
}
