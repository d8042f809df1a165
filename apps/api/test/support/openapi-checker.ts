// Every REST response the API tests receive, checked against the OpenAPI document the API serves (generated from
// the contract): if the request is one of the document's operations, the reply's status must be listed for it,
// its required headers present and its body valid against the listed schema (Ajv, JSON Schema 2020-12). The HTTP
// helpers (support/http.ts) call it on every reply, so a status the runtime sends and the document does not list
// fails whichever test provoked it.
import { createOpenApiJson } from '@petstore/schema';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { expect } from 'vitest';

// biome-ignore lint/suspicious/noExplicitAny: a JSON document walked by path
type Json = Record<string, any>;

export interface CheckedReply {
  status: number;
  headers: Headers;
  text: string;
}

const DOCUMENT_ID = 'https://petstore.invalid/openapi.json';

export function createResponseChecker(document: Json) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  // JSON.parse'd, so above 2^53 an integer is only approximately checked: the exact int64 tests live elsewhere.
  ajv.addFormat('int64', { type: 'number', validate: Number.isInteger });
  ajv.addSchema({ $id: DOCUMENT_ID, components: document.components });
  const validators = new Map<string, ValidateFunction>();
  const validatorFor = (schema: Json) => {
    // Refs in the document are local (`#/components/...`); point them at the document registered above.
    const text = JSON.stringify(schema).replaceAll('"$ref":"#/', `"$ref":"${DOCUMENT_ID}#/`);
    let validate = validators.get(text);
    if (validate === undefined) {
      validate = ajv.compile({ $id: `https://petstore.invalid/s${validators.size}`, ...JSON.parse(text) });
      validators.set(text, validate);
    }
    return validate;
  };
  const basePath = new URL(document.servers[0].url, 'http://x').pathname;
  const templates = Object.keys(document.paths).map((template) => ({
    template,
    pattern: new RegExp(`^${basePath}${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
  }));

  /** Which `operationId status` pairs were seen. */
  const seen = new Set<string>();

  return {
    seen,
    /** Checks one reply to `method url`; replies to anything that is not an operation are not the document's. */
    check(method: string, url: string, reply: CheckedReply): void {
      const pathname = URL.parse(url)?.pathname ?? '';
      const match = templates.find(({ pattern }) => pattern.test(pathname));
      const operation: Json | undefined = match && document.paths[match.template][method.toLowerCase()];
      if (operation === undefined) return;
      const where = `${method} ${pathname} (${operation.operationId}) answered ${reply.status}`;
      const response: Json | undefined = operation.responses[String(reply.status)];
      expect(
        response,
        `${where}, a status the document does not list: ${reply.text.slice(0, 200)}`,
      ).toBeDefined();
      seen.add(`${operation.operationId} ${reply.status}`);
      for (const [name, header] of Object.entries((response?.headers ?? {}) as Json)) {
        if (header.required) expect(reply.headers.get(name), `${where}: header ${name}`).not.toBeNull();
      }
      const media: Json | undefined = response?.content?.['application/json'];
      if (media === undefined) {
        expect(reply.text, `${where}: no body documented`).toBe('');
        return;
      }
      expect(reply.headers.get('content-type'), where).toMatch(/^application\/json\b/);
      const validate = validatorFor(media.schema);
      const body: unknown = JSON.parse(reply.text);
      expect(validate(body) ? [] : validate.errors, `${where}: body`).toEqual([]);
      if (response?.['x-error-codes'])
        expect(response['x-error-codes'], where).toContain((body as Json).code);
    },
  };
}

/** The checker of the document this build serves, shared by every test in a file. */
export const documentChecker = createResponseChecker(JSON.parse(createOpenApiJson()));
