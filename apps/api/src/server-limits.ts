import { createServer, type RequestListener, type Server } from 'node:http';
import type { ServerLimits } from './config.js';

/**
 * The HTTP server for `handler`, with the limits that keep slow or greedy clients from holding sockets:
 * Node's defaults let a body that never finishes hold a socket for 5 minutes, trickled headers for 60 to
 * 90 s, and accept any number of connections.
 *
 * Node checks the request and headers timeouts on a timer (every 30 s by default, which would add up to
 * 30 s to each); here it runs every second, or as often as the headers timeout if that is shorter.
 * Unlike older Node versions, Node 24 runs the headers timer only while a request is arriving, not while a
 * kept-alive connection is idle, so the headers timeout may be shorter than the keep-alive timeout.
 */
export function createHttpServer(handler: RequestListener, limits: ServerLimits): Server {
  const server = createServer(
    {
      requestTimeout: limits.requestTimeoutMs,
      headersTimeout: limits.headersTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      connectionsCheckingInterval: Math.min(1_000, limits.headersTimeoutMs),
    },
    handler,
  );
  server.maxConnections = limits.maxConnections;
  return server;
}
