import type { Browser, Page } from 'playwright-core';
import { launchChromium, Site } from './support/browser.js';
import { Engine } from './support/engine.js';
import { weatherTool, writeToolsFile } from './support/tools-file.js';

/** What a page's `fetch` of the engine's API got: its status, ETag and body, or `blocked` (CORS). */
interface Fetched {
  status?: number;
  etag?: string | null;
  body?: string;
  blocked?: string;
}

/** What the page's `fetch` is given (the browser's RequestInit, as the page receives it). */
interface Init {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  cache?: 'no-store';
}

/** The page fetches `url` of the engine with `init`, as an admin UI's script would. */
function fetchFrom(page: Page, url: string, init: Init = {}): Promise<Fetched> {
  return page.evaluate(
    async ({ url, init }) => {
      try {
        const res = await fetch(url, init);
        return { status: res.status, etag: res.headers.get('ETag'), body: await res.text() };
      } catch (error) {
        return { blocked: String(error) };
      }
    },
    { url, init },
  );
}

/**
 * An admin UI served from another origin (CORS_ORIGINS), in a real browser: Chromium's own CORS
 * checks decide what its scripts may send and read. And Swagger UI at /docs, served by the engine
 * alone (the browser reaches nothing else).
 */
describe('the HTTP API from a browser', () => {
  const admin = new Site();
  const other = new Site();
  let engine: Engine;
  let browser: Browser;
  const auth = { Authorization: 'Bearer admin-key' };

  beforeAll(async () => {
    const [adminOrigin] = await Promise.all([admin.start(), other.start()]);
    engine = await Engine.start({
      LLM_MODEL: 'm',
      LLM_TOOLS_FILE: writeToolsFile([
        weatherTool('http://127.0.0.1:9'),
        { ...weatherTool('http://127.0.0.1:9'), name: 'get_forecast' },
      ]),
      ADMIN_API_KEY: 'admin-key',
      CORS_ORIGINS: adminOrigin,
    });
    browser = await launchChromium();
  }, 30000);

  afterAll(async () => {
    await browser?.close();
    await engine?.stop();
    await Promise.all([admin.stop(), other.stop()]);
  });

  it('lets the admin UI read the tools, poll them with If-None-Match and change one with If-Match', async () => {
    const page = await admin.page(browser);
    const tools = `${engine.httpUrl}/api/tools`;
    const read = await fetchFrom(page, tools, { headers: auth });
    expect(read).toMatchObject({ status: 200, etag: expect.stringMatching(/^"/) });
    expect(JSON.parse(read.body!).tools.map((t: { name: string }) => t.name)).toEqual([
      'get_weather',
      'get_forecast',
    ]);
    // Polled cheaply: the set is the one it holds.
    const polled = await fetchFrom(page, tools, {
      headers: { ...auth, 'If-None-Match': read.etag! },
      cache: 'no-store',
    });
    expect(polled.status).toBe(304);
    const change = {
      method: 'PUT',
      headers: { ...auth, 'Content-Type': 'application/json', 'If-Match': read.etag! },
      body: JSON.stringify({ url: 'http://127.0.0.1:9/w/{city}', method: 'GET' }),
    };
    const changed = await fetchFrom(page, `${tools}/get_weather`, change);
    expect(changed.status).toBe(200);
    expect(changed.etag).not.toBe(read.etag);
    // The same change again, on the set it read before: refused, and the page reads why.
    const stale = await fetchFrom(page, `${tools}/get_weather`, change);
    expect(stale.status).toBe(412);
    expect(JSON.parse(stale.body!).message).toContain('the tools changed since they were read');
    const deleted = await fetchFrom(page, `${tools}/get_weather`, {
      method: 'DELETE',
      headers: { ...auth, 'If-Match': changed.etag! },
    });
    expect(deleted.status).toBe(200);
    expect(JSON.parse(deleted.body!).tools.map((t: { name: string }) => t.name)).toEqual([
      'get_forecast',
    ]);
  });

  it('keeps the answers from the scripts of any other site', async () => {
    const page = await other.page(browser);
    for (const init of [{}, { headers: auth }, { method: 'DELETE', headers: auth }])
      expect(await fetchFrom(page, `${engine.httpUrl}/api/tools`, init)).toEqual({
        blocked: 'TypeError: Failed to fetch',
      });
    expect(await fetchFrom(page, `${engine.httpUrl}/health`)).toEqual({
      blocked: 'TypeError: Failed to fetch',
    });
  });

  it('shows Swagger UI at /docs with every operation, from the engine alone; its Try it out works with the key', async () => {
    const page = await (await browser.newContext()).newPage();
    const elsewhere: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith(`${engine.httpUrl}/`) && !r.url().startsWith('data:'))
        elsewhere.push(r.url());
    });
    await page.goto(`${engine.httpUrl}/docs`);
    await page.waitForSelector('.opblock-summary-path');
    const paths = await page.$$eval('.opblock-summary-path', (els) =>
      els.map((e) => e.getAttribute('data-path')),
    );
    const documented = (await (await fetch(`${engine.httpUrl}/docs-json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const operations = Object.entries(documented.paths).flatMap(([path, ops]) =>
      Object.keys(ops).map(() => path),
    );
    expect(paths.sort()).toEqual(operations.sort());
    expect(paths).toContain('/api/tools');
    // An admin gives the key (Authorize), then runs GET /api/tools from the page.
    await page.click('button.authorize');
    await page.fill('.modal-ux input', 'admin-key');
    await page.click('.modal-ux button.authorize');
    await page.click('.modal-ux button.close-modal');
    const list = page.locator('.opblock-get', { has: page.locator('[data-path="/api/tools"]') });
    await list.locator('.opblock-summary').click();
    await list.locator('button.try-out__btn').click();
    await list.locator('button.execute').click();
    const answer = list.locator('.live-responses-table tbody');
    expect(await answer.locator('.response-col_status').first().textContent()).toBe('200');
    const body = await answer
      .locator('.response-col_description .microlight')
      .first()
      .textContent();
    const listed = await fetch(`${engine.httpUrl}/api/tools`, { headers: auth });
    expect(JSON.parse(body!)).toEqual(await listed.json());
    expect(elsewhere).toEqual([]);
  });
});
