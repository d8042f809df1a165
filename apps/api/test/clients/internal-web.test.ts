// examples/internal-web, the staff web app, built as it ships (`vite build`) and served as it is run
// (`vite preview`, whose proxy adds the API key server-side), driven in Chromium against the real API on both
// databases. A faulty proxy between the app's server and the API plays the network: a body from a client of
// another version (the server's own 400), and 503s with Retry-After during a create. axe-core checks the page.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { scaled, timeouts } from '../../../../tooling/vitest.shared.js';
import { launchChromium } from '../support/chromium.js';
import { type FaultyProxy, startFaultyProxy } from '../support/faulty-proxy.js';
import { findFreePort } from '../support/postgres-server.js';
import { exitOf, makeTempDir, removeTempDir, spawnOwned, stopProcess } from '../support/run-registry.js';
import { DATABASE_KINDS, startTestServer, TEST_API_KEY, type TestServer } from '../support/test-server.js';

// Building the app and starting Chromium (installed first on a fresh machine) take a while.
vi.setConfig({ testTimeout: timeouts.browser, hookTimeout: timeouts.browser });

const APP_DIR = fileURLToPath(new URL('../../../../examples/internal-web/', import.meta.url));
const VITE = join(APP_DIR, 'node_modules/vite/bin/vite.js');
const SCREENSHOT = join(APP_DIR, 'screenshot.png');
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
/** Ids above 2^53 from the first pet on: the page must show every digit. */
const FIRST_ID = 2n ** 53n + 1n;

/** vite, run in the app's directory as its package scripts run it, owned by this run. */
function vite(args: string[], env: Record<string, string> = {}) {
  const child = spawnOwned(process.execPath, [VITE, ...args], {
    cwd: APP_DIR,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const append = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  return { child, output: () => output };
}

/** True once the app's own page answers at `origin` (not some other server that took the port). */
async function answers(origin: string): Promise<boolean> {
  try {
    const response = await fetch(origin, { signal: AbortSignal.timeout(scaled(5_000)) });
    return response.ok && (await response.text()).includes('<title>Pet Store staff</title>');
  } catch {
    return false;
  }
}

/**
 * `vite preview` of the built app in `outDir`, forwarding /v1 to `apiOrigin` with the test key. Ready is when
 * the port answers HTTP, not a line of its output (which a terminal that forces colour splits with escape
 * codes). A port taken between `findFreePort` and vite's listen makes vite exit (`--strictPort`): tried again on
 * another port.
 */
async function startPreview(outDir: string, apiOrigin: string, attempts = 3) {
  const port = await findFreePort();
  const origin = `http://127.0.0.1:${port}`;
  const { child, output } = vite(['preview', '--outDir', outDir, '--port', String(port), '--strictPort'], {
    PETSTORE_API_ORIGIN: apiOrigin,
    PETSTORE_API_KEY: TEST_API_KEY,
    NO_COLOR: '1',
  });
  let exited = false;
  void exitOf(child).then(() => {
    exited = true;
  });
  const deadline = Date.now() + scaled(60_000);
  while (!exited && Date.now() < deadline && !(await answers(origin))) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if (exited && attempts > 1) return startPreview(outDir, apiOrigin, attempts - 1);
  if (exited || Date.now() >= deadline) {
    await stopProcess(child);
    throw new Error(`vite preview ${exited ? 'exited' : 'did not answer in time'}:\n${output()}`);
  }
  return { origin, close: () => stopProcess(child) };
}

/** The serious and critical accessibility violations axe-core finds in the page as it is. */
async function seriousViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in globalThis))) await page.addScriptTag({ content: AXE_SOURCE });
  return page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: Violation[] }> } }).axe;
    type Violation = { id: string; impact: string | null; nodes: { target: unknown[] }[] };
    const { violations } = await axe.run();
    return violations
      .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
      .map(
        (violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`,
      );
  });
}

/** The element that has keyboard focus in the page (this file is compiled without the DOM's types). */
type FocusedElement = { id: string; className: string; textContent: string | null };
const focused = (page: Page) =>
  page.evaluate(() => {
    const element = (globalThis as unknown as { document: { activeElement: FocusedElement | null } }).document
      .activeElement;
    return { id: element?.id, className: element?.className, text: element?.textContent };
  });
const focusedId = async (page: Page) => (await focused(page)).id;

const isCreate = (request: { method: string; url: string }) =>
  request.method === 'POST' && request.url.includes('pets.create');

let browser: Browser;
let outDir: string;

beforeAll(async () => {
  outDir = await makeTempDir('petstore-internal-web-');
  const build = vite(['build', '--outDir', outDir, '--emptyOutDir']);
  await exitOf(build.child);
  if (build.child.exitCode !== 0) throw new Error(`vite build failed:\n${build.output()}`);
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  if (outDir !== undefined) await removeTempDir(outDir);
});

describe.each(DATABASE_KINDS)('the internal web app in Chromium, API on %s', (kind) => {
  let server: TestServer;
  let proxy: FaultyProxy;
  let preview: Awaited<ReturnType<typeof startPreview>>;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    server = await startTestServer(kind, 'internal-web');
    await server.database.sql.rows(`SELECT setval('pets_id_seq', ${FIRST_ID - 1n})`);
    proxy = await startFaultyProxy(server.baseUrl);
    preview = await startPreview(outDir, new URL(proxy.baseUrl).origin);
    page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('request', (request) => {
      if (!request.url().startsWith(preview.origin)) problems.push(`foreign request: ${request.url()}`);
    });
    await page.goto(preview.origin);
    await page.getByText('No pets yet.').waitFor();
  });
  afterAll(async () => {
    await page?.close();
    await preview?.close();
    await proxy?.close();
    await server?.close();
  });

  const petsNamed = async (name: string) =>
    (
      await server.database.sql.rows('SELECT id, category_id FROM pets WHERE name = $1', [
        { value: name, type: 'string' },
      ])
    ).map((row) => [String(row.id), String(row.category_id)]);

  it("refuses a bad pet in the browser with NewPet's messages, and sends nothing", async () => {
    await page.getByLabel('Category id').fill('12abc');
    await page.getByRole('button', { name: 'Add pet' }).click();
    await expectText(page, '#name-error', 'Name must not be empty');
    await expectText(page, '#categoryId-error', 'Category id must be an integer (int64)');
    expect(await focusedId(page)).toBe('name');
    expect(await page.getByLabel('Name').getAttribute('aria-invalid')).toBe('true');
    expect(proxy.requests.filter(isCreate)).toEqual([]);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it("shows the server's 400 on the field it names", async () => {
    // A client of another version sends a name this form would refuse: the server's answer names the field.
    proxy.plan = (request) =>
      isCreate(request) ? { forwardBody: request.body.replace('"Spot"', '"   "') } : 'forward';
    await page.getByLabel('Name').fill('Spot');
    await page.getByLabel('Category id').fill('7');
    await page.getByRole('button', { name: 'Add pet' }).click();
    await expectText(
      page,
      '#name-error',
      'Name must contain a visible character, not only whitespace or control characters',
    );
    expect(await focusedId(page)).toBe('name');
    expect(await page.locator('#categoryId-error').count()).toBe(0);
    expect(await petsNamed('   ')).toEqual([]);
    proxy.plan = () => 'forward';
  });

  it('creates a pet with an int64 category above 2^53 and lists it without a reload', async () => {
    await page.getByLabel('Name').fill('Rex');
    await page.getByLabel('Category id').fill('9007199254740993');
    await page.getByLabel('Status', { exact: true }).selectOption('available');
    await page.getByRole('button', { name: 'Add pet' }).click();
    await page.getByText(`Added Rex as pet ${FIRST_ID}.`).waitFor();
    expect(await petsNamed('Rex')).toEqual([[String(FIRST_ID), '9007199254740993']]);
    const row = page.locator('tbody tr').filter({ hasText: 'Rex' });
    await row.waitFor();
    expect(await row.locator('td').allTextContents()).toEqual([
      String(FIRST_ID),
      'Rex',
      '9007199254740993',
      'available',
    ]);
    expect(await focusedId(page)).toBe('name'); // ready for the next pet
  });

  it('rides out 503s during a create: says it is retrying, recovers, stores one pet', async () => {
    let refused = 0;
    proxy.plan = (request) => {
      // Four: the client gives up after its three attempts, then TanStack Query retries the mutation with the
      // same variables, so the same key, and the client's first attempt of that retry is refused too.
      if (!isCreate(request) || ++refused > 4) return 'forward';
      return {
        status: 503,
        headers: { 'content-type': 'application/json', 'retry-after': '1' },
        body: JSON.stringify({ code: 'service_unavailable', message: 'try again', status: 503 }),
      };
    };
    const before = proxy.requests.length;
    await page.getByLabel('Name').fill('Through the outage');
    await page.getByLabel('Category id').fill('3');
    await page.getByRole('button', { name: 'Add pet' }).click();
    await page.getByText('The Pet Store API is unavailable (503). Retrying by itself').waitFor();
    await page.getByText(/^Added Through the outage as pet [0-9]+\.$/).waitFor();
    await page.getByText('The Pet Store API is unavailable').waitFor({ state: 'detached' });
    proxy.plan = () => 'forward';

    const creates = proxy.requests.slice(before).filter(isCreate);
    expect(creates).toHaveLength(5);
    const keys = creates.map((request) => /"idempotencyKey":"([^"]+)"/.exec(request.body)?.[1]);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(keys).size).toBe(1);
    expect(await petsNamed('Through the outage')).toHaveLength(1);
    await page.locator('tbody tr').filter({ hasText: 'Through the outage' }).waitFor();
  });

  it('looks a pet up through the deprecated getPet and says when it goes', async () => {
    await expectText(page, '#lookup-deprecation', 'stops working on 5 December 2030');
    await page.getByLabel('Pet id').fill('0');
    await page.getByRole('button', { name: 'Look up' }).click();
    await expectText(page, '#lookup-id-error', 'Pet id must be a positive integer');
    await page.getByLabel('Pet id').fill(String(FIRST_ID));
    await page.getByRole('button', { name: 'Look up' }).click();
    const result = page.locator('.lookup-result dl');
    await result.waitFor();
    expect(await result.locator('dd').allTextContents()).toEqual([
      String(FIRST_ID),
      'Rex',
      '9007199254740993',
      'available',
    ]);
    expect((await focused(page)).className).toBe('lookup-result');
    // A new bad id clears the previous answer: "No pet has id 999." must not stay under the new error.
    await page.getByLabel('Pet id').fill('999');
    await page.getByRole('button', { name: 'Look up' }).click();
    await expectText(page, '.lookup-result', 'No pet has id 999.');
    await page.getByLabel('Pet id').fill('-1');
    await page.getByRole('button', { name: 'Look up' }).click();
    await expectText(page, '#lookup-id-error', 'Pet id must be a positive integer');
    expect(await page.locator('.lookup-result').count()).toBe(0);
  });

  it('shows a pet created elsewhere without a reload or a refetch (the change feed)', async () => {
    await page.getByText('Live: pets added anywhere appear here.').waitFor();
    const before = proxy.requests.length;
    // Another tab, another clerk: a create through REST that the page knows nothing about.
    const created = await fetch(`${server.baseUrl}/pets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_API_KEY}`, 'content-type': 'application/json' },
      body: '{"name":"From another tab","categoryId":9007199254740993,"status":"sold"}',
    });
    expect(created.status).toBe(201);
    // Ids are above 2^53 here: read digit for digit, not through JSON.parse.
    const id = /"id":([0-9]+)/.exec(await created.text())?.[1];
    const row = page.locator('tbody tr').filter({ hasText: 'From another tab' });
    await row.waitFor({ timeout: scaled(20_000) });
    expect(await row.locator('td').allTextContents()).toEqual([
      id,
      'From another tab',
      '9007199254740993',
      'sold',
    ]);
    expect(proxy.requests.slice(before).filter((request) => request.url.includes('pets.page'))).toEqual([]);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('pages through 250 pets with the status filter, keyboard focus following the list', async () => {
    await server.database.sql.rows(
      `INSERT INTO pets (name, category_id, status)
       SELECT 'Pending ' || g, g, 'pending'::pet_status FROM generate_series(1, 250) AS g
       UNION ALL SELECT 'Sold ' || g, g, 'sold'::pet_status FROM generate_series(1, 40) AS g`,
    );
    await page.reload();
    await page.getByLabel('Show status').selectOption('pending');
    const caption = page.locator('caption');
    await expectText(page, 'caption', 'Pets with status pending: 100 shown, more to load');
    const loadMore = page.getByRole('button', { name: 'Load more' });
    await loadMore.focus();
    await page.keyboard.press('Enter');
    await expectText(page, 'caption', 'Pets with status pending: 200 shown, more to load');
    // Focus went to the first pet the page loaded.
    expect((await focused(page)).text).toMatch(/^[0-9]+Pending 101/);
    await loadMore.click();
    await expectText(page, 'caption', 'Pets with status pending: 250 shown');
    expect(await caption.textContent()).not.toContain('more to load');
    expect(await loadMore.count()).toBe(0);

    const shown = await page.locator('tbody tr td:first-child').allTextContents();
    const stored = await server.database.sql.rows("SELECT id FROM pets WHERE status = 'pending' ORDER BY id");
    expect(shown).toEqual(stored.map((row) => String(row.id)));
    expect(new Set(await page.locator('tbody tr td:nth-child(4)').allTextContents())).toEqual(
      new Set(['pending']),
    );
    expect(await seriousViolations(page)).toEqual([]);

    await page.getByLabel('Show status').selectOption('');
    await expectText(page, 'caption', 'Pets: 100 shown, more to load');
    if (kind === 'pglite') {
      await page.evaluate(() =>
        (globalThis as unknown as { scrollTo(x: number, y: number): void }).scrollTo(0, 0),
      );
      await page.screenshot({ path: SCREENSHOT });
    }
    expect(problems).toEqual([]);
  });
});

/** Waits (bounded) until the element's text contains `text`. */
async function expectText(page: Page, selector: string, text: string): Promise<void> {
  const locator = page.locator(selector);
  try {
    await locator.filter({ hasText: text }).waitFor({ timeout: scaled(20_000) });
  } catch {
    expect(await locator.first().textContent()).toContain(text);
  }
}
