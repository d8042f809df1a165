// The contract over the Model Context Protocol at /v1/mcp, over the same handlers as REST and tRPC; the official
// SDK does the protocol, statelessly (any instance answers any call). One tool per REST operation that answers
// once, all of it from the contract; arguments go through the operation's own input, the caller is admitted by the
// same guard, errors are the contract's Error body. docs/interface-decisions.md "MCP".

import type { IncomingMessage } from 'node:http';
import { toWebRequest } from '@modelcontextprotocol/node';
import {
  type CallToolResult,
  classifyInboundRequest,
  createMcpHandler,
  fromJsonSchema,
  INVALID_PARAMS,
  INVALID_REQUEST,
  type JsonSchemaType,
  McpServer,
  PARSE_ERROR,
  specTypeSchemas,
} from '@modelcontextprotocol/server';
import {
  API_BASE_PATH,
  contract as defaultContract,
  modelJsonSchema,
  type OperationContract,
} from '@petstore/schema';
import { inputSubject, integerFromText, isRestOperation } from '@petstore/schema/internal';
import type { Router } from 'express';
import { AppError, internalError, toAppError } from '../errors.js';
import { type AccessGuard, admit } from '../http/auth.js';
import { readJsonBody } from '../http/body.js';
import { createRouter, refuseInputHeaders, refuseQuery } from '../http/edge.js';
import { allowOf, answerOtherMethod, handleError, type InternalErrorSink } from '../http/errors.js';
import { refuseFalsePreconditions } from '../http/preconditions.js';
import { FIXED_HEADERS } from '../http/request-context.js';
import { parseOr400 } from '../http/rest.js';
import { sendJsonText } from '../http/send.js';
import { labelResponse, MCP_LABEL } from '../observability/operation-label.js';
import type { Caller, OperationContext } from '../operations.js';

export const MCP_PATH = `${API_BASE_PATH}/mcp`;
/**
 * Its methods: POST carries every message (stateless: no GET stream, no DELETE of a session); OPTIONS as every path.
 * A CORS preflight is told these too (answerOtherMethod), once its Origin is allowed.
 */
const MCP_ALLOW = allowOf(['POST']);
/** The types an answer may come in: the SDK picks JSON or an event stream, so Accept must take both. */
const MCP_ANSWER_TYPES = ['application/json', 'text/event-stream'] as const;
/** The most a list tool's answer holds, in bytes of JSON (an agent's tool output is capped at about 25k tokens). */
export const MCP_PAGE_BYTES = 48 * 1024;

type Json = Record<string, unknown>;
type Handler = (input: unknown, context: OperationContext) => Promise<unknown>;

export interface McpDeps {
  handlers: Readonly<Record<string, Handler>> | object;
  contract?: Readonly<Record<string, OperationContract>> | undefined;
  guard: AccessGuard;
  onInternalError: InternalErrorSink;
  /** A tool call that failed with something other than the contract's errors (logged; the agent gets a 500 body). */
  onToolError: (error: unknown, tool: string) => void;
  /** Serve deprecated operations (getPet) as tools too; hidden by default (MCP_DEPRECATED_TOOLS). */
  deprecatedTools?: boolean | undefined;
  /**
   * The origins a browser page may call from (CORS_ORIGINS, `*` any, and the public URLs' origins): a request
   * whose Origin names another is 403. None: only requests without an Origin (agents that are no browser).
   */
  allowedOrigins?: readonly string[] | undefined;
}

// ---- schemas ---------------------------------------------------------------------------------------------

const INT64_TEXT = '^-?[0-9]+$';
const INT64_IN =
  'int64: a JSON integer (exact over the whole range), or a string spelling the integer as a REST path or query ' +
  'does (`7`, `7.0`, `7e0`).';
const INT64_OUT = 'int64, as its decimal digits (exact over the whole range).';

/**
 * A JSON Schema as an agent sees it: an int64 is a JSON integer or a string spelling one on the way in, a digit
 * string on the way out (JSON tooling rounds integers past 2^53). A bound past 2^53 is in the description only: as
 * a number it would be rounded, and one clamped to 2^53 would refuse integers the tool takes.
 */
function agentSchema(node: unknown, io: 'input' | 'output'): unknown {
  if (Array.isArray(node)) return node.map((item) => agentSchema(item, io));
  if (typeof node !== 'object' || node === null) return node;
  const schema = node as Json;
  if (schema.format === 'int64') {
    const description = [schema.description, io === 'input' ? INT64_IN : INT64_OUT].filter(Boolean).join(' ');
    if (io === 'output') return { type: 'string', pattern: INT64_TEXT, description };
    const integer: Json = { type: 'integer' };
    for (const bound of ['minimum', 'maximum'] as const) {
      if (Number.isSafeInteger(schema[bound])) integer[bound] = schema[bound];
    }
    return { description, anyOf: [integer, { type: 'string', minLength: 1 }] };
  }
  const { $schema: _dialect, ...rest } = schema;
  return Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, agentSchema(value, io)]));
}

/** Tool schemas the SDK lists and never refuses by: the operation's own input decides, as on REST and tRPC. */
const listedSchema = (schema: Json) =>
  fromJsonSchema(schema as JsonSchemaType, {
    getValidator: () => (data) => ({ valid: true, data: data as never, errorMessage: undefined }),
  });

/** JSON text of an answer, its int64 values (bigint) as digit strings, as the output schema says. */
const agentJson = (value: unknown): string =>
  JSON.stringify(value, (_key, item: unknown) => (typeof item === 'bigint' ? item.toString() : item));

/** The answer as the structured result and the same JSON as text, written once. */
const result = (value: unknown): CallToolResult => {
  const text = agentJson(value);
  return { content: [{ type: 'text', text }], structuredContent: JSON.parse(text) as Json };
};

/** A tool error: REST's Error body, and in `_meta.headers` the fields REST sends with it (a 503's `Retry-After`). */
const errorResult = (error: AppError): CallToolResult => ({
  ...result(error.toBody()),
  isError: true,
  ...(Object.keys(error.headers).length === 0 ? {} : { _meta: { headers: { ...error.headers } } }),
});

// ---- tools -----------------------------------------------------------------------------------------------

/** One tool per REST operation that answers once: a stream (the change feed) is no tool. */
function toolsOf(operations: readonly OperationContract[], deps: McpDeps) {
  const byId = new Map(operations.map((op) => [op.id, op]));
  const handlers = deps.handlers as Readonly<Record<string, Handler>>;
  return operations
    .filter(isRestOperation)
    .filter((op) => op.success.stream === undefined && (op.deprecated === undefined || deps.deprecatedTools))
    .map((op) => {
      // A paged operation answers with the page of the operation that serves it (`via`).
      const via = op.success.paged === undefined ? undefined : byId.get(op.success.paged.via);
      const answering = via?.id ?? op.id;
      const body = (via ?? op).success.body;
      const input = modelJsonSchema(op.input, 'input');
      const int64 = Object.entries((input.properties ?? {}) as Record<string, Json>)
        .filter(([, field]) => field.format === 'int64')
        .map(([name]) => name);
      const inputSchema = agentSchema(input, 'input') as Json & { properties?: Record<string, unknown> };
      // A request header that is a field of the input (Idempotency-Key): the document's rule and meaning for it.
      for (const header of Object.values(op.request.headers ?? {})) {
        if (inputSchema.properties?.[header.field] === undefined) continue;
        const { $schema: _dialect, ...rule } = modelJsonSchema(header.schema, 'input');
        inputSchema.properties[header.field] = { ...rule, description: header.description };
      }
      // The summary and what is particular to a tool (not the REST description: headers, a bare array).
      const description = [`${op.summary}.`];
      if (via !== undefined) {
        description.push(
          'Answers { items, nextCursor }, items ordered by id (oldest first): pass nextCursor back as `cursor` for ' +
            `the next page; it is null on the last. A page over ${MCP_PAGE_BYTES / 1024} KiB comes back shorter, ` +
            'with the cursor where it stopped.',
        );
      }
      if (op.deprecated !== undefined) {
        description.push(
          `Deprecated: removed on ${op.deprecated.sunset}; use ${op.deprecated.replacement} instead.`,
        );
      }
      const config = {
        title: op.summary,
        description: description.join(' '),
        inputSchema: listedSchema(inputSchema),
        outputSchema: listedSchema(
          body === undefined
            ? { type: 'object' }
            : (agentSchema(modelJsonSchema(body.schema, 'output'), 'output') as Json),
        ),
        // From the HTTP method (RFC 9110 section 9.2). A POST is additive, and idempotent only with a key, which
        // the annotation cannot know; PUT and DELETE overwrite or remove (destructive) and are idempotent.
        annotations:
          op.method === 'GET'
            ? { readOnlyHint: true, openWorldHint: false }
            : {
                readOnlyHint: false,
                destructiveHint: op.method !== 'POST',
                idempotentHint: op.method === 'PUT' || op.method === 'DELETE',
                openWorldHint: false,
              },
        _meta: {
          stability: op.stability,
          ...(op.deprecated === undefined ? {} : { deprecated: { ...op.deprecated } }),
        },
      };
      /** The call: the arguments as sent, strings at int64 fields as the integers they spell, then the input. */
      const call = async (sent: unknown, caller: Caller): Promise<CallToolResult> => {
        try {
          let args = sent === undefined ? {} : sent;
          if (typeof args === 'object' && args !== null && !Array.isArray(args)) {
            const decoded: Json = { ...(args as Json) };
            for (const name of int64) {
              const value = decoded[name];
              if (typeof value === 'string') decoded[name] = integerFromText(value);
            }
            args = decoded;
          }
          const parsed = parseOr400(op.input, args, inputSubject(op)) as Json;
          const handle = (input: unknown) => (handlers[answering] as Handler)(input, { caller });
          const answer = await handle(parsed);
          const answered = result(answer);
          const text = (answered.content[0] as { text: string }).text;
          if (via === undefined || Buffer.byteLength(text) <= MCP_PAGE_BYTES) return answered;
          // Over MCP_PAGE_BYTES: read again with as many items as fit, so that the cursor is the domain's.
          let fit = 0;
          let bytes = 300; // `{"items":[],"nextCursor":…}` with a cursor
          for (const item of (answer as { items: unknown[] }).items) {
            bytes += Buffer.byteLength(agentJson(item)) + 1;
            if (bytes > MCP_PAGE_BYTES) break;
            fit += 1;
          }
          return result(await handle({ ...parsed, limit: Math.max(fit, 1) }));
        } catch (error) {
          // A failure carries the contract's Error body (what REST would answer); a fault of ours is logged.
          const known = toAppError(error);
          if (known === undefined) deps.onToolError(error, op.id);
          return errorResult(known ?? internalError());
        }
      };
      return { name: op.id, config, call };
    });
}

/** What our layer hands each per-request server: the caller, and tools/call's `arguments` as our reader read them. */
type RequestExtra = { caller: Caller; arguments?: unknown };

// ---- HTTP ------------------------------------------------------------------------------------------------

/**
 * `/v1/mcp`. A request whose Origin is not allowed is 403 first; then each is admitted by the guard before anything
 * is read (the API key, the caller's rate limit). POST alone is served; other methods are answerOtherMethod's.
 * No RFC 9728 protected-resource metadata is served: MCP's authorization requires it to name an OAuth authorization
 * server, and keys are issued out of band (docs/interface-decisions.md, "MCP").
 */
export function mcpRouter(deps: McpDeps): Router {
  const tools = toolsOf(Object.values(deps.contract ?? defaultContract), deps);
  const handler = createMcpHandler(
    ({ authInfo }) => {
      const extra = authInfo?.extra as RequestExtra; // handed in by every fetch below
      // Stateless: the tool list never changes within a request, so no list-changed notifications are promised.
      const server = new McpServer(
        { name: 'petstore', version: '1.0.0' },
        { capabilities: { tools: { listChanged: false } } },
      );
      for (const { name, config, call } of tools)
        server.registerTool(name, config, () => call(extra.arguments, extra.caller));
      return server;
    },
    { legacy: 'stateless' },
  );
  const allowedOrigins = new Set(deps.allowedOrigins);

  const router = createRouter();
  router.all(MCP_PATH, async (req, res) => {
    labelResponse(res, MCP_LABEL);
    try {
      // MCP Streamable HTTP (2025-11-25, Security Warning): an Origin present and not allowed is 403, on a CORS
      // preflight too, never judged by Host (a page that rebinds a name to the api sends an Origin and a Host that
      // agree). Before the key: a page of another site learns nothing, not even whether a key it guessed is one.
      const { origin } = req.headers;
      if (origin !== undefined && !allowedOrigins.has('*') && !allowedOrigins.has(origin)) {
        throw new AppError(
          'forbidden',
          `a page from ${origin} may not call ${MCP_PATH}: only origins in CORS_ORIGINS or of the public URLs may`,
        );
      }
      const caller = await admit(deps.guard, req, res);
      if (req.method !== 'POST') return answerOtherMethod(req, res, MCP_ALLOW);
      // As on REST, nothing is ignored: the endpoint reads no query parameter.
      refuseQuery(req);
      refuseInputHeaders(req, "the tool's arguments");
      // Express's negotiation alone decides (RFC 9110 12.5.1: no Accept takes any type, q=0 refuses): the SDK only
      // looks for the names in the text (`text/event-stream;q=0` passed), and on its 2026-07-28 path not at all.
      // Known from the head: refused before the body is read (and before 100 Continue).
      if (!MCP_ANSWER_TYPES.every((type) => req.accepts(type))) {
        throw new AppError(
          'not_acceptable',
          `Accept must take both ${MCP_ANSWER_TYPES.join(' and ')}: the answer comes in either`,
        );
      }
      // A false precondition stops the message before it is read (RFC 9110 section 13.2.2), as on REST and tRPC.
      refuseFalsePreconditions(req, { content: true });
      // The body read as REST reads one; text that is no JSON is JSON-RPC's parse error, in the reader's words
      // (REST's malformed_json). An empty body, a wrong Content-Type, one too large stay HTTP's: there is no message
      // to answer.
      const { value } = await readJsonBody(req, res).catch((error: unknown) => {
        const known = toAppError(error);
        throw known?.code === 'malformed_json' ? new JsonRpcRefusal(PARSE_ERROR, known.message) : error;
      });
      // Read and checked as JSON (`application/*+json` included); the SDK only knows the exact type.
      if (value !== undefined) req.headers['content-type'] = 'application/json';
      req.headers.accept = MCP_ANSWER_TYPES.join(', ');
      const { id, arguments: sent } = checkMessage(value);
      refuseContradictingHeaders(req, value);
      // The SDK reads JSON itself, as doubles: it is shown each bigint as its digits (the tools read `extra`).
      const shown: unknown = value === undefined ? undefined : JSON.parse(agentJson(value));
      checkParams(shown, id);
      const extra: RequestExtra = { caller, arguments: sent };
      const request = await toWebRequest(req, shown);
      // The caller goes to the tools as the SDK's pass-through auth info; the key itself goes nowhere.
      const response = await handler.fetch(request, {
        authInfo: { token: caller.subject, clientId: caller.subject, scopes: [], extra },
      });
      res.statusCode = response.status;
      // The SDK's own headers, but not over the ones every answer carries (it says `no-cache` where ours is no-store).
      response.headers.forEach((value, name) => {
        if (!FIXED_HEADERS.has(name)) res.setHeader(name, value);
      });
      const body = Buffer.from(await response.arrayBuffer());
      res.end(response.ok || id === undefined ? body : withRequestId(res, body, id));
    } catch (error) {
      if (error instanceof JsonRpcRefusal) {
        sendJsonText(res, error.status, JSON.stringify(error.toResponse()));
        return;
      }
      handleError(error, req, res, deps.onInternalError);
    }
  });
  return router;
}

// ---- JSON-RPC ------------------------------------------------------------------------------------------

type RequestId = string | number;

/**
 * A message our layer refuses, answered as JSON-RPC 2.0 (section 5.1) since an MCP client reads the endpoint's answers
 * as JSON-RPC: a message that could not be read (-32700) or is no valid request (-32600) with id null and HTTP 400
 * (MCP Streamable HTTP: the server cannot accept it); a request whose params do not fit (-32602) with its id and
 * HTTP 200, in band, as the SDK answers a handler's error.
 */
class JsonRpcRefusal extends Error {
  constructor(
    readonly code:
      | typeof PARSE_ERROR
      | typeof INVALID_REQUEST
      | typeof INVALID_PARAMS
      | typeof HEADER_MISMATCH,
    message: string,
    readonly id: RequestId | null = null,
  ) {
    super(message);
  }
  get status(): number {
    return this.code === INVALID_PARAMS ? 200 : 400;
  }
  toResponse() {
    return { jsonrpc: '2.0', id: this.id, error: { code: this.code, message: this.message } };
  }
}

/** MCP 2026-07-28's HeaderMismatch (SEP-2243), with HTTP 400. */
const HEADER_MISMATCH = -32020;
/** `=?base64?…?=`, the form of a header value that is no ASCII text (SEP-2243). */
const BASE64_SENTINEL = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/;

/**
 * The `Mcp-Method` and `Mcp-Name` headers, which gateways route and authorise by, name what the body does on every
 * message: one whose headers name another method or tool is refused as the SDK refuses a 2026-07-28 message (which
 * it checks itself), also in the 2025 era, which has no such headers and was served by its body.
 */
function refuseContradictingHeaders(req: IncomingMessage, value: unknown): void {
  const field = (name: string) => [req.headers[name] ?? []].flat().join(', ') || undefined;
  const headers = { method: field('mcp-method'), name: field('mcp-name') };
  if (headers.method === undefined && headers.name === undefined) return;
  const protocolVersionHeader = field('mcp-protocol-version');
  const era = classifyInboundRequest({
    httpMethod: 'POST',
    body: value,
    ...(protocolVersionHeader === undefined ? {} : { protocolVersionHeader }),
  });
  if (era.kind !== 'legacy') return;
  const { method, params } = (value ?? {}) as { method?: unknown; params?: { name?: unknown } };
  const body = { method, name: method === 'tools/call' ? params?.name : undefined };
  for (const part of ['method', 'name'] as const) {
    const sent = headers[part]?.trim();
    const encoded = sent === undefined ? null : BASE64_SENTINEL.exec(sent);
    const said = encoded === null ? sent : Buffer.from(encoded[1] as string, 'base64').toString('utf8');
    if (said !== undefined && body[part] !== undefined && said !== body[part]) {
      const header = part === 'method' ? 'Mcp-Method' : 'Mcp-Name';
      throw new JsonRpcRefusal(
        HEADER_MISMATCH,
        `Bad Request: the request headers and body disagree: the ${header} header names ${JSON.stringify(said)} but the body ${part === 'method' ? 'method' : 'tool'} is ${JSON.stringify(body[part])}`,
      );
    }
  }
}

/**
 * What our layer refuses in a message before the SDK reads it, the id of a request, and the call's arguments exactly as
 * sent, for the tool to judge as REST would (the SDK's parse drops a `__proto__` key, and answers arguments that are
 * not an object with a protocol error).
 */
function checkMessage(value: unknown): { id: RequestId | undefined; arguments: unknown } {
  // A JSON-RPC batch (2025-03-26 only) would carry many tool calls for one charge of the rate limit.
  if (Array.isArray(value)) {
    throw new JsonRpcRefusal(
      INVALID_REQUEST,
      'Invalid request: JSON-RPC batches are not accepted here: send one message per request (MCP 2025-06-18 and later have no batches)',
    );
  }
  const message = value as { id?: unknown; method?: unknown; params?: { arguments?: unknown } } | undefined;
  // MCP: an id is a string or an integer, never null (JSON-RPC 2.0: it SHOULD NOT have a fractional part). The answer
  // echoes it, and the SDK reads JSON as doubles: an integer past 2^53 would come back changed (a bigint here, or NaN
  // when it has more digits than parseJson keeps). Each is an invalid request, answered here, whatever its spelling.
  const id = message?.id;
  if (id !== undefined && typeof id !== 'string' && !(typeof id === 'number' && Number.isSafeInteger(id))) {
    throw new JsonRpcRefusal(
      INVALID_REQUEST,
      'Invalid request: the JSON-RPC id must be a string or an integer within ±(2^53-1)',
    );
  }
  // The id of a request (a message with a method): what its answer carries.
  const requestId = typeof message?.method === 'string' ? id : undefined;
  if (message?.method !== 'tools/call' || typeof message.params !== 'object' || message.params === null)
    return { id: requestId, arguments: undefined };
  const sent = message.params.arguments;
  // Arguments that are not an object reach the tool as sent (refused there); the SDK is shown an empty object.
  if (sent !== undefined && (typeof sent !== 'object' || sent === null || Array.isArray(sent))) {
    message.params.arguments = {};
  }
  return { id: requestId, arguments: sent };
}

/**
 * The specification's schema of each request the endpoint serves. The SDK validates params too, but answers a
 * mismatch with -32603 (internal error) and a dump of its schema's issues for every method but tools/call.
 */
const REQUEST_SCHEMAS: Readonly<Record<string, (typeof specTypeSchemas)[keyof typeof specTypeSchemas]>> = {
  initialize: specTypeSchemas.InitializeRequest,
  ping: specTypeSchemas.PingRequest,
  'server/discover': specTypeSchemas.DiscoverRequest,
  'tools/list': specTypeSchemas.ListToolsRequest,
  'tools/call': specTypeSchemas.CallToolRequest,
};

/**
 * A request (an id and a method) whose params do not fit its method is -32602 with its id, worded field by field.
 * tools/list answers every tool on one page and issues no cursor, so any cursor is invalid (MCP pagination: an
 * invalid cursor SHOULD be -32602); the SDK ignored it.
 */
function checkParams(shown: unknown, id: RequestId | undefined): void {
  if (id === undefined) return;
  const { method, params } = shown as { method?: unknown; params?: { cursor?: unknown } };
  const schema = typeof method === 'string' ? REQUEST_SCHEMAS[method] : undefined;
  if (schema === undefined) return;
  const outcome = schema['~standard'].validate(shown);
  if (outcome instanceof Promise) throw new Error(`the schema of ${method} is asynchronous`);
  if (outcome.issues !== undefined) {
    const issues = outcome.issues.map(({ path, message }) => {
      const at = (path ?? []).map((key) => String(typeof key === 'object' ? key.key : key)).join('.');
      return `${at || 'the message'}: ${message.replace(/^Invalid input: /, '')}`;
    });
    throw new JsonRpcRefusal(
      INVALID_PARAMS,
      `Invalid params for ${method}: ${[...new Set(issues)].join('; ')}`,
      id,
    );
  }
  if (method === 'tools/list' && params?.cursor !== undefined) {
    throw new JsonRpcRefusal(
      INVALID_PARAMS,
      'Invalid params for tools/list: invalid cursor: every tool is on the first page and no cursor is ever issued; send tools/list without one',
      id,
    );
  }
}

/**
 * The SDK's error answer to a request, with the request's id where the SDK wrote null (JSON-RPC 2.0: a response
 * carries the id of the request it answers; an unsupported MCP-Protocol-Version header was answered with id null).
 */
function withRequestId(res: { removeHeader(name: string): void }, body: Buffer, id: RequestId): Buffer {
  let answer: unknown;
  try {
    answer = JSON.parse(body.toString('utf8'));
  } catch {
    return body; // not JSON (an event stream): as the SDK wrote it
  }
  if (typeof answer !== 'object' || answer === null || (answer as { id?: unknown }).id !== null) return body;
  res.removeHeader('Content-Length');
  return Buffer.from(JSON.stringify({ ...answer, id }));
}
