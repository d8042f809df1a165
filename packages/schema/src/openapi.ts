// The OpenAPI 3.1 description of the interface, generated from the zod models of this package, so that the
// document and the validation the service runs cannot disagree. Nothing here restates a model: schemas,
// bounds, defaults and required flags all come out of `z.toJSONSchema`; this module only adds what a zod
// model cannot carry (operations, status codes, headers, prose).
import { z } from 'zod';
import { ERROR_CODES, ErrorSchema } from './error.js';
import { NewPetSchema, PetSchema, PetStatusSchema, PetsSchema } from './pet.js';
import { ListPetsQuerySchema, PetIdPathSchema } from './queries.js';

/** The version of the interface description (the spec's "1.0.0"); not the npm version of this package. */
export const OPENAPI_INFO_VERSION = '1.0.0';

export interface OpenApiServer {
  /** Absolute (`https://api.example.com/v1`) or relative to the document (`/v1`); it ends with `/v1`. */
  url: string;
  description?: string;
}

export interface OpenApiOptions {
  /**
   * Where the API is served, first one preferred. Default: `[{ url: '/v1' }]`, which OpenAPI resolves
   * against the document's own URL, i.e. "the server that served this document".
   */
  servers?: readonly OpenApiServer[];
}

/** JSON values, except that int64 bounds are `bigint` so that they stay exact (write it with `stringifyJson`). */
export type OpenApiDocument = {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string; [key: string]: unknown };
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
  for (const key of Object.keys(jsonSchema)) delete (jsonSchema as JsonSchema)[key];
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

/** z.toJSONSchema with int64 rendered as such. */
function toJsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  return restoreInt64Bounds(
    z.toJSONSchema(schema, { io, override: renderInt64, unrepresentable: onlyBigint }) as JsonSchema,
  );
}

/** Only a bigint is allowed to be unrepresentable (renderInt64 replaces it); anything else is a bug here. */
const onlyBigint: z.core.UnrepresentableHandler = ({ zodSchema }) =>
  zodSchema._zod.def.type === 'bigint' ? 'any' : 'throw';

const SCHEMA_REF = (id: string) => `#/components/schemas/${id}`;

/**
 * The component schemas. Request bodies are what a client may send (zod's input side), responses what the
 * service sends (output side); for these models both sides render the same, which the snapshot shows.
 */
function componentSchemas(): Record<string, JsonSchema> {
  const convert = (io: 'input' | 'output', entries: [string, z.ZodType][]) => {
    const registry = z.registry<{ id: string }>();
    for (const [id, schema] of entries) registry.add(schema, { id });
    const { schemas } = z.toJSONSchema(registry, {
      io,
      uri: SCHEMA_REF,
      override: renderInt64,
      unrepresentable: onlyBigint,
    });
    return restoreInt64Bounds(schemas);
  };
  const input = convert('input', [
    ['PetStatus', PetStatusSchema],
    ['NewPet', NewPetSchema],
  ]);
  const output = convert('output', [
    ['PetStatus', PetStatusSchema],
    ['Pet', PetSchema],
    ['Pets', PetsSchema],
    ['Error', ErrorSchema],
  ]);
  const picked: Record<string, JsonSchema | undefined> = {
    PetStatus: output.PetStatus,
    NewPet: input.NewPet,
    Pet: output.Pet,
    Pets: output.Pets,
    Error: output.Error,
  };
  const result: Record<string, JsonSchema> = {};
  for (const [id, schema] of Object.entries(picked)) {
    if (schema === undefined) throw new Error(`no JSON Schema generated for ${id}`);
    // `$schema` and `$id` are artefacts of a standalone JSON Schema; inside OpenAPI they only confuse tools.
    const { $schema: _dialect, $id: _id, ...rest } = schema as JsonSchema;
    result[id] = rest;
  }
  return result;
}

/** Prose the models cannot carry: the spec's field descriptions and our decisions where it is silent. */
const FIELD_DESCRIPTIONS: Record<string, Record<string, string>> = {
  NewPet: {
    name:
      "The animal's name. 1 to 255 characters (UTF-16 code units), not only whitespace, valid Unicode without " +
      'NUL. Stored and returned exactly as sent (never trimmed or normalised); need not be unique.',
    categoryId: 'Identifier of the category the animal belongs to. Exact over the whole int64 range.',
    status: 'Availability of the animal. Optional: omit it to leave it unset (`null` is refused).',
  },
  Pet: {
    id: 'Unique identifier assigned by the service on creation (a positive int64).',
    name: "The animal's name, exactly as it was sent.",
    categoryId: 'Identifier of the category the animal belongs to.',
    status: 'Availability of the animal. Absent (never `null`) when the animal was created without one.',
  },
};

function describeFields(schemas: Record<string, JsonSchema>): void {
  for (const [id, fields] of Object.entries(FIELD_DESCRIPTIONS)) {
    const properties = schemas[id]?.properties as Record<string, JsonSchema> | undefined;
    for (const [field, description] of Object.entries(fields)) {
      const property = properties?.[field];
      if (property === undefined) throw new Error(`${id} has no field ${field} to describe`);
      // A `$ref` with siblings is fine in OpenAPI 3.1 (JSON Schema 2020-12).
      property.description = description;
    }
  }
}

const errorCodeList = Object.entries(ERROR_CODES)
  .map(([code, status]) => `\`${code}\` (${status})`)
  .join(', ');

function schemaDescriptions(schemas: Record<string, JsonSchema>): void {
  describeFields(schemas);
  Object.assign(schemas.PetStatus ?? {}, { description: 'Availability of an animal (case-sensitive).' });
  Object.assign(schemas.NewPet ?? {}, {
    description:
      'Request body of createPet. Unknown fields (a misspelt `stauts`, a client-chosen `id`) are refused with ' +
      '400 rather than ignored.',
  });
  Object.assign(schemas.Pet ?? {}, { description: 'An animal as the service returns it.' });
  Object.assign(schemas.Pets ?? {}, {
    description: 'The body of listPets: a bare JSON array of Pet, ordered by `id` ascending (oldest first).',
  });
  Object.assign(schemas.Error ?? {}, {
    description:
      'The body of every error response, 4xx and 5xx; `status` equals the HTTP status. Known codes: ' +
      `${errorCodeList}. Codes are never renamed or reused; new ones may be added, so treat an unknown code ` +
      'by its `status`.',
    'x-error-codes': { ...ERROR_CODES },
  });
}

// ---- operations ------------------------------------------------------------------------------------------

const json = (schemaId: string, extra: JsonSchema = {}) => ({
  'application/json': { schema: { $ref: SCHEMA_REF(schemaId) }, ...extra },
});

const REQUEST_ID_HEADER = {
  description: 'The `X-Request-Id` the client sent (1-128 of `A-Za-z0-9._:-`), otherwise a generated UUID.',
  schema: { type: 'string' },
};

const DEPRECATION_HEADERS = {
  Deprecation: {
    description: 'RFC 9745: the operation is deprecated, as an `@<unix seconds>` date.',
    required: true,
    schema: { type: 'string' },
  },
  Sunset: {
    description: 'RFC 8594: when the operation is removed (5 December 2030), as an HTTP date.',
    required: true,
    schema: { type: 'string' },
  },
  Link: {
    description: 'The replacement: `</v1/pets>; rel="successor-version"`.',
    required: true,
    schema: { type: 'string' },
  },
};

interface ErrorCase {
  description: string;
  codes: (keyof typeof ERROR_CODES)[];
  headers?: Record<string, unknown>;
}

const ERRORS = {
  400: {
    description: 'The request is invalid; `message` names each offending field or parameter.',
    codes: ['validation_failed'],
  },
  401: {
    description: 'Missing, malformed or unknown API key. Checked before anything else about the request.',
    codes: ['unauthorized'],
    headers: {
      'WWW-Authenticate': {
        description:
          '`Bearer realm="petstore"`, plus `error="invalid_token"` when a key was sent but is unknown.',
        required: true,
        schema: { type: 'string' },
      },
    },
  },
  404: { description: 'No animal has this id.', codes: ['pet_not_found'] },
  413: { description: 'The request body is over 64 KiB.', codes: ['payload_too_large'] },
  415: {
    description:
      'The body was not sent as `application/json` (or `application/*+json`) in UTF-8, or without a Content-Type.',
    codes: ['unsupported_media_type'],
  },
  500: {
    description: 'A fault on our side. Details are logged under the request id, never sent.',
    codes: ['internal_error'],
  },
} satisfies Record<number, ErrorCase>;

type ErrorStatus = keyof typeof ERRORS;

function responses(
  success: Record<string, unknown>,
  errors: ErrorStatus[],
  overrides: Partial<Record<ErrorStatus, Partial<ErrorCase>>> = {},
  commonHeaders: Record<string, unknown> = {},
): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const [status, response] of Object.entries(success)) {
    const { headers = {}, ...rest } = response as { headers?: Record<string, unknown> };
    result[status] = {
      ...rest,
      headers: { ...commonHeaders, ...headers, 'X-Request-Id': REQUEST_ID_HEADER },
    };
  }
  for (const status of errors) {
    const error: ErrorCase = { ...ERRORS[status], ...overrides[status] };
    result[status] = {
      description: `${error.description} Error codes: ${error.codes.map((code) => `\`${code}\``).join(', ')}.`,
      headers: { ...commonHeaders, ...error.headers, 'X-Request-Id': REQUEST_ID_HEADER },
      content: json('Error', {
        example: {
          code: error.codes[0],
          message: 'a sentence naming what went wrong',
          status: Number(status),
        },
      }),
      'x-error-codes': error.codes,
    };
  }
  return result;
}

/** The listPets query parameters, one per property of the typed query schema (input side: before defaults). */
function listPetsParameters(): unknown[] {
  const query = toJsonSchema(ListPetsQuerySchema, 'input') as JsonSchema & {
    properties: Record<string, JsonSchema>;
    required?: string[];
  };
  const descriptions: Record<string, string> = {
    limit:
      'Maximum number of animals returned. A plain decimal integer: `0`, `101`, `1.5`, `1e1`, `abc`, an empty ' +
      'value or the parameter given twice are refused with 400.',
    status:
      'Keeps only animals with this status. An unknown value is refused with 400 (values are case-sensitive).',
  };
  return Object.entries(query.properties).map(([name, schema]) => ({
    name,
    in: 'query',
    required: query.required?.includes(name) ?? false,
    description: descriptions[name],
    // PetStatus is a component: point at it rather than repeating its values.
    schema: name === 'status' ? { $ref: SCHEMA_REF('PetStatus') } : schema,
  }));
}

function petIdParameter(): unknown {
  const { $schema: _dialect, ...schema } = toJsonSchema(PetIdPathSchema, 'output');
  return {
    name: 'petId',
    in: 'path',
    required: true,
    description:
      'Identifier of the animal. A value that cannot be an id (`abc`, `0`, `-1`, `1.5`, above 2^63-1) is 400; ' +
      'a well-formed id that names no animal is 404.',
    schema,
  };
}

const REQUEST_ID_PARAMETER = {
  name: 'X-Request-Id',
  in: 'header',
  required: false,
  description: 'Echoed in the response and logged; generated when absent or not 1-128 of `A-Za-z0-9._:-`.',
  schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,128}$' },
};

const DESCRIPTION = `The Pet Store HTTP/JSON interface: list, add and read animals held in a store.

Every operation needs \`Authorization: Bearer <API key>\` (the scheme is case-insensitive). The key is checked
before anything else, so a request without a valid key is \`401\` whatever else is wrong with it.

## Decisions where the interface is silent

- **Ordering of listPets:** by \`id\` ascending (oldest first), stable.
- **Paging:** only \`limit\` (1-100, default 20). Other parameters (\`offset\`, \`cursor\`, ...) are refused with
  \`400\` rather than ignored. No pagination headers are sent.
- **400 policy:** any invalid field, query parameter or path parameter is \`400 validation_failed\`, with a
  message naming each one; this includes an out-of-range \`limit\` and an unknown \`status\` on listPets, and
  unknown fields in a NewPet. Malformed JSON (or non-UTF-8 text) is \`400 malformed_json\`; a missing or empty
  body is \`400 validation_failed\`.
- **Absent status:** a pet created without \`status\` has none, and the field is absent from every response;
  \`"status": null\` is never sent and is refused in requests.
- **name:** 1-255 characters, not only whitespace, valid Unicode without NUL; kept exactly as sent; not unique.
- **int64** (\`id\`, \`categoryId\`): exact over the whole range, also above 2^53 where \`JSON.parse\` rounds.
  Values outside int64 are refused, never wrapped or rounded.
- **Errors:** every error, 4xx and 5xx, has the \`Error\` body with \`status\` equal to the HTTP status. Known
  codes: ${errorCodeList}. Codes are stable; new ones may be added.
- **Other methods and paths:** an unsupported method on \`/pets\` or \`/pets/{petId}\` is \`405
  method_not_allowed\` with \`Allow\`; \`OPTIONS\` answers \`204\` with \`Allow\`; an unknown path is \`404
  route_not_found\`. \`GET /store/orders\`, named by the interface without a definition, is not implemented.
- **getPet** is deprecated and removed on 5 December 2030: every one of its responses carries \`Deprecation\`,
  \`Sunset\` and \`Link\` headers. Use \`GET /pets?status=...\` instead.
`;

/**
 * The OpenAPI 3.1 document of the Pet Store interface (version 1.0.0). int64 bounds are `bigint`: write the
 * document with {@link stringifyJson} (or {@link createOpenApiJson}), not `JSON.stringify`.
 */
export function createOpenApiDocument(options: OpenApiOptions = {}): OpenApiDocument {
  const schemas = componentSchemas();
  schemaDescriptions(schemas);
  const servers = (
    options.servers ?? [{ url: '/v1', description: 'The server that serves this document' }]
  ).map((server) => ({ ...server }));

  return {
    openapi: '3.1.0',
    info: {
      title: 'Pet Store API',
      version: OPENAPI_INFO_VERSION,
      description: DESCRIPTION,
    },
    servers,
    security: [{ bearerAuth: [] }],
    tags: [{ name: 'pets', description: 'Animals held in the store' }],
    paths: {
      '/pets': {
        get: {
          operationId: 'listPets',
          summary: 'List animals',
          description:
            'Returns at most `limit` animals, optionally only those with a given `status`, ordered by `id` ' +
            'ascending (oldest first). The body is a bare JSON array.',
          tags: ['pets'],
          parameters: [...listPetsParameters(), REQUEST_ID_PARAMETER],
          responses: responses(
            { 200: { description: 'List of animals', content: json('Pets') } },
            [400, 401, 500],
          ),
          'x-ordering': 'id ascending',
        },
        post: {
          operationId: 'createPet',
          summary: 'Add an animal',
          description:
            'Adds a new animal; the service assigns its `id`. The body must be `application/json`.',
          tags: ['pets'],
          parameters: [REQUEST_ID_PARAMETER],
          requestBody: { required: true, content: json('NewPet') },
          responses: responses(
            {
              201: {
                description: 'Animal added; the body carries the assigned id',
                headers: {
                  Location: {
                    description: "The new animal's path, `/v1/pets/{id}`.",
                    required: true,
                    schema: { type: 'string' },
                  },
                },
                content: json('Pet'),
              },
            },
            [400, 401, 413, 415, 500],
            {
              400: {
                description:
                  'Body missing, required field missing, a value invalid or an unknown field; or the body is ' +
                  'not valid JSON.',
                codes: ['validation_failed', 'malformed_json'],
              },
            },
          ),
        },
      },
      '/pets/{petId}': {
        get: {
          operationId: 'getPet',
          summary: 'Read one animal (deprecated)',
          description:
            'Deprecated: removed on 5 December 2030. Use `GET /pets?status=...` (listPets) instead. Every ' +
            'response of this operation, errors included, carries `Deprecation`, `Sunset` and `Link` headers.',
          tags: ['pets'],
          deprecated: true,
          parameters: [petIdParameter(), REQUEST_ID_PARAMETER],
          responses: responses(
            { 200: { description: 'The requested animal', content: json('Pet') } },
            [400, 401, 404, 500],
            {},
            DEPRECATION_HEADERS,
          ),
          'x-sunset': '2030-12-05',
          'x-replaced-by': 'listPets',
        },
      },
    },
    components: {
      schemas,
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
  // As stringifyJson does, with indentation for the committed snapshot: a bigint becomes a raw JSON number.
  const rawJson = (JSON as typeof JSON & { rawJSON(text: string): unknown }).rawJSON;
  return JSON.stringify(
    createOpenApiDocument(options),
    (_key, value: unknown) => (typeof value === 'bigint' ? rawJson(value.toString()) : value),
    space,
  );
}
