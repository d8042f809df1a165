import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { createOpenApiJson, type OpenApiOptions, type OpenApiServer } from '@petstore/schema';
import etag from 'etag';
import { type Request, type Response, Router } from 'express';
import type { Config } from '../config.js';
import { methodNotAllowed } from './errors.js';
import { evaluatePreconditions, preconditionFailed } from './preconditions.js';
import { requestBaseUrl } from './request-base-url.js';

/** Where the OpenAPI document and the documentation page are served. Both are public: no API key. */
export const OPENAPI_PATH = '/v1/openapi.json';
const DOCS_PATH = '/docs';

export interface DocsOptions {
  /** The operations the document describes; the interface's contract when absent (app.ts AppDeps.contract). */
  contract?: OpenApiOptions['contract'] | undefined;
  /**
   * The OpenAPI `servers` (the configured public URLs). Default: the absolute base URL the request reached
   * (`publicBaseUrl`, else its Host), since Prism and client generators ignore a relative `/v1`.
   */
  servers?: readonly OpenApiServer[] | undefined;
  /** The running environment's public base URL (…/v1), when configured. */
  publicBaseUrl?: string | undefined;
}

/**
 * The servers the document lists: the public URL of each environment that has one configured, the running
 * environment first (so "Try it out" on the staging docs calls staging). Undefined when none is configured,
 * as in local development, where the document points at the server that serves it.
 */
export function publicServers(
  config: Pick<Config, 'appEnv' | 'productionUrl' | 'stagingUrl'>,
): OpenApiServer[] | undefined {
  const servers = [
    { environment: 'production', url: config.productionUrl },
    { environment: 'staging', url: config.stagingUrl },
  ]
    .filter((server): server is { environment: string; url: string } => server.url !== undefined)
    .sort((a, b) => Number(b.environment === config.appEnv) - Number(a.environment === config.appEnv))
    .map(({ environment, url }) => ({ url, description: environment }));
  return servers.length > 0 ? servers : undefined;
}

// Swagger UI from the swagger-ui-dist package, served from this process: the page works with no internet.
// Found on the first request for one of its files, not at start-up.
let swaggerUiDir: string | undefined;
const swaggerUi = () =>
  (swaggerUiDir ??= path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json')));
// A Map, not an object literal: a name from the URL such as `constructor` or `__proto__` must not find
// something inherited from Object.prototype.
const ASSETS = new Map([
  ['swagger-ui.css', { file: 'swagger-ui.css', type: 'text/css; charset=utf-8' }],
  ['swagger-ui-bundle.js', { file: 'swagger-ui-bundle.js', type: 'text/javascript; charset=utf-8' }],
  ['favicon.png', { file: 'favicon-32x32.png', type: 'image/png' }],
]);
/** The assets change only with the swagger-ui-dist version; the ETag lets a client revalidate after an hour. */
const ASSET_CACHE_CONTROL = 'public, max-age=3600';
/** The page, its script and the document may change with any deployment: revalidate every time. */
const REVALIDATE = 'no-cache';
const JSON_TYPE = 'application/json; charset=utf-8';

/** Stands for the request's own base URL in the document generated once; replaced per request. */
const OWN_SERVER = 'https://own-server.petstore.invalid/v1';
/** Documents kept per base URL (Host); a bound, since the Host comes from the client. */
const MAX_CACHED_DOCUMENTS = 16;

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Pet Store API</title>
    <link rel="icon" type="image/png" href="${DOCS_PATH}/assets/favicon.png">
    <link rel="stylesheet" href="${DOCS_PATH}/assets/swagger-ui.css">
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="${DOCS_PATH}/assets/swagger-ui-bundle.js"></script>
    <script src="${DOCS_PATH}/init.js"></script>
  </body>
</html>
`;

/**
 * int64 exact on the page. Swagger UI sends a request body as typed, but shows a JSON answer as
 * `JSON.stringify(JSON.parse(text))`, which rounds every integer past 2^53 (9007199254740993 is shown as
 * ...992). This plugin shows JSON answers by re-indenting the text as received: the digits are the server's.
 * Plain ES2017 with no template literals: it is sent to the browser as written here.
 */
const EXACT_JSON_PLUGIN = String.raw`// Re-indents JSON text like JSON.stringify(value, null, 2) without parsing a number.
function indentJson(text) {
  JSON.parse(text); // invalid JSON throws: Swagger UI's own rendering then says so
  var out = '', depth = 0, inString = false, escaped = false, blank = ' \n\r\t';
  var newline = function () { return '\n' + '  '.repeat(depth); };
  for (var i = 0; i < text.length; i++) {
    var c = text[i];
    if (inString) {
      out += c;
      if (escaped) escaped = false;
      else if (c === '\\') escaped = true;
      else if (c === '"') inString = false;
    } else if (blank.indexOf(c) >= 0) {
      continue;
    } else if (c === '"') {
      inString = true;
      out += c;
    } else if (c === '{' || c === '[') {
      var j = i + 1;
      while (j < text.length && blank.indexOf(text[j]) >= 0) j++;
      if (text[j] === (c === '{' ? '}' : ']')) {
        out += c + text[j];
        i = j;
      } else {
        depth++;
        out += c + newline();
      }
    } else if (c === '}' || c === ']') {
      depth--;
      out += newline() + c;
    } else if (c === ',') {
      out += ',' + newline();
    } else if (c === ':') {
      out += ': ';
    } else {
      out += c;
    }
  }
  return out;
}

function ExactJsonPlugin() {
  return {
    wrapComponents: {
      responseBody: function (Original, system) {
        var h = system.React.createElement;
        return function ExactJsonResponseBody(props) {
          var pretty;
          if (typeof props.content === 'string' && /json/i.test(props.contentType || '')) {
            try {
              pretty = indentJson(props.content);
            } catch (error) {
              pretty = undefined;
            }
          }
          if (pretty === undefined) return h(Original, props);
          var HighlightCode = props.getComponent('HighlightCode', true);
          return h('div', null, h('h5', null, 'Response body'),
            h(HighlightCode, { language: 'json', downloadable: true, fileName: 'response.json', canCopy: true }, pretty));
        };
      },
    },
  };
}
`;

// A file rather than an inline script, so the page's CSP can forbid inline scripts.
const INIT_SCRIPT = `${EXACT_JSON_PLUGIN}
window.ui = SwaggerUIBundle({
  url: ${JSON.stringify(OPENAPI_PATH)},
  dom_id: '#swagger-ui',
  deepLinking: true,
  displayOperationId: true,
  validatorUrl: null,
  presets: [SwaggerUIBundle.presets.apis],
  plugins: [ExactJsonPlugin],
  layout: 'BaseLayout',
});
`;

interface Representation {
  body: string | Buffer;
  type: string;
  cacheControl: string;
  /** Express's own ETag ('etag' setting 'weak', the `etag` package), made once per body rather than per request. */
  etag: string;
}

const representation = (body: string | Buffer, type: string, cacheControl: string): Representation => ({
  body,
  type,
  cacheControl,
  etag: etag(body, { weak: true }),
});

/**
 * A representation, conditionally (RFC 9110 section 13.2.2, http/preconditions.ts): 304 when If-None-Match names
 * its tag (weak comparison), 412 when If-Match is false (strong comparison: our tags are weak, so only `*` holds);
 * a malformed field is ignored. The tag is weak (section 8.8.1): it stands for the identity body and for what
 * `compression` codes from it, so a gzip body never carries a strong tag of other bytes. The 304 repeats the `Vary`
 * its 200 carries (section 15.4.5): compression adds it only when there is a body. `res.send` makes the 304 (no
 * body, no Content-Type) from `req.fresh`, which is set here from that verdict, not from the `fresh` package's.
 */
function send(req: Request, res: Response, { body, type, cacheControl, etag: tag }: Representation): void {
  const verdict = evaluatePreconditions(req.method, req.headers, tag);
  if (verdict === 'failed') throw preconditionFailed();
  Object.defineProperty(req, 'fresh', { value: verdict === 'not-modified' });
  res
    .vary('Accept-Encoding')
    .set({ 'Cache-Control': cacheControl, 'Content-Type': type, ETag: tag })
    .send(body);
}

/** Origins the page may call with "Try it out": itself and every absolute server in the document. */
function contentSecurityPolicy(servers: readonly OpenApiServer[] | undefined): string {
  const origins = new Set(["'self'"]);
  for (const { url } of servers ?? []) {
    if (/^https?:\/\//.test(url)) origins.add(new URL(url).origin);
  }
  return [
    "default-src 'none'",
    "script-src 'self'",
    // Swagger UI sets style attributes from script.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    `connect-src ${[...origins].join(' ')}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * `GET /v1/openapi.json` (the OpenAPI 3.1 document generated from @petstore/schema) and `GET /docs` (Swagger UI
 * rendering it). Public documentation: mounted before the API-key check. Other methods are 405.
 */
export function createDocsRouter({ servers, publicBaseUrl, contract }: DocsOptions = {}): Router {
  const router = Router();
  // Generated on first request, not at start-up: most processes never serve it.
  let template: string | undefined;
  const documents = new Map<string, Representation>();
  const openApiDocument = (req: Parameters<typeof requestBaseUrl>[0]) => {
    template ??= `${createOpenApiJson(
      {
        servers: servers ?? [{ url: OWN_SERVER, description: 'The server that serves this document' }],
        ...(contract === undefined ? {} : { contract }),
      },
      2,
    )}\n`;
    const base = servers === undefined ? requestBaseUrl(req, publicBaseUrl) : '';
    let document = documents.get(base);
    if (document === undefined) {
      if (documents.size >= MAX_CACHED_DOCUMENTS) documents.clear();
      const text =
        servers === undefined
          ? template.replace(JSON.stringify(OWN_SERVER), () => JSON.stringify(base))
          : template;
      document = representation(text, JSON_TYPE, REVALIDATE);
      documents.set(base, document);
    }
    return document;
  };
  const page = representation(PAGE, 'text/html; charset=utf-8', REVALIDATE);
  const initScript = representation(INIT_SCRIPT, 'text/javascript; charset=utf-8', REVALIDATE);
  const assets = new Map<string, Promise<Representation>>();
  const csp = contentSecurityPolicy(servers);
  const onlyGet = methodNotAllowed(['GET', 'HEAD']);

  router
    .route(OPENAPI_PATH)
    .get((req, res) => send(req, res, openApiDocument(req)))
    .all(onlyGet);

  router
    .route(DOCS_PATH)
    .get((req, res) => {
      res.setHeader('Content-Security-Policy', csp);
      send(req, res, page);
    })
    .all(onlyGet);

  router
    .route(`${DOCS_PATH}/init.js`)
    .get((req, res) => send(req, res, initScript))
    .all(onlyGet);

  router
    .route(`${DOCS_PATH}/assets/:file`)
    .get(async (req, res, next) => {
      const name = req.params.file;
      const asset = ASSETS.get(name);
      if (asset === undefined) return next('route');
      // Read once, on first request (the bundle is 1.7 MB): the ETag is the hash of the bytes served.
      let loaded = assets.get(name);
      if (loaded === undefined) {
        loaded = readFile(path.join(swaggerUi(), asset.file)).then((bytes) =>
          representation(bytes, asset.type, ASSET_CACHE_CONTROL),
        );
        loaded.catch(() => assets.delete(name));
        assets.set(name, loaded);
      }
      send(req, res, await loaded);
    })
    .all(onlyGet);

  return router;
}
