// Every response a test server sends, checked against the OpenAPI document that server serves, on the server
// itself: whatever sent the request (fetch, the clients, a raw socket, a fuzzer), whichever test it belongs to.
// The checking is openapi-backend's (a maintained OpenAPI 3.1 router and validator, Ajv underneath): the route
// and operation, the status declared for it, every header sent declared for that status (its `subset` match),
// and the body valid against the declared schema. On top of it, two rules of our document that a generic
// validator does not know: a header the document marks `required` is present, and an Error body's `code` is one
// of the codes the status lists (`x-error-codes`). A response the document does not describe is a violation;
// the test server fails its close() with the list, so the test file that provoked it fails.
//
// A `text/event-stream` answer (the change feed) may never end, so it is not held until it does: its status and
// headers are checked as soon as they are written, then each complete event as it goes out (the Server-Sent Events
// framing parsed by eventsource-parser from exactly what the server writes): its `data` valid against the schema
// the document's `x-event-schema` names, `id:` equal to data.id, `event:` equal to data.kind, and an `event: error`
// carrying an Error whose code the document lists for the operation.
//
// Requests the edge refuses before routing (a malformed header, too many fields, an unmet Expect) count as the
// operation's when their method and path name one. What Node's parser refuses before there is a request (bytes
// that are not HTTP) has no operation and is not checked here (edge.test.ts covers it).
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { brotliDecompressSync, gunzipSync, inflateSync, zstdDecompressSync } from 'node:zlib';
import { createOpenApiJson, type OpenApiOptions, parseJson } from '@petstore/schema';
import { SECURITY_HEADER_CONTRACTS } from '@petstore/schema/internal';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
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

/** The documentation's own answers (the page, its assets, the document), with a cache policy of their own. */
const DOCUMENTATION = /^\/(docs(\/|\?|$)|v1\/openapi\.json(\?|$))/;

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
  /**
   * What is wrong with one event of a `text/event-stream` answer to `operation` (`where` names the answer), as
   * sentences; empty when the document describes it.
   */
  eventProblems(operation: Operation, event: EventSourceMessage, where: string): string[];
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

  // The schemas events are checked against, compiled once each: refs point into the document's components.
  const DOCUMENT_ID = 'https://petstore.invalid/openapi.json';
  const eventAjv = new Ajv2020({ strict: false, allErrors: true });
  eventAjv.addFormat('int64', { type: 'number', validate: Number.isInteger });
  eventAjv.addSchema({ $id: DOCUMENT_ID, components: document.components });
  const compiled = new Map<string, ValidateFunction>();
  const compile = (schema: Json): ValidateFunction => {
    const text = JSON.stringify(schema).replaceAll('"$ref":"#/', `"$ref":"${DOCUMENT_ID}#/`);
    let validate = compiled.get(text);
    if (validate === undefined) {
      validate = eventAjv.compile(JSON.parse(text));
      compiled.set(text, validate);
    }
    return validate;
  };
  const schemaErrors = (validate: ValidateFunction) =>
    (validate.errors ?? []).map((error) => `${error.instancePath || '(data)'} ${error.message}`).join('; ');

  return {
    seen,
    eventProblems(operation, event, where) {
      const { operationId } = operation;
      const responses = operation.responses as Json;
      const streamed = Object.values(responses).find(
        (response: Json) => response.content?.['text/event-stream'] !== undefined,
      ) as Json | undefined;
      const schema = streamed?.content['text/event-stream']['x-event-schema'] as Json | undefined;
      if (schema === undefined) return [`${where}: events, where the document declares no x-event-schema`];
      const shown = JSON.stringify(event).slice(0, 300);
      let data: unknown;
      let exact: unknown;
      try {
        data = JSON.parse(event.data);
        exact = parseJson(event.data);
      } catch {
        return [`${where}: an event whose data is not one JSON text: ${shown}`];
      }
      if (event.event === 'error') {
        // A stream that cannot go on (it fell behind the retention) ends with the Error it would have answered.
        const validate = compile({ $ref: '#/components/schemas/Error' });
        if (!validate(data))
          return [`${where}: an error event that is not an Error (${schemaErrors(validate)}): ${shown}`];
        const codes = Object.values(responses).flatMap((response: Json) => response['x-error-codes'] ?? []);
        const { code } = data as { code: string };
        return codes.includes(code)
          ? []
          : [
              `${where}: an error event with the code ${code}, which the document does not list for ${operationId}`,
            ];
      }
      const found: string[] = [];
      const validate = compile(schema);
      if (!validate(data))
        found.push(`${where}: an event off its schema (${schemaErrors(validate)}): ${shown}`);
      const { id, kind } = (exact ?? {}) as { id?: unknown; kind?: unknown };
      if (event.id === undefined || event.id !== String(id))
        found.push(`${where}: an event whose id: is not its data's id: ${shown}`);
      if (event.event === undefined || event.event !== kind)
        found.push(`${where}: an event whose event: is not its data's kind: ${shown}`);
      return found;
    },
    operationOf(method, target) {
      const end = target.search(/[?#]/); // the path ends at the query or the fragment
      const path = end === -1 ? target : target.slice(0, end);
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
 * A request listener that hands each request to `handler` and checks its answer when the request names an operation;
 * `report` receives the problems of each answer (or, for a stream, of each event) that has some. An answer is
 * checked once written whole; a `text/event-stream` one as soon as its head is written, then event by event.
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
      // Set once the head of a `text/event-stream` answer is out: then chunks go to it, not to `chunks`.
      let stream: { feed(chunk: Buffer): void; finish(): void } | undefined;
      let decided = false;
      const keep = (chunk: unknown, encoding?: unknown) => {
        if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
        const bytes =
          typeof chunk === 'string'
            ? Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8')
            : Buffer.from(chunk as Uint8Array);
        if (!decided && res.headersSent) {
          decided = true;
          if (method !== 'HEAD') stream = streamChecker();
        }
        if (stream === undefined) chunks.push(bytes);
        else stream.feed(bytes);
      };
      const streamChecker = () => {
        const { status, headers } = sentHead(res);
        if (!/^text\/event-stream\b/i.test(headers['content-type'] ?? '')) return undefined;
        const where = `${method} ${target} (${operation.operationId}) answered ${status}`;
        // The head, now: the status listed, the headers declared, the required ones there.
        const problems = validator.problems(operation, {
          method,
          target,
          status,
          headers,
          body: Buffer.alloc(0),
        });
        if (headers['content-encoding'] !== undefined)
          problems.push(
            `${where}: a stream sent with Content-Encoding ${headers['content-encoding']} (held back by the coder)`,
          );
        if (problems.length > 0) report(problems);
        const decoder = new TextDecoder('utf-8', { fatal: true });
        let tail = '';
        const parser = createParser({
          onEvent: (event) => {
            const found = validator.eventProblems(operation, event, where);
            if (found.length > 0) report(found);
          },
          onError: (error) => report([`${where}: the stream's framing: ${error.message}`]),
        });
        return {
          feed(chunk: Buffer) {
            let text: string;
            try {
              text = decoder.decode(chunk, { stream: true });
            } catch {
              report([`${where}: the stream is not UTF-8`]);
              return;
            }
            tail = (tail + text).slice(-2);
            parser.feed(text);
          },
          finish() {
            // An answer ended by the server (not cut): nothing left half-framed.
            if (tail !== '' && tail !== '\n\n') report([`${where}: the stream ends inside an event`]);
          },
        };
      };
      const { write, end } = res;
      res.write = function (this: ServerResponse, chunk: unknown, ...rest: unknown[]) {
        const written = (write as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
        keep(chunk, rest[0]);
        return written;
      } as typeof res.write;
      res.end = function (this: ServerResponse, chunk?: unknown, ...rest: unknown[]) {
        const ended = (end as (...args: unknown[]) => ServerResponse).call(this, chunk, ...rest);
        keep(chunk, rest[0]);
        return ended;
      } as typeof res.end;
      let checked = false;
      const check = () => {
        // An answer written whole: 'finish', or 'close' when the connection was torn down right after the last
        // byte was handed over (a refusal that closes the connection); never a response cut short.
        if (checked || !res.writableEnded) return;
        checked = true;
        if (stream !== undefined) {
          stream.finish();
          return;
        }
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
    } else if (!DOCUMENTATION.test(target)) {
      // Answers the document does not describe (tRPC, MCP, health, a 404): still every answer's fixed headers,
      // with their values, whichever library wrote the rest (tRPC's streams and the MCP SDK say `no-cache`).
      let checked = false;
      const check = () => {
        if (checked || !res.headersSent) return;
        checked = true;
        const { status, headers } = sentHead(res);
        const wrong = Object.entries(SECURITY_HEADER_CONTRACTS)
          .filter(([name, { value }]) => headers[name.toLowerCase()] !== value)
          .map(
            ([name, { value }]) =>
              `${name}: ${headers[name.toLowerCase()] ?? '(absent)'} instead of ${value}`,
          );
        if (wrong.length > 0) report([`${method} ${target} answered ${status} with ${wrong.join('; ')}`]);
      };
      res.once('finish', check);
      res.once('close', check);
    }
    handler(req, res);
  };
}
