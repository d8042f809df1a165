// Every response a test server sends, checked against the OpenAPI document that server serves, on the server
// itself: whatever sent the request (fetch, the clients, a raw socket, a fuzzer), whichever test it belongs to.
// The checking is openapi-backend's (a maintained OpenAPI 3.1 router and validator, Ajv underneath): the route
// and operation, the status declared for it, every header sent declared for that status (its `subset` match),
// and the body valid against the declared schema. On top of it, two rules of our document that a generic
// validator does not know: a header the document marks `required` is present, and an Error body's `code` is one
// of the codes the status lists (`x-error-codes`). A response the document does not describe is a violation;
// the test server fails its close() with the list, so the test file that provoked it fails.
//
// Requests the edge refuses before routing (a malformed header, too many fields, an unmet Expect) count as the
// operation's when their method and path name one. What Node's parser refuses before there is a request (bytes
// that are not HTTP) has no operation and is not checked here (edge.test.ts covers it).
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { brotliDecompressSync, gunzipSync, inflateSync, zstdDecompressSync } from 'node:zlib';
import { createOpenApiJson, type OpenApiOptions } from '@petstore/schema';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { OpenAPIBackend, type Operation } from 'openapi-backend';

// biome-ignore lint/suspicious/noExplicitAny: a JSON document walked by path
type Json = Record<string, any>;

/**
 * Message-level fields of HTTP/1.1 that describe the connection or the framing, not the operation's answer:
 * never declared per response in an OpenAPI document (OpenAPI 3.1 section 4.8.17.1 says a `Content-Type` header
 * definition is ignored). Every other field a response carries must be declared for its status.
 */
const MESSAGE_FIELDS = new Set([
  'content-type',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'date',
]);

/** One response as it went on the wire. */
export interface Exchange {
  method: string;
  /** The request target in origin-form: `/v1/pets?limit=2`. */
  target: string;
  status: number;
  /** Field names in lower case; a repeated field's values joined with `, `. */
  headers: Record<string, string>;
  /** The body as sent (still coded when Content-Encoding says so). */
  body: Buffer;
}

export interface ResponseValidator {
  /** The operation a request names (HEAD names the GET), or undefined: then its answer is not the document's. */
  operationOf(method: string, target: string): Operation | undefined;
  /** What is wrong with this answer to `operation`, as sentences; empty when the document describes it. */
  problems(operation: Operation, exchange: Exchange): string[];
  /** `operationId status` of every answer checked so far, across the servers of this contract. */
  seen: Set<string>;
}

const decoders: Record<string, (body: Buffer) => Buffer> = {
  gzip: gunzipSync,
  'x-gzip': gunzipSync,
  deflate: inflateSync,
  br: brotliDecompressSync,
  zstd: zstdDecompressSync,
};

function decode(exchange: Exchange): Buffer {
  const coding = exchange.headers['content-encoding'];
  if (coding === undefined || coding === 'identity') return exchange.body;
  const decoder = decoders[coding];
  if (decoder === undefined) throw new Error(`unknown Content-Encoding ${coding}`);
  return decoder(exchange.body);
}

async function createResponseValidator(documentText: string): Promise<ResponseValidator> {
  const document = JSON.parse(documentText) as Json;
  const apiRoot = new URL(document.servers[0].url, 'http://x').pathname;
  const api = new OpenAPIBackend({
    definition: structuredClone(document) as never,
    apiRoot,
    // quick: no definition check at init (openapi-backend checks against OpenAPI 3.0's schema, which refuses 3.1's
    // `license.identifier` and `$ref` siblings); openapi:lint checks the document with Redocly and Spectral.
    quick: true,
    strict: true,
    ignoreTrailingSlashes: false,
    // JSON Schema 2020-12, as the document's `jsonSchemaDialect` (OpenAPI 3.1) says; int64 above 2^53 is only
    // approximately checked here (JSON.parse), the exact int64 tests live elsewhere.
    customizeAjv: (_ajv, options) => {
      const ajv = new Ajv2020({ ...options, strict: false, allErrors: true });
      ajv.addFormat('int64', { type: 'number', validate: Number.isInteger });
      return ajv as never;
    },
  });
  await api.init();
  const seen = new Set<string>();

  return {
    seen,
    operationOf(method, target) {
      const query = target.indexOf('?');
      const path = query === -1 ? target : target.slice(0, query);
      try {
        return api.router.matchOperation({
          method: method === 'HEAD' ? 'get' : method.toLowerCase(),
          path,
          headers: {},
        });
      } catch {
        return undefined;
      }
    },
    problems(operation, exchange) {
      const { operationId } = operation;
      const where = `${exchange.method} ${exchange.target} (${operationId}) answered ${exchange.status}`;
      const response = (operation.responses as Json)[String(exchange.status)] as Json | undefined;
      if (response === undefined) {
        return [`${where}, a status the document does not list: ${exchange.body.toString().slice(0, 200)}`];
      }
      seen.add(`${operationId} ${exchange.status}`);
      const found: string[] = [];
      const sent = Object.fromEntries(
        Object.entries(exchange.headers).filter(([name]) => !MESSAGE_FIELDS.has(name)),
      );
      const headers = api.validator.validateResponseHeaders(sent, operationId as string, {
        statusCode: exchange.status,
        setMatchType: 'subset' as never,
      });
      for (const error of headers.errors ?? []) {
        const extra = (error.params as { additionalProperty?: string }).additionalProperty;
        found.push(
          extra === undefined
            ? `${where}: headers ${error.instancePath} ${error.message}`
            : `${where}: sends the header ${extra}, which the document does not declare for it`,
        );
      }
      for (const [name, header] of Object.entries((response.headers ?? {}) as Json)) {
        if (header.required && sent[name.toLowerCase()] === undefined)
          found.push(`${where}: the required header ${name} is missing`);
      }
      const media = response.content?.['application/json'];
      const bytes = exchange.method === 'HEAD' ? Buffer.alloc(0) : decode(exchange);
      if (media === undefined) {
        if (bytes.length > 0) found.push(`${where}: a body the document does not describe`);
        return found;
      }
      if (exchange.method === 'HEAD' || exchange.status === 304) return found;
      if (!/^application\/json\b/.test(exchange.headers['content-type'] ?? ''))
        found.push(`${where}: Content-Type ${exchange.headers['content-type']}, not application/json`);
      let body: unknown;
      try {
        body = JSON.parse(bytes.toString());
      } catch {
        return [...found, `${where}: the body is not JSON: ${bytes.toString().slice(0, 200)}`];
      }
      const valid = api.validator.validateResponse(body, operationId as string, exchange.status);
      for (const error of valid.errors ?? [])
        found.push(`${where}: body ${error.instancePath} ${error.message} ${JSON.stringify(error.params)}`);
      const codes = response['x-error-codes'] as string[] | undefined;
      const code = (body as { code?: unknown }).code;
      if (codes !== undefined && !codes.includes(code as string))
        found.push(`${where}: Error code ${String(code)} is not one of ${codes.join(', ')}`);
      return found;
    },
  };
}

/** One validator per document (per contract), shared by every server of a test file: `seen` adds up. */
const validators = new Map<unknown, Promise<ResponseValidator>>();

export function responseValidator(contract?: OpenApiOptions['contract']): Promise<ResponseValidator> {
  let validator = validators.get(contract);
  if (validator === undefined) {
    validator = createResponseValidator(createOpenApiJson(contract === undefined ? {} : { contract }));
    validators.set(contract, validator);
  }
  return validator;
}

/** The header block Node wrote (`res._header`): status and fields exactly as sent. */
function sentHead(res: ServerResponse): { status: number; headers: Record<string, string> } {
  const head = (res as ServerResponse & { _header?: string | null })._header ?? '';
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  return { status: Number(statusLine.split(' ')[1]), headers };
}

/**
 * A request listener that hands each request to `handler` and, once its answer is written whole, checks it when the
 * request names an operation; `report` receives the problems of each answer that has some.
 */
export function validatingListener(
  validator: ResponseValidator,
  handler: RequestListener,
  report: (problems: string[]) => void,
): RequestListener {
  return (req: IncomingMessage, res: ServerResponse) => {
    const method = req.method ?? '';
    const target = req.url ?? '';
    const operation = validator.operationOf(method, target);
    if (operation !== undefined) {
      const chunks: Buffer[] = [];
      const keep = (chunk: unknown, encoding?: unknown) => {
        if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
        chunks.push(
          typeof chunk === 'string'
            ? Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8')
            : Buffer.from(chunk as Uint8Array),
        );
      };
      const { write, end } = res;
      res.write = function (this: ServerResponse, chunk: unknown, ...rest: unknown[]) {
        keep(chunk, rest[0]);
        return (write as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
      } as typeof res.write;
      res.end = function (this: ServerResponse, chunk?: unknown, ...rest: unknown[]) {
        keep(chunk, rest[0]);
        return (end as (...args: unknown[]) => ServerResponse).call(this, chunk, ...rest);
      } as typeof res.end;
      let checked = false;
      const check = () => {
        // An answer written whole: 'finish', or 'close' when the connection was torn down right after the last
        // byte was handed over (a refusal that closes the connection); never a response cut short.
        if (checked || !res.writableEnded) return;
        checked = true;
        const { status, headers } = sentHead(res);
        const problems = validator.problems(operation, {
          method,
          target,
          status,
          headers,
          body: Buffer.concat(chunks),
        });
        if (problems.length > 0) report(problems);
      };
      res.once('finish', check);
      res.once('close', check);
    }
    handler(req, res);
  };
}
