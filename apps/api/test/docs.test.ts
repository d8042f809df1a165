// The /docs page in a real headless Chromium: it loads Swagger UI from this server only (no CDN), renders the
// served OpenAPI document with its three operations, and marks getPet deprecated. The screenshot is kept in
// test-results/docs.png for a person to look at.
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { scaled, timeouts } from '../../../tooling/vitest.shared.js';
import { launchChromium } from './support/chromium.js';
import { call, expectError } from './support/http.js';
import { startTestServer, TEST_API_KEY, type TestServer } from './support/test-server.js';

// A real Chromium (installed first on a fresh machine) and servers: the timeouts say so.
vi.setConfig({ testTimeout: timeouts.browser, hookTimeout: timeouts.browser });

const SCREENSHOT = new URL('../test-results/docs.png', import.meta.url);

describe('/docs in headless Chromium', () => {
  let server: TestServer;
  let browser: Browser;
  let origin: string;

  beforeAll(async () => {
    server = await startTestServer('pglite', 'docs');
    origin = server.baseUrl.replace(/\/v1$/, '');
    browser = await launchChromium();
  }); // installing Chromium on a fresh machine takes a while: see vi.setConfig above
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('shows the three operations, getPet deprecated, with nothing fetched from elsewhere', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1100 } });
    const problems: string[] = [];
    const foreign: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('requestfailed', (request) => problems.push(`failed: ${request.url()}`));
    page.on('request', (request) => {
      if (!request.url().startsWith(origin) && !request.url().startsWith('data:'))
        foreign.push(request.url());
    });

    const response = await page.goto(`${origin}/docs`, { waitUntil: 'networkidle' });
    expect(response?.status()).toBe(200);
    const operations = page.locator('.opblock');
    await operations.first().waitFor({ timeout: scaled(20_000) });

    expect(await page.locator('.info .title').textContent()).toMatch(/Pet Store API/);
    expect(await operations.count()).toBe(3);
    const text = await page.locator('#swagger-ui').textContent();
    for (const operationId of ['listPets', 'createPet', 'getPet']) expect(text).toContain(operationId);

    // Swagger UI marks a deprecated operation with this class (struck-through path, greyed block).
    const deprecated = page.locator('.opblock.opblock-deprecated');
    expect(await deprecated.count()).toBe(1);
    expect(await deprecated.textContent()).toContain('getPet');
    expect(await page.locator('.opblock:not(.opblock-deprecated)').allTextContents()).toEqual([
      expect.stringContaining('listPets'),
      expect.stringContaining('createPet'),
    ]);
    // The bearer scheme is offered.
    expect(await page.locator('button.authorize').count()).toBe(1);

    mkdirSync(new URL('.', SCREENSHOT), { recursive: true });
    await page.screenshot({ path: SCREENSHOT.pathname, fullPage: true });
    expect(problems).toEqual([]);
    expect(foreign).toEqual([]);
    await page.close();
  });
});

// The showcase value, 2^53 + 1: a page that parses JSON into numbers shows 9007199254740992.
const BEYOND_DOUBLE = '9007199254740993';

describe('/docs "Try it out" keeps int64 exact', () => {
  let server: TestServer;
  let browser: Browser;
  let origin: string;

  beforeAll(async () => {
    server = await startTestServer('pglite', 'docs-int64');
    origin = server.baseUrl.replace(/\/v1$/, '');
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  /** Opens an operation, presses "Try it out", lets `fill` enter its input, executes, returns the body shown. */
  async function tryItOut(page: Page, operationId: string, fill: (block: Locator) => Promise<void>) {
    const block = page.locator(`#operations-pets-${operationId}`);
    await block.locator('.opblock-summary').first().click();
    await block.locator('button.try-out__btn').click();
    await fill(block);
    await block.locator('button.execute').click();
    const shown = block.locator('.live-responses-table .response-col_description pre').first();
    await shown.waitFor({ timeout: scaled(20_000) });
    return (await shown.textContent()) ?? '';
  }

  it('sends the typed digits with createPet and shows them in createPet and getPet answers', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1100 } });
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    const sent: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST') sent.push(request.postData() ?? '');
    });
    await page.goto(`${origin}/docs`, { waitUntil: 'networkidle' });
    await page
      .locator('.opblock')
      .first()
      .waitFor({ timeout: scaled(20_000) });

    // Authorize with the bearer key.
    await page.locator('button.authorize').first().click();
    await page
      .locator('.modal-ux input[type=text], .modal-ux input[type=password]')
      .first()
      .fill(TEST_API_KEY);
    await page.locator('.modal-ux .auth-btn-wrapper button.authorize').click();
    await page.locator('.modal-ux button.btn-done').click();

    const typed = `{"name":"Rex","categoryId":${BEYOND_DOUBLE},"status":"available"}`;
    const created = await tryItOut(page, 'createPet', async (block) => {
      await block.locator('textarea.body-param__text').fill(typed);
    });
    expect(sent).toEqual([typed]);
    expect(created).toContain(`"categoryId": ${BEYOND_DOUBLE}`);
    const id = /"id": (\d+)/.exec(created)?.[1];
    expect(id).toBeDefined();

    // What the database holds, read over plain HTTP: the exact value, so the page is what is judged below.
    const stored = await call(server.baseUrl, `/pets/${id}`);
    expect(stored.text).toContain(`"categoryId":${BEYOND_DOUBLE}`);

    const read = await tryItOut(page, 'getPet', async (block) => {
      await block.locator('input[placeholder="petId"]').fill(String(id));
    });
    expect(read).toContain(`"categoryId": ${BEYOND_DOUBLE}`);
    expect(read).not.toContain('9007199254740992');
    expect(problems).toEqual([]);
    await page.close();
  });
});

describe('/docs/assets', () => {
  let server: TestServer;
  let origin: string;
  beforeAll(async () => {
    server = await startTestServer('pglite', 'docs-assets');
    origin = server.baseUrl.replace(/\/v1$/, '');
  });
  afterAll(async () => {
    await server?.close();
  });

  it('serves the Swagger UI files it lists', async () => {
    const reply = await fetch(`${origin}/docs/assets/swagger-ui.css`);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^text\/css/);
    await reply.arrayBuffer();
  });

  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty', 'package.json', 'index.html'])(
    'answers 404 route_not_found for %s, like any unknown path',
    async (name) => {
      expectError(await call(origin, `/docs/assets/${name}`, { apiKey: null }), 404, 'route_not_found');
    },
  );
});

describe('ETag and If-None-Match on the documentation', () => {
  let server: TestServer;
  let origin: string;
  beforeAll(async () => {
    server = await startTestServer('pglite', 'docs-etag');
    origin = server.baseUrl.replace(/\/v1$/, '');
  });
  afterAll(async () => {
    await server?.close();
  });
  /** fetch, not `call`: these bodies are not the API's JSON. */
  const get = async (path: string, headers: Record<string, string> = {}) => {
    const reply = await fetch(`${origin}${path}`, { headers });
    return { status: reply.status, headers: reply.headers, text: await reply.text() };
  };

  it.each(['/v1/openapi.json', '/docs', '/docs/init.js', '/docs/assets/swagger-ui-bundle.js'])(
    '%s: a strong ETag from the bytes; a matching If-None-Match (weakly compared, or *) is 304',
    async (path) => {
      const first = await get(path);
      expect(first.status).toBe(200);
      const etag = first.headers.get('etag') ?? '';
      expect(etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
      expect(etag).toBe(`"${createHash('sha256').update(first.text).digest('base64url')}"`);
      // The same bytes, the same tag: a second instance (or request) agrees.
      expect((await get(path)).headers.get('etag')).toBe(etag);

      for (const condition of [etag, `W/${etag}`, `"other", ${etag}`, '*', ` * `]) {
        const again = await get(path, { 'if-none-match': condition });
        expect({ condition, status: again.status, text: again.text }).toEqual({
          condition,
          status: 304,
          text: '',
        });
        expect(again.headers.get('etag')).toBe(etag);
        expect(again.headers.get('cache-control')).toBe(first.headers.get('cache-control'));
      }
      for (const condition of ['"other"', 'W/"other"', etag.slice(1, -1), '']) {
        const changed = await get(path, { 'if-none-match': condition });
        expect({ condition, status: changed.status }).toEqual({ condition, status: 200 });
        expect(changed.text).toBe(first.text);
      }
    },
  );
});
