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
import type { Request, RequestHandler, Response } from 'express';
import type * as z from 'zod/mini';
import { AppError } from '../errors.js';
import { labelResponse, REST_LABELS, REST_UNMATCHED_LABEL } from '../observability/operation-label.js';
import type { OperationContext, OperationHandler, OperationHandlers } from '../operations.js';
import { type AccessGuard, admit } from './auth.js';
import { readJsonBody } from './body.js';
import { decodePercent, type HeadersOf, pathOf, queryOf, refuseInputHeaders, refuseQuery } from './edge.js';
import { allowOf, answerOtherMethod, handleError, type InternalErrorSink } from './errors.js';
import { type EventStreamOptions, type PositionedEvents, sendEventStream } from './event-stream.js';
import { answeredConditionally, refuseFalsePreconditions } from './preconditions.js';
import { requestBaseUrl } from './request-base-url.js';
import { sendJsonText } from './send.js';

// The REST routes of the contract in one Express handler, so that the key is checked before anything else is judged
// (docs/development.md, "Home-made parts").

/** The paths of the contract: their operations by method, and the headers every answer on them carries. */
function compilePaths(operations: readonly OperationContract[], publicBaseUrl: string | undefined) {
  const byPath = Map.groupBy(operations.filter(isRestOperation), (op) => op.path);
  // A literal path before a templated one it also fits (`/pets/events` before `/pets/{petId}`), as OpenAPI matches.
  const templated = (path: string) => (path.includes('{') ? 1 : 0);
  return [...byPath]
    .sort(([a], [b]) => templated(a) - templated(b))
    .map(([path, ops]) => ({
      pattern: pathPattern(path, API_BASE_PATH),
      parameterNames: pathParameterNames(path),
      // Every answer of an operation carries its headers, errors included (stability, deprecation).
      // ... and reads the headers it declares (lower case); any other the contract reads is refused.
      byMethod: new Map(
        ops.map((op) => {
          const reads = new Set(Object.keys(op.request.headers ?? {}).map((name) => name.toLowerCase()));
          return [op.method as string, { op, headers: operationResponseHeaders(op, publicBaseUrl), reads }];
        }),
      ),
      // For 405 and OPTIONS: HEAD wherever GET is.
      allow: allowOf(ops.map((op) => op.method)),
      headers: pathResponseHeaders(ops, publicBaseUrl), // for a method the path does not serve
    }));
}

/** The path of `url` that matches it, with the path's raw parameter segments, and the headers of its answers. */
function match(paths: ReturnType<typeof compilePaths>, method: string, url: string) {
  const pathname = pathOf(url);
  for (const route of paths) {
    const found = route.pattern.exec(pathname);
    if (found === null) continue;
    const served = method === 'HEAD' ? 'GET' : method;
    const { op, headers = route.headers, reads } = route.byMethod.get(served) ?? {};
    return { route, segments: found.slice(1), served, op, headers, reads };
  }
  return undefined;
}

/** The headers of the operation `method` and `url` name, for answers given before it runs (the edge's refusals). */
export function operationHeadersOf(
  contract: Readonly<Record<string, OperationContract>> = defaultContract,
  publicBaseUrl?: string,
): HeadersOf {
  const paths = compilePaths(Object.values(contract), publicBaseUrl);
  return (method, url) => match(paths, method, url)?.headers;
}

/** A request part (or a whole input) checked by its schema: the parsed value, or 400 naming each field. */
export function parseOr400<T extends z.ZodMiniType>(schema: T, value: unknown, subject: string): z.output<T> {
  const result = schema.safeParse(value);
  if (!result.success) throw new AppError('validation_failed', describeIssues(result.error, subject, value));
  return result.data;
}

/**
 * The operation's typed input from the request: path parameters, query and body, each checked on its own. An unsafe
 * method's preconditions are judged before its content is read (RFC 9110 section 13.2.2; 415 and 413 beat 412).
 */
async function readInput(
  op: RestOperationContract,
  req: Request,
  res: Response,
  segments: string[],
  parameterNames: string[],
  reads: ReadonlySet<string> | undefined,
): Promise<unknown> {
  const { params, query, body, headers } = op.request;
  refuseInputHeaders(req, undefined, reads);
  let input: Record<string, unknown> = {};
  if (params !== undefined) {
    const values = parameterNames.map((name, index) => [
      name,
      decodePercent(segments[index] as string, `path parameter ${JSON.stringify(name)}`),
    ]);
    input = parseOr400(params, Object.fromEntries(values), 'path parameter');
  }
  if (query === undefined) refuseQuery(req);
  else Object.assign(input, parseOr400(query, queryOf(req), 'query parameter'));
  if (op.method !== 'GET') refuseFalsePreconditions(req, { content: body !== undefined });
  if (body !== undefined) {
    const parsed = parseOr400(body.schema, (await readJsonBody(req, res)).value, 'field');
    // A body is the whole input when it is the only part; otherwise its fields join the others.
    input =
      params === undefined && query === undefined
        ? (parsed as Record<string, unknown>)
        : Object.assign(input, parsed);
  }
  // Declared headers become their input fields as sent: the service judges them, as over tRPC.
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
  /** The public base URL (…/v1) of `Link: rel="next"`; else built from the request's Host. */
  publicBaseUrl?: string | undefined;
  /** Compression, for an admitted read of a paged operation (app.ts says why only there). */
  compressAnswer?: ((req: Request, res: Response) => void) | undefined;
  eventStream: Pick<EventStreamOptions, 'keepAliveMs' | 'retryMs'>;
}

/** RFC 8288 `Link` to the next page: the same route, the contract's query parameters as parsed, the new cursor. */
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
  const paths = compilePaths(Object.values(contract), publicBaseUrl);
  const call = (id: string, input: unknown, context: OperationContext) =>
    (
      handlers[id as keyof typeof handlers] as (input: unknown, context: OperationContext) => Promise<unknown>
    )(input, context);

  return async (req, res, next) => {
    const matched = match(paths, req.method, req.url);
    if (matched === undefined) return next();
    const { route, segments, served: method, op, headers, reads } = matched;
    for (const name in headers) res.setHeader(name, headers[name] as string);
    labelResponse(res, (op && REST_LABELS.get(op.id)) ?? REST_UNMATCHED_LABEL);
    try {
      const caller = await admit(guard, req, res);
      if (op === undefined) return answerOtherMethod(req, res, route.allow);
      const compressed = compressAnswer !== undefined && op.success.paged !== undefined && method === 'GET';
      if (compressed) compressAnswer(req, res);
      // A read's preconditions are judged once the operation has answered (a 404 is a 404 whatever they say).
      const safe = method === 'GET';
      const input = await readInput(op, req, res, segments, route.parameterNames, reads);
      const { success } = op;
      if (success.stream !== undefined) {
        // The operation may refuse (400, 410, 429) before the first byte; a client gone meanwhile still stops it.
        const stop = new AbortController();
        res.once('close', () => stop.abort());
        if (res.destroyed) stop.abort();
        const events = (await call(op.id, input, {
          caller,
          connection: { signal: stop.signal, close: () => res.destroy() },
        })) as PositionedEvents;
        // A 304 or a 412 opens no stream: its answer ends the response, whose close stops the operation.
        if (answeredConditionally(req, res)) return;
        return await sendEventStream(req, res, events, { ...eventStream, onInternalError });
      }
      const result = await call(success.paged?.via ?? op.id, input, { caller });
      // A 304 of a compressed read carries the Vary its 200 would (compression adds it only to a body).
      if (safe && answeredConditionally(req, res, { vary: compressed ? 'Accept-Encoding' : undefined }))
        return;
      const { items: output, nextCursor } =
        success.paged === undefined
          ? { items: result, nextCursor: null }
          : (result as { items: unknown; nextCursor: string | null });
      if (nextCursor !== null) {
        res.setHeader('Link', nextLink(requestBaseUrl(req, publicBaseUrl), op, input, nextCursor));
      }
      if (success.location !== undefined) {
        const values: Record<string, unknown> = {};
        for (const [name, field] of Object.entries(success.location.params)) {
          values[name] = (output as Record<string, unknown>)[field];
        }
        // Under the public URL when configured (a gateway's path prefix included), as `Link: rel="next"`.
        res.setHeader(
          'Location',
          `${publicBaseUrl ?? API_BASE_PATH}${fillPath(success.location.path, values)}`,
        );
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
