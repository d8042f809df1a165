// The contract served over the Model Context Protocol, at /v1/mcp: the third transport, beside REST and tRPC, over
// the same handlers. The official SDK (`@modelcontextprotocol/server` 2.x) does the protocol: `createMcpHandler`
// serves the 2026-07-28 revision per request and, statelessly, the 2025 revisions its fallback negotiates, so any
// instance answers any call. Nothing about an operation is written here: one tool per REST operation of the
// contract, its name, description and input schema from the operation, its output schema from the success body,
// its annotations from the HTTP method. Arguments go through the operation's own typed input (the schema tRPC
// validates with) after the one rule for an integer's spelling; the caller is the key's, admitted by the same
// guard (rate limit included); errors are the contract's Error body. docs/interface-decisions.md "MCP".

import { toWebRequest } from '@modelcontextprotocol/node';
import {
  type CallToolResult,
  createMcpHandler,
  getOAuthProtectedResourceMetadataUrl,
  McpServer,
  type StandardSchemaWithJSON,
} from '@modelcontextprotocol/server';
import {
  API_BASE_PATH,
  contract as defaultContract,
  modelJsonSchema,
  type OperationContract,
  type RestOperationContract,
} from '@petstore/schema';
import { inputSubject, integerOfText, isRestOperation } from '@petstore/schema/internal';
import type { RequestHandler, Router } from 'express';
import express from 'express';
import { AppError, internalError, toAppError } from '../errors.js';
import { type AccessGuard, authorizationOf } from '../http/auth.js';
import { readJsonBody } from '../http/body.js';
import { queryOf } from '../http/edge.js';
import { handleError, type InternalErrorSink } from '../http/errors.js';
import { requestBaseUrl } from '../http/request-base-url.js';
import { FIXED_HEADERS } from '../http/request-context.js';
import { parseOr400 } from '../http/rest.js';
import { labelResponse, MCP_LABEL } from '../observability/operation-label.js';
import type { Caller, OperationContext } from '../operations.js';

/** Where the MCP endpoint is served. */
const MCP_PATH = `${API_BASE_PATH}/mcp`;
/**
 * The most a list tool's answer holds, in bytes of its JSON: an agent's tool output is capped (about 25k tokens);
 * a page over this is answered shorter, with the cursor of where it stopped, never refused.
 */
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
  publicBaseUrl?: string | undefined;
}

// ---- schemas ---------------------------------------------------------------------------------------------

const INT64_TEXT = '^-?[0-9]+$';
const INT64_NOTE =
  'int64: a JSON integer (exact over the whole range), or a string spelling the integer as a REST path or query ' +
  'does (`7`, `7.0`, `7e0`); answers carry int64 as digit strings.';

/**
 * A JSON Schema of the contract as an agent sees it: every int64 (`format: int64`) is accepted as a JSON integer
 * or as a string spelling one on the way in, and sent as a digit string on the way out (JSON tooling rounds integers past
 * 2^53; a string never is). Bounds past 2^53 are carried by the description, not by `minimum`/`maximum`.
 */
function agentSchema(node: unknown, io: 'input' | 'output'): unknown {
  if (Array.isArray(node)) return node.map((item) => agentSchema(item, io));
  if (typeof node !== 'object' || node === null) return node;
  const schema = node as Json;
  if (schema.format === 'int64') {
    const description = [schema.description, INT64_NOTE].filter(Boolean).join(' ');
    const digits = { type: 'string', pattern: INT64_TEXT };
    if (io === 'output') return { ...digits, description };
    const spelt = { type: 'string', minLength: 1 };
    const safe = (bound: unknown, fallback: number) =>
      typeof bound === 'number'
        ? Math.max(Math.min(bound, Number.MAX_SAFE_INTEGER), -Number.MAX_SAFE_INTEGER)
        : fallback;
    const integer = {
      type: 'integer',
      minimum: safe(schema.minimum, -Number.MAX_SAFE_INTEGER),
      maximum: safe(schema.maximum, Number.MAX_SAFE_INTEGER),
    };
    return { description, anyOf: [integer, spelt] };
  }
  const { $schema: _dialect, ...rest } = schema;
  return Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, agentSchema(value, io)]));
}

/**
 * A schema the SDK lists as given and never refuses by: the operation's own input decides (decodeArguments), so
 * that an agent gets the same verdict, in the same Error body, as REST and tRPC.
 */
const listedSchema = (jsonSchema: Json): StandardSchemaWithJSON => ({
  '~standard': {
    version: 1,
    vendor: 'petstore',
    validate: (value: unknown) => ({ value }),
    jsonSchema: { input: () => jsonSchema, output: () => jsonSchema },
  },
});

/** The int64 fields of an input's JSON Schema (top level: an operation's input is an object of fields). */
const int64Fields = (schema: Json) =>
  Object.entries((schema.properties ?? {}) as Record<string, Json>)
    .filter(([, field]) => field.format === 'int64')
    .map(([name]) => name);

/** Strings at int64 fields as the integers they spell (the one rule for an integer's spelling). */
function decodeArguments(args: unknown, int64: readonly string[]): unknown {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return args;
  const decoded: Json = { ...(args as Json) };
  for (const name of int64) {
    const value = decoded[name];
    if (typeof value === 'string') decoded[name] = integerOfText(value) ?? value;
  }
  return decoded;
}

/** JSON text of an answer, its int64 values (bigint) as digit strings, as the output schema says. */
const agentJson = (value: unknown): string =>
  JSON.stringify(value, (_key, item: unknown) => (typeof item === 'bigint' ? item.toString() : item));

// ---- tools -----------------------------------------------------------------------------------------------

interface Tool {
  op: RestOperationContract;
  /** The operation that answers (a paged one's `via`, whose body is the page). */
  handler: string;
  inputSchema: Json;
  outputSchema: Json;
  int64: string[];
  paged: boolean;
}

function toolsOf(operations: readonly OperationContract[], deprecated: boolean): Tool[] {
  const byId = new Map(operations.map((op) => [op.id, op]));
  // A stream (the change feed) is no tool: a tool call answers once.
  return operations
    .filter(isRestOperation)
    .filter((op) => op.success.stream === undefined)
    .flatMap((op): Tool[] => {
      if (op.deprecated !== undefined && !deprecated) return [];
      const via = op.success.paged === undefined ? undefined : byId.get(op.success.paged.via);
      const body = (via ?? op).success.body;
      const input = modelJsonSchema(op.input, 'input');
      const inputSchema = agentSchema(input, 'input') as Json & { properties?: Record<string, unknown> };
      // A request header that is a field of the typed input (createPet's Idempotency-Key): its rule and meaning, as the
      // document gives them for the header, on the argument.
      for (const header of Object.values(op.request.headers ?? {})) {
        if (inputSchema.properties?.[header.field] === undefined) continue;
        const { $schema: _dialect, ...rule } = modelJsonSchema(header.schema, 'input');
        inputSchema.properties[header.field] = { ...rule, description: header.description };
      }
      return [
        {
          op,
          handler: via?.id ?? op.id,
          inputSchema,
          outputSchema:
            body === undefined
              ? { type: 'object' }
              : (agentSchema(modelJsonSchema(body.schema, 'output'), 'output') as Json),
          int64: int64Fields(input),
          paged: via !== undefined,
        },
      ];
    });
}

/**
 * What an agent is told a tool does: the operation's summary and what is particular to a tool (the page and its
 * cursor; a deprecation). Not the REST description, which speaks of headers and a bare array.
 */
function toolDescription({ op, paged }: Tool): string {
  const parts = [`${op.summary}.`];
  if (paged) {
    parts.push(
      'Answers { items, nextCursor }, items ordered by id (oldest first): pass nextCursor back as `cursor` for the ' +
        `next page; it is null on the last. A page over ${MCP_PAGE_BYTES / 1024} KiB comes back shorter, with the ` +
        'cursor where it stopped.',
    );
  }
  if (op.deprecated !== undefined) {
    parts.push(`Deprecated: removed on ${op.deprecated.sunset}; use ${op.deprecated.replacement} instead.`);
  }
  return parts.join(' ');
}

/** The answer as the structured result and the same JSON as text, written once. */
const result = (value: unknown, isError = false): CallToolResult => {
  const text = agentJson(value);
  return {
    content: [{ type: 'text', text }],
    structuredContent: JSON.parse(text) as Json,
    ...(isError ? { isError: true } : {}),
  };
};

/** A failure as a tool error carrying the contract's Error body (what REST would answer). */
function toolError(
  error: unknown,
  onToolError: McpDeps['onToolError'],
  op: OperationContract,
): CallToolResult {
  const known = toAppError(error);
  if (known === undefined) onToolError(error, op.id);
  return result((known ?? internalError()).toBody(), true);
}

/** What our layer hands each per-request server: the caller, and the call's arguments exactly as they were sent. */
interface RequestExtra {
  caller: Caller;
  /** tools/call's `arguments` as our exact reader read them (the SDK's own parse drops a `__proto__` key). */
  arguments?: unknown;
}

function mcpServer(
  tools: readonly Tool[],
  call: Readonly<Record<string, Handler>>,
  { caller, ...sent }: RequestExtra,
  onToolError: McpDeps['onToolError'],
) {
  // Stateless: the tool list never changes within a request, so no list-changed notifications are promised.
  const server = new McpServer(
    { name: 'petstore', version: '1.0.0' },
    { capabilities: { tools: { listChanged: false } } },
  );
  for (const tool of tools) {
    const { op } = tool;
    const read = op.method === 'GET';
    server.registerTool(
      op.id,
      {
        title: op.summary,
        description: toolDescription(tool),
        inputSchema: listedSchema(tool.inputSchema),
        outputSchema: listedSchema(tool.outputSchema),
        // From the HTTP method (RFC 9110 section 9.2): a GET reads. A POST creates, which MCP calls additive (not
        // destructive); it is idempotent only when the call carries an idempotency key, which the annotation cannot
        // know: it says no. A PUT replaces and a DELETE removes: idempotent by HTTP's definition (section 9.2.2:
        // the same call twice leaves what once does), and destructive as MCP means it (more than additive: what
        // was there is overwritten or gone); a PATCH is destructive and, by HTTP, not idempotent.
        annotations: read
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
      },
      async () => {
        try {
          const input = parseOr400(
            op.input,
            decodeArguments(sent.arguments === undefined ? {} : sent.arguments, tool.int64),
            inputSubject(op),
          );
          const answer = await (call[tool.handler] as Handler)(input, { caller });
          const answered = result(answer);
          const text = (answered.content[0] as { text: string }).text;
          if (!tool.paged || Buffer.byteLength(text) <= MCP_PAGE_BYTES) return answered;
          return result(
            await shorterPage(answer as Page, input as Json, call[tool.handler] as Handler, caller),
          );
        } catch (error) {
          return toolError(error, onToolError, op);
        }
      },
    );
  }
  return server;
}

interface Page {
  items: unknown[];
  nextCursor: string | null;
}

/**
 * A page over MCP_PAGE_BYTES, read again with as many items as fit (with room for its cursor), so that the cursor
 * is the one the domain gives.
 */
async function shorterPage(page: Page, input: Json, handle: Handler, caller: Caller): Promise<Page> {
  let fit = 0;
  let bytes = 300; // `{"items":[],"nextCursor":…}` with a cursor
  for (const item of page.items) {
    bytes += Buffer.byteLength(agentJson(item)) + 1;
    if (bytes > MCP_PAGE_BYTES) break;
    fit += 1;
  }
  return (await handle({ ...input, limit: Math.max(fit, 1) }, { caller })) as Page;
}

// ---- HTTP ------------------------------------------------------------------------------------------------

const rawJSON = (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON;

/**
 * A parsed body for the SDK, which reads JSON itself (and would round): each integer past 2^53 (a bigint from our
 * exact reader) as its digit string, the spelling decodeArguments reads, except in a tool's arguments at a field
 * that is not int64, where it stays a JSON number, so that the operation's input refuses it as REST does (`name`
 * takes no number, where it would take the digits; the number is rounded on the way, but no such field takes an
 * integer past 2^53, so no verdict changes).
 */
function forTheSdk(body: unknown, tools: readonly Tool[]): unknown {
  const call = body as { method?: unknown; params?: { name?: unknown; arguments?: unknown } } | null;
  const args = call?.method === 'tools/call' ? call.params?.arguments : undefined;
  const int64 = tools.find((tool) => tool.op.id === call?.params?.name)?.int64 ?? [];
  return JSON.parse(
    // A replacer's `this` is the object holding `key`.
    JSON.stringify(body, function (this: unknown, key, item: unknown) {
      if (typeof item !== 'bigint') return item;
      return this === args && !int64.includes(key) ? rawJSON(item.toString()) : item.toString();
    }),
  );
}

/**
 * `/v1/mcp` and its RFC 9728 protected-resource metadata. Each request is admitted by the guard before anything is
 * read (the API key, the caller's rate limit); a refused one is 401 with `WWW-Authenticate` naming the metadata.
 */
export function mcpRouter(deps: McpDeps): Router {
  const contract = deps.contract ?? defaultContract;
  const tools = toolsOf(Object.values(contract), deps.deprecatedTools ?? false);
  const call = deps.handlers as Readonly<Record<string, Handler>>;
  const handler = createMcpHandler(
    (ctx) =>
      mcpServer(
        tools,
        call,
        (ctx.authInfo?.extra as RequestExtra | undefined) ?? { caller: { subject: '' } },
        deps.onToolError,
      ),
    { legacy: 'stateless' },
  );
  const metadataUrl = (req: Parameters<RequestHandler>[0]) =>
    getOAuthProtectedResourceMetadataUrl(new URL(`${requestBaseUrl(req, deps.publicBaseUrl)}/mcp`));

  const router = express.Router();
  // RFC 9728: at `/.well-known/oauth-protected-resource` + the resource's path, which behind a path prefix (a public
  // URL such as https://api.example.com/petstore/v1) has the prefix in it: any path that ends with ours is served.
  router.get(`${METADATA_ROOT}/*prefix`, (req, res, next) => {
    if (!req.path.endsWith(MCP_PATH)) return next();
    const base = requestBaseUrl(req, deps.publicBaseUrl);
    res.json({
      resource: `${base}/mcp`,
      resource_name: 'Pet Store API (MCP)',
      bearer_methods_supported: ['header'],
      resource_documentation: `${base.replace(/\/v1$/, '')}/docs`,
    });
  });
  router.all(MCP_PATH, async (req, res, next) => {
    // Exactly /v1/mcp: Express's router would also take `/v1/mcp/` and `/v1/MCP`.
    if (req.path !== MCP_PATH) return next();
    labelResponse(res, MCP_LABEL);
    try {
      let caller: Caller;
      try {
        caller = await deps.guard(authorizationOf(req), { address: req.socket.remoteAddress, response: res });
      } catch (error) {
        const known = toAppError(error);
        if (known?.status === 401) {
          const challenge = String(known.headers?.['WWW-Authenticate'] ?? 'Bearer realm="petstore"');
          res.setHeader('WWW-Authenticate', `${challenge}, resource_metadata="${metadataUrl(req)}"`);
          throw new AppError('unauthorized', known.message);
        }
        throw error;
      }
      // As on REST, nothing is ignored: the endpoint reads no query parameter.
      for (const name in queryOf(req)) {
        throw new AppError(
          'validation_failed',
          `unknown query parameter ${JSON.stringify(name.slice(0, 100))}`,
        );
      }
      const value = req.method === 'POST' ? (await readJsonBody(req, res)).value : undefined;
      const extra: RequestExtra = { caller, ...checkMessage(value) };
      const body = value === undefined ? undefined : forTheSdk(value, tools);
      const request = await toWebRequest(req, body);
      // The caller goes to the tools as the SDK's pass-through auth info, with the call's arguments as sent; the
      // key itself goes nowhere.
      const response = await handler.fetch(request, {
        authInfo: { token: caller.subject, clientId: caller.subject, scopes: [], extra: { ...extra } },
      });
      res.statusCode = response.status;
      // The SDK's own headers, but not over the ones every answer carries (it says `no-cache` where ours is no-store).
      response.headers.forEach((value, name) => {
        if (!FIXED_HEADERS.has(name)) res.setHeader(name, value);
      });
      res.end(Buffer.from(await response.arrayBuffer()));
    } catch (error) {
      handleError(error, req, res, deps.onInternalError);
    }
  });
  return router;
}

const METADATA_ROOT = '/.well-known/oauth-protected-resource';

/**
 * What our layer refuses in a message before the SDK reads it, and the call's arguments exactly as sent (they go
 * to the tool, which judges them as REST would: the SDK's own parse drops a `__proto__` key and answers a protocol
 * error for arguments that are not an object, where REST answers 400 validation_failed).
 */
function checkMessage(value: unknown): Pick<RequestExtra, 'arguments'> {
  // One message per request: a JSON-RPC batch (which the 2025-03-26 revision allowed and later ones removed)
  // would carry many tool calls for one charge of the caller's rate limit, where a tRPC batch costs its calls.
  if (Array.isArray(value)) {
    throw new AppError(
      'validation_failed',
      'JSON-RPC batches are not accepted here: send one message per request (MCP 2025-06-18 and later have no batches)',
    );
  }
  const message = value as { id?: unknown; method?: unknown; params?: { arguments?: unknown } } | undefined;
  // The answer echoes the id, and the SDK reads JSON as doubles: an integer id past 2^53 would come back changed.
  if (typeof message?.id === 'bigint') {
    throw new AppError(
      'validation_failed',
      'the JSON-RPC id must be a string or an integer within ±(2^53-1)',
    );
  }
  if (message?.method !== 'tools/call' || typeof message.params !== 'object' || message.params === null)
    return {};
  const sent = message.params.arguments;
  // Arguments that are not an object reach the tool as sent (and are refused there, in the Error body); the SDK is
  // shown an empty object.
  if (sent !== undefined && (typeof sent !== 'object' || sent === null || Array.isArray(sent))) {
    message.params.arguments = {};
  }
  return { arguments: sent };
}
