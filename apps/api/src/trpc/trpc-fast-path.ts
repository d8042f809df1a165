import type { ServerResponse } from 'node:http';
import { getTRPCErrorFromUnknown, getTRPCErrorShape, TRPCError, transformTRPCResponse } from '@trpc/server';
import { getHTTPStatusCode } from '@trpc/server/http';
import type { TRPCErrorShape } from '@trpc/server/rpc';
import { type AnyProcedure, getParseFn } from '@trpc/server/unstable-core-do-not-import';
import vary from 'vary';
import { toAppError } from '../errors.js';
import type { AppRouter } from './router.js';
import type { TrpcContext } from './trpc.js';

// tRPC without its fetch adapter, for the plain JSON calls our middleware has already read and checked: kept for
// its figure (docs/development.md, "Home-made parts"); its answer is tRPC's byte for byte (trpc-fast-path.test.ts,
// trpc-fuzz.test.ts). Only a procedure that is exactly "one input parser, then the resolver" is served here
// (trpc-middleware.test.ts); anything else is left to tRPC's handler, so no rule is skipped.

/** The media type of every tRPC answer in JSON (tRPC's adapter's spelling), the refusals before a call included. */
export const TRPC_JSON = 'application/json';

/** A procedure the fast path may run. */
export interface FastProcedure {
  type: 'query' | 'mutation';
  parse: (value: unknown) => unknown;
  resolver: (opts: Record<string, unknown>) => Promise<unknown>;
  meta: unknown;
}

/**
 * The fast form of a procedure, or undefined when it does anything more. tRPC builds `.input(schema).query(fn)`
 * as two middlewares, its input validator and one that calls `_def.resolver`; `meta` is only read by middlewares.
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
  const byPath = new Map(
    Object.entries(appRouter._def.procedures as unknown as Record<string, AnyProcedure>),
  );
  const fast = new Map<string, FastProcedure>();
  for (const [path, procedure] of byPath) {
    const plain = plainProcedure(procedure);
    if (plain !== undefined) fast.set(path, plain);
  }
  return { byPath, fast };
}

export interface FastCall {
  /** Procedure paths, one per call. */
  paths: readonly string[];
  batch: boolean;
  /** The input JSON text (a POST's body, a GET's `input` parameter), if any. */
  inputText: string | undefined;
  ctx: TrpcContext;
}

type Outcome = { result: { data: unknown } } | { error: TRPCErrorShape };

/**
 * Writers of a procedure's output as superjson's envelope in JSON text, by procedure path. A writer returns
 * undefined for a value it does not write exactly as the transformer would, which then writes it.
 */
export type OutputWriters = ReadonlyMap<string, (value: unknown) => string | undefined>;

/** The headers our errors carry (WWW-Authenticate, Retry-After), for a tRPC answer that has them. */
export const errorHeaders = (errors: readonly TRPCError[]): Record<string, string> =>
  Object.assign({}, ...errors.map((error) => toAppError(error.cause)?.headers));

/**
 * Serves a call and says true, or says false without touching the response when tRPC's handler must answer. The
 * middleware has refused a call sent with the wrong method, and hands streamed (jsonl) calls to tRPC.
 */
export function createTrpcFastPath(appRouter: AppRouter, outputWriters: OutputWriters = new Map()) {
  const config = appRouter._def._config;
  const { fast: procedures } = routerProcedures(appRouter);

  return async (res: ServerResponse, call: FastCall): Promise<boolean> => {
    const called = call.paths.map((path) => procedures.get(path));
    if (called.includes(undefined)) return false;

    const raw: unknown = call.inputText ? JSON.parse(call.inputText) : undefined;
    const errors: TRPCError[] = [];
    const outcomes = await Promise.all(
      (called as FastProcedure[]).map(async ({ type, parse, resolver, meta }, index): Promise<Outcome> => {
        const path = call.paths[index] as string;
        let input: unknown;
        try {
          const envelope = call.batch ? (raw as Record<string, unknown> | undefined)?.[index] : raw;
          input = envelope === undefined ? undefined : config.transformer.input.deserialize(envelope);
          let parsed: unknown;
          try {
            parsed = await parse(input);
          } catch (cause) {
            // As tRPC's input middleware does.
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

    // The calls' common status, or 207 when they differ.
    res.statusCode = getHTTPStatusCode(outcomes, errors);
    // Added to the Vary the response has (CORS's Origin), as tRPC's own list.
    vary(res, 'trpc-accept, accept');
    const headers = errorHeaders(errors.filter(Boolean));
    for (const name in headers) res.setHeader(name, headers[name] as string);
    const items = outcomes.map((outcome, index) => {
      if ('result' in outcome) {
        const text = outputWriters.get(call.paths[index] as string)?.(outcome.result.data);
        if (text !== undefined) return `{"result":{"data":${text}}}`;
      }
      return JSON.stringify(transformTRPCResponse(config, outcome));
    });
    const body = call.batch ? `[${items.join(',')}]` : (items[0] as string);
    res.setHeader('Content-Type', TRPC_JSON);
    res.setHeader('Content-Length', Buffer.byteLength(body));
    res.end(body);
    return true;
  };
}
