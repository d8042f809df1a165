// The OpenAPI 3.1 description of the interface, generated from the contract (contract.ts) and the zod models it
// names, so that the document, the routes and the validation the service runs cannot disagree. Nothing here
// restates an operation or a model: paths, methods, parameters, statuses, error codes and headers come from the
// contract; schemas, bounds, defaults, required flags and descriptions come out of `z.toJSONSchema` (the
// descriptions are `.meta()` next to each model). This module adds only the document's frame and its prose.
import * as z from 'zod/mini';
import {
  CONTENT_ENCODING_HEADER_CONTRACT,
  OPTIONAL_RESPONSE_HEADER_CONTRACTS,
  REQUEST_ID_HEADER,
  SECURITY_HEADER_CONTRACTS,
} from './contract/response-headers.js';
import {
  API_BASE_PATH,
  type BodyContract,
  DEPRECATION_HEADER_CONTRACTS,
  contract as defaultContract,
  type HeaderContract,
  isRestOperation,
  type OperationContract,
  pathParameterNames,
  RATE_LIMIT_HEADER_CONTRACTS,
  type RestOperationContract,
  STABILITY_HEADER_CONTRACTS,
} from './contract.js';
import { ERROR_CODES, ErrorSchema } from './error.js';
import { PetStatusSchema } from './pet.js';
import { READ_AFTER_HEADER } from './read-after.js';
import { requireExactJson } from './runtime.js';

/** The version of the interface description (the spec's "1.0.0"); not the npm version of this package. */
export const OPENAPI_INFO_VERSION = '1.0.0';

export interface OpenApiServer {
  /** Absolute (`https://api.example.com/v1`) or relative to the document (`/v1`); it ends with `/v1`. */
  url: string;
  description?: string;
}

/** OpenAPI `info.contact`: who answers for the API. */
export interface OpenApiContact {
  name?: string;
  url?: string;
  email?: string;
}

/** OpenAPI `info.license`: an SPDX `identifier` (or a `url`) besides the name. */
export interface OpenApiLicense {
  name: string;
  identifier?: string;
  url?: string;
}

/** The interface description's licence: the licence of the packages that carry it. */
const OPENAPI_LICENSE: OpenApiLicense = { name: 'MIT', identifier: 'MIT' };
/** Who answers for the interface, unless a deployment names its own contact. */
const OPENAPI_CONTACT: OpenApiContact = { name: 'Pet Store platform team' };

export interface OpenApiOptions {
  /**
   * Where the API is served, first one preferred. Default: `[{ url: '/v1' }]`, which OpenAPI resolves
   * against the document's own URL, i.e. "the server that served this document". Prism and client
   * generators ignore a relative URL: a server should pass absolute ones.
   */
  servers?: readonly OpenApiServer[];
  /** `info.contact`; default `{ name: 'Pet Store platform team' }`. */
  contact?: OpenApiContact;
  /**
   * The operations to describe, keyed by operationId; default the interface's `contract`. Another one (the real
   * contract plus an operation, in a test) gets its paths and components without any edit here.
   */
  contract?: Readonly<Record<string, OperationContract>>;
}

/** JSON values, except that int64 bounds are `bigint` so that they stay exact (write it with `stringifyJson`). */
export type OpenApiDocument = {
  openapi: '3.1.0';
  info: {
    title: string;
    version: string;
    description: string;
    license: OpenApiLicense;
    contact: OpenApiContact;
    [key: string]: unknown;
  };
  servers: OpenApiServer[];
  paths: Record<string, Record<string, unknown>>;
  components: Record<string, Record<string, unknown>>;
  [key: string]: unknown;
};

type JsonSchema = Record<string, unknown>;

/**
 * The bounds of a schema whose output is a `bigint`, read from its checks through every pipe stage
 * (`PositiveInt64Schema` is int64 narrowed to >= 1), or undefined when the output is not a bigint.
 * On the wire every bigint of this package is a JSON integer of format int64.
 */
function bigintBounds(schema: z.core.$ZodType): { minimum?: bigint; maximum?: bigint } | undefined {
  const def = schema._zod.def;
  if (def.type === 'pipe') {
    const { in: input, out } = def as z.core.$ZodPipeDef;
    const outer = bigintBounds(out);
    if (outer === undefined) return undefined;
    const inner = bigintBounds(input) ?? {};
    const pick = (a: bigint | undefined, b: bigint | undefined, larger: boolean) =>
      a === undefined ? b : b === undefined ? a : a > b === larger ? a : b;
    return {
      minimum: pick(outer.minimum, inner.minimum, true),
      maximum: pick(outer.maximum, inner.maximum, false),
    };
  }
  if (def.type !== 'bigint') return undefined;
  const bounds: { minimum?: bigint; maximum?: bigint } = {};
  for (const check of def.checks ?? []) {
    const {
      check: kind,
      value,
      inclusive,
    } = check._zod.def as {
      check: string;
      value?: unknown;
      inclusive?: boolean;
    };
    if (typeof value !== 'bigint') continue;
    if (kind === 'greater_than') bounds.minimum = inclusive ? value : value + 1n;
    if (kind === 'less_than') bounds.maximum = inclusive ? value : value - 1n;
  }
  return bounds;
}

/**
 * zod renders an int64 (a union of safe integer and bigint, piped through a transform and refinements) as
 * `{}` or as a safe-integer range, neither of which is what travels: a JSON integer of 64 bits.
 */
const renderInt64: NonNullable<z.core.ToJSONSchemaParams['override']> = ({ zodSchema, jsonSchema }) => {
  const bounds = bigintBounds(zodSchema);
  if (bounds === undefined) return;
  const { description } = jsonSchema as JsonSchema;
  for (const key of Object.keys(jsonSchema)) delete (jsonSchema as JsonSchema)[key];
  if (description !== undefined) Object.assign(jsonSchema, { description });
  // zod finishes with a JSON round trip, which a bigint does not survive: carry the bounds as decimal text
  // and turn them back into numbers afterwards (restoreInt64Bounds).
  Object.assign(jsonSchema, { type: 'integer', format: 'int64' });
  if (bounds.minimum !== undefined) Object.assign(jsonSchema, { minimum: bounds.minimum.toString() });
  if (bounds.maximum !== undefined) Object.assign(jsonSchema, { maximum: bounds.maximum.toString() });
};

/** The int64 bounds as numbers: a `number` when it is exact as one, otherwise a `bigint`. */
function restoreInt64Bounds<T>(value: T): T {
  if (Array.isArray(value)) {
    for (const item of value) restoreInt64Bounds(item);
  } else if (typeof value === 'object' && value !== null) {
    const node = value as JsonSchema;
    for (const item of Object.values(node)) restoreInt64Bounds(item);
    if (node.format === 'int64') {
      for (const key of ['minimum', 'maximum']) {
        const text = node[key];
        if (typeof text !== 'string') continue;
        const exact = BigInt(text);
        node[key] = Number.isSafeInteger(Number(exact)) ? Number(exact) : exact;
      }
    }
  }
  return value;
}

/**
 * The JSON Schema of a model as this package renders it into the document (z.toJSONSchema with int64 rendered as
 * such): `input` is what a caller may send, `output` what the service answers. The contract guard renders the
 * tRPC operations with it.
 */
export function modelJsonSchema(schema: z.ZodMiniType, io: 'input' | 'output'): Record<string, unknown> {
  return restoreInt64Bounds(
    z.toJSONSchema(schema, { io, override: renderInt64, unrepresentable: onlyBigint }) as JsonSchema,
  );
}

/** Only a bigint is allowed to be unrepresentable (renderInt64 replaces it); anything else is a bug here. */
const onlyBigint: z.core.UnrepresentableHandler = ({ zodSchema }) =>
  zodSchema._zod.def.type === 'bigint' ? 'any' : 'throw';

const SCHEMA_REF = (id: string) => `#/components/schemas/${id}`;

/** Components every document has besides the bodies the contract names. */
const SHARED_COMPONENTS: [string, z.ZodMiniType][] = [
  ['PetStatus', PetStatusSchema],
  ['Error', ErrorSchema],
];

/**
 * The component schemas: every body the contract names, plus the shared ones. Request bodies are what a client
 * may send (zod's input side), responses what the service sends (output side).
 */
function componentSchemas(restOperations: readonly RestOperationContract[]): Record<string, JsonSchema> {
  const convert = (io: 'input' | 'output', entries: [string, z.ZodMiniType][]) => {
    const registry = z.registry<{ id: string }>();
    for (const [id, schema] of entries) if (!registry.has(schema)) registry.add(schema, { id });
    const { schemas } = z.toJSONSchema(registry, {
      io,
      uri: SCHEMA_REF,
      override: renderInt64,
      unrepresentable: onlyBigint,
    });
    return restoreInt64Bounds(schemas);
  };
  const bodies = (pick: (op: RestOperationContract) => BodyContract | undefined) =>
    restOperations.flatMap((op) => {
      const body = pick(op);
      return body === undefined ? [] : [[body.id, body.schema] as [string, z.ZodMiniType]];
    });
  const input = convert('input', [...SHARED_COMPONENTS, ...bodies((op) => op.request.body)]);
  const output = convert('output', [
    ...SHARED_COMPONENTS,
    ...bodies((op) => op.success.body),
    ...bodies((op) => op.success.stream?.event),
  ]);
  const picked: Record<string, JsonSchema | undefined> = {};
  for (const [id] of SHARED_COMPONENTS) picked[id] = output[id];
  for (const op of restOperations) {
    if (op.request.body) picked[op.request.body.id] = input[op.request.body.id];
    if (op.success.body) picked[op.success.body.id] = output[op.success.body.id];
    if (op.success.stream) picked[op.success.stream.event.id] = output[op.success.stream.event.id];
  }
  const result: Record<string, JsonSchema> = {};
  const requestBodyIds = new Set(restOperations.flatMap((op) => op.request.body?.id ?? []));
  for (const [id, schema] of Object.entries(picked).sort(componentOrder(requestBodyIds))) {
    if (schema === undefined) throw new Error(`no JSON Schema generated for ${id}`);
    // `$schema` and `$id` are artefacts of a standalone JSON Schema; inside OpenAPI they only confuse tools.
    const { $schema: _dialect, $id: _id, ...rest } = schema as JsonSchema;
    result[id] = rest;
  }
  return result;
}

/**
 * Components in reading order, derived so that a new body needs no edit here: the shared models but Error first
 * (the enum), then the request bodies, then the responses, each group by name, Error last.
 */
function componentOrder(requestBodyIds: ReadonlySet<string>) {
  const rank = (id: string) =>
    id === 'Error'
      ? 3
      : SHARED_COMPONENTS.some(([shared]) => shared === id)
        ? 0
        : requestBodyIds.has(id)
          ? 1
          : 2;
  return ([a]: [string, unknown], [b]: [string, unknown]) =>
    rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0);
}

const errorCodeList = Object.entries(ERROR_CODES)
  .map(([code, status]) => `\`${code}\` (${status})`)
  .join(', ');

// ---- operations ------------------------------------------------------------------------------------------

const json = (schemaId: string, extra: JsonSchema = {}) => ({
  'application/json': { schema: { $ref: SCHEMA_REF(schemaId) }, ...extra },
});

/**
 * Server-Sent Events (the WHATWG HTML standard's `text/event-stream`). OpenAPI 3.1 has no schema for the items of
 * a stream (3.2's `itemSchema`): `schema` describes ONE event as its fields (`id`, `event`, and `data` holding the
 * model as JSON: the convention SDK generators read), and `x-event-schema` names the model each `data` line holds,
 * for the tools that check a stream event by event (the test servers' validator, the conformance suite).
 */
const eventStream = (schemaId: string, kinds: readonly string[]) => ({
  'text/event-stream': {
    schema: {
      type: 'object',
      description:
        `One event of the stream, as its fields: \`id: <event id>\`, \`event: <kind>\` and \`data: <one line of ` +
        `${schemaId} JSON>\`, then a blank line. Comment lines (\`: keep-alive\`) keep an idle connection open.`,
      properties: {
        id: {
          type: 'string',
          pattern: '^[0-9]+$',
          description: "The event id (the data's `id`), as digits.",
        },
        event: { type: 'string', enum: [...kinds], description: "The event's kind (the data's `kind`)." },
        data: { $ref: SCHEMA_REF(schemaId) },
      },
      required: ['id', 'event', 'data'],
    },
    'x-event-schema': { $ref: SCHEMA_REF(schemaId) },
  },
});

const HEADER_REF = (name: string) => ({ $ref: `#/components/headers/${name}` });
const PARAMETER_REF = (name: string) => ({ $ref: `#/components/parameters/${name}` });

const headerObjects = (headers: Readonly<Record<string, HeaderContract & { value?: string }>> = {}) =>
  Object.fromEntries(
    Object.entries(headers).map(([name, { description, required, value }]) => [
      name,
      {
        description,
        required,
        schema: value === undefined ? { type: 'string' } : { type: 'string', const: value },
      },
    ]),
  );

/**
 * The headers of every response (the request id, the security headers) and those any response may carry (CORS,
 * Vary, tracing) and the rate-limit fields, declared once under `components.headers` and referenced by each
 * response: contract/response-headers.ts lists them, and the api sets the fixed ones from the same list.
 */
const SHARED_HEADERS: Record<string, unknown> = {
  [REQUEST_ID_HEADER]: {
    description: 'The `X-Request-Id` the client sent (1-128 of `A-Za-z0-9._:-`), otherwise a generated UUID.',
    required: true,
    schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,128}$' },
  },
  ...headerObjects(SECURITY_HEADER_CONTRACTS),
  ...headerObjects(OPTIONAL_RESPONSE_HEADER_CONTRACTS),
  ...headerObjects(RATE_LIMIT_HEADER_CONTRACTS),
};
const refs = (names: readonly string[]) => Object.fromEntries(names.map((name) => [name, HEADER_REF(name)]));
/** On every response. */
const EVERY_RESPONSE = refs([
  REQUEST_ID_HEADER,
  ...Object.keys(SECURITY_HEADER_CONTRACTS),
  ...Object.keys(OPTIONAL_RESPONSE_HEADER_CONTRACTS),
]);
/** On every response to an admitted request, when the deployment sets a rate limit. */
const RATE_LIMITED = refs(Object.keys(RATE_LIMIT_HEADER_CONTRACTS));
/** Statuses answered before a request is admitted (the key check, the edge): they never carry the rate fields. */
const BEFORE_ADMISSION = new Set(['401', '408', '417', '431']);
/**
 * Statuses that may be answered before the request line is known: a 408 for headers that did not arrive in time
 * (Node's parser keeps the line until the headers end). The operation's own headers are there only when it is.
 */
const BEFORE_REQUEST_LINE = new Set(['408']);
const whenKnown = (headers: Record<string, { description: string }>) =>
  Object.fromEntries(
    Object.entries(headers).map(([name, header]) => [
      name,
      {
        ...header,
        description: `${header.description} Absent when the headers did not arrive in time (the request line is then unknown).`,
        required: false,
      },
    ]),
  );

/** Request headers the api reads on every operation, declared once under `components.parameters`. */
const SHARED_PARAMETERS: Record<string, unknown> = {
  [REQUEST_ID_HEADER]: {
    name: REQUEST_ID_HEADER,
    in: 'header',
    required: false,
    description: 'Echoed in the response and logged; generated when absent or not 1-128 of `A-Za-z0-9._:-`.',
    schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,128}$' },
  },
  [READ_AFTER_HEADER]: {
    name: READ_AFTER_HEADER,
    in: 'header',
    required: false,
    description:
      'Read your own writes: the latest `Petstore-Read-After` a write answered, sent back as received; reads then ' +
      'come from a replica that has replayed past it, or from the primary. Anything else in this header is ' +
      '`400 malformed_request`.',
    schema: { type: 'string', pattern: '^[0-9A-Fa-f]{1,8}/[0-9A-Fa-f]{1,8}$' },
  },
  'If-Match': {
    name: 'If-Match',
    in: 'header',
    required: false,
    description:
      'RFC 9110 section 13.1.1. The API sends no entity tags, so `*` is true (the resource exists) and any list of ' +
      'tags is false: `412 precondition_failed`, and the method is not applied. A malformed field names no tag, so ' +
      'it is false too (412).',
    schema: { type: 'string' },
  },
  'If-None-Match': {
    name: 'If-None-Match',
    in: 'header',
    required: false,
    description:
      'RFC 9110 section 13.1.2. `*` is false where the resource exists: `304` on GET and HEAD, `412` on other ' +
      'methods (the method is not applied); a list of tags never matches (the API sends none), and neither does a ' +
      'malformed field.',
    schema: { type: 'string' },
  },
};

/**
 * OpenAPI `links` from a success whose `Location` names another operation's path (createPet's 201 -> getPet):
 * the GET operation on that path, its path parameters taken from the response body's fields, so that stateful
 * tools (Prism, test generators) can chain the calls.
 */
function links(
  op: RestOperationContract,
  restOperations: readonly RestOperationContract[],
): Record<string, unknown> | undefined {
  const location = op.success.location;
  if (location === undefined) return undefined;
  const target = restOperations.find((other) => other.method === 'GET' && other.path === location.path);
  // None once getPet (deprecated) is removed at its sunset: then there is nothing to chain to.
  if (target === undefined) return undefined;
  return {
    [target.id]: {
      operationId: target.id,
      parameters: Object.fromEntries(
        Object.entries(location.params).map(([param, field]) => [param, `$response.body#/${field}`]),
      ),
      description: `The ${op.success.body?.id ?? 'resource'} just created, read with ${target.id}.`,
    },
  };
}

/**
 * An error response's body: the Error schema, with one named example per code this status of this operation
 * carries (`examples`, shown by Swagger UI and Redoc; the codes are also in `x-error-codes`). Not an `enum` on
 * `code`: the Error schema promises that new codes may be added in a minor version, and a client validating with
 * an older document must not refuse them.
 */
const errorContent = (codes: readonly string[], status: number) => ({
  'application/json': {
    schema: { $ref: SCHEMA_REF('Error') },
    examples: Object.fromEntries(
      codes.map((code) => [code, { value: { code, message: 'a sentence naming what went wrong', status } }]),
    ),
  },
});

/**
 * Every response of the operation: the success (and 304 for a GET, for `If-None-Match: *`), then each error status
 * with the Error body and its codes. Each declares every header it may carry.
 */
function responses(
  op: RestOperationContract,
  restOperations: readonly RestOperationContract[],
): Record<string, unknown> {
  const common = {
    ...(op.deprecated === undefined ? {} : headerObjects(DEPRECATION_HEADER_CONTRACTS)),
    ...headerObjects(STABILITY_HEADER_CONTRACTS),
  };
  const successLinks = links(op, restOperations);
  const result: Record<string, unknown> = {
    [op.success.status]: {
      description: op.success.description,
      headers: {
        ...common,
        ...headerObjects(op.success.headers),
        ...(op.success.paged === undefined
          ? {}
          : headerObjects({ 'Content-Encoding': CONTENT_ENCODING_HEADER_CONTRACT })),
        ...RATE_LIMITED,
        ...EVERY_RESPONSE,
      },
      ...(op.success.body === undefined ? {} : { content: json(op.success.body.id) }),
      ...(op.success.stream === undefined
        ? {}
        : { content: eventStream(op.success.stream.event.id, op.success.stream.kinds) }),
      ...(successLinks === undefined ? {} : { links: successLinks }),
    },
  };
  if (op.method === 'GET') {
    result['304'] = {
      description:
        'Not Modified: `If-None-Match: *` and the resource exists (RFC 9110 section 13.1.2). No body; the headers ' +
        'the 200 would carry (`Vary` included), without a paged list\'s `Link: rel="next"`.',
      headers: { ...common, ...RATE_LIMITED, ...EVERY_RESPONSE },
    };
  }
  for (const [status, error] of Object.entries(op.errors)) {
    result[status] = {
      description: `${error.description} Error codes: ${error.codes.map((code) => `\`${code}\``).join(', ')}.`,
      headers: {
        ...(BEFORE_REQUEST_LINE.has(status) ? whenKnown(common) : common),
        ...headerObjects(error.headers),
        ...(BEFORE_ADMISSION.has(status) ? {} : RATE_LIMITED),
        ...EVERY_RESPONSE,
      },
      content: errorContent(error.codes, Number(status)),
      'x-error-codes': error.codes,
    };
  }
  return result;
}

/**
 * The path and query parameters, one per field of the request part, each rendered from the typed input (the
 * values a parameter's text must denote) and pointing at a component where it is one (`PetStatus`).
 */
function parameters(op: RestOperationContract, components: Record<string, JsonSchema>): unknown[] {
  const input = modelJsonSchema(op.input, 'input') as JsonSchema & {
    properties?: Record<string, JsonSchema>;
    required?: string[];
  };
  // Compared as text without descriptions; int64 bounds are bigint, written as their digits.
  const shape = ({ description: _description, ...bare }: JsonSchema) =>
    JSON.stringify(bare, (_key, value: unknown) => (typeof value === 'bigint' ? `${value}n` : value));
  const asComponent = (schema: JsonSchema): JsonSchema => {
    const id = Object.keys(components).find(
      (name) => shape(components[name] as JsonSchema) === shape(schema),
    );
    if (id !== undefined) return { $ref: SCHEMA_REF(id) };
    const { description: _description, ...bare } = schema;
    return bare;
  };
  const parameter = (location: 'path' | 'query', name: string) => {
    const schema = input.properties?.[name];
    if (schema === undefined) throw new Error(`${op.id}: ${location} parameter ${name} is not in the input`);
    return {
      name,
      in: location,
      required: location === 'path' || (input.required?.includes(name) ?? false),
      description: schema.description,
      schema: asComponent(schema),
    };
  };
  const pathNames = pathParameterNames(op.path);
  const declared = Object.keys(op.request.params?.shape ?? {});
  if (pathNames.join() !== declared.join()) {
    throw new Error(`${op.id}: path ${op.path} names {${pathNames}}, the contract declares {${declared}}`);
  }
  return [
    ...pathNames.map((name) => parameter('path', name)),
    ...Object.keys(op.request.query?.shape ?? {}).map((name) => parameter('query', name)),
    ...Object.entries(op.request.headers ?? {}).map(([name, header]) => {
      const {
        description: _description,
        $schema: _dialect,
        ...schema
      } = modelJsonSchema(header.schema, 'input') as JsonSchema;
      return { name, in: 'header', required: false, description: header.description, schema };
    }),
    ...Object.keys(SHARED_PARAMETERS).map(PARAMETER_REF),
  ];
}

function operationObject(
  op: RestOperationContract,
  components: Record<string, JsonSchema>,
  restOperations: readonly RestOperationContract[],
): JsonSchema {
  return {
    operationId: op.id,
    summary: op.summary,
    description: op.description,
    tags: ['pets'],
    ...(op.deprecated === undefined ? {} : { deprecated: true }),
    parameters: parameters(op, components),
    ...(op.request.body === undefined
      ? {}
      : { requestBody: { required: true, content: json(op.request.body.id) } }),
    responses: responses(op, restOperations),
    ...(op.deprecated === undefined
      ? {}
      : { 'x-sunset': op.deprecated.sunset, 'x-replaced-by': op.deprecated.replacement }),
    'x-stability': op.stability,
    // Redoc's badge next to the operation's name, for a level that is not stable: `Beta`, `Experimental`.
    ...(op.stability === 'stable'
      ? {}
      : {
          'x-badges': [
            { name: `${op.stability[0]?.toUpperCase()}${op.stability.slice(1)}`, position: 'after' },
          ],
        }),
  };
}

function paths(
  components: Record<string, JsonSchema>,
  restOperations: readonly RestOperationContract[],
): Record<string, Record<string, unknown>> {
  const result: Record<string, Record<string, unknown>> = {};
  for (const op of restOperations) {
    result[op.path] = {
      ...result[op.path],
      [op.method.toLowerCase()]: operationObject(op, components, restOperations),
    };
  }
  return result;
}

const sunset = defaultContract.getPet.deprecated.sunset;
const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
/** `2030-12-05` as "5 December 2030", without Intl: loading ICU's locale data cost 12 ms of every start-up. */
const longDate = (isoDate: string) => {
  const [year, month, day] = isoDate.split('-').map(Number) as [number, number, number];
  return `${day} ${MONTHS[month - 1]} ${year}`;
};

const DESCRIPTION = `The Pet Store HTTP/JSON interface: list, add and read animals held in a store.

Every operation needs \`Authorization: Bearer <API key>\` (the scheme is case-insensitive). The key is checked
before anything about the request's content, so a request without a valid key is \`401\` whatever else is wrong
with its path, query, body or method; only a message that cannot be read with confidence (an ambiguous header, a
bad request line: the edge's \`400\`, \`415\`, \`417\`, \`431\`, \`501\`) is answered before it.

## Decisions where the interface is silent

- **Ordering of listPets:** by \`id\` ascending (oldest first), stable.
- **Paging:** \`limit\` (1-100, default 20) and an opaque keyset \`cursor\`: a page after which more pets may
  follow carries \`Link: <absolute URL>; rel="next"\`; the last page has none. Other paging parameters
  (\`offset\`, \`page\`, ...) are refused with \`400\` rather than ignored.
- **400 policy:** any invalid field, query parameter or path parameter is \`400 validation_failed\`, with a
  message naming each one; this includes an out-of-range \`limit\` and an unknown \`status\` on listPets, and
  unknown fields in a NewPet. Malformed JSON (or non-UTF-8 text) is \`400 malformed_json\`; a missing or empty
  body is \`400 validation_failed\`.
- **Absent status:** a pet created without \`status\` has none, and the field is absent from every response;
  \`"status": null\` is never sent and is refused in requests.
- **name:** 1-255 characters (Unicode code points), not only whitespace or controls, valid Unicode without NUL; kept exactly
  as sent; not unique.
- **int64** (\`id\`, \`categoryId\`): exact over the whole range, also above 2^53 where \`JSON.parse\` rounds. A
  number is accepted only when its text denotes an integer exactly (\`7\`, \`7.0\`, \`7e0\`, \`7000e-3\`);
  \`4.0000000000000000001\` or \`1e-400\` are refused, never rounded. Values outside int64 are refused, never
  wrapped.
- **Errors:** every error, 4xx and 5xx, has the \`Error\` body with \`status\` equal to the HTTP status. Known
  codes: ${errorCodeList}. Codes are stable; new ones may be added.
- **Other methods and paths:** an unsupported method on an operation's path is \`405 method_not_allowed\` with
  \`Allow\`; a method the API does not implement at all (\`FOO\`) is \`501 not_implemented\`; \`OPTIONS\` answers
  \`204\` with \`Allow\`; an unknown path is \`404 route_not_found\`.
  \`GET /store/orders\`, named by the interface without a definition, is not served: like any unknown path, it is
  \`404 route_not_found\`.
- **getPet** is deprecated and removed on ${longDate(sunset)}: every one of its responses carries \`Deprecation\`, \`Sunset\` and \`Link\` headers. Use \`GET /pets?status=...\` instead.
`;

/**
 * The OpenAPI 3.1 document of the Pet Store interface (version 1.0.0). int64 bounds are `bigint`: write the
 * document with {@link stringifyJson} (or {@link createOpenApiJson}), not `JSON.stringify`.
 */
export function createOpenApiDocument(options: OpenApiOptions = {}): OpenApiDocument {
  const restOperations = Object.values(options.contract ?? defaultContract).filter(isRestOperation);
  const schemas = componentSchemas(restOperations);
  const servers = (
    options.servers ?? [{ url: API_BASE_PATH, description: 'The server that serves this document' }]
  ).map((server) => ({ ...server }));

  return {
    openapi: '3.1.0',
    info: {
      title: 'Pet Store API',
      version: OPENAPI_INFO_VERSION,
      description: DESCRIPTION,
      contact: { ...(options.contact ?? OPENAPI_CONTACT) },
      license: { ...OPENAPI_LICENSE },
    },
    servers,
    security: [{ bearerAuth: [] }],
    tags: [{ name: 'pets', description: 'Animals held in the store' }],
    paths: paths(schemas, restOperations),
    components: {
      schemas,
      headers: SHARED_HEADERS,
      parameters: SHARED_PARAMETERS,
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API key, sent as `Authorization: Bearer <API key>`.',
        },
      },
    },
  };
}

/** The document as JSON text with int64 bounds written exactly; `space` indents it like `JSON.stringify`. */
export function createOpenApiJson(options: OpenApiOptions = {}, space?: number): string {
  requireExactJson();
  // As stringifyJson does, with indentation for the committed snapshot: a bigint becomes a raw JSON number.
  const rawJson = (JSON as typeof JSON & { rawJSON(text: string): unknown }).rawJSON;
  return JSON.stringify(
    createOpenApiDocument(options),
    (_key, value: unknown) => (typeof value === 'bigint' ? rawJson(value.toString()) : value),
    space,
  );
}
