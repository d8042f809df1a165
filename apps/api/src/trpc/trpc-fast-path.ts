import type { IncomingMessage, ServerResponse } from 'node:http';
import { getTRPCErrorFromUnknown, getTRPCErrorShape, TRPCError, transformTRPCResponse } from '@trpc/server';
import type { TRPCErrorShape } from '@trpc/server/rpc';
import { type AnyProcedure, getParseFn } from '@trpc/server/unstable-core-do-not-import';
import type { AppRouter } from './router.js';
import type { TrpcContext } from './trpc.js';

// tRPC 11's HTTP adapters turn every Node request into a fetch `Request` and every answer into a `Response`
// (URL, Headers, streams, abort signals), and run each call through its middleware chain, which copies the
// call's options at every level: in the profile that was most of the cost of a tRPC call beyond the REST one.
// For the plain JSON calls our clients make (httpLink, httpBatchLink), whose request our own middleware has
// already read and checked, the calls run here with each procedure's own input parser and resolver (taken from
// the built router, so there is nothing to keep in step), tRPC's own transformer and error shapes, and the
// answer is written in tRPC's format byte for byte (trpc-fast-path.test.ts and trpc-fuzz.test.ts compare both).
//
// It cannot skip a rule: a procedure is served here only when its definition is exactly "one input parser,
// then the resolver" (`plainProcedure`); a procedure with any other middleware, an output parser or a caller
// override is served by tRPC's handler (trpc-middleware.test.ts). Anything else (streaming, an unknown
// procedure, a query sent as a mutation) is left to tRPC's handler too.

/** A procedure the fast path may run: its type, tRPC's parse function for its input, its resolver. */
export interface FastProcedure {
  type: 'query' | 'mutation';
  parse: (value: unknown) => unknown;
  resolver: (opts: Record<string, unknown>) => Promise<unknown>;
  meta: unknown;
}

/**
 * The fast form of a procedure, or undefined when it does anything the fast path does not implement. tRPC builds
 * `.input(schema).query(fn)` as two middlewares, its input validator (`_type: 'input'`) and one that calls
 * `_def.resolver`; `meta` is only ever read by middlewares, so with none it changes nothing.
 */
export function plainProcedure(procedure: AnyProcedure): FastProcedure | undefined {
  const def = procedure._def as AnyProcedure['_def'] & {
    inputs: unknown[];
    middlewares: { _type?: string; name: string }[];
    output?: unknown;
    resolver?: FastProcedure['resolver'];
    caller?: unknown;
  };
  const [input, resolve] = def.middlewares;
  if (
    (def.type !== 'query' && def.type !== 'mutation') ||
    def.inputs.length !== 1 ||
    def.middlewares.length !== 2 ||
    input?._type !== 'input' ||
    input.name !== 'inputValidatorMiddleware' ||
    resolve?.name !== 'resolveMiddleware' ||
    def.output !== undefined ||
    def.caller !== undefined ||
    def.resolver === undefined
  ) {
    return undefined;
  }
  return {
    type: def.type,
    parse: getParseFn(def.inputs[0] as never),
    resolver: def.resolver,
    meta: def.meta,
  };
}

/** Every procedure of the router (`pets.list`), and the ones the fast path may serve. */
export function routerProcedures(appRouter: AppRouter) {
  // At run time `_def.procedures` is flat (`pets.list`), whatever its type says.
  const all = appRouter._def.procedures as unknown as Record<string, AnyProcedure>;
  const byPath = new Map<string, AnyProcedure>(Object.entries(all));
  const fast = new Map<string, FastProcedure>();
  for (const [path, procedure] of byPath) {
    const plain = plainProcedure(procedure);
    if (plain !== undefined) fast.set(path, plain);
  }
  return { byPath, fast };
}

/** tRPC's `getAcceptHeader` on a Node request: `trpc-accept`, else `application/jsonl` listed in `Accept`. */
export function trpcAccept(req: IncomingMessage): string | undefined {
  const header = req.headers['trpc-accept'];
  if (header !== undefined) return Array.isArray(header) ? header.join(', ') : header;
  return req.headers.accept?.split(',').some((type) => type.trim() === 'application/jsonl')
    ? 'application/jsonl'
    : undefined;
}

export interface FastCall {
  /** Procedure paths, one per call (a batch has several). */
  paths: readonly string[];
  batch: boolean;
  /** The request's input JSON text (the body of a POST, the `input` parameter of a GET), if any. */
  inputText: string | undefined;
  ctx: TrpcContext;
}

type Outcome = { result: { data: unknown } } | { error: TRPCErrorShape };

/**
 * Writers of a procedure's output in tRPC's wire format (superjson's envelope, as JSON text), by procedure path
 * (`pets.list`). A writer returns undefined for a value it does not write exactly as the transformer would; the
 * transformer then writes it.
 */
export type OutputWriters = ReadonlyMap<string, (value: unknown) => string | undefined>;

/**
 * Returns a function that serves a call on the fast path and says true, or says false without touching the
 * response when tRPC's own handler must answer it.
 */
export function createTrpcFastPath(
  appRouter: AppRouter,
  responseHeaders: (paths: readonly string[], errors: readonly TRPCError[]) => Record<string, string>,
  outputWriters: OutputWriters = new Map(),
) {
  const config = appRouter._def._config;
  const { fast: procedures } = routerProcedures(appRouter);
  const deserialize = (value: unknown) => config.transformer.input.deserialize(value);

  return async (req: IncomingMessage, res: ServerResponse, call: FastCall): Promise<boolean> => {
    // Streaming answers (`application/jsonl`) are tRPC's; any other `trpc-accept` value means plain JSON to it.
    if (trpcAccept(req) === 'application/jsonl' || (req.method !== 'GET' && req.method !== 'POST'))
      return false;
    const type = req.method === 'GET' ? 'query' : 'mutation';
    const called = call.paths.map((path) => procedures.get(path));
    if (called.some((procedure) => procedure === undefined || procedure.type !== type)) return false;

    const raw: unknown =
      call.inputText === undefined || call.inputText === '' ? undefined : JSON.parse(call.inputText);
    const inputOf = (index: number): unknown => {
      if (raw === undefined) return undefined;
      const envelope = call.batch ? (raw as Record<string, unknown>)[index] : raw;
      return envelope === undefined ? undefined : deserialize(envelope);
    };

    const errors: TRPCError[] = [];
    const outcomes: Outcome[] = await Promise.all(
      called.map(async (procedure, index): Promise<Outcome> => {
        const path = call.paths[index] as string;
        const { parse, resolver, meta } = procedure as FastProcedure;
        let input: unknown;
        try {
          input = inputOf(index);
          let parsed: unknown;
          try {
            parsed = await parse(input);
          } catch (cause) {
            // As tRPC's input middleware does: a parser failure is BAD_REQUEST with the failure as its cause.
            throw new TRPCError({ code: 'BAD_REQUEST', cause });
          }
          // The options tRPC's resolver middleware passes on (no abort signal: our resolvers take none).
          const data = await resolver({
            ctx: call.ctx,
            input: parsed,
            path,
            type,
            batchIndex: index,
            signal: undefined,
            getRawInput: async () => input,
            meta,
          });
          return { result: { data } };
        } catch (cause) {
          const error = getTRPCErrorFromUnknown(cause);
          errors[index] = error;
          return { error: getTRPCErrorShape({ config, error, type, path, input, ctx: call.ctx }) };
        }
      }),
    );

    const statuses = new Set(
      outcomes.map((outcome) =>
        'error' in outcome ? ((outcome.error.data as { httpStatus?: number }).httpStatus ?? 500) : 200,
      ),
    );
    const status = statuses.size === 1 ? (statuses.values().next().value as number) : 207;
    res.setHeader('Vary', 'trpc-accept, accept');
    const headers = responseHeaders(call.paths, errors.filter(Boolean));
    for (const name in headers) res.setHeader(name, headers[name] as string);
    // Each answer as tRPC writes it (`transformTRPCResponse`, then JSON.stringify), a success through its
    // procedure's writer when it has one that takes the value; a batch is the array of them.
    const items = outcomes.map((outcome, index) => {
      if ('result' in outcome) {
        const text = outputWriters.get(call.paths[index] as string)?.(outcome.result.data);
        if (text !== undefined) return `{"result":{"data":${text}}}`;
      }
      return JSON.stringify(transformTRPCResponse(config, outcome));
    });
    const body = call.batch ? `[${items.join(',')}]` : (items[0] as string);
    res.statusCode = status;
    res.setHeader('Content-Type', 'application/json');
    res.setHeader('Content-Length', Buffer.byteLength(body));
    res.end(body);
    return true;
  };
}
