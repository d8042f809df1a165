import type { IncomingMessage, ServerResponse } from 'node:http';
import { getTRPCErrorFromUnknown, getTRPCErrorShape, TRPCError, transformTRPCResponse } from '@trpc/server';
import type { TRPCErrorShape } from '@trpc/server/rpc';
import type { AppRouter } from './router.js';
import type { TrpcContext } from './trpc.js';

// tRPC 11's HTTP adapters turn every Node request into a fetch `Request` and every answer into a `Response`
// (URL, Headers, streams, abort signals), and run each call through its middleware chain, which copies the
// call's options at every level: in the profile that was most of the cost of a tRPC call beyond the REST one.
// Our procedures are built from the contract with no middleware (router.ts): parse the input with the
// operation's schema, call its handler. For the plain JSON calls our clients make (httpLink, httpBatchLink),
// whose request our own middleware has already read and checked, the calls run here exactly that way, with
// tRPC's own transformer and error shapes, and the answer is written in tRPC's format byte for byte (a test
// sends the same requests through both paths and compares them). Anything else (streaming links, an unknown
// procedure, a query sent as a mutation) is left to tRPC's handler.

/** What a procedure of ours does: its input schema and its handler (router.ts builds the same from the contract). */
export interface FastProcedure {
  type: 'query' | 'mutation';
  input: { safeParse(value: unknown): { success: true; data: unknown } | { success: false; error: unknown } };
  handle(input: unknown, ctx: TrpcContext): Promise<unknown>;
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
 * Returns a function that serves a call on the fast path and says true, or says false without touching the
 * response when tRPC's own handler must answer it.
 */
export function createTrpcFastPath(
  appRouter: AppRouter,
  procedures: ReadonlyMap<string, FastProcedure>,
  responseHeaders: (paths: readonly string[], errors: readonly TRPCError[]) => Record<string, string>,
) {
  const config = appRouter._def._config;
  const deserialize = (value: unknown) => config.transformer.input.deserialize(value);

  return async (req: IncomingMessage, res: ServerResponse, call: FastCall): Promise<boolean> => {
    if (req.headers['trpc-accept'] !== undefined || (req.method !== 'GET' && req.method !== 'POST'))
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
        let input: unknown;
        try {
          input = inputOf(index);
          const parsed = (procedure as FastProcedure).input.safeParse(input);
          // As tRPC's input parser does: a schema failure is BAD_REQUEST with the validation error as its cause.
          if (!parsed.success) throw new TRPCError({ code: 'BAD_REQUEST', cause: parsed.error as Error });
          const data = await (procedure as FastProcedure).handle(parsed.data, call.ctx);
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
    const body = JSON.stringify(
      transformTRPCResponse(config, call.batch ? outcomes : (outcomes[0] as Outcome)),
    );
    res.statusCode = status;
    res.setHeader('Content-Type', 'application/json');
    res.setHeader('Content-Length', Buffer.byteLength(body));
    res.end(body);
    return true;
  };
}
