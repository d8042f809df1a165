/**
 * What every group of hostile probes is built from: the Probe type, the raw request builders and the answers
 * several groups expect. No vitest import: the report script uses the probes too.
 */
import type { ErrorCode } from '@petstore/schema';
import type { RawRequest } from '../raw-http.js';

/** Which finding of the review a probe samples. */
export type Defect =
  | 'prototype names'
  | 'unauthenticated batch'
  | 'batch size'
  | 'inexact numbers'
  | 'bigint text'
  | 'invalid utf-8'
  | '__proto__ key'
  | 'media type'
  | 'plain tRPC input'
  | 'name length'
  | 'duplicate keys'
  | 'ambiguous requests'
  | 'edge';

export interface Expectation {
  status: number;
  /** The Error code, for an error status (REST: the body; tRPC: `error.data.error`). */
  code?: ErrorCode;
  /** Refused at the HTTP parser, before the app: no X-Request-Id, an Error body written by the server. */
  byNodeParser?: boolean;
  /** Largest accepted body, in bytes (an error about a 1,000-call batch must stay small). */
  maxBytes?: number;
}

export interface Probe {
  name: string;
  defect: Defect;
  /** How errors are written: the Error body (REST, /docs) or tRPC's envelope with `error.data.error`. */
  transport: 'rest' | 'trpc';
  request: RawRequest;
  expect: Expectation;
  /** Checks of a success that need the decoded value (a Pet, a batch): see probes.scenario.ts. */
  success?: SuccessCheck;
}

/** What a 2xx must carry. */
export type SuccessCheck =
  | { kind: 'pet'; name?: string; categoryId?: bigint }
  | { kind: 'pets' }
  | { kind: 'batch'; calls: number };

// Request builders ----------------------------------------------------------------------------------------------

export interface Options {
  /** Leave Authorization out. */
  anonymous?: boolean;
  /** Send this Authorization instead of the right key. */
  authorization?: string;
  /** Content-Type of a body; null: none. Default application/json. */
  contentType?: string | null;
  /** More header lines, sent after the others (a name may repeat one already sent). */
  extraHeaders?: [string, string][];
}

/** The request, with Host, Authorization (unless anonymous), Content-Type and Content-Length. */
function raw(
  method: string,
  target: string,
  body: Buffer | undefined,
  options: Options,
  host: string,
  apiKey: string,
): RawRequest {
  const headers: [string, string][] = [['Host', host]];
  if (options.authorization !== undefined) headers.push(['Authorization', options.authorization]);
  else if (!options.anonymous) headers.push(['Authorization', `Bearer ${apiKey}`]);
  if (body !== undefined) {
    const contentType = options.contentType === undefined ? 'application/json' : options.contentType;
    if (contentType !== null) headers.push(['Content-Type', contentType]);
    headers.push(['Content-Length', String(body.length)]);
  }
  headers.push(...(options.extraHeaders ?? []));
  return { method, target, headers, ...(body === undefined ? {} : { body }) };
}

const bytes = (body: string | Buffer) => (typeof body === 'string' ? Buffer.from(body, 'utf8') : body);

/** JSON text for a tRPC create of `name` with categoryId written as a superjson bigint (`"12"`). */
export const trpcNewPet = (name: string, categoryId = '1') =>
  `{"json":{"name":${JSON.stringify(name)},"categoryId":"${categoryId}"},"meta":{"values":{"categoryId":["bigint"]}}}`;

/** `count` calls of `procedure`, the path of a batch. */
export const batchPath = (procedure: string, count: number) => Array(count).fill(procedure).join(',');

/** A batch input `{"0": envelope, "1": envelope, ...}`. */
export const batchInput = (count: number, envelope: (index: number) => string) =>
  `{${Array.from({ length: count }, (_, index) => `"${index}":${envelope(index)}`).join(',')}}`;

/** The probes of one run and the builders that add to them. */
export type ProbeKit = ReturnType<typeof createProbeKit>;

/** An empty list of probes and the builders that add to it, for requests to `host` with `apiKey`. */
export function createProbeKit(host: string, apiKey: string) {
  const probes: Probe[] = [];
  const add = (probe: Probe) => probes.push(probe);

  const rest = (
    defect: Defect,
    name: string,
    method: string,
    target: string,
    expect: Expectation,
    body?: string | Buffer,
    options: Options & { success?: SuccessCheck } = {},
  ) =>
    add({
      name,
      defect,
      transport: 'rest',
      request: raw(method, target, body === undefined ? undefined : bytes(body), options, host, apiKey),
      expect,
      ...(options.success ? { success: options.success } : {}),
    });
  const trpcGet = (
    defect: Defect,
    name: string,
    path: string,
    input: string | undefined,
    expect: Expectation,
    options: Options & { batch?: boolean; success?: SuccessCheck; encodedInput?: string } = {},
  ) => {
    const query = [
      ...(options.batch ? ['batch=1'] : []),
      ...(options.encodedInput !== undefined
        ? [`input=${options.encodedInput}`]
        : input !== undefined
          ? [`input=${encodeURIComponent(input)}`]
          : []),
    ].join('&');
    add({
      name,
      defect,
      transport: 'trpc',
      request: raw(
        'GET',
        `/v1/trpc/${path}${query === '' ? '' : `?${query}`}`,
        undefined,
        options,
        host,
        apiKey,
      ),
      expect,
      ...(options.success ? { success: options.success } : {}),
    });
  };
  const trpcPost = (
    defect: Defect,
    name: string,
    path: string,
    body: string | Buffer,
    expect: Expectation,
    options: Options & { batch?: boolean; success?: SuccessCheck } = {},
  ) =>
    add({
      name,
      defect,
      transport: 'trpc',
      request: raw(
        'POST',
        `/v1/trpc/${path}${options.batch ? '?batch=1' : ''}`,
        bytes(body),
        options,
        host,
        apiKey,
      ),
      expect,
      ...(options.success ? { success: options.success } : {}),
    });
  return { probes, add, rest, trpcGet, trpcPost, host, apiKey };
}

// Answers several groups expect ---------------------------------------------------------------------------------

export const notFound: Expectation = { status: 404, code: 'route_not_found' };
export const invalid: Expectation = { status: 400, code: 'validation_failed' };
export const malformed: Expectation = { status: 400, code: 'malformed_json' };
export const unauthorized: Expectation = { status: 401, code: 'unauthorized', maxBytes: 1_000 };
export const unsupported: Expectation = { status: 415, code: 'unsupported_media_type' };
export const created: Expectation = { status: 201 };
export const ok: Expectation = { status: 200 };
