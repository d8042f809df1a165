import type { ServerResponse } from 'node:http';
import { API_BASE_PATH, operations, TRPC_ENDPOINT, TRPC_MAX_BATCH_SIZE, trpcPath } from '@petstore/schema';
import { deprecationHeaders, unknownKeysMessage } from '@petstore/schema/internal';
import { getTRPCErrorShape, transformTRPCResponse } from '@trpc/server';
import { createExpressMiddleware } from '@trpc/server/adapters/express';
import type { Request, RequestHandler, Response } from 'express';
import vary from 'vary';
import { AppError, internalError, toAppError } from '../errors.js';
import { type AccessGuard, admit } from '../http/auth.js';
import { parseJsonText, readJsonBody } from '../http/body.js';
import {
  decodePercent,
  givenTwice,
  pathOf,
  type QueryParameters,
  queryOf,
  refuseInputHeaders,
} from '../http/edge.js';
import { allowOf, answerOtherMethod } from '../http/errors.js';
import { refuseFalsePreconditions } from '../http/preconditions.js';
import { FIXED_HEADERS } from '../http/request-context.js';
import { sendJsonText } from '../http/send.js';
import { labelResponse, trpcLabel } from '../observability/operation-label.js';
import type { Caller, SentPosition } from '../operations.js';
import type { AppRouter } from './router.js';
import { trpcErrorOf } from './trpc.js';
import {
  createTrpcFastPath,
  errorHeaders,
  type OutputWriters,
  routerProcedures,
  TRPC_JSON,
} from './trpc-fast-path.js';
import { checkTrpcInputs } from './trpc-input.js';

export interface TrpcHttpDeps {
  /** Serve plain JSON calls without tRPC's fetch adapter (default true; false in the test that compares both). */
  fastPath?: boolean;
  guard: AccessGuard;
  onInternalError: (error: unknown, path: string | undefined) => void;
  /** The fast path's writers of procedure outputs, by procedure path (trpc-fast-path.ts OutputWriters). */
  outputWriters?: OutputWriters | undefined;
  /** Response compression, applied to an admitted query (GET) call (app.ts says why only there). */
  compressAnswer?: ((req: Request, res: Response) => void) | undefined;
  /** The same for an answer of JSON text (http/send.ts compressJsonWith); compressAnswer when absent. */
  compressJson?: ((req: Request, res: Response) => void) | undefined;
  /** The deployment's public URL (…/v1), that a deprecated procedure's successor link is under, as on REST. */
  publicBaseUrl?: string | undefined;
}

/** Where the app mounts this middleware. */
export const TRPC_MOUNT_PATH = `${API_BASE_PATH}${TRPC_ENDPOINT}`;

/** The input header tRPC's subscriptions read, as Server-Sent Events do. */
const SSE_HEADERS: ReadonlySet<string> = new Set(['last-event-id']);

const FIXED_RECORD: Readonly<Record<string, string>> = Object.fromEntries(FIXED_HEADERS);

/**
 * Serves the tRPC router over HTTP (mounted at /v1/trpc) with REST's rules, checked once per HTTP request
 * before tRPC parses anything: the caller is admitted first (so an unknown procedure, a wrong method or a bad
 * body without a key is 401, as on REST), a batch carries at most TRPC_MAX_BATCH_SIZE calls and is charged to
 * the rate limit as that many requests, bodies are read by the same reader as REST's (media type, size, UTF-8,
 * exact numbers) and every input must be a superjson envelope. Errors found here are written in tRPC's own
 * error format, with the same `Error` body in `error.data.error`.
 */
export function trpcMiddleware(
  appRouter: AppRouter,
  {
    guard,
    onInternalError,
    fastPath: useFastPath = true,
    outputWriters,
    compressAnswer,
    compressJson = compressAnswer,
    publicBaseUrl,
  }: TrpcHttpDeps,
): RequestHandler {
  // The headers of each deprecated procedure (`pets.get`), from the contract, its successor under the public URL.
  const deprecations = new Map(operations.map((op) => [trpcPath(op), deprecationHeaders(op, publicBaseUrl)]));
  const callers = new WeakMap<ServerResponse, { caller: Caller; lastEventIds: SentPosition[] }>();
  const config = appRouter._def._config;
  const handler = createExpressMiddleware({
    router: appRouter,
    createContext: ({ req, res }) => {
      const admitted = callers.get(res);
      if (admitted === undefined) throw new Error('tRPC request without an admitted caller');
      // A subscription whose client stopped reading is dropped (it resumes from its last id when it reconnects).
      return { ...admitted, onInternalError, closeConnection: () => res.destroy(), method: req.method };
    },
    // Every answer's fixed headers again, over what the adapter writes (its streams say `no-cache, no-transform`).
    responseMeta: ({ errors }) => ({
      headers: { ...errorHeaders(errors), ...FIXED_RECORD },
    }),
  });
  const fastPath = createTrpcFastPath(appRouter, outputWriters);
  const { byPath: procedureTable } = routerProcedures(appRouter);

  const sendTrpcError = (res: Response, error: unknown, path: string) => {
    const appError = toAppError(error);
    if (appError === undefined) onInternalError(error, path);
    const known = appError ?? internalError();
    // No `path` in the shape: the error is the whole request's, and a batch's path can be long.
    const shape = getTRPCErrorShape({
      config,
      error: trpcErrorOf(known),
      type: 'unknown',
      path: undefined,
      input: undefined,
      ctx: undefined,
    });
    res.set(known.headers);
    sendJsonText(
      res,
      known.status,
      JSON.stringify(transformTRPCResponse(config, { error: shape })),
      TRPC_JSON,
    );
  };

  return async (req, res, next) => {
    const target = pathOf(req.url);
    // Only the endpoint spelt as mounted (as REST's paths are): Express matches a mount path whatever its case
    // (`/v1/TRPC`), which is no path of ours. Under it, only `<procedures>`: the adapter would name the procedure by
    // the last segment (`/x/pets.list`), so a deeper path is a 404 (in tRPC's shape, as every answer here).
    if (req.baseUrl !== TRPC_MOUNT_PATH) return next();
    const nested = target.lastIndexOf('/') !== 0;
    let path = target.slice(1);
    let batch = false;
    const method = req.method; // a HEAD is here as its GET (http/edge.ts showAsGet)
    // tRPC's `getAcceptHeader`: `trpc-accept`, else `application/jsonl` listed in `Accept`.
    const trpcAccept = req.headers['trpc-accept'];
    const streamed =
      trpcAccept === undefined
        ? req.headers.accept?.split(',').some((type) => type.trim() === 'application/jsonl') === true
        : trpcAccept === 'application/jsonl';
    try {
      // A path or query that cannot be read is refused only after the key check, as on REST (401 before 400).
      let unreadable: unknown;
      try {
        path = decodePercent(path, 'the procedure path');
        const given = queryOf(req).batch;
        if (Array.isArray(given)) throw givenTwice('batch');
        batch = given === '1';
      } catch (error) {
        unreadable = error;
      }
      // As tRPC reads it: only a batch (`batch=1`) names several procedures; otherwise the whole path, commas
      // and all, is one name (and no procedure has a comma in its name: 404).
      const procedures = batch ? path.split(',') : [path];
      labelResponse(res, trpcLabel(procedures));
      // A deprecated procedure's headers, set once here for every answer that names it, refusals before the call
      // included (REST's getPet carries them on its 401, 405, 412...).
      for (const procedure of procedures) res.set(deprecations.get(procedure));
      const types = procedures.map((name) => procedureTable.get(name)?._def.type);
      const namesKnown = types.some((type) => type !== undefined);
      // A call sent with the other method, also inside a batch (tRPC: a bare "could not be read" as text/plain): one
      // 405 naming the call, below. A subscription is a GET of its own, never in a batch.
      const kind = method === 'GET' ? 'query' : 'mutation';
      const misplacedAt = types.findIndex((type) =>
        type === 'subscription' ? method !== 'GET' || batch : type !== undefined && type !== kind,
      );
      const overCap = batch && procedures.length > TRPC_MAX_BATCH_SIZE;
      // A batch costs the calls it runs: its GET or POST, with no call misplaced, runs each named call (an unknown
      // one answers its 404 inside). Any other method, a path naming no procedure, a misplaced call or a batch over
      // the cap (its 400 below) runs none: one request, as any refused after admission.
      const runsCalls = (method === 'GET' || method === 'POST') && namesKnown && misplacedAt === -1;
      const caller = await admit(guard, req, res, batch && runsCalls && !overCap ? procedures.length : 1);
      // A path naming no procedure is no path, whatever the method and whatever else the request says: one 404, as
      // REST's unknown paths (never a 204 or 405 with an `Allow` made up for it, nor tRPC's own per-call 404).
      if (nested || (unreadable === undefined && !namesKnown)) {
        // The path as the client sent it (Express shows `/v1/trpc` to the middleware as `/`).
        throw new AppError('route_not_found', `no route for ${req.method} ${pathOf(req.originalUrl)}`);
      }
      if (unreadable !== undefined) throw unreadable;
      // Queries' answers may be compressed; a subscription's stream never is (each event goes out as written).
      // A streamed batch is tRPC's own answer (`no-transform`): compression as it is, without the JSON shortcut.
      if (method === 'GET' && !types.includes('subscription'))
        (streamed ? compressAnswer : compressJson)?.(req, res);
      if (method !== 'GET' && method !== 'POST')
        return answerOtherMethod(req, res, allowedMethods(types, batch));
      const subscription = types[0] === 'subscription';
      // tRPC reads a subscription's Last-Event-ID itself (a reconnecting EventSource sends it).
      refuseInputHeaders(req, "the call's input", subscription ? SSE_HEADERS : undefined);
      if (overCap) {
        throw new AppError(
          'validation_failed',
          `a batch may carry at most ${TRPC_MAX_BATCH_SIZE} calls; this one carries ${procedures.length}`,
        );
      }
      // tRPC answers this with a JSON body labelled text/plain; ours is the same 400, readable as JSON.
      if (!batch && streamed) {
        throw new AppError(
          'validation_failed',
          'a streamed tRPC call (trpc-accept: application/jsonl) must be a batch: add ?batch=1, even for one call',
        );
      }
      // The misplaced call's 405, in tRPC's error shape.
      if (misplacedAt !== -1) {
        const [misplaced, type] = [procedures[misplacedAt], types[misplacedAt]];
        const hint = batch ? '; a batch carries only queries (GET) or only mutations (POST)' : '';
        const message =
          type === 'subscription'
            ? `${misplaced} is a subscription: open it alone with GET (httpSubscriptionLink)`
            : `${misplaced} is a ${type}: send it with ${type === 'query' ? 'GET' : 'POST'}${hint}`;
        const allow = allowedMethods(types, batch);
        return sendTrpcError(res, new AppError('method_not_allowed', message, { Allow: allow }), path);
      }
      // tRPC reads `batch`, on a GET `input`, and on a subscription a reconnecting EventSource's last event id
      // (LAST_EVENT_ID_PARAMETERS); anything else in the query would be ignored, and a POST's `input` in the URL
      // would be dropped for the body's: refused, as REST refuses what it does not read.
      const parameters = queryOf(req);
      if (parameters.batch !== undefined && !batch) {
        throw new AppError('validation_failed', 'batch must be 1 (a batch) or absent (one call)');
      }
      if (method === 'POST' && parameters.input !== undefined) {
        throw new AppError(
          'validation_failed',
          'a mutation (POST) carries its input in the body only: remove the "input" query parameter',
        );
      }
      const unknown = Object.keys(parameters).filter(
        (name) =>
          name !== 'batch' && name !== 'input' && !(subscription && LAST_EVENT_ID_PARAMETERS.includes(name)),
      );
      if (unknown.length > 0) {
        throw new AppError(
          'validation_failed',
          `${unknownKeysMessage(unknown, 'query parameter')}: tRPC reads only "batch", on GET "input", and on a ` +
            `subscription ${LAST_EVENT_ID_PARAMETERS.map((p) => `"${p}"`).join(' or ')}`,
        );
      }
      for (const name in parameters) if (Array.isArray(parameters[name])) throw givenTwice(name);
      // A false precondition stops the calls before their input is read (RFC 9110 section 13.2.2); tRPC sends no
      // entity tags, and `If-None-Match: *` on a query is no 304 (a batch's calls may fail; nothing is cached).
      refuseFalsePreconditions(req, { content: method === 'POST' });
      let inputText = parameters.input as string | undefined;
      let exactQueryInput: string | undefined;
      if (method === 'POST') {
        const body = await readJsonBody(req, res);
        inputText = checkTrpcInputs(body.value, batch, procedures) ?? body.text;
        req.body = inputText;
        // Read and checked as JSON (`application/*+json` included); tRPC's own handler only knows the exact type.
        req.headers['content-type'] = 'application/json';
      } else if (inputText) {
        // (tRPC reads an empty `input=` as no input.)
        const read = parseJsonText(inputText, 'query parameter "input"');
        exactQueryInput =
          checkTrpcInputs(read.value, batch, procedures) ?? (read.text === inputText ? undefined : read.text);
        inputText = exactQueryInput ?? inputText;
      }
      const ctx = { caller, onInternalError };
      if (useFastPath && !streamed && (await fastPath(res, { paths: procedures, batch, inputText, ctx })))
        return;
      // A subscription's last event id, wherever tRPC reads it, goes to the operation beside the input (which tRPC
      // would overwrite with it), so that one rule judges every position given (stream-pet-events.ts).
      const lastEventIds = subscription ? takeLastEventIds(req, parameters) : [];
      // tRPC's own handler reads the input from the URL again (the query holds only `batch` and `input` by now),
      // and the caller from its context.
      if (exactQueryInput !== undefined || lastEventIds.length > 0) {
        req.url = `${target}?${batch ? 'batch=1&' : ''}${inputText ? `input=${encodeURIComponent(inputText)}` : ''}`;
      }
      callers.set(res, { caller, lastEventIds });
    } catch (error) {
      // Every answer under the endpoint is tRPC's, a method tRPC does not speak included (tRPC's own handler answers
      // one with its METHOD_NOT_SUPPORTED), so that tRPC's client reads each; the `Allow` set above stays.
      sendTrpcError(res, error, path);
      return;
    }
    // A streamed answer writes its headers before its calls settle: a mutation's would go out without what its
    // write adds (Petstore-Read-After), so it is held until it ends; queries still stream.
    if (method === 'POST' && streamed) holdUntilEnd(res);
    keepVary(res);
    return handler(req, res, next);
  };
}

/** The query parameters tRPC reads a subscription's last event id from, after the header (its getLastEventId). */
const LAST_EVENT_ID_PARAMETERS = ['lastEventId', 'Last-Event-Id'];

/**
 * A subscription's last event id from each place tRPC reads it (the `Last-Event-ID` header, then the query
 * parameters an EventSource that cannot send headers uses), taken off the request so that tRPC's handler does not
 * merge one of them into the input over its own `lastEventId`.
 */
function takeLastEventIds(req: Request, parameters: QueryParameters): SentPosition[] {
  const sent: SentPosition[] = [];
  const header = req.headers['last-event-id'];
  if (header !== undefined) sent.push({ source: 'Last-Event-ID header', text: header as string });
  delete req.headers['last-event-id'];
  for (const name of LAST_EVENT_ID_PARAMETERS) {
    const text = parameters[name];
    // (Each given once: the middleware refused a repeat.)
    if (typeof text === 'string') sent.push({ source: `${name} query parameter`, text });
  }
  return sent;
}

/**
 * `Allow` for procedures of these types, at least one known. An unknown one (undefined) in a batch constrains
 * nothing: the batch's GET or POST answers it with a 404 inside, the known calls with theirs.
 */
function allowedMethods(types: readonly (string | undefined)[], batch: boolean): string {
  // A subscription is a GET of its own, never in a batch: a batch that names one has no method at all.
  const takes = (method: 'GET' | 'POST') =>
    types.every(
      (type) =>
        type === undefined ||
        (type === 'subscription'
          ? !batch && method === 'GET'
          : (type === 'mutation') === (method === 'POST')),
    );
  return allowOf((['GET', 'POST'] as const).filter(takes));
}

/** tRPC's handler sets its `Vary` over the one the response has (CORS's Origin): it is added to it instead. */
function keepVary(res: ServerResponse): void {
  const setHeader = res.setHeader.bind(res);
  res.setHeader = ((name: string, value: number | string | readonly string[]) =>
    name.toLowerCase() === 'vary'
      ? setHeader(name, vary.append(String(res.getHeader('Vary') ?? ''), String(value)))
      : setHeader(name, value)) as ServerResponse['setHeader'];
}

/**
 * Keeps a response's bytes, and so its headers, until it ends; then writes them at once. tRPC's adapter writes
 * its stream's chunks and then ends, without callbacks (node-http's writeResponse).
 */
function holdUntilEnd(res: ServerResponse): void {
  const { write, end } = res;
  const chunks: Buffer[] = [];
  res.write = ((chunk: string | Uint8Array) =>
    chunks.push(Buffer.from(chunk)) > 0) as ServerResponse['write'];
  res.end = ((chunk?: string | Uint8Array) => {
    if (chunk !== undefined) chunks.push(Buffer.from(chunk));
    res.write = write;
    res.end = end;
    return res.end(Buffer.concat(chunks));
  }) as ServerResponse['end'];
}
