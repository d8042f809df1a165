// The contract as data that can be kept per release and compared: the OpenAPI document (what REST consumers see)
// and the same for the tRPC procedures (what `createTrpcClient` callers see), written in OpenAPI's shape so that one
// differ reads both. Everything comes from a `@petstore/schema` module: the real one, or a copy under test.
import type * as Schema from '@petstore/schema';

export type SchemaModule = typeof Schema;
export type JsonDocument = Record<string, unknown>;

export interface ContractDocuments {
  /** The OpenAPI 3.1 document, as `createOpenApiJson()` writes it (int64 bounds exact). */
  openapi: JsonDocument;
  /**
   * Each operation as a tRPC procedure, one OpenAPI path per procedure (`/pets.list`, GET for a query, POST for
   * a mutation): its input as the request body, its result as the 200 response, its errors with their codes.
   */
  trpc: JsonDocument;
}

export function describeContract(schema: SchemaModule): ContractDocuments {
  const openapi = schema.parseJson(schema.createOpenApiJson()) as JsonDocument;
  const paths: Record<string, unknown> = {};
  for (const op of schema.operations) {
    const errors = Object.fromEntries(
      Object.entries(op.errors).map(([status, error]) => [
        status,
        {
          description: error.description,
          content: { 'application/json': { schema: schema.modelJsonSchema(schema.ErrorSchema, 'output') } },
          'x-error-codes': [...error.codes],
        },
      ]),
    );
    const body = op.success.body;
    paths[`/${schema.trpcPath(op)}`] = {
      [op.trpc.kind === 'query' ? 'get' : 'post']: {
        operationId: op.id,
        summary: op.summary,
        description: op.description,
        ...(op.deprecated === undefined
          ? {}
          : {
              deprecated: true,
              'x-sunset': op.deprecated.sunset,
              'x-replaced-by': op.deprecated.replacement,
            }),
        'x-stability': op.stability,
        requestBody: {
          required: !op.input.safeParse(undefined).success,
          content: { 'application/json': { schema: schema.modelJsonSchema(op.input, 'input') } },
        },
        responses: {
          200: {
            description: op.success.description,
            ...(body === undefined
              ? {}
              : {
                  content: { 'application/json': { schema: schema.modelJsonSchema(body.schema, 'output') } },
                }),
          },
          ...errors,
        },
      },
    };
  }
  const trpc = {
    openapi: '3.1.0',
    info: { title: 'Pet Store tRPC procedures', version: schema.OPENAPI_INFO_VERSION },
    paths,
  };
  return { openapi, trpc };
}

/** A document as JSON text, int64 bounds written exactly (the schema package's own writer). */
export function documentJson(document: JsonDocument): string {
  const rawJson = (JSON as typeof JSON & { rawJSON(text: string): unknown }).rawJSON;
  const text = JSON.stringify(
    document,
    (_key, value: unknown) => (typeof value === 'bigint' ? rawJson(value.toString()) : value),
    2,
  );
  return `${text}\n`;
}
