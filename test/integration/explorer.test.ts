import { after, before, describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { importInto } from '../helpers/cli.js';
import { ROOT, tempDir } from '../helpers/paths.js';
import { startTestServer, TEST_TOKEN, type TestServer } from '../helpers/server.js';
import { CHEDDAR_ID, EXAMPLE_REQUESTS } from '../../src/http/openapi/examples.js';

/** Debian's chromium (scripts/test-services.sh installs it); playwright never downloads a browser here. */
const CHROMIUM = '/usr/bin/chromium';

describe('over the bundled USDA data', () => {
  const tmp = tempDir();
  let server: TestServer;
  let browser: BrowserContext | undefined;
  let profile: string | undefined;

  before(async () => {
    const db = join(tmp.dir, 'usda.db');
    await importInto(db, 'usda-sr', [join(ROOT, 'data/usda-sr21')]);
    server = await startTestServer(db);
  });
  after(async () => {
    await browser?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
    await server.close();
    tmp.cleanup();
  });

  test("the OpenAPI document's examples are the answers the server gives", async () => {
    for (const [name, example] of Object.entries(EXAMPLE_REQUESTS)) {
      const { status, body } = await server.get(`/v1${example.path}`);
      assert.equal(status, 200, name);
      assert.deepEqual(body, example.body, name);
    }
  });

  async function launch(t: TestContext): Promise<BrowserContext | undefined> {
    if (!existsSync(CHROMIUM)) {
      t.skip(`${CHROMIUM} is missing (scripts/test-services.sh installs it where apt-get is allowed)`);
      return undefined;
    }
    profile = mkdtempSync(join(tmpdir(), 'foodlookup-chromium-'));
    // A fresh profile directory each run (playwright passes it as --user-data-dir).
    browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      viewport: { width: 1200, height: 820 },
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
    });
    return browser;
  }

  test('the explorer: type "chedd", open Cheese, cheddar, pick "1 cup, diced", see its energy in kJ and kcal', async (t) => {
    const chromium = await launch(t);
    if (!chromium) return;
    const page = await chromium.newPage();
    const failures: string[] = [];
    page.on('pageerror', (error) => failures.push(error.message));
    page.on('requestfailed', (request) => {
      const error = request.failure()?.errorText ?? '';
      // The explorer cancels a search the next keystroke supersedes (only the latest is shown).
      if (error === 'net::ERR_ABORTED' && new URL(request.url()).pathname === '/v1/foods') return;
      failures.push(`${request.url()} ${error}`);
    });
    await page.goto(`${server.url}/`);
    await page.fill('#token', TEST_TOKEN);
    await page.press('#token', 'Tab');
    // One keystroke at a time: every one asks the API (type-ahead), the last word as a prefix.
    await page.locator('#search').pressSequentially('chedd', { delay: 40 });
    const cheddar = page.locator('#results button', { hasText: /^Cheese, cheddarAverage All Brands$/ });
    await cheddar.waitFor({ timeout: 10_000 });
    await cheddar.click();
    await page.locator('#food-name', { hasText: 'Cheese, cheddar' }).waitFor();
    assert.equal(await page.locator('#serving option:checked').textContent(), '100 g', 'the default serving is chosen first');
    await page.selectOption('#serving', { label: '1 cup, diced' });

    const { body } = await server.get(`/v1/foods/${CHEDDAR_ID}`);
    const food = (body as { food: { nutrients: { energy: number; protein: number }; servings: { name: string; scale: number }[] } }).food;
    const diced = food.servings.find((s) => s.name === '1 cup, diced')!;
    const kj = food.nutrients.energy * diced.scale;
    assert.equal(await page.textContent('#energy-kj'), `${Math.round(kj).toLocaleString('en')} kJ`);
    assert.equal(await page.textContent('#energy-kcal'), `${Math.round(kj / 4.184).toLocaleString('en')} kcal`);
    assert.equal(await page.textContent('#fact-protein'), `${(food.nutrients.protein * diced.scale).toFixed(1)} g`);
    assert.match(await page.textContent('#facts-serving') ?? '', /1 cup, diced \(132 g\)/);
    if (process.env['FOODLOOKUP_SCREENSHOT']) await page.screenshot({ path: process.env['FOODLOOKUP_SCREENSHOT'] });
    assert.deepEqual(failures, []);
  });

  test('the explorer filters by region, brand and category', async (t) => {
    const chromium = browser ?? (await launch(t));
    if (!chromium) return;
    const total = async (query: string): Promise<string> => {
      const { body } = await server.get(`/v1/foods?query=chedd*&limit=1&${query}`);
      const n = (body as { metadata: { total: number } }).metadata.total;
      return `${n} ${n === 1 ? 'food' : 'foods'}`;
    };
    const status = (text: string) => page.waitForFunction(`document.querySelector('#status')?.textContent === ${JSON.stringify(text)}`);
    const dairy = ((await server.get('/v1/categories?query=dairy&is-leaf=false&fields=id')).body as { categories: { id: string }[] }).categories[0]!.id;
    const kellogg = ((await server.get('/v1/brands?query=kellogg&fields=id')).body as { brands: { id: string }[] }).brands[0]!.id;
    const page = await chromium.newPage();
    await page.goto(`${server.url}/`);
    await page.fill('#token', TEST_TOKEN);
    await page.press('#token', 'Tab');
    await page.locator('#category option', { hasText: 'Dairy and Egg Products' }).waitFor({ state: 'attached' });
    await page.locator('#search').pressSequentially('chedd', { delay: 20 });
    await status(await total(''));
    await page.selectOption('#category', { label: 'Dairy and Egg Products' });
    await status(await total(`categories=${dairy}`));
    await page.selectOption('#region', 'au');
    await status(await total(`categories=${dairy}&region=au`));
    await page.selectOption('#region', '');
    await page.selectOption('#category', '');
    await page.locator('#brand').pressSequentially('Kell', { delay: 20 });
    await page.locator('#brand-options option[value="Kellogg, Co."]').waitFor({ state: 'attached' });
    await page.fill('#brand', 'Kellogg, Co.');
    await page.locator('#brand').dispatchEvent('change');
    await status(await total(`brands=${kellogg}`));
    assert.match(await page.textContent('#results') ?? '', /Kellogg/);
  });

  test('the docs page renders the document, and "Try it out" answers with a token', async (t) => {
    const chromium = browser ?? (await launch(t));
    if (!chromium) return;
    const page = await chromium.newPage();
    await page.goto(`${server.url}/docs`);
    await page.locator('.opblock-summary-path', { hasText: '/v1/foods/{foodId}' }).waitFor({ timeout: 15_000 });
    // "Try it out" with a token: Authorize takes it as the Basic username.
    await page.locator('button.authorize').first().click();
    await page.locator('.modal-ux input[type=text]').first().fill(TEST_TOKEN);
    await page.locator('.modal-ux button.authorize').first().click();
    await page.locator('.modal-ux button.btn-done').first().click();
    const operation = page.locator('#operations-foods-getFood');
    await operation.locator('.opblock-summary').click();
    await operation.locator('tr[data-param-name="foodId"] input').fill(CHEDDAR_ID);
    await operation.locator('button.execute').click();
    const status = operation.locator('.live-responses-table tr.response .response-col_status').first();
    await status.waitFor({ timeout: 15_000 });
    assert.equal((await status.textContent())?.trim(), '200');
    assert.match(await operation.locator('.live-responses-table tr.response .response-col_description').first().textContent() ?? '', /Cheese, cheddar/);
  });
});
