// The REST client in a real browser: a page served from one origin loads the client (bundled here with esbuild
// for the browser, as a consumer would) and calls the API on another origin (CORS_ORIGINS set): create, list,
// get, and a create that meets a 503 (Retry-After: 0) and is retried. The preflight must allow Idempotency-Key,
// and the page must be able to read Location, Retry-After, Deprecation, Sunset and Link.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { build } from 'esbuild';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { timeouts } from '../../../../tooling/vitest.shared.js';
import { launchChromium } from '../support/chromium.js';
import { type FaultyProxy, startFaultyProxy } from '../support/faulty-proxy.js';
import {
  DATABASE_KINDS,
  OTHER_API_KEY,
  startTestServer,
  TEST_API_KEY,
  type TestServer,
} from '../support/test-server.js';

// beforeAll may install Chromium on a fresh machine: the timeout says so.
vi.setConfig({ hookTimeout: timeouts.browser });

const RATE_LIMIT = 30;

/** What the page reports back; bigints travel as text through page.evaluate. */
interface PageReport {
  created: { id: string; name: string; categoryId: string; status?: string };
  listed: string[];
  got: { id: string; name: string };
  retried: { id: string; name: string };
  headers: {
    location: string | null;
    retryAfter: string | null;
    deprecation: string | null;
    sunset: string | null;
    link: string | null;
    nextLink: string | null;
  };
}

/** The page's script: the bundled client is imported from the page's own origin. */
const PAGE_SCRIPT = `
import { createRestClient } from '/client.js';
window.runScenario = async ({ apiBase, proxyBase, apiKey, otherKey, rateLimit }) => {
  const text = (pet) => ({ ...pet, id: String(pet.id), categoryId: String(pet.categoryId) });
  const rest = createRestClient({ baseUrl: apiBase, apiKey });
  const created = await rest.createPet({ name: 'From the browser', categoryId: 9007199254740993n, status: 'available' });
  const listed = (await rest.listPets({ status: 'available', limit: 100 })).map((pet) => String(pet.id));
  const got = await rest.getPet(created.id);
  const viaProxy = createRestClient({ baseUrl: proxyBase, apiKey, retries: { baseDelayMs: 5 } });
  const retried = await viaProxy.createPet({ name: 'Retried in the browser', categoryId: 1 });

  // The headers a browser app reads, straight from fetch: CORS must expose each one.
  const auth = { authorization: 'Bearer ' + apiKey };
  const post = await fetch(apiBase + '/pets', {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
    body: JSON.stringify({ name: 'Raw fetch', categoryId: 2 }),
  });
  const deprecated = await fetch(apiBase + '/pets/' + created.id, { headers: auth });
  const paged = await fetch(apiBase + '/pets?limit=1', { headers: auth });
  let limited;
  for (let i = 0; i <= rateLimit; i++) {
    limited = await fetch(apiBase + '/pets?limit=1', { headers: { authorization: 'Bearer ' + otherKey } });
    if (limited.status === 429) break;
  }
  return {
    created: text(created),
    listed,
    got: text(got),
    retried: text(retried),
    headers: {
      location: post.headers.get('location'),
      retryAfter: limited.headers.get('retry-after'),
      deprecation: deprecated.headers.get('deprecation'),
      sunset: deprecated.headers.get('sunset'),
      link: deprecated.headers.get('link'),
      nextLink: paged.headers.get('link'),
    },
  };
};
window.scenarioReady = true;
`;

/** A static server for the page and the bundle: the page's origin, which is not the API's. */
async function startPageServer(bundle: string): Promise<{ origin: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    if (req.url === '/client.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' });
      res.end(bundle);
    } else if (req.url === '/page.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' });
      res.end(PAGE_SCRIPT);
    } else if (req.url === '/') {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><title>client</title><script type="module" src="/page.js"></script>');
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    // `localhost`, while the API is reached as 127.0.0.1: another origin, as a browser sees it.
    origin: `http://localhost:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

let browser: Browser;
let bundle: string;

beforeAll(async () => {
  const result = await build({
    // The published client as an app imports it (by name; its source, through the condition below).
    stdin: { contents: "export * from '@petstore/client';", resolveDir: import.meta.dirname, loader: 'ts' },
    bundle: true,
    write: false,
    minify: true,
    platform: 'browser',
    format: 'esm',
    conditions: ['@petstore/source'],
    logLevel: 'silent',
  });
  bundle = result.outputFiles[0]?.text ?? '';
  browser = await launchChromium();
}); // installing Chromium on a fresh machine takes a while: see vi.setConfig above
afterAll(async () => {
  await browser?.close();
});

describe.each(DATABASE_KINDS)('the bundled REST client in Chromium, API on %s', (kind) => {
  let server: TestServer;
  let proxy: FaultyProxy;
  let page: Awaited<ReturnType<typeof startPageServer>>;

  beforeAll(async () => {
    page = await startPageServer(bundle);
    server = await startTestServer(kind, 'browser', {
      corsOrigins: [page.origin],
      rateLimitPerMinute: RATE_LIMIT,
    });
    proxy = await startFaultyProxy(server.baseUrl);
  });
  afterAll(async () => {
    await proxy?.close();
    await server?.close();
    await page?.close();
  });

  it('creates, lists, gets, retries a 503, and reads every header it needs, from another origin', async () => {
    // The first create through the proxy is answered 503 (with the CORS headers the API itself would send).
    let creates = 0;
    proxy.plan = (request) => {
      if (request.method !== 'POST' || ++creates > 1) return 'forward';
      return {
        status: 503,
        headers: {
          'content-type': 'application/json',
          'retry-after': '0',
          'access-control-allow-origin': page.origin,
          'access-control-expose-headers': 'Retry-After',
        },
        body: JSON.stringify({ code: 'service_unavailable', message: 'try again', status: 503 }),
      };
    };
    const tab = await browser.newPage();
    const problems: string[] = [];
    tab.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    await tab.goto(`${page.origin}/`);
    await tab.waitForFunction(() => (globalThis as { scenarioReady?: boolean }).scenarioReady === true);
    const report = (await tab.evaluate(
      (config) =>
        (globalThis as unknown as { runScenario: (c: typeof config) => Promise<unknown> }).runScenario(
          config,
        ),
      {
        apiBase: server.baseUrl,
        proxyBase: proxy.baseUrl,
        apiKey: TEST_API_KEY,
        otherKey: OTHER_API_KEY,
        rateLimit: RATE_LIMIT,
      },
    )) as PageReport;
    await tab.close();

    expect(problems).toEqual([]);
    expect(report.created).toEqual({
      id: report.created.id,
      name: 'From the browser',
      categoryId: '9007199254740993',
      status: 'available',
    });
    expect(report.listed).toContain(report.created.id);
    expect(report.got).toMatchObject({ id: report.created.id, name: 'From the browser' });

    // The retried create: two attempts reached the proxy with one key (the preflight let it through), one pet.
    expect(report.retried.name).toBe('Retried in the browser');
    const attempts = proxy.requests.filter((request) => request.method === 'POST');
    expect(attempts).toHaveLength(2);
    expect(new Set(attempts.map((request) => request.headers['idempotency-key'])).size).toBe(1);
    expect(proxy.requests.some((request) => request.method === 'OPTIONS')).toBe(true);
    const rows = await server.database.sql.rows('SELECT id FROM pets WHERE name = $1', [
      { value: 'Retried in the browser', type: 'string' },
    ]);
    expect(rows.map((row) => String(row.id))).toEqual([report.retried.id]);

    expect(report.headers.location).toMatch(/^\/v1\/pets\/[0-9]+$/);
    expect(report.headers.retryAfter).toMatch(/^[0-9]+$/);
    expect(report.headers.deprecation).toMatch(/^@[0-9]+$/);
    expect(report.headers.sunset).toMatch(/GMT$/);
    expect(report.headers.link).toContain('rel="successor-version"');
    expect(report.headers.nextLink).toContain('rel="next"');
  });
});
