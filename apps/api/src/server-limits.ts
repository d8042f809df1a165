import { randomUUID } from 'node:crypto';
import {
  createServer,
  IncomingMessage,
  maxHeaderSize,
  type RequestListener,
  type Server,
  ServerResponse,
  STATUS_CODES,
} from 'node:http';
import type { Duplex } from 'node:stream';
import type { ErrorCode } from '@petstore/schema';
import { REQUEST_ID_HEADER, SECURITY_HEADER_CONTRACTS } from '@petstore/schema/internal';
import type { ServerLimits } from './config.js';
import { AppError } from './errors.js';
import { deferContinue, edgeListener, type HeadersOf, normalizePath, SERVER_METHODS } from './http/edge.js';
import { operationHeadersOf } from './http/rest.js';
import { errorBodyText } from './http/send.js';

/** The prototypes the handler gives every request and response (Express's `app.request` and `app.response`). */
export interface MessagePrototypes {
  request: object;
  response: object;
}

/**
 * Node's request and response classes with Express's prototypes from the start, so that its `Object.setPrototypeOf`
 * in `app.handle` changes no hidden class (docs/performance.md).
 */
export function messageClasses({ request, response }: MessagePrototypes) {
  return {
    IncomingMessage: withPrototype(IncomingMessage, request),
    ServerResponse: withPrototype(ServerResponse, response),
  };
}

function withPrototype<T extends abstract new (...args: never[]) => object>(Base: T, prototype: object): T {
  function Message(...args: unknown[]) {
    return Reflect.construct(Base, args, Message);
  }
  Message.prototype = prototype;
  return Message as unknown as T;
}

/**
 * The HTTP server for `app`, with limits that keep slow or greedy clients from holding sockets (Node's defaults: 5
 * minutes for a body, 60-90 s for trickled headers, no connection limit). Node checks the timeouts on a timer, every
 * 30 s by default (adding up to 30 s to each): here every second, or the headers timeout. Node 24 runs the headers
 * timer only while a request arrives, so it may be shorter than the keep-alive timeout. `publicBaseUrl`: the
 * deployment's public URL, that the parser's refusals link under (getPet's successor), as the app does.
 */
export function createHttpServer(
  app: RequestListener,
  limits: ServerLimits,
  prototypes: MessagePrototypes,
  publicBaseUrl?: string,
) {
  const handler = edgeListener(app);
  const server = createServer(
    {
      ...messageClasses(prototypes),
      requestTimeout: limits.requestTimeoutMs,
      headersTimeout: limits.headersTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      connectionsCheckingInterval: Math.min(1_000, limits.headersTimeoutMs),
      // Node would answer a missing Host with a bare 400; the edge answers it with an Error body.
      requireHostHeader: false,
    },
    handler,
  );
  server.maxConnections = limits.maxConnections;
  guardServer(server, handler, { headersOf: operationHeadersOf(undefined, publicBaseUrl) });
  return server;
}

/**
 * The edge's part on the server, for every listener (docs/interface-decisions.md, "The edge"): Node's parser
 * refusals get an Error body; no header field is dropped (Node keeps 2,000: the edge refuses over 100 with 431);
 * `100 Continue` waits until the body is read (edge.ts deferContinue); CONNECT is 501, not a silent close.
 */
export function guardServer(
  server: Server,
  handler: RequestListener,
  { headersOf, methods = SERVER_METHODS }: { headersOf?: HeadersOf; methods?: string } = {},
): void {
  server.maxHeadersCount = 0;
  server.on('clientError', (err: ParserError, socket: ClientSocket) =>
    answerClientError(err, socket, methods, headersOf),
  );
  // The edge answers an Expect other than 100-continue with 417, logged and counted like its other refusals.
  server.on('checkExpectation', handler);
  server.on('checkContinue', (req, res) => {
    deferContinue(req, res);
    handler(req, res);
  });
  // CONNECT's target is an authority (RFC 9112 3.2.3), no resource of ours, so no Allow can list its methods (a
  // 405 must): a method no resource here supports is 501, as an unknown one is (docs/interface-decisions.md).
  server.on('connect', (_req, socket: Duplex) => {
    socket.on('error', () => socket.destroy());
    const message = `CONNECT is not implemented here (this server is not a proxy); it serves ${methods}.`;
    endWith(socket, new AppError('not_implemented', message));
  });
}

const CLIENT_ERRORS: Readonly<Record<string, readonly [ErrorCode, string]>> = {
  ERR_HTTP_REQUEST_TIMEOUT: [
    'request_timeout',
    'The request was not received in time; the connection is closed. Send the whole request promptly.',
  ],
  HPE_HEADER_OVERFLOW: [
    'headers_too_large',
    `The request line and headers are over the limit of ${maxHeaderSize / 1024} KiB. Send shorter headers or a shorter URL.`,
  ],
  HPE_CHUNK_EXTENSIONS_OVERFLOW: [
    'payload_too_large',
    'The chunk extensions of the request body are too large.',
  ],
};

/** A socket Node's parser gave up on, with the response in flight. */
type ClientSocket = Duplex & { _httpMessage?: ServerResponse | null };

/** Sockets already being answered: a failed parser may report the same connection more than once. */
const answering = new WeakSet<Duplex>();

type ParserError = Error & { code?: string; rawPacket?: Buffer; bytesParsed?: number };

/**
 * A whole request line: a method token (RFC 9110 section 9.1, case-sensitive), a target, a version (any `HTTP/`
 * one in any case, so a line refused for its version still names its operation), its end.
 */
const REQUEST_LINE = /^([!#$%&'*+\-.^_`|~0-9A-Za-z]+) ([\x21-\x7e]+) (HTTP\/[\x21-\x7e]+)\r?\n$/i;

/**
 * The method and target of the request the parser refused, when it got that far (a timeout mid-body, a line). A
 * headers timeout has neither: Node gives no bytes of it (docs/operations.md, the parser's refusals).
 */
function refusedRequest(lines: readonly string[], socket: ClientSocket): [string, string] | undefined {
  const reading = socket._httpMessage?.req;
  if (reading !== undefined && !reading.complete) return [reading.method ?? '', reading.url ?? ''];
  const line = REQUEST_LINE.exec(lines.findLast((each) => REQUEST_LINE.test(each)) ?? '');
  return line === null ? undefined : [line[1] as string, line[2] as string];
}

function answerClientError(err: ParserError, socket: ClientSocket, methods: string, headersOf?: HeadersOf) {
  if (answering.has(socket)) return;
  answering.add(socket);
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  // The packet's lines, each with its line end, up to the one the parser stopped in, which is last.
  const packet = err.rawPacket?.toString('latin1') ?? '';
  const end = packet.indexOf('\n', err.bytesParsed ?? 0);
  const lines = (end === -1 ? packet : packet.slice(0, end + 1)).split(/(?<=\n)/);
  // Refused for its method alone, in a well-formed request line: a method it does not know is 501 (RFC 9110
  // section 15.6.2); anything else is malformed.
  const [code, message] =
    err.code === 'HPE_INVALID_METHOD' && REQUEST_LINE.exec(lines.at(-1) ?? '')?.[3]?.match(/^HTTP\/1\.[01]$/)
      ? (['not_implemented', `The method is not implemented here; it serves ${methods}.`] as const)
      : (CLIENT_ERRORS[err.code ?? ''] ?? [
          'malformed_request',
          'The request is not valid HTTP/1.1 (method, request line or a header); the connection is closed.',
        ]);
  // The operation's headers (the document declares the edge's answers on every operation); an absolute-form target
  // names its path as the edge reads it (RFC 9112 section 3.2.2).
  const [method = '', target = ''] = refusedRequest(lines, socket) ?? [];
  const path = target.startsWith('/') ? target : URL.parse(target)?.pathname;
  const headers = path === undefined ? undefined : headersOf?.(method, normalizePath(path));
  // A HEAD's answer is GET's without the content (RFC 9110 section 9.3.2).
  const answer = () => endWith(socket, new AppError(code, message, { ...headers }), method === 'HEAD');
  const inFlight = socket._httpMessage;
  if (!inFlight || inFlight.writableFinished) answer();
  // Garbage pipelined behind a complete request: that request's response goes out first, whole, then this one.
  else if (inFlight.req.complete) inFlight.once('finish', answer);
  // The request in flight is the one that failed (a timeout mid-body): answer it unless its response began.
  else if (!inFlight.headersSent) answer();
  else socket.destroy();
}

/**
 * Ends a socket no ServerResponse serves with a whole answer carrying what every answer carries; the id
 * `parser-<uuid>` says no request reached the app (no log line has it).
 */
function endWith(socket: Duplex, error: AppError, head = false): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const body = errorBodyText(error);
  let fields = `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? 'Bad Request'}\r\n`;
  fields += `Date: ${new Date().toUTCString()}\r\n${REQUEST_ID_HEADER}: parser-${randomUUID()}\r\n`;
  for (const name in SECURITY_HEADER_CONTRACTS)
    fields += `${name}: ${(SECURITY_HEADER_CONTRACTS[name] as { value: string }).value}\r\n`;
  for (const name in error.headers) fields += `${name}: ${error.headers[name]}\r\n`;
  socket.end(
    `${fields}Content-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${head ? '' : body}`,
  );
}
