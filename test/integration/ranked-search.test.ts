import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { importInto } from '../helpers/cli.js';
import { ROOT, tempDir } from '../helpers/paths.js';
import { u } from '../helpers/fixture-catalog.js';
import { SqliteCatalogStore } from '../../src/store/sqlite/store.js';
import { ftsExpression } from '../../src/store/sqlite/matching.js';
import { foodsQuery } from '../../src/store/sqlite/queries.js';
import { decodePostings, readUint32 } from '../../src/store/sqlite/postings.js';
import { SCHEMA_VERSION } from '../../src/store/sqlite/schema.js';
import { foodListRequest } from '../../src/query/requests.js';
import { textWords } from '../../src/domain/text.js';
import { seededRandom } from '../../bench/random.js';
import { randomCatalog, type RFood } from '../helpers/random-catalog.js';
import type { RawQuery } from '../../src/query/params.js';
import type { FoodQuery } from '../../src/store/catalog-store.js';

/**
 * Ranked searches take shortcuts (the importer's postings and lists, in memory; FTS5 candidates
 * for `*` words); everything else takes the general SQL plan (queries.ts). Here every shortcut
 * is checked against the general plan's own SQL, run directly: same foods, same order, same
 * total, on the bundled USDA data plus foods built to tie and to test the name tier.
 * The importer keeps lists for words in at least 40 foods here (2,000 by default), so both the
 * lists and the postings-only words are exercised; early termination runs for words in more
 * than 100 foods (20,000 by default) with more than 30 foods in common (20,000 by default), and
 * below that the foods in common are scored one by one.
 */
process.env['FOODLOOKUP_RANKED_TOP_MIN'] = '40';
// Early termination (early-top.ts) for searches whose rarest word is in more than 100 foods,
// and among those, scoring each food in common when there are at most 30.
process.env['FOODLOOKUP_EARLY_TOP_MIN'] = '100';
process.env['FOODLOOKUP_SCORE_ALL_MAX'] = '30';

let dir: string;
let cleanup: () => void;
let db: string;
let store: SqliteCatalogStore;
let sql: Database.Database;

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
  store = new SqliteCatalogStore(db, { readonly: true });
  sql = new Database(db, { readonly: true });
});

after(async () => {
  sql.close();
  await store.close();
  cleanup();
});

/** The general plan's answer, straight from its SQL. */
function general(q: FoodQuery, on: Database.Database = sql): { ids: string[]; total: number } {
  const built = foodsQuery(q);
  const rows = on.prepare(built.page.text).raw().all(...built.page.params) as [number, number?][];
  const total = rows.length > 0 && built.pageCarriesTotal ? rows[0]![1]! : on.prepare(built.count.text).pluck().get(...built.count.params) as number;
  const id = on.prepare('SELECT id FROM foods WHERE rid = ?').pluck();
  return { ids: rows.map(([rid]) => id.get(rid) as string), total };
}

async function agree(raw: RawQuery): Promise<number> {
  const { query } = foodListRequest(raw);
  const page = await store.foods(query);
  const expected = general(query);
  assert.deepEqual({ ids: page.items.map((hit) => hit.food.foodId), total: page.total }, expected, JSON.stringify(raw));
  return expected.ids.length;
}

/** A fixed pseudo-random walk, so every run checks the same cases. */
function walk(seed: number): (n: number) => number {
  let state = seed;
  return (n) => (state = (state * 1103515245 + 12345) % 2147483648) % n;
}

const vocabulary = (): { term: string; doc: number }[] => {
  sql.exec("CREATE VIRTUAL TABLE IF NOT EXISTS temp.vocab USING fts5vocab(main, 'foods_fts', 'row')");
  return sql.prepare('SELECT term, doc FROM temp.vocab ORDER BY term').all() as { term: string; doc: number }[];
};

/**
 * Every word's stored postings, both lists, against FTS5's own matches and bm25 (the importer
 * computes the parts from the index's statistics instead of asking bm25); returns the number
 * of words found in names.
 */
function assertPostingsAreFts5s(sql: Database.Database): number {
  const read = sql.prepare('SELECT rids, codes, parts FROM word_postings WHERE word = ? AND list = ?');
  const anywhere = sql.prepare(`SELECT rowid, bm25(foods_fts, 10.0, 2.0, 4.0, 3.0, 1.0), bm25(foods_fts, 1.0, 0.0, 0.0, 0.0, 0.0) < 0
    FROM foods_fts WHERE foods_fts MATCH ? ORDER BY rowid`).raw();
  const inName = sql.prepare(`SELECT rowid, bm25(foods_fts, 10.0, 0.0, 0.0, 0.0, 0.0), 1
    FROM foods_fts WHERE foods_fts MATCH ? ORDER BY rowid`).raw();
  sql.exec("CREATE VIRTUAL TABLE IF NOT EXISTS temp.vocab USING fts5vocab(main, 'foods_fts', 'row')");
  const words = sql.prepare('SELECT term FROM temp.vocab ORDER BY term').pluck().all() as string[];
  assert.ok(words.length > 0);
  let named = 0;
  for (const term of words) {
    for (const [list, statement, expression] of [[0, anywhere, `"${term}"`], [1, inName, `name : "${term}"`]] as const) {
      const expected = statement.all(expression) as [number, number, number][];
      const row = read.get(term, list) as { rids: Buffer; codes: Buffer; parts: Buffer } | undefined;
      if (expected.length === 0) {
        assert.equal(row, undefined, `${term} ${list}`);
        continue;
      }
      if (list === 1) named++;
      const p = decodePostings(row!);
      const stored = [...p.rids].map((rid, i) => [rid, p.parts[p.codes[i]! >>> 1]!, p.codes[i]! & 1]);
      assert.deepEqual(stored, expected, `${term} ${list}`);
    }
  }
  return named;
}

describe('the importer\'s search data', () => {
  test('postings of every word, both lists, are FTS5\'s own matches and bm25 parts', () => {
    assert.ok(vocabulary().length > 3000, `${vocabulary().length} words`);
    const named = assertPostingsAreFts5s(sql);
    assert.ok(named > 1000, `${named} words in names`);
  });

  test('and stay so after imports that change, delete and add foods', async () => {
    // Each import leaves FTS5 segments and deletions behind the last: the statistics bm25
    // reads then count more rows than there are (contentless_delete), and must be read as is.
    const edited = join(dir, 'edited.db');
    const catalog = randomCatalog(5, 300);
    const write = (name: string, foods: RFood[]): string => {
      const path = join(dir, name);
      writeFileSync(path, JSON.stringify({ ...catalog, foods }));
      return path;
    };
    await importInto(edited, 'catalog', [write('first.json', catalog.foods)]);
    const renamed = catalog.foods.map((f, i) => (i % 3 === 0 ? { ...f, name: `${f.name} cheese cheese`, classification: 'Milk' } : f));
    await importInto(edited, 'catalog', [write('second.json', renamed)]);
    const fewer = renamed.filter((_, i) => i % 5 !== 0).map((f, i) => (i % 7 === 0 ? { ...f, name: 'zebra' } : f));
    await importInto(edited, 'catalog', [write('third.json', fewer)], ['--replace']);
    const reader = new Database(edited, { readonly: true });
    try {
      assert.equal(reader.prepare('SELECT count(*) FROM foods').pluck().get(), fewer.length);
      assert.ok(assertPostingsAreFts5s(reader) > 5);
    } finally {
      reader.close();
    }
  });

  test('the lists of common words are the general order\'s first 1,000, and SOAP\'s name order', () => {
    const count = sql.prepare('SELECT count(*) FROM foods_fts WHERE foods_fts MATCH ?').pluck();
    const stored = sql.prepare('SELECT term, matches FROM ranked_terms ORDER BY term').all() as { term: string; matches: number }[];
    const terms = new Map(stored.map((r) => [r.term, r.matches]));
    for (const word of ['raw', 'cheese', 'kellogg', 'zyzzyva']) assert.equal(terms.get(word), count.get(`"${word}"`), word);
    assert.equal(terms.get('quorblet'), undefined);
    assert.ok(stored.every((r) => r.matches >= 40));
    const stmt = sql.prepare('SELECT rids FROM ranked_top WHERE list = ? AND term = ?').pluck();
    const list = { all: (which: number, term: string): number[] => Array.from(readUint32(stmt.get(which, term) as Buffer)) };
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
  });
});

describe('ranked search: the shortcuts and the general plan agree', () => {
  const pages = [[20, 0], [20, 20], [50, 10], [5, 93], [100, 900], [20, 990]] as const;

  for (const q of ['raw', 'cheese', 'chicken breast', 'cooked', 'beef', 'with salt', 'babyfood', 'kellogg', 'oil', 'frozen',
    'nonexistentword', 'raw nonexistentword', 'Zyzzyva tie', 'raw*', 'chick* raw', 'RAW', 'quorblet', 'Crème brûlée']) {
    test(`'${q}' at several pages`, async () => {
      for (const [limit, offset] of pages) await agree({ query: q, limit: String(limit), offset: String(offset) });
    });
  }

  test('pairs and triples of words drawn from real names, and from the whole vocabulary', async () => {
    const names = sql.prepare('SELECT name FROM foods ORDER BY rid').pluck().all() as string[];
    const vocabularyWords = vocabulary().map((w) => w.term);
    const next = walk(12345);
    let shown = 0;
    for (let i = 0; i < 120; i++) {
      const words = textWords(names[next(names.length)]!);
      const query = Array.from({ length: 2 + (i % 2) }, (_, k) =>
        (k > 0 && i % 4 === 0 ? vocabularyWords[next(vocabularyWords.length)]! : words[next(words.length)]!)).join(' ');
      for (const [limit, offset] of [[20, 0], [10, 5]] as const) shown += await agree({ query, limit: String(limit), offset: String(offset) });
    }
    assert.ok(shown > 1000, `${shown} foods compared`);
  });

  test('filters tested in memory: region, brands, categories (with the tree), tags, every combination', async () => {
    const random = seededRandom(777);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
    const unknown = u(99999);
    const parentOf = sql.prepare('SELECT parent_id FROM categories WHERE id = ?').pluck();
    const tagsOf = sql.prepare('SELECT tag_id FROM food_tags ft JOIN foods f ON f.rid = ft.food_rid WHERE f.id = ?').pluck();
    let shown = 0;
    let filtered = 0;
    for (let i = 0; i < 160; i++) {
      const query = pick(['raw', 'cheese', 'chicken raw', 'with', 'frozen cooked', 'beef', 'soup', 'oil', 'fat']);
      // Ids taken from the unfiltered results, so that every filter keeps some foods and drops others.
      const foods = (await store.foods(foodListRequest({ query, limit: '100' }).query)).items.map((hit) => hit.food);
      const some = <T>(list: readonly T[]): T => (random() < 0.1 ? unknown as T : pick(list));
      const brands = foods.map((f) => f.brand.id);
      const leaves = foods.map((f) => f.category.id);
      const parents = leaves.map((id) => parentOf.get(id) as string | null).filter((id) => id !== null);
      const tags = foods.flatMap((f) => tagsOf.all(f.foodId) as string[]);
      const raw: Record<string, string> = { query, limit: '20', offset: random() < 0.3 ? '15' : '0' };
      const use = (): boolean => random() < 0.5;
      if (use()) raw['region'] = use() ? 'us' : 'au';
      if (use()) raw['brands'] = use() ? some(brands) : `!${some(brands)},${use() ? `!${some(brands)}` : some(brands)}`;
      if (use() && parents.length > 0) raw['categories'] = `${random() < 0.3 ? '!' : ''}${use() ? some(parents) : `${some(parents)},${some(leaves)}`}`;
      if (use() && tags.length > 0) raw['tags'] = use() ? `!${some(tags)}` : `${some(tags)}${use() ? `,${some(tags)}` : ''}`;
      const count = await agree(raw);
      shown += count;
      if (Object.keys(raw).length > 3) filtered += count;
    }
    assert.ok(shown > 1000 && filtered > 800, `${shown} foods compared, ${filtered} of them filtered`);
  });

  test('grouped by brand with a grouping-limit, filtered or not', async () => {
    for (const q of ['raw', 'cheese', 'kellogg', 'chicken breast', 'with salt', 'zyzzyva tie', 'quorblet', 'raw cheese', 'nonexistentword']) {
      for (const perGroup of [1, 3, 10]) {
        for (const [limit, offset] of [[20, 0], [5, 7], [20, 100]] as const) {
          const raw = { query: q, grouping: 'brand', 'grouping-limit': String(perGroup), limit: String(limit), offset: String(offset) };
          await agree(raw);
          await agree({ ...raw, region: 'us' });
        }
      }
    }
  });

  test('the name tier comes before bm25: a name match outranks a stronger match elsewhere', async () => {
    const page = await store.foods(foodListRequest({ query: 'quorblet', limit: '5' }).query);
    assert.deepEqual(page.items.map((hit) => hit.food.name), ['Quorblet bar', 'Plain biscuit']);
  });

  test('a repeated word counts once, in matching and in ranking', async () => {
    const ids = async (query: string): Promise<string[]> =>
      (await store.foods(foodListRequest({ query, limit: '50' }).query)).items.map((hit) => hit.food.foodId);
    for (const [twice, once] of [['Zyzzyva zyzzyva', 'zyzzyva'], ['raw cheese RAW', 'raw cheese'], ['raw* raw', 'raw raw*']] as const) {
      assert.deepEqual(await ids(twice), await ids(once), twice);
    }
  });

  test('a tie of 100 foods is ordered by id', async () => {
    const first = await store.foods(foodListRequest({ query: 'zyzzyva', limit: '20' }).query);
    assert.equal(first.total, 100);
    assert.deepEqual(first.items.map((hit) => hit.food.foodId), Array.from({ length: 20 }, (_, i) => u(1000 + i)));
  });
});

describe('name order and prefix search: in memory and the general plan agree', () => {
  test('lists without a query, deep pages, both directions, with and without filters', async () => {
    const total = sql.prepare('SELECT count(*) FROM foods').pluck().get() as number;
    const brand = sql.prepare('SELECT brand_id FROM foods GROUP BY brand_id ORDER BY count(*) DESC LIMIT 1').pluck().get() as string;
    let shown = 0;
    for (const offset of [0, 1, 999, 1000, 5000, total - 3, total, total + 10]) {
      for (const order of [undefined, 'name:desc', 'rank:desc']) {
        for (const filter of [{}, { region: 'us' }, { region: 'au' }, { brands: `!${brand}` }, { brands: brand }] as Record<string, string>[]) {
          const raw: Record<string, string> = { limit: '20', offset: String(offset), ...filter };
          if (order) raw['order'] = order;
          shown += await agree(raw);
        }
      }
    }
    assert.ok(shown > 1000, `${shown} foods compared`);
  });


  test('prefixes of real names, every order, several pages', async () => {
    const names = sql.prepare('SELECT name_key FROM foods ORDER BY rid').pluck().all() as string[];
    const next = walk(4242);
    const prefixes = new Set(['', 'a', 'ch', 'chi', 'zyzzyva tie', 'ZYZ', 'crè', 'cre', '%', 'x_', 'nonexistentprefix', 'beef, ']);
    // Whole names too: a name equal to the query ranks first, and several foods share some names.
    for (let i = 0; i < 60; i++) {
      const name = names[next(names.length)]!;
      prefixes.add(i % 4 === 0 ? name : name.slice(0, 1 + next(6)));
    }
    let shown = 0;
    for (const query of prefixes) {
      for (const order of [undefined, 'rank:desc', 'name', 'name:desc']) {
        for (const [limit, offset] of [[20, 0], [5, 13], [50, 950]] as const) {
          const raw: Record<string, string> = { query, 'query-type': 'prefix', limit: String(limit), offset: String(offset) };
          if (order) raw['order'] = order;
          shown += await agree(raw);
        }
      }
    }
    assert.ok(shown > 4000, `${shown} foods compared`);
  });

  test('with the filters tested in memory', async () => {
    const random = seededRandom(99);
    const brands = sql.prepare("SELECT DISTINCT brand_id FROM foods WHERE name_key >= 'b' AND name_key < 'c'").pluck().all() as string[];
    const tags = sql.prepare('SELECT id FROM tags').pluck().all() as string[];
    const categories = sql.prepare('SELECT id FROM categories').pluck().all() as string[];
    const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
    let filtered = 0;
    for (let i = 0; i < 80; i++) {
      const raw: Record<string, string> = { query: pick(['b', 'be', 'beef', 'ch', 'c', 'z']), 'query-type': 'prefix', limit: '20' };
      if (random() < 0.5) raw['region'] = random() < 0.5 ? 'us' : 'au';
      if (random() < 0.5) raw['brands'] = `${random() < 0.5 ? '!' : ''}${pick(brands)}`;
      if (random() < 0.5) raw['categories'] = `${random() < 0.3 ? '!' : ''}${pick(categories)}`;
      if (random() < 0.3 && tags.length > 0) raw['tags'] = `${random() < 0.5 ? '!' : ''}${pick(tags)}`;
      if (random() < 0.3) raw['order'] = 'rank:desc';
      filtered += await agree(raw);
    }
    assert.ok(filtered > 300, `${filtered} foods compared`);
  });
});

describe('SOAP foodSearch order: the shortcuts and the plain query agree', () => {
  test('name matches by bm25, then name and id, for common and rare words', async () => {
    const plain = sql.prepare(`SELECT f.id FROM foods_fts m JOIN foods f ON f.rid = m.rowid
      WHERE foods_fts MATCH ? ORDER BY bm25(foods_fts, 10.0, 0.0, 0.0, 0.0, 0.0), f.name_key, f.id LIMIT ?`).pluck();
    for (const words of [['raw'], ['cheese'], ['chicken', 'breast'], ['beef'], ['zyzzyva'], ['zyzzyva', 'tie'], ['kellogg'],
      ['cheddar', 'cheese', 'low'], ['fat', 'raw'], ['nonexistentword'], ['raw', 'nonexistentword']]) {
      for (const limit of [1, 20, 100]) {
        const expression = `name : (${ftsExpression(words.map((text) => ({ text, prefix: false })))})`;
        const hits = await store.searchFoodNames(words, limit);
        assert.deepEqual(hits.map((h) => h.id), plain.all(expression, limit), `${words.join(' ')} ${limit}`);
      }
    }
  });
});

/**
 * A copy of the test database made older by `damage`: read-only it must answer `raw` as the
 * general query does; opened for writing it must still, and `gained` checks what it rebuilt.
 */
async function olderDatabase(name: string, damage: string, raw: RawQuery, gained: (db: Database.Database) => void): Promise<void> {
  const old = join(dir, name);
  copyFileSync(db, old);
  const damaged = new Database(old);
  damaged.exec(damage);
  damaged.close();
  const request = foodListRequest(raw).query;
  const ids = async (s: SqliteCatalogStore): Promise<string[]> => (await s.foods(request)).items.map((hit) => hit.food.foodId);
  const expected = general(request).ids;
  assert.equal(expected.length, 20);
  const reader = new SqliteCatalogStore(old, { readonly: true });
  try {
    assert.deepEqual(await ids(reader), expected);
  } finally {
    await reader.close();
  }
  const writer = new SqliteCatalogStore(old);
  try {
    assert.deepEqual(await ids(writer), expected);
    assert.equal(writer.connection.prepare("SELECT value FROM meta WHERE key = 'schema_version'").pluck().get(), String(SCHEMA_VERSION));
    gained(writer.connection);
  } finally {
    await writer.close();
  }
}

describe('a database written before the postings of every word (schema 2)', () => {
  test('is served by the SQL plans, and gains the search data when next opened for writing', async () => {
    await olderDatabase('schema2.db', "DROP TABLE word_postings; DELETE FROM search_blobs; UPDATE meta SET value = '2' WHERE key = 'schema_version'",
      { query: 'cheese', limit: '20', region: 'us' },
      (w) => assert.ok((w.prepare('SELECT count(*) FROM word_postings').pluck().get() as number) > 3000));
  });
});

describe('a database written with a row per food of a word\'s first foods (schema 4)', () => {
  test('ranks its common words from the postings, and gains the lists when next opened for writing', async () => {
    const words = ['cheese', 'raw', 'cooked'];
    await olderDatabase('schema4.db', `DROP TABLE ranked_top;
      CREATE TABLE ranked_top (list INTEGER NOT NULL, term TEXT NOT NULL, pos INTEGER NOT NULL, rid INTEGER NOT NULL,
        PRIMARY KEY (list, term, pos)) WITHOUT ROWID;
      INSERT INTO ranked_top VALUES (0, 'cheese', 0, 1);
      UPDATE meta SET value = '4' WHERE key = 'schema_version'`,
    { query: 'cheese', limit: '20' },
    (w) => {
      const lists = w.prepare(`SELECT t.term, length(t.rids) AS bytes, min(r.matches, 1000) * 4 AS expected
        FROM ranked_top t JOIN ranked_terms r ON r.term = t.term WHERE t.list = 0 AND t.term IN (?, ?, ?) ORDER BY t.term`).all(...words) as
        { term: string; bytes: number; expected: number }[];
      assert.deepEqual(lists.map((l) => l.term), [...words].sort());
      for (const l of lists) assert.equal(l.bytes, l.expected, l.term);
    });
  });
});

describe('a read connection open across an import', () => {
  test('answers a common word from the lists the import wrote, which it made again', async () => {
    const live = join(dir, 'live.db');
    copyFileSync(db, live);
    const reader = new SqliteCatalogStore(live, { readonly: true });
    const direct = new Database(live, { readonly: true });
    try {
      const { query } = foodListRequest({ query: 'zyzzyva', limit: '20' });
      const ids = async (): Promise<{ ids: string[]; total: number }> => {
        const page = await reader.foods(query);
        return { ids: page.items.map((hit) => hit.food.foodId), total: page.total };
      };
      // 'zyzzyva' has a stored list here (in 100 foods, the bound is 40): the reader reads it.
      assert.deepEqual(await ids(), general(query, direct));
      const more = {
        brands: [], tags: [], categories: [],
        foods: Array.from({ length: 50 }, (_, i) => ({
          foodId: u(3000 + i), region: 'us', brand: GENERIC_US, category: u(900), tags: [], name: 'Zyzzyva zyzzyva',
          classification: '', servings: [{ name: '100 g', scale: 1, type: 'mass' }], upcs: {}, nutrients: {},
        })),
      };
      writeFileSync(join(dir, 'more.json'), JSON.stringify(more));
      await importInto(live, 'catalog', [join(dir, 'more.json')]);
      const after = general(query, direct);
      assert.equal(after.total, 150);
      assert.ok(after.ids.every((id) => id >= u(3000)), 'the new foods, the word twice in their names, rank first');
      assert.deepEqual(await ids(), after);
    } finally {
      direct.close();
      await reader.close();
    }
  });
});

describe('a database written before name lengths were stored (schema 3)', () => {
  test('answers prefixes with the general query, and gains the lengths when next opened for writing', async () => {
    await olderDatabase('schema3.db', "DELETE FROM search_blobs WHERE key = 'name_length'; UPDATE meta SET value = '3' WHERE key = 'schema_version'",
      { query: 'ch', 'query-type': 'prefix', limit: '20' },
      (w) => assert.ok(w.prepare("SELECT 1 FROM search_blobs WHERE key = 'name_length'").get() !== undefined));
  });
});
