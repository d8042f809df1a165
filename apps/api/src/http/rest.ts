import {
  API_BASE_PATH,
  contract as defaultContract,
  type OperationContract,
  type RestOperationContract,
  stringifyJson,
} from '@petstore/schema';
import {
  describeIssues,
  fillPath,
  isRestOperation,
  operationResponseHeaders,
  pathParameterNames,
  pathPattern,
  pathResponseHeaders,
} from '@petstore/schema/internal';
import type { RequestHandler } from 'express';
import type * as z from 'zod/mini';
import { AppError } from '../errors.js';
import { labelResponse, REST_LABELS, REST_UNMATCHED_LABEL } from '../observability/operation-label.js';
import type { OperationContext, OperationHandler, OperationHandlers } from '../operations.js';
import { type AccessGuard, authorizationOf } from './auth.js';
import { checkHead, readJsonBody } from './body.js';
import { queryOf } from './edge.js';
import { handleError, type InternalErrorSink } from './errors.js';
import { type EventStreamOptions, type PositionedEvents, sendEventStream } from './event-stream.js';
import { evaluatePreconditions, preconditionFailed } from './preconditions.js';
import { requestBaseUrl } from './request-base-url.js';
import { sendJsonText } from './send.js';

// The REST routes of the contract, served by one Express handler: the path is matched against a table compiled
// once from the contract (no router layer per route), then the caller is admitted, the request parts are
// validated against the contract's schemas, the service runs and the body is written by the contract's writer.

/** A path of the contract: the operations on it by method, and what every response on it carries. */
interface CompiledPath {
  pattern: RegExp;
  parameterNames: string[];
  byMethod: Map<string, RestOperationContract>;
  /** `Allow` for 405 and OPTIONS: the contract's methods on this path, plus HEAD wherever GET is. */
  allow: string;
  /**
   * Headers every response to a method the path does not serve carries (405, OPTIONS): the least settled
   * stability level on the path, and a deprecated operation's headers when every operation on it is deprecated.
   */
  headers: Record<string, string>;
  /**
   * Headers every response of an operation carries, errors included (its stability level, a deprecated
   * operation's deprecation headers), by method.
   */
  operationHeaders: Map<string, Record<string, string>>;
}

function compilePaths(operations: readonly OperationContract[]): CompiledPath[] {
  const byPath = new Map<string, RestOperationContract[]>();
  for (const op of operations.filter(isRestOperation))
    byPath.set(op.path, [...(byPath.get(op.path) ?? []), op]);
  // A literal path before a templated one it also fits (`/pets/events` before `/pets/{petId}`), as OpenAPI matches.
  const templated = (path: string) => (path.includes('{') ? 1 : 0);
  return [...byPath]
    .sort(([a], [b]) => templated(a) - templated(b))
    .map(([path, ops]) => {
      const methods: string[] = ops.map((op) => op.method);
      if (methods.includes('GET')) methods.splice(methods.indexOf('GET') + 1, 0, 'HEAD');
      return {
        pattern: pathPattern(path, API_BASE_PATH),
        parameterNames: pathParameterNames(path),
        byMethod: new Map(ops.map((op) => [op.method, op])),
        allow: methods.join(', '),
        headers: pathResponseHeaders(ops),
        operationHeaders: new Map(ops.map((op) => [op.method, operationResponseHeaders(op)])),
      };
    });
}

/**
 * The headers every answer of the operation that `method` and `url` name carries (a deprecated operation's), for
 * answers given before the operation's handler runs (the edge's refusals); undefined for other requests.
 */
export function operationHeadersOf(
  contract: Readonly<Record<string, OperationContract>> = defaultContract,
): (method: string, url: string) => Readonly<Record<string, string>> | undefined {
  const paths = compilePaths(Object.values(contract));
  return (method, url) => {
    const queryStart = url.indexOf('?');
    const pathname = queryStart === -1 ? url : url.slice(0, queryStart);
    const route = paths.find((candidate) => candidate.pattern.test(pathname));
    if (route === undefined) return undefined;
    const served = method === 'HEAD' ? 'GET' : method;
    return route.byMethod.has(served) ? route.operationHeaders.get(served) : route.headers;
  };
}

/** A request part (or a whole input) checked by its schema: the parsed value, or 400 naming each field. */
export function parseOr400<T extends z.ZodMiniType>(schema: T, value: unknown, subject: string): z.output<T> {
  const result = schema.safeParse(value);
  if (!result.success) throw new AppError('validation_failed', describeIssues(result.error, subject, value));
  return result.data;
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new AppError('validation_failed', 'the URL is not valid percent-encoding');
  }
}

/** The operation's typed input from the request: path parameters, query and body, each checked on its own. */
async function readInput(
  op: RestOperationContract,
  req: Parameters<RequestHandler>[0],
  res: Parameters<RequestHandler>[1],
  segments: string[],
  parameterNames: string[],
  beforeBody: () => void,
): Promise<unknown> {
  const { params, query, body, headers } = op.request;
  let input: Record<string, unknown> = {};
  if (params !== undefined) {
    const values: Record<string, string> = {};
    parameterNames.forEach((name, index) => {
      values[name] = decodeSegment(segments[index] as string);
    });
    input = parseOr400(params, values, 'path parameter');
  }
  // The edge's one strict query reader: each parameter once, nothing dropped (edge.ts readQuery).
  const parameters = queryOf(req);
  if (query !== undefined) {
    Object.assign(input, parseOr400(query, parameters, 'query parameter'));
  } else {
    // An operation without query parameters refuses them as listPets refuses unknown ones: never ignored.
    for (const name in parameters) {
      throw new AppError(
        'validation_failed',
        `unknown query parameter ${JSON.stringify(name.slice(0, 100))}`,
      );
    }
  }
  // Preconditions come after everything decided without the content (a body's media type, coding and declared
  // length included: 415 and 413 beat 412) and before the content is read: RFC 9110 section 13.2.1.
  if (body !== undefined) checkHead(req);
  beforeBody();
  if (body !== undefined) {
    const parsed = parseOr400(body.schema, (await readJsonBody(req, res)).value, 'field');
    // A body is the whole input when it is the only part; otherwise its fields join the others.
    input =
      params === undefined && query === undefined
        ? (parsed as Record<string, unknown>)
        : Object.assign(input, parsed);
  }
  // Declared request headers become their input fields as sent (createPet's Idempotency-Key); the service
  // applies their rules, so a bad value gets the same answer as over tRPC.
  for (const name in headers) {
    const value = req.headers[name.toLowerCase()];
    if (value !== undefined) input[(headers[name] as { field: string }).field] = value;
  }
  return input;
}

export interface RestDeps {
  /** One function per operation of `contract`, keyed by operationId. */
  handlers: OperationHandlers | Readonly<Record<string, OperationHandler>>;
  /** The operations to serve, keyed by operationId; default the interface's `contract` (tests add one). */
  contract?: Readonly<Record<string, OperationContract>> | undefined;
  guard: AccessGuard;
  /** Writers for response bodies by the contract's body id (`Pet`, `Pets`); others use stringifyJson. */
  bodyWriters: Readonly<Record<string, (body: never) => string>>;
  onInternalError: InternalErrorSink;
  /**
   * The public base URL (ending in /v1) that `Link: rel="next"` URLs start with, when the environment has one;
   * otherwise they are built from the request's `Host` (or the address it reached).
   */
  publicBaseUrl?: string | undefined;
  /** Response compression, applied to an admitted read of a paged operation (app.ts says why only there). */
  compressAnswer?:
    | ((req: Parameters<RequestHandler>[0], res: Parameters<RequestHandler>[1]) => void)
    | undefined;
  /** A streaming operation's keep-alive and reconnection delay (event-stream.ts). */
  eventStream: Pick<EventStreamOptions, 'keepAliveMs' | 'retryMs'>;
}

/**
 * RFC 8288 `Link` to the next page: the same route with the same query parameters (the contract's, as parsed:
 * listPets' `limit` and `status`) and the new cursor.
 */
function nextLink(base: string, op: RestOperationContract, input: unknown, cursor: string): string {
  const values = input as Record<string, unknown>;
  const query = new URLSearchParams();
  for (const name in op.request.query?.shape) {
    const value = values[name];
    if (name !== 'cursor' && value !== undefined) query.set(name, String(value));
  }
  query.set('cursor', cursor);
  return `<${base}${op.path}?${query}>; rel="next"`;
}

/**
 * A read's preconditions, once it has its answer: true when that answer is a 304 (sent here, with the `Vary` its 200
 * carries when it may be compressed: RFC 9110 section 15.4.5); a false If-Match throws the 412.
 */
function answeredConditionally(
  req: Parameters<RequestHandler>[0],
  res: Parameters<RequestHandler>[1],
  compressed: boolean,
): boolean {
  const verdict = evaluatePreconditions(req.method, req.headers);
  if (verdict === 'proceed') return false;
  if (verdict === 'failed') throw preconditionFailed();
  if (compressed) res.vary('Accept-Encoding');
  res.statusCode = 304;
  res.end();
  return true;
}

/** Serves every REST operation of the contract; anything else goes to the next handler. */
export function restHandler({
  handlers,
  contract = defaultContract,
  guard,
  bodyWriters,
  onInternalError,
  publicBaseUrl,
  compressAnswer,
  eventStream,
}: RestDeps): RequestHandler {
  const paths = compilePaths(Object.values(contract));
  const call = handlers as Readonly<
    Record<string, (input: unknown, context: OperationContext) => Promise<unknown>>
  >;

  return async (req, res, next) => {
    const url = req.url;
    const queryStart = url.indexOf('?');
    const pathname = queryStart === -1 ? url : url.slice(0, queryStart);
    let segments: string[] | undefined;
    let route: CompiledPath | undefined;
    for (const candidate of paths) {
      const match = candidate.pattern.exec(pathname);
      if (match !== null) {
        route = candidate;
        segments = match.slice(1);
        break;
      }
    }
    if (route === undefined || segments === undefined) return next();
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    const op = route.byMethod.get(method);
    const headers =
      op === undefined ? route.headers : (route.operationHeaders.get(method) as Record<string, string>);
    for (const name in headers) res.setHeader(name, headers[name] as string);
    labelResponse(res, (op && REST_LABELS.get(op.id)) ?? REST_UNMATCHED_LABEL);
    try {
      const caller = await guard(authorizationOf(req), { address: req.socket.remoteAddress, response: res });
      if (op === undefined) {
        res.setHeader('Allow', route.allow);
        if (req.method === 'OPTIONS') {
          res.statusCode = 204;
          res.end();
          return;
        }
        throw new AppError(
          'method_not_allowed',
          `${req.method} is not allowed here; allowed: ${route.allow}`,
        );
      }
      const compressed = compressAnswer !== undefined && op.success.paged !== undefined && method === 'GET';
      if (compressed) compressAnswer(req, res);
      // Preconditions (RFC 9110 section 13.2.2): on an unsafe method before the content is read and the operation
      // runs; on GET and HEAD once the operation has answered (a 404 is a 404 whatever they say).
      const safe = method === 'GET';
      const input = await readInput(op, req, res, segments, route.parameterNames, () => {
        if (!safe && evaluatePreconditions(req.method, req.headers) === 'failed') throw preconditionFailed();
      });
      const { success } = op;
      if (success.stream !== undefined) {
        // A stream: the operation checks its input (and may refuse: 400, 410, 429) before the first byte is sent.
        // Listened for before the operation runs: a client gone while it checks (a slow database) still stops it.
        const stop = new AbortController();
        res.once('close', () => stop.abort());
        if (res.destroyed) stop.abort();
        const events = (await (call[op.id] as NonNullable<(typeof call)[string]>)(input, {
          caller,
          connection: { signal: stop.signal, close: () => res.destroy() },
        })) as PositionedEvents;
        // A 304 or a 412 opens no stream: its answer ends the response, whose close stops the operation.
        if (answeredConditionally(req, res, false)) return;
        return await sendEventStream(req, res, events, {
          ...eventStream,
          onInternalError,
        });
      }
      let output: unknown;
      if (success.paged === undefined) {
        output = await (call[op.id] as NonNullable<(typeof call)[string]>)(input, { caller });
        if (safe && answeredConditionally(req, res, compressed)) return;
      } else {
        const page = (await (call[success.paged.via] as NonNullable<(typeof call)[string]>)(input, {
          caller,
        })) as {
          items: unknown;
          nextCursor: string | null;
        };
        output = page.items;
        if (safe && answeredConditionally(req, res, compressed)) return;
        if (page.nextCursor !== null) {
          res.setHeader('Link', nextLink(requestBaseUrl(req, publicBaseUrl), op, input, page.nextCursor));
        }
      }
      if (success.location !== undefined) {
        const values: Record<string, unknown> = {};
        for (const [name, field] of Object.entries(success.location.params)) {
          values[name] = (output as Record<string, unknown>)[field];
        }
        res.setHeader('Location', `${API_BASE_PATH}${fillPath(success.location.path, values)}`);
      }
      if (success.body === undefined) {
        res.statusCode = success.status;
        res.end();
        return;
      }
      const write = bodyWriters[success.body.id] ?? stringifyJson;
      sendJsonText(res, success.status, write(output as never));
    } catch (error) {
      handleError(error, req, res, onInternalError);
    }
  };
}
