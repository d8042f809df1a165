import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { createOpenApiJson, type OpenApiOptions, type OpenApiServer } from '@petstore/schema';
import etag from 'etag';
import type { Request, Response, Router } from 'express';
import type { Config } from '../config.js';
import { createRouter, readRoute } from './edge.js';
import { answeredConditionally } from './preconditions.js';
import { requestBaseUrl } from './request-base-url.js';

/** Where the OpenAPI document and the documentation page are served. Both are public: no API key. */
export const OPENAPI_PATH = '/v1/openapi.json';
const DOCS_PATH = '/docs';

export interface DocsOptions {
  /** The operations the document describes; the interface's contract when absent. */
  contract?: OpenApiOptions['contract'] | undefined;
  /** Default: the absolute base URL the request reached (Prism and client generators ignore a relative `/v1`). */
  servers?: readonly OpenApiServer[] | undefined;
  publicBaseUrl?: string | undefined;
}

/**
 * The configured public URLs, the running environment first (so "Try it out" on the staging docs calls staging);
 * undefined when none is (local development: the document points at the server that serves it).
 */
export function publicServers(config: Pick<Config, 'appEnv' | 'productionUrl' | 'stagingUrl'>) {
  const servers = [
    { url: config.productionUrl, description: 'production' },
    { url: config.stagingUrl, description: 'staging' },
  ]
    .sort((a, b) => Number(b.description === config.appEnv) - Number(a.description === config.appEnv))
    .flatMap(({ url, description }) => (url === undefined ? [] : [{ url, description }]));
  return servers.length > 0 ? servers : undefined;
}

// Swagger UI served from this process (the page works with no internet), found on first request.
let swaggerUiDir: string | undefined;
const swaggerUi = () =>
  (swaggerUiDir ??= path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json')));
// A Map: a name from the URL such as `__proto__` must find nothing inherited from Object.prototype.
const ASSETS = new Map([
  ['swagger-ui.css', { file: 'swagger-ui.css', type: 'text/css; charset=utf-8' }],
  ['swagger-ui-bundle.js', { file: 'swagger-ui-bundle.js', type: 'text/javascript; charset=utf-8' }],
  ['favicon.png', { file: 'favicon-32x32.png', type: 'image/png' }],
]);
// The assets change only with swagger-ui-dist; the rest may change with any deployment.
const ASSET_CACHE_CONTROL = 'public, max-age=3600';
const REVALIDATE = 'no-cache';

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
 * int64 exact on the page: Swagger UI shows a JSON answer as `JSON.stringify(JSON.parse(text))`, which rounds
 * past 2^53; this plugin re-indents the text as received. Plain ES2017 without template literals: sent as written.
 */
const EXACT_JSON_PLUGIN = String.raw`// Re-indents JSON text like JSON.stringify(value, null, 2) without parsing a number.
function indentJson(text) {
  JSON.parse(text); // invalid JSON throws: Swagger UI's own rendering then says so
  var depth = 0;
  var newline = function () { return '\n' + '  '.repeat(depth); };
  // A string as it is; an empty object or array closed at once; white space outside strings dropped.
  return text.replace(/"(?:[^"\\]|\\.)*"|[{[][ \n\r\t]*[}\]]|[{[,:}\]]|[ \n\r\t]+/g, function (token) {
    var c = token[0];
    if (c === '"') return token;
    if (token.length > 1 && (c === '{' || c === '[')) return c + token[token.length - 1];
    if (c === '{' || c === '[') { depth++; return c + newline(); }
    if (c === '}' || c === ']') { depth--; return newline() + c; }
    if (c === ',') return ',' + newline();
    if (c === ':') return ': ';
    return '';
  });
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

/** A body to serve, with Express's own weak ETag (the `etag` package) made once rather than per request. */
const representation = (body: string | Buffer, type: string, cacheControl: string) => ({
  body,
  type,
  cacheControl,
  etag: etag(body, { weak: true }),
});
type Representation = ReturnType<typeof representation>;

/**
 * A representation, conditionally (docs/operations.md, "Conditional GET on the documentation"). The tag is weak
 * (RFC 9110 8.8.1): it stands for the identity body and what `compression` codes from it. The 304 repeats the
 * `Vary` its 200 carries, which compression adds only to a body. `res.send` would make a 304 of its own from the
 * `fresh` package's verdict: `req.fresh` says ours, which was to send the body.
 */
function send(req: Request, res: Response, { body, type, cacheControl, etag: tag }: Representation): void {
  res.vary('Accept-Encoding').set({ 'Cache-Control': cacheControl, ETag: tag });
  if (answeredConditionally(req, res, { currentTag: tag })) return;
  Object.defineProperty(req, 'fresh', { value: false });
  res.set('Content-Type', type).send(body);
}

/** Origins the page may call with "Try it out": itself and every absolute server in the document. */
function contentSecurityPolicy(servers: readonly OpenApiServer[] | undefined): string {
  const origins = new Set(["'self'"]);
  for (const { url } of servers ?? []) if (/^https?:\/\//.test(url)) origins.add(new URL(url).origin);
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

/** `GET /v1/openapi.json` (the document of @petstore/schema) and `GET /docs` (Swagger UI), without a key. */
export function createDocsRouter({ servers, publicBaseUrl, contract }: DocsOptions = {}): Router {
  const router = createRouter();
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
    const base = servers === undefined ? requestBaseUrl(req, publicBaseUrl) : OWN_SERVER;
    let document = documents.get(base);
    if (document === undefined) {
      if (documents.size >= MAX_CACHED_DOCUMENTS) documents.clear();
      const text = template.replace(JSON.stringify(OWN_SERVER), () => JSON.stringify(base));
      document = representation(text, 'application/json; charset=utf-8', REVALIDATE);
      documents.set(base, document);
    }
    return document;
  };
  const page = representation(PAGE, 'text/html; charset=utf-8', REVALIDATE);
  const initScript = representation(INIT_SCRIPT, 'text/javascript; charset=utf-8', REVALIDATE);
  const assets = new Map<string, Promise<Representation>>();
  const csp = contentSecurityPolicy(servers);

  readRoute(router, OPENAPI_PATH, (req, res) => send(req, res, openApiDocument(req)));
  readRoute(router, DOCS_PATH, (req, res) => {
    res.setHeader('Content-Security-Policy', csp);
    send(req, res, page);
  });
  readRoute(router, `${DOCS_PATH}/init.js`, (req, res) => send(req, res, initScript));
  // A route per file, as for every other path: a name that is none of them (or no valid percent-encoding) is no
  // route, 404 to every method, never an OPTIONS or a 405 for a path a GET calls missing.
  for (const [name, asset] of ASSETS) {
    readRoute(router, `${DOCS_PATH}/assets/${name}`, async (req, res) => {
      // Read once, on first request (the bundle is 1.7 MB).
      let loaded = assets.get(name);
      if (loaded === undefined) {
        loaded = readFile(path.join(swaggerUi(), asset.file)).then((bytes) =>
          representation(bytes, asset.type, ASSET_CACHE_CONTROL),
        );
        loaded.catch(() => assets.delete(name));
        assets.set(name, loaded);
      }
      send(req, res, await loaded);
    });
  }
  return router;
}
