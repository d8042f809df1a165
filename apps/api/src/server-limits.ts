import { createServer, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ErrorCode } from '@petstore/schema';
import type { ServerLimits } from './config.js';
import { AppError } from './errors.js';

/**
 * The HTTP server for `handler`, with the limits that keep slow or greedy clients from holding sockets:
 * Node's defaults let a body that never finishes hold a socket for 5 minutes, trickled headers for 60 to
 * 90 s, and accept any number of connections.
 *
 * Node checks the request and headers timeouts on a timer (every 30 s by default, which would add up to
 * 30 s to each); here it runs every second, or as often as the headers timeout if that is shorter.
 * Unlike older Node versions, Node 24 runs the headers timer only while a request is arriving, not while a
 * kept-alive connection is idle, so the headers timeout may be shorter than the keep-alive timeout.
 *
 * Requests Node's parser refuses before the app sees them (not HTTP, oversized headers, a timeout, an
 * unknown `Expect`) are answered here with the interface's `Error` body, as every 4xx is.
 */
export function createHttpServer(handler: RequestListener, limits: ServerLimits): Server {
  const server = createServer(
    {
      requestTimeout: limits.requestTimeoutMs,
      headersTimeout: limits.headersTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      connectionsCheckingInterval: Math.min(1_000, limits.headersTimeoutMs),
      // Node would answer a missing Host with a bare 400; the check below answers it with an Error body.
      requireHostHeader: false,
    },
    (req, res) => {
      if (req.headers.host === undefined && req.httpVersion === '1.1') {
        const body = errorText(
          new AppError('malformed_request', 'HTTP/1.1 requests must carry a Host header.'),
        );
        res.shouldKeepAlive = false;
        res.writeHead(400, { 'Content-Type': JSON_TYPE, 'Content-Length': Buffer.byteLength(body) });
        res.end(body);
        return;
      }
      handler(req, res);
    },
  );
  server.maxConnections = limits.maxConnections;
  server.on('clientError', answerClientError);
  server.on('checkExpectation', (_req, res) => {
    const error = new AppError(
      'expectation_failed',
      'Only the Expect value 100-continue is supported; send the request without this Expect header.',
    );
    const body = errorText(error);
    res.shouldKeepAlive = false;
    res.writeHead(error.status, { 'Content-Type': JSON_TYPE, 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  });
  return server;
}

const CLIENT_ERRORS: Readonly<Record<string, readonly [ErrorCode, string]>> = {
  ERR_HTTP_REQUEST_TIMEOUT: [
    'request_timeout',
    'The request was not received in time; the connection is closed. Send the whole request promptly.',
  ],
  HPE_HEADER_OVERFLOW: [
    'headers_too_large',
    'The request line and headers are too large. Send shorter headers or a shorter URL.',
  ],
  HPE_CHUNK_EXTENSIONS_OVERFLOW: [
    'payload_too_large',
    'The chunk extensions of the request body are too large.',
  ],
};

/** What a socket Node's parser gave up on carries, as far as this handler needs it: the response in flight. */
type ClientSocket = Duplex & { _httpMessage?: ServerResponse | null };

/** Sockets already being answered: a failed parser may report the same connection more than once. */
const answering = new WeakSet<Duplex>();

function answerClientError(err: Error & { code?: string }, socket: ClientSocket): void {
  if (answering.has(socket)) return;
  answering.add(socket);
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const [code, message] = CLIENT_ERRORS[err.code ?? ''] ?? [
    'malformed_request',
    'The request is not valid HTTP/1.1 (method, request line or a header); the connection is closed.',
  ];
  const error = new AppError(code, message);
  const body = errorText(error);
  const answer = () => {
    if (!socket.writable) return socket.destroy();
    socket.end(
      `HTTP/1.1 ${error.status} ${REASONS[error.status] ?? 'Bad Request'}\r\n` +
        `Content-Type: ${JSON_TYPE}\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  };
  const inFlight = socket._httpMessage;
  if (!inFlight || inFlight.writableFinished) answer();
  // Garbage pipelined behind a complete request: that request's response goes out first, whole, then this
  // one (Node's own handler would drop the earlier response or splice the two).
  else if (inFlight.req.complete) inFlight.once('finish', answer);
  // The request in flight is the one that failed (a timeout mid-body): answer it unless its response began.
  else if (!inFlight.headersSent) answer();
  else socket.destroy();
}

const REASONS: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  413: 'Payload Too Large',
  431: 'Request Header Fields Too Large',
};

const JSON_TYPE = 'application/json; charset=utf-8';

const errorText = (error: AppError): string => JSON.stringify(error.toBody());
