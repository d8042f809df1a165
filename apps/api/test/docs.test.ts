// The /docs page in a real headless Chromium: it loads Swagger UI from this server only (no CDN), renders the
// served OpenAPI document with its four operations, and marks getPet deprecated. The screenshot is kept in
// test-results/docs.png for a person to look at.
import { mkdirSync } from 'node:fs';
import etag from 'etag';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { scaled, timeouts } from '../../../tooling/vitest.shared.js';
import { launchChromium } from './support/chromium.js';
import { call, expectError } from './support/http.js';
import { type RawReply, rawSend } from './support/raw-send.js';
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

  it('shows the four operations, getPet deprecated, with nothing fetched from elsewhere', async () => {
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
    expect(await operations.count()).toBe(4);
    const text = await page.locator('#swagger-ui').textContent();
    for (const operationId of ['listPets', 'createPet', 'streamPetEvents', 'getPet'])
      expect(text).toContain(operationId);

    // Swagger UI marks a deprecated operation with this class (struck-through path, greyed block).
    const deprecated = page.locator('.opblock.opblock-deprecated');
    expect(await deprecated.count()).toBe(1);
    expect(await deprecated.textContent()).toContain('getPet');
    expect(await page.locator('.opblock:not(.opblock-deprecated)').allTextContents()).toEqual([
      expect.stringContaining('listPets'),
      expect.stringContaining('createPet'),
      expect.stringContaining('streamPetEvents'),
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

  it.each(['/docs', '/docs/init.js', '/docs/assets/swagger-ui.css'])(
    '%s is never framed, as no answer of the api is: X-Frame-Options DENY, frame-ancestors none',
    async (path) => {
      const reply = await fetch(`${origin}${path}`);
      expect(reply.status).toBe(200);
      expect(reply.headers.get('x-frame-options')).toBe('DENY');
      const csp = reply.headers.get('content-security-policy') ?? '';
      expect(csp).toMatch(/^default-src 'none'/);
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toContain("frame-ancestors 'self'");
      await reply.arrayBuffer();
    },
  );

  // An unknown name is no route to any method (a GET said 404 while OPTIONS said 204 and PUT 405), and a name
  // that is not valid percent-encoding is no route either (it was Express's decoding 400).
  it.each([
    'constructor',
    '__proto__',
    'toString',
    'hasOwnProperty',
    'package.json',
    'index.html',
    '%ff',
    '%E0%A4',
  ])('answers 404 route_not_found for %s to every method, like any unknown path', async (name) => {
    for (const method of ['GET', 'HEAD', 'OPTIONS', 'PUT', 'POST', 'DELETE']) {
      const reply = await call(origin, `/docs/assets/${name}`, { apiKey: null, method });
      expect(reply.status, `${method} ${name}`).toBe(404);
      if (method !== 'HEAD') expectError(reply, 404, 'route_not_found');
    }
  });
});

describe('ETag, If-None-Match, codings and HEAD on the documentation (RFC 9110)', () => {
  let server: TestServer;
  let origin: string;
  beforeAll(async () => {
    server = await startTestServer('pglite', 'docs-etag');
    origin = server.baseUrl.replace(/\/v1$/, '');
  });
  afterAll(async () => {
    await server?.close();
  });
  /** The bytes as sent (node:http decodes nothing, and sends only the headers given). */
  const get = (path: string, headers: Record<string, string> = {}, method = 'GET') =>
    rawSend(origin, path, { method, headers });
  const PATHS = ['/v1/openapi.json', '/docs', '/docs/init.js', '/docs/assets/swagger-ui-bundle.js'];

  it.each(PATHS)(
    "%s: Express's weak ETag of the bytes; a matching If-None-Match (weakly compared, or *) is 304",
    async (path) => {
      const first = await get(path);
      expect(first.status).toBe(200);
      const tag = first.headers.get('etag') ?? '';
      expect(tag).toBe(etag(first.bytes, { weak: true }));
      // The same bytes, the same tag: a second instance (or request) agrees.
      expect((await get(path)).headers.get('etag')).toBe(tag);

      const strong = tag.replace(/^W\//, '');
      for (const condition of [tag, strong, `"other", ${tag}`, '*', ` * `]) {
        const again = await get(path, { 'if-none-match': condition });
        expect({ condition, status: again.status, text: again.text }).toEqual({
          condition,
          status: 304,
          text: '',
        });
        expect(again.headers.get('etag')).toBe(tag);
        expect(again.headers.get('cache-control')).toBe(first.headers.get('cache-control'));
      }
      // Not a list of entity tags (section 13.1.2): no match, whatever tag it contains.
      for (const condition of [
        '"other"',
        'W/"other"',
        strong.slice(1, -1),
        '',
        `xx${strong}yy`,
        `xx${tag}`,
      ]) {
        const changed = await get(path, { 'if-none-match': condition });
        expect({ condition, status: changed.status }).toEqual({ condition, status: 200 });
        expect(changed.text).toBe(first.text);
      }
    },
  );

  it.each(PATHS)('%s: a 304 repeats the Vary: Accept-Encoding of its 200 (section 15.4.5)', async (path) => {
    for (const accept of [undefined, 'gzip', 'br']) {
      const headers: Record<string, string> = accept === undefined ? {} : { 'accept-encoding': accept };
      const full = await get(path, headers);
      expect(full.headers.get('vary')).toMatch(/accept-encoding/i);
      const unchanged = await get(path, { ...headers, 'if-none-match': String(full.headers.get('etag')) });
      expect(unchanged.status).toBe(304);
      expect({ accept, vary: unchanged.headers.get('vary') }).toEqual({
        accept,
        vary: full.headers.get('vary'),
      });
    }
  });

  // The page itself is under compression's threshold: never coded.
  it.each(PATHS.filter((path) => path !== '/docs'))(
    '%s: a coded body carries no strong tag of the identity body (section 8.8.3)',
    async (path) => {
      const identity = await get(path);
      for (const accept of ['gzip', 'br']) {
        const coded = await get(path, { 'accept-encoding': accept });
        expect(coded.headers.get('content-encoding')).toBe(accept);
        const tag = String(coded.headers.get('etag'));
        // Either a tag of its own, or a weak one (which holds for both codings of the same content).
        if (tag === identity.headers.get('etag')) expect(tag).toMatch(/^W\//);
      }
    },
  );

  it.each(PATHS)('%s: HEAD reports what GET sends: coding, length, validators', async (path) => {
    const REPRESENTATION = [
      'content-type',
      'content-encoding',
      'content-length',
      'etag',
      'vary',
      'cache-control',
    ];
    const pick = (reply: RawReply) => REPRESENTATION.map((name) => [name, reply.headers.get(name)]);
    for (const accept of [undefined, 'gzip', 'br', 'identity']) {
      const headers: Record<string, string> = accept === undefined ? {} : { 'accept-encoding': accept };
      const [got, head] = [await get(path, headers), await get(path, headers, 'HEAD')];
      expect(head.status).toBe(200);
      expect(head.bytes.length).toBe(0);
      expect({ accept, headers: pick(head) }).toEqual({ accept, headers: pick(got) });
    }
  });
});
