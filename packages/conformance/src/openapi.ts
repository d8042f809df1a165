// The deployment's own OpenAPI document: where it is found, and what it says of each response the suite receives.
// A deployment that publishes a document is held to it (every status it answers is listed for that operation,
// every listed body schema accepts the body, every required header is there), whatever the profile.
import { readFile } from 'node:fs/promises';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import type { Exchange } from './http-client.js';

// biome-ignore lint/suspicious/noExplicitAny: a JSON document walked by path
type Json = Record<string, any>;

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

export interface OpenApiDocument {
  /** Where it came from (a URL or a file), for messages. */
  source: string;
  /** What the document says is wrong with one response of one of its operations; undefined when nothing is. */
  problemWith(exchange: Exchange): string | undefined;
  /** The operation a request was, as `operationId` (or `METHOD /template`); undefined when it is none. */
  operationOf(exchange: Exchange): string | undefined;
}

/** `--openapi`: a URL, a file, or `none`; without it, `<base-url>/openapi.json` is tried. */
export type OpenApiOption = string | false | undefined;

/** Thrown when an `--openapi` the user named cannot be read: a configuration error, not a failing deployment. */
export class OpenApiLoadError extends Error {
  override name = 'OpenApiLoadError';
}

/**
 * The document to check responses against: the one `option` names (an error when it cannot be read), none when
 * `option` is false, otherwise `<baseUrl>/openapi.json` if the deployment serves one there. `reason` says why
 * there is none.
 */
export async function loadOpenApi(
  option: OpenApiOption,
  baseUrl: string,
  fetchText: (url: string) => Promise<{ status: number; text: string }>,
): Promise<{ document?: OpenApiDocument; reason?: string }> {
  if (option === false) return { reason: 'turned off (--openapi none)' };
  const named = option !== undefined;
  const source = option ?? `${baseUrl}/openapi.json`;
  let text: string;
  try {
    if (/^https?:\/\//i.test(source)) {
      const response = await fetchText(source);
      if (response.status !== 200) throw new Error(`GET ${source} answered ${response.status}`);
      text = response.text;
    } else {
      text = await readFile(source, 'utf8');
    }
  } catch (error) {
    const message = `the OpenAPI document could not be read: ${(error as Error).message}`;
    if (named) throw new OpenApiLoadError(message);
    return {
      reason: `the deployment publishes no OpenAPI document at ${source} (${(error as Error).message})`,
    };
  }
  let parsed: Json;
  try {
    parsed = JSON.parse(text) as Json;
  } catch (error) {
    const message = `${source} is not JSON: ${(error as Error).message}`;
    if (named) throw new OpenApiLoadError(message);
    return { reason: message };
  }
  if (typeof parsed?.openapi !== 'string' || typeof parsed.paths !== 'object' || parsed.paths === null) {
    const message = `${source} is not an OpenAPI 3 document (no "openapi" version or no "paths")`;
    if (named) throw new OpenApiLoadError(message);
    return { reason: message };
  }
  return { document: createOpenApiDocument(parsed, source, baseUrl) };
}

/** OpenAPI 3.0's `nullable: true` as the JSON Schema that 3.1 (and Ajv) understand. */
function from30(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(from30);
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) out[key] = from30(value);
  if (out.nullable === true) {
    delete out.nullable;
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    else if (out.type === undefined) return { anyOf: [out, { type: 'null' }] };
  }
  return out;
}

function createOpenApiDocument(raw: Json, source: string, baseUrl: string): OpenApiDocument {
  const document = raw.openapi.startsWith('3.0') ? (from30(raw) as Json) : raw;
  const DOCUMENT_ID = 'https://conformance.invalid/openapi.json';
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  ajv.addSchema({ $id: DOCUMENT_ID, components: document.components ?? {} });
  const validators = new Map<string, ValidateFunction | Error>();
  const validatorFor = (schema: Json): ValidateFunction | Error => {
    // Refs in the document are local (`#/components/...`): point them at the document registered above.
    const text = JSON.stringify(schema).replaceAll('"$ref":"#/', `"$ref":"${DOCUMENT_ID}#/`);
    let validate = validators.get(text);
    if (validate === undefined) {
      try {
        validate = ajv.compile({
          $id: `https://conformance.invalid/s${validators.size}`,
          ...JSON.parse(text),
        });
      } catch (error) {
        validate = error as Error;
      }
      validators.set(text, validate);
    }
    return validate;
  };

  // Paths are relative to the first server's URL, itself relative to the base URL the suite was given.
  const serverUrl: string = document.servers?.[0]?.url ?? '/';
  const basePath = new URL(serverUrl.replace(/\{[^}]+\}/g, 'x'), `${baseUrl}/`).pathname.replace(/\/+$/, '');
  const escapeRegExp = (text: string) => text.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
  const templates = Object.keys(document.paths).map((template) => ({
    template,
    pattern: new RegExp(
      `^${escapeRegExp(basePath)}${template
        .split(/(\{[^}]+\})/)
        .map((part) => (part.startsWith('{') ? '[^/]+' : escapeRegExp(part)))
        .join('')}/?$`,
    ),
  }));

  const find = (exchange: Exchange): { name: string; operation: Json } | undefined => {
    const pathname = new URL(exchange.request.url).pathname;
    // A literal path (`/pets/mine`) wins over a template (`/pets/{petId}`), as OpenAPI says.
    const matches = templates.filter(({ pattern }) => pattern.test(pathname));
    matches.sort((a, b) => a.template.split('{').length - b.template.split('{').length);
    for (const { template } of matches) {
      const item: Json = document.paths[template];
      const method = exchange.request.method.toLowerCase();
      const operation: Json | undefined = METHODS.includes(method)
        ? (item[method] ?? (method === 'head' ? item.get : undefined))
        : undefined;
      if (operation !== undefined)
        return { name: operation.operationId ?? `${method.toUpperCase()} ${template}`, operation };
    }
    return undefined;
  };

  /**
   * A stream of Server-Sent Events (`text/event-stream`): the document lists that media type for the status, and
   * each event read has `data` its `x-event-schema` accepts (OpenAPI 3.1 has no schema for a stream's items; 3.2's
   * `itemSchema` is taken too).
   */
  const eventProblem = (name: string, status: string, content: Json, exchange: Exchange) => {
    const media: Json | undefined = Object.entries(content).find(([type]) =>
      /^text\/event-stream\b/i.test(type),
    )?.[1];
    if (media === undefined)
      return `${name} answered ${status} with text/event-stream, a media type its OpenAPI document does not list for it (it lists ${Object.keys(content).join(', ') || 'no body'})`;
    const schema: Json | undefined = media['x-event-schema'] ?? media.itemSchema;
    if (schema === undefined) return undefined;
    const validate = validatorFor(schema);
    if (validate instanceof Error)
      return `the OpenAPI document's event schema for ${name} ${status} does not compile: ${validate.message}`;
    for (const event of exchange.stream?.events ?? []) {
      let data: unknown;
      try {
        data = JSON.parse(event.data);
      } catch {
        return `${name} sent an event whose data is not JSON, where its OpenAPI document has an event schema: ${event.data.slice(0, 200)}`;
      }
      if (event.event === 'error') continue;
      if (!validate(data)) {
        const errors = (validate.errors ?? [])
          .slice(0, 3)
          .map((error) => `${error.instancePath || '(data)'} ${error.message}`)
          .join('; ');
        return `${name} sent an event its OpenAPI document's event schema refuses: ${errors}; event: ${event.data.slice(0, 200)}`;
      }
    }
    return undefined;
  };

  return {
    source,
    operationOf: (exchange) => find(exchange)?.name,
    problemWith(exchange) {
      const found = find(exchange);
      if (found === undefined) return undefined;
      const { name, operation } = found;
      const responses: Json = operation.responses ?? {};
      const status = String(exchange.status);
      const response: Json | undefined =
        responses[status] ?? responses[`${status[0]}XX`] ?? responses[`${status[0]}xx`] ?? responses.default;
      if (response === undefined) {
        return `${name} answered ${status}, a status its OpenAPI document (${source}) does not list (it lists ${Object.keys(responses).join(', ')})`;
      }
      for (const [header, spec] of Object.entries((response.headers ?? {}) as Json)) {
        if ((spec as Json).required === true && exchange.headers.get(header) === null)
          return `${name} answered ${status} without the ${header} header its OpenAPI document marks required`;
      }
      const content: Json = response.content ?? {};
      if (exchange.stream !== undefined) return eventProblem(name, status, content, exchange);
      const mediaType = Object.keys(content).find((type) => /^application\/([\w.-]+\+)?json\b/i.test(type));
      const schema: Json | undefined = mediaType === undefined ? undefined : content[mediaType]?.schema;
      if (schema === undefined || exchange.request.method === 'HEAD') return undefined;
      if (exchange.jsonError !== undefined || exchange.text === '')
        return `${name} answered ${status} with a body that is not JSON, where its OpenAPI document has a schema`;
      const validate = validatorFor(schema);
      if (validate instanceof Error)
        return `the OpenAPI document's schema for ${name} ${status} does not compile: ${validate.message}`;
      // JSON.parse rounds integers past 2^53: bounds are checked approximately here, exactly by other checks.
      if (validate(JSON.parse(exchange.text))) return undefined;
      const errors = (validate.errors ?? [])
        .slice(0, 3)
        .map((error) => `${error.instancePath || '(body)'} ${error.message}`)
        .join('; ');
      return `${name} answered ${status} with a body its OpenAPI document's schema refuses: ${errors}`;
    },
  };
}
