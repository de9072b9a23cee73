import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { importInto } from '../helpers/cli.js';
import { ROOT, tempDir } from '../helpers/paths.js';
import { u } from '../helpers/fixture-catalog.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import Database from 'better-sqlite3';
import { SqliteCatalogStore } from '../../src/store/sqlite/store.js';
import { ftsExpression } from '../../src/store/sqlite/matching.js';
import { foodListRequest } from '../../src/query/requests.js';

/**
 * Ranked search without filters takes a shortcut (the importer's lists for one common word;
 * otherwise candidates from FTS5 alone, ties broken on the few that can reach the page); with
 * any filter it takes the general plan. On a catalogue where every food is in region us,
 * `region=us` filters nothing, so both plans must return the same pages byte for byte.
 * The importer keeps lists for words in at least 40 foods here (2,000 by default), so both
 * shortcuts are exercised: 'raw' and 'cheese' are read from lists, 'kellogg' is ranked live.
 */
process.env['FOODLOOKUP_RANKED_TOP_MIN'] = '40';

let dir: string;
let cleanup: () => void;
let server: TestServer;
let db: string;

const GENERIC_US = '72e34d90-9563-4433-8ec4-c51801d06330';

before(async () => {
  ({ dir, cleanup } = tempDir());
  db = join(dir, 'sr21.db');
  await importInto(db, 'usda-sr', [join(ROOT, 'data/usda-sr21')]);
  // 100 foods with one and the same text: every one has the same score, only the id orders them.
  const ties: { brands: object[]; tags: object[]; categories: object[]; foods: object[] } = {
    brands: [], tags: [],
    categories: [{ id: u(900), name: 'Tie tests', region: 'us' }],
    foods: Array.from({ length: 100 }, (_, i) => ({
      foodId: u(1000 + ((i * 37) % 100)), region: 'us', brand: GENERIC_US, category: u(900), tags: [], name: 'Zyzzyva tie',
      classification: '', servings: [{ name: '100 g', scale: 1, type: 'mass' }], upcs: {}, nutrients: {},
    })),
  };
  // A word in one food's name only once, in a long text, and many times in another food's other
  // names: bm25 prefers the second, the name tier puts the first ahead.
  const food = (n: number, name: string, extra: object): object => ({
    foodId: u(n), region: 'us', brand: GENERIC_US, category: u(900), tags: [], name, classification: '',
    servings: [{ name: '100 g', scale: 1, type: 'mass' }], upcs: {}, nutrients: {}, ...extra,
  });
  ties.foods.push(
    food(2001, 'Quorblet bar', { description: Array.from({ length: 60 }, (_, i) => `filler${i}`).join(' ') }),
    food(2002, 'Plain biscuit', { otherNames: ['quorblet quorblet quorblet quorblet quorblet'] }),
  );
  writeFileSync(join(dir, 'ties.json'), JSON.stringify(ties));
  await importInto(db, 'catalog', [join(dir, 'ties.json')]);
  server = await startTestServer(db);
});

after(async () => {
  await server.close();
  cleanup();
});

async function page(query: string): Promise<string> {
  const fields = query.includes('grouping=') ? 'foodId,name,grouping' : 'foodId,name';
  const res = await server.get(`/v1/foods?${query}&fields=${fields}`);
  assert.equal(res.status, 200, query);
  return JSON.stringify(res.body);
}

describe('ranked search: the shortcut and the general plan agree', () => {
  const queries = ['raw', 'cheese', 'chicken breast', 'cooked', 'beef', 'with salt', 'babyfood', 'kellogg', 'oil', 'frozen', 'nonexistentword',
    'Zyzzyva tie', 'raw*', 'RAW'];

  test('the importer kept lists for common words only, each the general order\'s first 1,000', () => {
    const sql = new Database(db, { readonly: true });
    try {
      const count = sql.prepare('SELECT count(*) FROM foods_fts WHERE foods_fts MATCH ?').pluck();
      const stored = sql.prepare('SELECT term, matches FROM ranked_terms ORDER BY term').all() as { term: string; matches: number }[];
      const terms = new Map(stored.map((r) => [r.term, r.matches]));
      for (const word of ['raw', 'cheese', 'kellogg', 'zyzzyva']) assert.equal(terms.get(word), count.get(`"${word}"`), word);
      assert.equal(terms.get('quorblet'), undefined);
      assert.ok(stored.every((r) => r.matches >= 40));
      const list = sql.prepare('SELECT rid FROM ranked_top WHERE list = ? AND term = ? ORDER BY pos').pluck();
      const rankOrder = sql.prepare(`SELECT f.rid FROM foods_fts m JOIN foods f ON f.rid = m.rowid WHERE foods_fts MATCH ?
        ORDER BY m.rowid IN (SELECT rowid FROM foods_fts WHERE foods_fts MATCH ?) DESC, bm25(foods_fts, 10.0, 2.0, 4.0, 3.0, 1.0), f.name_key, f.id
        LIMIT 1000`).pluck();
      const nameOrder = sql.prepare(`SELECT f.rid FROM foods_fts m JOIN foods f ON f.rid = m.rowid WHERE foods_fts MATCH ?
        ORDER BY bm25(foods_fts, 10.0, 0.0, 0.0, 0.0, 0.0), f.name_key, f.id LIMIT 1000`).pluck();
      let deep = 0;
      for (const { term, matches } of stored) {
        const expression = `"${term}"`;
        assert.deepEqual(list.all(0, term), rankOrder.all(expression, `name : (${expression})`), term);
        assert.deepEqual(list.all(1, term), nameOrder.all(`name : (${expression})`), term);
        if (matches > 1000) deep++;
      }
      // Lists cut at 1,000 inside a tie group are among them (the words of a catalogue this size).
      assert.ok(stored.length > 50 && deep > 0, `${stored.length} lists, ${deep} longer than 1,000`);
    } finally {
      sql.close();
    }
  });

  for (const q of queries) {
    test(`'${q}' at several pages`, async () => {
      for (const [limit, offset] of [[20, 0], [20, 20], [50, 10], [5, 93], [100, 900], [20, 5000]] as const) {
        const params = `query=${encodeURIComponent(q)}&limit=${limit}&offset=${offset}`;
        assert.equal(await page(params), await page(`${params}&region=us`), params);
      }
    });
  }

  test('the name tier comes before bm25: a name match outranks a stronger match elsewhere', async () => {
    const body = JSON.parse(await page('query=quorblet&limit=5')) as { foods: { name: string }[] };
    assert.deepEqual(body.foods.map((f) => f.name), ['Quorblet bar', 'Plain biscuit']);
    assert.equal(await page('query=quorblet&limit=5'), await page('query=quorblet&limit=5&region=us'));
  });

  test('several common words, ranked from the importer\'s postings, agree with the general plan', async () => {
    const sql = new Database(db, { readonly: true });
    const terms = sql.prepare('SELECT term FROM term_postings ORDER BY term').pluck().all() as string[];
    sql.close();
    assert.ok(terms.includes('chicken') && terms.includes('breast') && terms.length > 50);
    // A fixed pseudo-random walk over the common words: pairs and triples, repeated words left out.
    let seed = 12345;
    const next = (): number => (seed = (seed * 1103515245 + 12345) % 2147483648) % terms.length;
    for (let i = 0; i < 60; i++) {
      const words = Array.from({ length: 2 + (i % 2) }, () => terms[next()]!).join(' ');
      for (const [limit, offset] of [[20, 0], [10, 35]] as const) {
        const params = `query=${encodeURIComponent(words)}&limit=${limit}&offset=${offset}`;
        assert.equal(await page(params), await page(`${params}&region=us`), params);
      }
    }
  });

  test('grouped by brand with a grouping-limit, from the postings, agrees with the general plan', async () => {
    for (const q of ['raw', 'cheese', 'kellogg', 'chicken breast', 'with salt', 'zyzzyva tie', 'quorblet', 'raw cheese']) {
      for (const perGroup of [1, 3, 10]) {
        for (const [limit, offset] of [[20, 0], [5, 7], [20, 100], [10, 10000]] as const) {
          const params = `query=${encodeURIComponent(q)}&grouping=brand&grouping-limit=${perGroup}&limit=${limit}&offset=${offset}`;
          assert.equal(await page(params), await page(`${params}&region=us`), params);
        }
      }
    }
  });

  test('a repeated word counts once, in matching and in ranking', async () => {
    for (const [twice, once] of [['Zyzzyva zyzzyva', 'zyzzyva'], ['raw cheese RAW', 'raw cheese'], ['raw* raw', 'raw raw*']] as const) {
      assert.equal(await page(`query=${encodeURIComponent(twice)}&limit=50`), await page(`query=${encodeURIComponent(once)}&limit=50`), twice);
    }
  });

  test('a tie longer than the candidate list is ordered by id, from a list and live', async () => {
    const first = JSON.parse(await page('query=zyzzyva&limit=20')) as { metadata: { total: number }; foods: { foodId: string }[] };
    assert.equal(first.metadata.total, 100);
    assert.deepEqual(first.foods.map((f) => f.foodId), Array.from({ length: 20 }, (_, i) => u(1000 + i)));
    for (const q of ['zyzzyva', 'zyzzyva tie']) {
      for (const offset of [0, 20, 60, 90]) {
        assert.equal(await page(`query=${q}&limit=20&offset=${offset}`), await page(`query=${q}&limit=20&offset=${offset}&region=us`));
      }
    }
  });
});

describe('SOAP foodSearch order: the shortcut and the plain query agree', () => {
  test('name matches by bm25, then name and id, for common and rare words', async () => {
    const store = new SqliteCatalogStore(db, { readonly: true });
    try {
      const plain = store.connection.prepare(`SELECT f.id FROM foods_fts m JOIN foods f ON f.rid = m.rowid
        WHERE foods_fts MATCH ? ORDER BY bm25(foods_fts, 10.0, 0.0, 0.0, 0.0, 0.0), f.name_key, f.id LIMIT ?`).pluck();
      for (const words of [['raw'], ['cheese'], ['chicken', 'breast'], ['beef'], ['zyzzyva'], ['zyzzyva', 'tie'], ['kellogg']]) {
        for (const limit of [1, 20, 100]) {
          const expression = `name : (${ftsExpression(words.map((text) => ({ text, prefix: false })))})`;
          const hits = await store.searchFoodNames(words, limit);
          assert.deepEqual(hits.map((h) => h.id), plain.all(expression, limit), `${words.join(' ')} ${limit}`);
        }
      }
    } finally {
      await store.close();
    }
  });
});

describe('a database from before the precomputed lists (schema 1)', () => {
  test('is served without them, and gains them when next opened for writing', async () => {
    const old = join(dir, 'schema1.db');
    copyFileSync(db, old);
    const sql = new Database(old);
    sql.exec("DROP TABLE ranked_top; DROP TABLE ranked_terms; UPDATE meta SET value = '1' WHERE key = 'schema_version'");
    sql.close();
    const expected = await server.get('/v1/foods?query=raw&limit=20&fields=foodId');
    const reader = new SqliteCatalogStore(old, { readonly: true });
    const request = foodListRequest({ query: 'raw', limit: '20' }).query;
    const ids = async (store: SqliteCatalogStore): Promise<string[]> => (await store.foods(request)).items.map((hit) => hit.food.foodId);
    const expectedIds = (expected.body as { foods: { foodId: string }[] }).foods.map((f) => f.foodId);
    try {
      assert.deepEqual(await ids(reader), expectedIds);
    } finally {
      await reader.close();
    }
    const writer = new SqliteCatalogStore(old);
    try {
      assert.deepEqual(await ids(writer), expectedIds);
      const version = writer.connection.prepare("SELECT value FROM meta WHERE key = 'schema_version'").pluck().get();
      assert.equal(version, '2');
      assert.ok((writer.connection.prepare('SELECT count(*) FROM ranked_terms').pluck().get() as number) > 50);
    } finally {
      await writer.close();
    }
  });
});
