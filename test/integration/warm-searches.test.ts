import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.js';
import { fixtureCatalog, IDS } from '../helpers/fixture-catalog.js';
import { tempDir } from '../helpers/paths.js';
import { fixtureDatabase } from '../helpers/fixture-server.js';
import { basic, spawnServe, TEST_TOKEN, type ServeProcess } from '../helpers/server.js';
import { forEachStore } from '../helpers/stores.js';
import { SqliteCatalogStore } from '../../src/store/sqlite/store.js';
import { SearchWarmUp, searchesOfName, spreadRids, warmSearches } from '../../src/store/warm-searches.js';
import type { FoodQuery, Page } from '../../src/store/catalog-store.js';

/**
 * Once it listens, a serving process answers searches of its own catalogue, in turns between
 * requests, so that V8 compiles the search code before requests need it
 * (src/store/warm-searches.ts): through the real CLI's server and, for what those searches
 * are, the real store.
 */

const SAID = 'answered searches of its own catalogue';
const ORDERS = "loaded the search engine's commonest lists and made its bound orders";

/** The log is written asynchronously: a line may come after /readyz's answer. */
async function logLine(server: ServeProcess, text: string): Promise<string> {
  for (let waited = 0; !server.stdout().includes(text) && waited < 10_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
  const line = server.stdout().split('\n').find((l) => l.includes(text));
  assert.ok(line !== undefined, `no "${text}" in ${server.stdout()}`);
  return line;
}

async function readiness(server: ServeProcess): Promise<{ filePages?: string; searchWarmUp?: string }> {
  const response = await fetch(`${server.url}/readyz`);
  assert.equal(response.status, 200);
  return ((await response.json()) as { catalog: { filePages?: string; searchWarmUp?: string } }).catalog;
}

/** Asks /readyz until `searchWarmUp` is there and not `searching`, or `until` says so. */
async function warmUpState(server: ServeProcess, until: (state: string | undefined) => boolean): Promise<string | undefined> {
  for (let waited = 0; waited < 60_000; waited += 20) {
    const { searchWarmUp } = await readiness(server);
    if (until(searchWarmUp)) return searchWarmUp;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`the warm-up did not move in 60 s: ${server.stdout()}`);
}

forEachStore((kind) => {
  const fixture = fixtureDatabase(kind);

  test('a new server loads its commonest lists and makes its bound orders, then answers 3,000 searches of its own once it listens, and says so in its log and on /readyz', async () => {
    const server = await spawnServe(fixture.store);
    try {
      assert.equal(await warmUpState(server, (state) => state !== undefined && state !== 'searching'), 'done');
      const line = await logLine(server, SAID);
      assert.equal((JSON.parse(line) as { searches: number }).searches, 3000);
      const orders = await logLine(server, ORDERS);
      assert.ok(server.stdout().indexOf(orders) < server.stdout().indexOf(line), 'the lists and orders first');
      assert.ok(server.stdout().indexOf(orders) > server.stdout().indexOf('listening on'), 'once it listened');
    } finally {
      assert.equal(await server.stop(), 0);
    }
  });

  test('it answers requests between its searches, and stops with the server', async () => {
    // Many more searches than a short test waits for: the server stops in the middle of them.
    const server = await spawnServe(fixture.store, { FOODLOOKUP_WARM_SEARCHES: '5000000' });
    try {
      assert.equal(await warmUpState(server, (state) => state !== undefined), 'searching');
      const answer = await fetch(`${server.url}/v1/foods?query=cheddar`, { headers: { authorization: basic(TEST_TOKEN) } });
      assert.equal(answer.status, 200);
      assert.equal(((await answer.json()) as { metadata: { total: number } }).metadata.total, 2);
      assert.equal((await readiness(server)).searchWarmUp, 'searching', 'answered while it searched');
    } finally {
      assert.equal(await server.stop(), 0);
    }
    assert.ok(!server.stdout().includes(SAID));
  });

  test('FOODLOOKUP_WARM_SEARCHES=0 asks none, and the lists and bound orders are still made', async () => {
    const server = await spawnServe(fixture.store, { FOODLOOKUP_WARM_SEARCHES: '0' });
    try {
      assert.equal(await warmUpState(server, (state) => state !== undefined), 'off');
      // No search of its own loaded them: the engine's steps did.
      assert.ok((JSON.parse(await logLine(server, ORDERS)) as { listBytes: number }).listBytes > 0, server.stdout());
      assert.ok(!server.stdout().includes(SAID), server.stdout());
    } finally {
      assert.equal(await server.stop(), 0);
    }
  });
});

forEachStore((kind) => {
  if (kind !== 'postgres') return;
  const switching = fixtureDatabase(kind);

  test('a replica that has not warmed a new version within FOODLOOKUP_SWITCH_WARM_MS switches to it, then warms it, and says so', async () => {
    const server = await spawnServe(switching.store, { FOODLOOKUP_SWITCH_WARM_MS: '0' });
    const { dir, cleanup } = tempDir();
    try {
      await warmUpState(server, (state) => state !== undefined && state !== 'searching');
      const changed = fixtureCatalog();
      changed.foods = changed.foods.map((f) => (f['foodId'] === IDS.sharp ? { ...f, name: 'Cheddar cheese, quorvex' } : f));
      const file = join(dir, 'changed.json');
      writeFileSync(file, JSON.stringify(changed));
      const imported = await runCli(['import', 'catalog', file, ...switching.store.args]);
      assert.equal(imported.code, 0, imported.stderr);
      // Answered from the new version once it switched; the warm-up then goes on after the switch.
      let switched = false;
      for (let waited = 0; !switched && waited < 20_000; waited += 50) {
        const answer = await fetch(`${server.url}/v1/foods/${IDS.sharp}`, { headers: { authorization: basic(TEST_TOKEN) } });
        assert.equal(answer.status, 200);
        switched = (await answer.text()).includes('"Cheddar cheese, quorvex"');
        if (!switched) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.ok(switched, 'the replica switched to the new version');
      const line = await logLine(server, "warmed the new catalogue version's search engine in turns, partly after switching to it");
      const { version } = (await (await fetch(`${server.url}/readyz`)).json() as { catalog: { version: number } }).catalog;
      assert.equal((JSON.parse(line) as { version: number }).version, version);
      assert.ok(!server.stdout().includes('before switching to it'), server.stdout());
    } finally {
      assert.equal(await server.stop(), 0);
      cleanup();
    }
  });
});

const sqlite = fixtureDatabase('sqlite');

test("the searches are a search box's, each of them answered by the store", async () => {
  assert.deepEqual(searchesOfName('Cheddar cheese, sharp'), ['cheddar', 'che*', 'cheddar cheese', 'cheddar che*', 'cheddar cheese sharp', 'chdedar']);
  assert.deepEqual(searchesOfName('Brie'), ['brie', 'bri*']);
  assert.deepEqual(searchesOfName('100 % 2'), []);
  const store = new SqliteCatalogStore(sqlite.db, { readonly: true });
  try {
    const answered: { query: string; page: Page<string> }[] = [];
    const recording = {
      foodsJson: async (query: FoodQuery): Promise<Page<string>> => {
        const page = await store.foodsJson(query);
        answered.push({ query: query.match?.query ?? '', page });
        return page;
      },
    };
    let open = true;
    const done = await warmSearches(recording, { sampleNames: (count) => Promise.resolve(['Cheddar cheese, sharp', 'Brie'].slice(0, count)), isOpen: () => open }, 8);
    assert.deepEqual(answered.map((a) => a.query), ['cheddar', 'che*', 'cheddar cheese', 'cheddar che*', 'cheddar cheese sharp', 'chdedar', 'brie', 'bri*']);
    assert.equal(done?.searches, 8);
    for (const { query, page } of answered) assert.ok(page.total > 0, `${query}: nothing found`);
    assert.deepEqual(answered.find((a) => a.query === 'chdedar')?.page.corrections, [{ word: 'chdedar', as: ['cheddar'] }]);
    open = false;
    assert.equal(await warmSearches(recording, { sampleNames: () => Promise.resolve(['Brie']), isOpen: () => open }, 2), undefined, 'stops once the store closed');
  } finally {
    await store.close();
  }
});

test('a search that fails stops the warm-up, said in the log; the names come from rids spread over the catalogue', async () => {
  assert.deepEqual(spreadRids(10, 4), [1, 3, 6, 8]);
  assert.deepEqual(spreadRids(2, 4), [1, 1, 2, 2]);
  assert.deepEqual(spreadRids(0, 4), []);
  const warned: string[] = [];
  const failing = { foodsJson: (): Promise<Page<string>> => Promise.reject(new Error('the store broke')) };
  const warmUp = new SearchWarmUp(failing, { sampleNames: () => Promise.resolve(['Brie']), isOpen: () => true }, () => ({ info: () => undefined, warn: (_, message) => warned.push(message) }), 10);
  assert.equal(warmUp.state, 'searching');
  for (let waited = 0; warmUp.state === 'searching' && waited < 5000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(warmUp.state, 'stopped');
  assert.deepEqual(warned, ['stopped warming the search code: a search of its own failed']);
  assert.equal(new SearchWarmUp(failing, { sampleNames: () => Promise.resolve(['Brie']), isOpen: () => true }, () => undefined, 0).state, 'off');
});

test("the engine's lists and bound orders are taken in turns before the searches, and a store closed meanwhile stops them", async () => {
  const events: string[] = [];
  const served = { foodsJson: (query: FoodQuery): Promise<Page<string>> => {
    events.push(`search ${query.match?.query ?? ''}`);
    return Promise.resolve({ items: [], total: 0 });
  } };
  let open = true;
  let taken = 0;
  function* engineSteps(): Generator<void, void, void> {
    for (; taken < 50; taken++) {
      // Each step ~0.2 ms: the turns of ~1 ms take several, and the event loop runs between them.
      for (const started = performance.now(); performance.now() - started < 0.2;);
      yield;
    }
    events.push('engine warmed');
  }
  let between = 0;
  const ticker = setInterval(() => between++, 0);
  try {
    const warmUp = new SearchWarmUp(served, { sampleNames: () => Promise.resolve(['Brie']), isOpen: () => open, engine: () => Promise.resolve({ warmSteps: engineSteps, index: { listsHeld: 0 } }) },
      () => undefined, 2, new Promise((resolve) => setTimeout(resolve, 5)).then(() => events.push('pages read')));
    for (let waited = 0; warmUp.state === 'searching' && waited < 5000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(warmUp.state, 'done');
    // The searches wait for both: the engine's steps, taken in turns, and the pages read meanwhile.
    assert.deepEqual([...events.slice(0, 2)].sort(), ['engine warmed', 'pages read']);
    assert.deepEqual(events.slice(2), ['search brie', 'search bri*']);
    assert.ok(between > 1, `timers ran between the turns (${between})`);
  } finally {
    clearInterval(ticker);
  }

  events.length = 0;
  taken = 0;
  const stopped = new SearchWarmUp(served, { sampleNames: () => Promise.resolve(['Brie']), isOpen: () => open, engine: () => Promise.resolve({ warmSteps: engineSteps, index: { listsHeld: 0 } }) }, () => undefined, 0);
  assert.equal(stopped.state, 'off', "searches off: the engine's steps are still taken");
  await new Promise((resolve) => setTimeout(resolve, 2));
  open = false;
  for (let waited = 0; taken < 50 && waited < 200; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.ok(taken < 50, `stopped after ${taken} of 50 steps once the store closed`);
  assert.deepEqual(events, []);
});
