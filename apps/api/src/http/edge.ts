import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { type ErrorCode, operations, READ_AFTER_HEADER } from '@petstore/schema';
import {
  GIVEN_ONCE,
  isRestOperation,
  parseReadPosition,
  unknownKeysMessage,
} from '@petstore/schema/internal';
import { type RequestHandler, Router } from 'express';
import { AppError } from '../errors.js';
import { allowOf, answerOtherMethod, READ_ALLOW } from './errors.js';
import { sendError } from './send.js';

// The edge: every request is read here once, on every listener, before REST or tRPC sees it. Its rules are
// docs/interface-decisions.md, "The edge". Repeats are read from `rawHeaders` (Node's `headers` merges or drops them).

const MAX_HEADER_FIELDS = 100;
const MAX_QUERY_PARAMETERS = 100;
/**
 * The methods some route of the API serves; `OPTIONS *` lists them: the contract's REST operations', GET (the
 * documentation, tRPC's queries) and POST (tRPC's mutations, MCP).
 */
export const SERVER_METHODS = allowOf([
  'GET',
  'POST',
  ...operations.filter(isRestOperation).map((op) => op.method),
]);

/**
 * Fields that mean one value (Node keeps the first or joins them), every header the contract reads into an input
 * among them (`Idempotency-Key`, `Last-Event-ID`). Two Authorizations are the key check's 401.
 */
const SINGLETON_FIELDS = [
  ...new Set([
    'Host',
    'Content-Length',
    'Content-Type',
    'Content-Encoding',
    'Transfer-Encoding',
    'Expect',
    'X-Request-Id',
    'trpc-accept',
    'Origin',
    'Access-Control-Request-Method',
    'traceparent',
    READ_AFTER_HEADER,
    ...operations.flatMap((op) => Object.keys(op.request.headers ?? {})),
  ]),
];
const SINGLETON_BITS = new Map(SINGLETON_FIELDS.map((name, index) => [name.toLowerCase(), 1 << index]));
const SINGLETON_LENGTHS = new Set(SINGLETON_FIELDS.map((name) => name.length));

/** Origin-form (RFC 9112 3.2.1), printable ASCII without `#`: Node reads a raw byte over 0x7E as Latin-1. */
const TARGET_CHARS = /^\/[\x21\x22\x24-\x7e]*$/;
/** Absolute-form (RFC 9112 3.2.2) of our schemes: the authority (no userinfo), then path and query, if any. */
const ABSOLUTE_FORM = /^https?:\/\/([^/?#@]*)([/?].*)?$/i;
/** `uri-host [ ":" port ]` (RFC 9110 section 7.2), or empty (RFC 9112 section 3.2). */
const HOST_FIELD =
  /^(?:\[[0-9A-Za-z:.]+\]|(?:[A-Za-z0-9\-._~!$&'()*+,;=]|%[0-9A-Fa-f]{2})*)(?::[0-9]{0,5})?$/;

// Every refusal closes the connection: the message could not be read with confidence.
const refusal = (code: ErrorCode, message: string) => new AppError(code, message, { Connection: 'close' });
const malformed = (message: string) => refusal('malformed_request', message);

/** The authority of each request whose target was absolute-form, once toOriginForm has rewritten it. */
const authorities = new WeakMap<IncomingMessage, string>();

/**
 * Rewrites an absolute-form target, once, into origin-form (Express's router cannot route `http://a[b/v1/pets`) and
 * returns its authority, which replaces Host. checkMessage calls it again for an app served without edgeListener.
 */
function toOriginForm(req: IncomingMessage): string | undefined {
  const known = authorities.get(req);
  if (known !== undefined) return known;
  const absolute = ABSOLUTE_FORM.exec(req.url ?? '');
  if (absolute === null) return undefined;
  const rest = absolute[2];
  // An empty path is `/`, or in OPTIONS the asterisk-form: the server itself (RFC 9112 sections 3.2.4, 3.3).
  if (rest === undefined) req.url = req.method === 'OPTIONS' ? '*' : '/';
  else req.url = rest.startsWith('?') ? `/${rest}` : rest;
  authorities.set(req, absolute[1] as string);
  return absolute[1];
}

/** The path of a request target: up to its query (`?`) or fragment (`#`, which checkMessage refuses). */
export function pathOf(target: string): string {
  const end = target.search(/[?#]/);
  return end === -1 ? target : target.slice(0, end);
}

/** A percent-encoded unreserved character (RFC 3986 section 2.3): ALPHA, DIGIT, `-`, `.`, `_`, `~`. */
const ENCODED_UNRESERVED = /%(?:4[1-9A-F]|5[0-9A]|6[1-9A-F]|7[0-9A]|3[0-9]|2[DE]|5F|7E)/gi;

/**
 * Decodes the percent-encoded unreserved characters of the path (RFC 3986 section 6.2.2.2: `%65vents` is `events`)
 * and removes its dot-segments (section 6.2.2.3: `/v1/x/../pets` and `/v1/%2e/pets` are `/v1/pets`), so routes and a
 * normalising proxy in front name one resource. Reserved ones (`%2F`) stay; the query is queryOf's.
 */
export function normalizePath(target: string): string {
  if (!target.includes('%') && !target.includes('/.')) return target;
  const path = pathOf(target);
  const decoded = path.replace(ENCODED_UNRESERVED, (code) =>
    String.fromCharCode(Number.parseInt(code.slice(1), 16)),
  );
  return `${decoded.includes('/.') ? removeDotSegments(decoded) : decoded}${target.slice(path.length)}`;
}

/** RFC 3986 section 5.2.4 on an absolute path: `.` is dropped, `..` drops the segment before it; a last one leaves `/`. */
function removeDotSegments(path: string): string {
  const segments = path.split('/').slice(1);
  const kept: string[] = [];
  for (const [index, segment] of segments.entries()) {
    if (segment === '..') kept.pop();
    if (segment !== '.' && segment !== '..') kept.push(segment);
    else if (index === segments.length - 1) kept.push('');
  }
  return `/${kept.join('/')}`;
}

/** Puts every target in normalised origin-form before `handler` routes it, one request of a connection at a time. */
export function edgeListener(handler: RequestListener): RequestListener {
  return inTurn((req, res) => {
    toOriginForm(req);
    req.url = normalizePath(req.url ?? '');
    // Node reads nothing more of a connection after an Upgrade request, so one pipelined behind it would wait for
    // ever: this answer closes the connection instead (RFC 9112 section 9.6). We upgrade to nothing.
    if (req.headers.upgrade !== undefined) res.shouldKeepAlive = false;
    // A weight is `q=` in any case (RFC 9110 section 12.4.2); `compression`'s negotiator reads only `q`, so it would
    // code a body in a coding the client refused with `gzip;Q=0`.
    const codings = req.headers['accept-encoding'];
    if (codings?.includes('Q=')) req.headers['accept-encoding'] = codings.replace(/;([ \t]*)Q=/g, ';$1q=');
    handler(req, res);
  });
}

/** How many requests of a connection wait for their turn (inTurn); absent until one has waited. */
const WAITING = Symbol('petstore.waiting');
type Connection = Socket & { [WAITING]?: number };

/**
 * Hands `handler` a request only once every earlier answer on its connection has finished, and stops reading the
 * connection while requests wait: a client that pipelines and never reads gets no more work done or answers kept
 * (Node pauses only when answers are already queued, and an async handler has queued none yet).
 */
function inTurn(handler: RequestListener): RequestListener {
  return (req, res) => {
    // Node gives a response its socket once the answers before it have finished, and queues it until then.
    if (res.socket !== null) return handler(req, res);
    const socket = req.socket as Connection;
    // Node resumes reading on its own (on 'drain', when a body is read): undone while requests wait.
    if (socket[WAITING] === undefined) socket.on('resume', () => socket[WAITING] && socket.pause());
    socket[WAITING] = (socket[WAITING] ?? 0) + 1;
    socket.pause();
    res.once('socket', () => {
      socket[WAITING] = (socket[WAITING] as number) - 1;
      if (socket[WAITING] === 0) socket.resume();
      // After Node's assignSocket has flushed: an answer ended at once would otherwise be finished twice.
      process.nextTick(handler, req, res);
    });
  };
}

/**
 * How many requests read on `socket` wait behind the answer in progress (inTurn counts them; Node queues their
 * responses). A graceful stop reads it, once per connection (shutdown.ts): nothing is added per request.
 */
export const requestsWaiting = (socket: Socket): number => (socket as Connection)[WAITING] ?? 0;

/** The edge's verdict on method, target and header fields: an AppError to answer with, or undefined. */
export function checkMessage(req: IncomingMessage): AppError | undefined {
  if (req.httpVersionMajor !== 1) {
    return malformed('Only HTTP/1.0 and HTTP/1.1 requests are served.');
  }
  const authority = toOriginForm(req);
  if (authority !== undefined && (authority === '' || !HOST_FIELD.test(authority))) {
    return malformed('The authority of an absolute-form request target is not a host[:port].');
  }
  const url = req.url ?? '';
  if (!TARGET_CHARS.test(url) && !(url === '*' && req.method === 'OPTIONS')) {
    return malformed(
      url.charCodeAt(0) === 47
        ? 'The request target must be printable ASCII without "#": percent-encode other characters.'
        : 'The request target must be a path ("/v1/...") or an absolute http(s) URL: authority-form ' +
            '("host:port") and "*" (except in OPTIONS *) are not accepted.',
    );
  }
  const raw = req.rawHeaders;
  if (raw.length > 2 * MAX_HEADER_FIELDS) {
    return refusal(
      'headers_too_large',
      `The request carries ${raw.length / 2} header fields; at most ${MAX_HEADER_FIELDS} are accepted.`,
    );
  }
  let seen = 0;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] as string;
    if (!SINGLETON_LENGTHS.has(name.length)) continue;
    const bit = SINGLETON_BITS.get(name.toLowerCase());
    if (bit === undefined) continue;
    if ((seen & bit) !== 0) {
      return malformed(
        `The header field ${SINGLETON_FIELDS[Math.log2(bit)]} is given more than once; send it exactly once.`,
      );
    }
    seen |= bit;
  }
  const headers = req.headers;
  const host = headers.host;
  if (host === undefined ? req.httpVersionMinor === 1 : !HOST_FIELD.test(host)) {
    return malformed(
      host === undefined
        ? 'HTTP/1.1 requests must carry a Host header.'
        : 'The Host header is not a host[:port].',
    );
  }
  if (authority !== undefined) headers.host = authority;
  // Node takes any value containing the token (`100-continue, foo`) as 100-continue (RFC 9110 section 10.1.1).
  const expectation = headers.expect;
  if (expectation !== undefined && !/^[ \t]*100-continue[ \t]*$/i.test(expectation)) {
    return refusal(
      'expectation_failed',
      'Only the Expect value 100-continue is supported; send the request without this Expect header.',
    );
  }
  // Checked with or without replicas, so a bad position is refused everywhere alike.
  const readAfter = headers['petstore-read-after'];
  if (readAfter !== undefined && parseReadPosition(String(readAfter)) === undefined) {
    return malformed(
      `${READ_AFTER_HEADER} must be a database position as a write returned it (such as 16/B374D848); send it as ` +
        'received, or without it.',
    );
  }
  const coding = headers['transfer-encoding'];
  // RFC 9112 section 6.1: HTTP/1.0 has no transfer codings, so its framing is faulty.
  if (coding !== undefined && req.httpVersionMinor === 0) {
    return malformed(
      'An HTTP/1.0 request cannot carry Transfer-Encoding; send the body with Content-Length, or use HTTP/1.1.',
    );
  }
  if (coding !== undefined && !/^[ \t]*chunked[ \t]*$/i.test(coding)) {
    return refusal(
      'unsupported_media_type',
      `Transfer-Encoding ${JSON.stringify(coding.slice(0, 100))} is not supported: send the body with ` +
        'Content-Length, or with Transfer-Encoding: chunked alone.',
    );
  }
  if (req.method === 'GET' && (coding !== undefined || Number(headers['content-length'] ?? 0) !== 0)) {
    // A HEAD is here as its GET (showAsGet); `00` declares no body either.
    return malformed('A GET or HEAD request carries no body; send it without one.');
  }
  return undefined;
}

/** The headers every answer of the operation a method and target name carries (rest.ts operationHeadersOf). */
export type HeadersOf = (method: string, url: string) => Readonly<Record<string, string>> | undefined;

/**
 * A HEAD is shown to everything after the edge as the GET it stands for (RFC 9110 section 9.3.2), so no route,
 * library or message can answer it differently: Node leaves the body out (it decided so when the request arrived),
 * and the first chunk of a streamed answer ends it, which would otherwise run on into a body nobody reads.
 */
export function showAsGet(res: ServerResponse & { req: IncomingMessage }): void {
  res.req.method = 'GET';
  const { write } = res;
  res.write = ((...args: Parameters<ServerResponse['write']>) => {
    if (res.writableEnded) return true;
    write.apply(res, args);
    res.end();
    return true;
  }) as ServerResponse['write'];
}

/** The edge on the API, after the request context (its answers carry X-Request-Id and are logged). */
export function edge(operationHeaders: HeadersOf): RequestHandler {
  return (req, res, next) => {
    if (req.method === 'HEAD') showAsGet(res);
    const error = checkMessage(req);
    if (error !== undefined) {
      // A refusal on an operation's path carries what all its answers carry (getPet's Deprecation, Sunset, Link).
      const headers = operationHeaders(req.method, req.url);
      if (headers !== undefined) for (const name in headers) res.setHeader(name, headers[name] as string);
      return refuse(res, error);
    }
    if (req.url === '*') {
      res.setHeader('Allow', SERVER_METHODS);
      res.statusCode = 204;
      res.end();
      return;
    }
    next();
  };
}

/** Answers a request the edge refused, and closes the connection after the answer. */
export function refuse(res: ServerResponse, error: AppError): void {
  res.shouldKeepAlive = false;
  sendError(res, error);
}

// The query ----------------------------------------------------------------------------------------------

/**
 * A request's query parameters, names and values percent-decoded (UTF-8, `+` is a space); a name given more than once
 * has its values in a list, for its reader to refuse once it knows the names it reads (an unknown name is named
 * as unknown, given once or twice; a known one `must be given at most once`).
 */
export type QueryParameters = Readonly<Record<string, string | readonly string[]>>;

/** The 400 for a parameter given more than once, in the words of the schema's own repeat rule. */
export const givenTwice = (name: string) =>
  new AppError('validation_failed', `${name.slice(0, 100)}: ${GIVEN_ONCE}`);

const QUERY = Symbol('petstore.query');

/** The request's query, read once. Called after the key check: without a key, 401 whatever it says. */
export function queryOf(req: IncomingMessage): QueryParameters {
  const read = req as IncomingMessage & { [QUERY]?: QueryParameters };
  if (read[QUERY] === undefined) {
    const url = req.url ?? '';
    const start = url.indexOf('?');
    read[QUERY] = readQuery(start === -1 ? '' : url.slice(start + 1));
  }
  return read[QUERY];
}

/** The query of a route that reads none: any parameter is refused, never ignored. */
export function refuseQuery(req: IncomingMessage): void {
  const names = Object.keys(queryOf(req));
  if (names.length > 0) throw new AppError('validation_failed', unknownKeysMessage(names, 'query parameter'));
}

/** Request headers the contract reads into an input (`Idempotency-Key` -> createPet's `idempotencyKey`). */
const INPUT_HEADERS = new Map(
  operations.flatMap((op) =>
    Object.entries(op.request.headers ?? {}).map(([name, { field }]) => [
      name.toLowerCase(),
      { name, field, op },
    ]),
  ),
);
const NONE: ReadonlySet<string> = new Set();

/**
 * A header the contract reads into an input, sent where nothing reads it, is refused, never ignored (an
 * `Idempotency-Key` on a tRPC create would leave a retry unkeyed: a second pet), on every transport. `reads`: the
 * ones read here, lower case (a REST operation's own; `Last-Event-ID` on tRPC's subscription, which tRPC reads);
 * `carrier`: where this transport's calls carry their inputs.
 */
export function refuseInputHeaders(req: IncomingMessage, carrier?: string, reads = NONE): void {
  for (const [lower, { name, field, op }] of INPUT_HEADERS) {
    if (req.headers[lower] === undefined || reads.has(lower)) continue;
    const where = carrier === undefined ? '' : `, sent in ${carrier}`;
    throw new AppError(
      'validation_failed',
      `the ${name} header is not read here: it is the ${JSON.stringify(field)} input of ${op.id}${where}`,
    );
  }
}

/** The one strict query reader (docs/interface-decisions.md, "The edge"); a pair without `=` has the value "". */
function readQuery(search: string): QueryParameters {
  const query: Record<string, string | string[]> = Object.create(null);
  // Empty segments (`&&`, a lone `?`) are no parameters, as in WHATWG URL.
  const pairs = search.split('&').filter((pair) => pair !== '');
  for (const [index, pair] of pairs.entries()) {
    if (index === MAX_QUERY_PARAMETERS) {
      throw new AppError(
        'validation_failed',
        `the query carries more than ${MAX_QUERY_PARAMETERS} parameters; at most ${MAX_QUERY_PARAMETERS} are accepted`,
      );
    }
    const equals = pair.indexOf('=');
    const name = decodeComponent(
      equals === -1 ? pair : pair.slice(0, equals),
      'a query parameter name',
      'validation_failed',
    );
    const value = decodeComponent(
      equals === -1 ? '' : pair.slice(equals + 1),
      `query parameter ${JSON.stringify(name.slice(0, 100))}`,
      name === 'input' ? 'malformed_json' : 'validation_failed',
    );
    const given = query[name];
    query[name] = given === undefined ? value : [...(Array.isArray(given) ? given : [given]), value];
  }
  return query;
}

function decodeComponent(text: string, what: string, code: ErrorCode): string {
  return decodePercent(text.includes('+') ? text.replaceAll('+', ' ') : text, what, code);
}

/** A percent-encoded part of a target (a path segment, a query name or value), or the one 400 naming it. */
export function decodePercent(text: string, what: string, code: ErrorCode = 'validation_failed'): string {
  if (!text.includes('%')) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    throw new AppError(code, `${what} is not valid percent-encoded UTF-8`);
  }
}

// 100 Continue -------------------------------------------------------------------------------------------

/** A request whose `100 Continue` waits: whether its connection was to be kept alive. */
const CONTINUE = Symbol('petstore.continue');
type WithContinue = IncomingMessage & { [CONTINUE]?: boolean | undefined };

/**
 * `Expect: 100-continue` (the server's checkContinue): `100 Continue` waits until the body is about to be read
 * (sendContinue). Until then the connection is marked to close, since a refused request's body may still arrive.
 */
export function deferContinue(req: IncomingMessage, res: ServerResponse): void {
  (req as WithContinue)[CONTINUE] = res.shouldKeepAlive;
  res.shouldKeepAlive = false;
}

/** Sends the deferred `100 Continue`, if any: the body reader calls it right before it reads. */
export function sendContinue(req: IncomingMessage, res: ServerResponse): void {
  const keepAlive = (req as WithContinue)[CONTINUE];
  if (keepAlive === undefined) return;
  (req as WithContinue)[CONTINUE] = undefined;
  if (res.headersSent) return;
  res.shouldKeepAlive = keepAlive;
  res.writeContinue();
}

/**
 * Every router of the app: paths matched as written (Express would also take `/DOCS` and `/healthz/`). Express 5
 * applies `case sensitive routing` and `strict routing` to the app's own router only, not to one made by Router().
 */
export const createRouter = (): Router => Router({ caseSensitive: true, strict: true });

/**
 * The route of a path served by GET alone (probes, documentation, MCP metadata): GET and HEAD go to `read`, anything
 * else is answerOtherMethod's, never Express's default OPTIONS answer or a 404.
 */
export function readRoute(router: Router, path: string, read: RequestHandler): void {
  router
    .route(path)
    .get((req, res, next) => {
      // None of them reads a query: a parameter it would ignore is refused, as on the API and /metrics.
      refuseQuery(req);
      return read(req, res, next);
    })
    .all((req, res) => answerOtherMethod(req, res, READ_ALLOW));
}
