import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { compareDatabases } from '../../bench/compare-imports.js';
import { runCli } from '../helpers/cli.js';
import { snapshot } from '../helpers/db-snapshot.js';
import { u } from '../helpers/fixture-catalog.js';
import { tempDir } from '../helpers/paths.js';
import { randomCatalog, type RCatalog, type RFood } from '../helpers/random-catalog.js';
import { SqliteCatalogStore } from '../../src/store/sqlite/store.js';
import { foodListRequest } from '../../src/query/requests.js';

/**
 * The bulk path of a catalog import (writer.ts, bulkMinFoods): with the threshold at 1 every
 * import that writes a food drops the foods' secondary indexes and builds them again; with it
 * out of reach none does. Both must leave the same database, and a failure must leave it as it was.
 */
const BULK = { FOODLOOKUP_IMPORT_BULK_MIN: '1' };
const PLAIN = { FOODLOOKUP_IMPORT_BULK_MIN: '1000000000' };

let dir: string;
let cleanup: () => void;
/** The starting catalogue, imported the ordinary way. */
let start: string;
const base = randomCatalog(11, 300);

function lines(catalog: RCatalog, extra: readonly string[] = []): string[] {
  return [
    ...catalog.brands.map((b) => JSON.stringify({ kind: 'brand', ...b })),
    ...catalog.categories.map((c) => JSON.stringify({ kind: 'category', ...c })),
    ...catalog.tags.map((t) => JSON.stringify({ kind: 'tag', ...t })),
    ...catalog.foods.map((f) => JSON.stringify({ kind: 'food', ...f })),
    ...extra,
  ];
}

function writeJsonl(name: string, content: readonly string[]): string {
  const path = join(dir, name);
  writeFileSync(path, `${content.join('\n')}\n`);
  return path;
}

/**
 * The next catalogue: a renamed brand and tag, changed foods, new foods, a new leaf category,
 * and a new brand listed twice with the foods that use it after each listing, so the record
 * phase's cached rows must follow the writes of the same import.
 */
function nextCatalog(): string[] {
  const brands = base.brands.map((b, i) => (i === 0 ? { ...b, name: `${b.name} Renamed` } : b));
  const tags = base.tags.map((t, i) => (i === 1 ? { ...t, name: 'renamed tag' } : t));
  const usMid = base.categories.find((c) => c.region === 'us' && c.parent !== undefined && base.categories.some((k) => k.parent === c.id))!;
  const newLeaf = { id: u(90_001), name: 'brand new leaf', region: 'us' as const, parent: usMid.id };
  const foods: RFood[] = base.foods.map((f, i) => (i % 6 === 0 ? { ...f, name: `${f.name} changed` } : f));
  const extra: RFood[] = [];
  for (let i = 0; i < 200; i++) {
    const model = base.foods[i]!;
    extra.push({ ...model, foodId: u(91_000 + i), name: `added ${model.name} ${i}` });
  }
  const newBrand = { id: u(90_002), name: 'First Name Co', region: 'us' as const };
  const usFood = base.foods.find((f) => f.region === 'us')!;
  const onNewBrand = (n: number): RFood => ({ ...usFood, foodId: u(92_000 + n), brand: newBrand.id, category: newLeaf.id, name: `new brand food ${n}` });
  return [
    ...lines({ brands, categories: [...base.categories, newLeaf], tags, foods: [...foods, ...extra] }),
    JSON.stringify({ kind: 'brand', ...newBrand }),
    JSON.stringify({ kind: 'food', ...onNewBrand(1) }),
    JSON.stringify({ kind: 'brand', ...newBrand, name: 'Second Name Co' }),
    JSON.stringify({ kind: 'food', ...onNewBrand(2) }),
  ];
}

function copyOf(source: string, name: string): string {
  const path = join(dir, name);
  copyFileSync(source, path);
  return path;
}

async function importWith(db: string, file: string, env: NodeJS.ProcessEnv, flags: readonly string[] = []): Promise<void> {
  const result = await runCli(['import', 'catalog', file, '--db', db, ...flags], env);
  assert.equal(result.code, 0, result.stderr);
}

/** Imports `file` both ways into copies of `from` (fresh databases without it); returns [plain, bulk]. */
async function bothWays(name: string, file: string, from: string | undefined, flags: readonly string[] = []): Promise<[string, string]> {
  const plain = from ? copyOf(from, `${name}-plain.db`) : join(dir, `${name}-plain.db`);
  const bulk = from ? copyOf(from, `${name}-bulk.db`) : join(dir, `${name}-bulk.db`);
  await importWith(plain, file, PLAIN, flags);
  await importWith(bulk, file, BULK, flags);
  return [plain, bulk];
}

function assertSame(a: string, b: string): void {
  const result = compareDatabases(a, b, 50);
  assert.equal(result.count, 0, result.list.join('\n'));
}

function reading<T>(path: string, read: (db: Database.Database) => T): T {
  const db = new Database(path, { readonly: true });
  try {
    return read(db);
  } finally {
    db.close();
  }
}

/** sqlite_master rowids of the foods' indexes: a rebuilt index gets a new, higher one. */
function indexRowids(path: string): number[] {
  return reading(path, (db) => db
    .prepare("SELECT rowid FROM sqlite_master WHERE type = 'index' AND tbl_name = 'foods' AND sql IS NOT NULL ORDER BY name")
    .pluck().all() as number[]);
}

before(async () => {
  ({ dir, cleanup } = tempDir());
  start = join(dir, 'start.db');
  await importWith(start, writeJsonl('base.jsonl', lines(base)), PLAIN);
});

after(() => cleanup());

describe('bulk import (secondary indexes dropped and rebuilt)', () => {
  test('into a non-empty catalogue, changing and adding foods, it writes what the ordinary path writes', async () => {
    const [plain, bulk] = await bothWays('next', writeJsonl('next.jsonl', nextCatalog()), start);
    assertSame(plain, bulk);
    assert.ok(Math.min(...indexRowids(bulk)) > Math.max(...indexRowids(plain)), 'the bulk import rebuilt the indexes');
    // The brand renamed between its two foods: both are found under its last name only.
    const store = new SqliteCatalogStore(bulk, { readonly: true });
    try {
      const count = async (query: string): Promise<number> => (await store.foods(foodListRequest({ query }).query)).total;
      assert.equal(await count('second'), 2);
      assert.equal(await count('first'), 0);
    } finally {
      await store.close();
    }
  });

  test('into a fresh catalogue, it writes what the ordinary path writes', async () => {
    assertSame(...await bothWays('fresh', writeJsonl('fresh.jsonl', nextCatalog()), undefined));
  });

  test('with --replace, removing foods, it writes what the ordinary path writes', async () => {
    const kept = { ...base, foods: base.foods.filter((_, i) => i % 3 !== 0), brands: base.brands.slice(0, -1) };
    const usable = new Set(kept.brands.map((b) => b.id));
    const file = writeJsonl('replace.jsonl', lines({ ...kept, foods: kept.foods.filter((f) => usable.has(f.brand)) }));
    assertSame(...await bothWays('replace', file, start, ['--replace']));
  });

  test('re-importing the same file in bulk changes nothing', async () => {
    const target = copyOf(start, 'again.db');
    const before = snapshot(target);
    await importWith(target, join(dir, 'base.jsonl'), BULK);
    assert.equal(snapshot(target), before);
  });

  for (const [what, extra, reason] of [
    ['a record rejected after the indexes went', JSON.stringify({ kind: 'food', ...base.foods[0]!, foodId: u(93_000), brand: u(93_001) }), /brand .* does not exist/],
    ['a whole-catalogue rule broken at the check', JSON.stringify({ kind: 'category', id: u(93_002), name: 'child of a leaf', region: base.foods[0]!.region, parent: base.foods[0]!.category }), /is not a leaf/],
  ] as const) {
    test(`a failed bulk import (${what}) leaves the catalogue and its indexes as they were`, async () => {
      const target = copyOf(start, `failed-${reason.source.length}.db`);
      const before = snapshot(target);
      const indexesBefore = indexRowids(target);
      const result = await runCli(['import', 'catalog', writeJsonl(`failing-${reason.source.length}.jsonl`, [...nextCatalog(), extra]), '--db', target], BULK);
      assert.equal(result.code, 1, result.stderr);
      assert.match(result.stderr, /import failed, nothing was changed/);
      assert.match(result.stderr, reason);
      assert.equal(snapshot(target), before, 'the database changed');
      assert.deepEqual(indexRowids(target), indexesBefore);
      assertSame(start, target);
      assert.equal(reading(target, (db) => db.pragma('integrity_check', { simple: true })), 'ok');
    });
  }
});

/**
 * The search data built on a thread of its own beside the indexes and checks (search/build-thread.ts),
 * with bounds small enough that top lists and type-ahead unions are written (a helper sharing
 * them is test/unit/search-build-thread.test.ts's: these catalogues are written before one joins).
 */
const SMALL_BOUNDS = { FOODLOOKUP_RANKED_TOP_MIN: '10', FOODLOOKUP_WIDE_SLOT: '100' };
const ON_BUILD_THREAD = { ...SMALL_BOUNDS, FOODLOOKUP_SEARCH_THREAD_MIN: '0' };
const ON_IMPORT_THREAD = { ...SMALL_BOUNDS, FOODLOOKUP_SEARCH_THREAD_MIN: '1000000000' };

describe('search data built on a thread of its own', () => {
  for (const [what, indexes, flags] of [
    ['the indexes dropped: the name order sent once its index is built', BULK, []],
    ['the indexes kept', PLAIN, []],
    ['--replace, removing foods', BULK, ['--replace']],
  ] as const) {
    test(`with ${what}, it writes what the build on the import's thread writes`, async () => {
      const file = flags.length > 0
        ? writeJsonl('thread-replace.jsonl', lines({ ...base, foods: base.foods.filter((_, i) => i % 3 !== 0) }))
        : writeJsonl('thread-next.jsonl', nextCatalog());
      const here = copyOf(start, `here-${what.length}.db`);
      const there = copyOf(start, `there-${what.length}.db`);
      await importWith(here, file, { ...indexes, ...ON_IMPORT_THREAD }, flags);
      await importWith(there, file, { ...indexes, ...ON_BUILD_THREAD }, flags);
      assertSame(here, there);
      assert.ok(reading(there, (db) => db.prepare("SELECT count(*) FROM search_blobs WHERE key LIKE 'union/a%'").pluck().get() as number) > 0,
        'type-ahead unions were written');
    });
  }

  test('a failed import (a rule broken at the check) stops the build and leaves the catalogue as it was', async () => {
    const target = copyOf(start, 'thread-failed.db');
    const before = snapshot(target);
    const extra = JSON.stringify({ kind: 'category', id: u(93_002), name: 'child of a leaf', region: base.foods[0]!.region, parent: base.foods[0]!.category });
    const result = await runCli(['import', 'catalog', writeJsonl('thread-failing.jsonl', [...nextCatalog(), extra]), '--db', target],
      { ...BULK, ...ON_BUILD_THREAD });
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, /is not a leaf/);
    assert.equal(snapshot(target), before, 'the database changed');
  });
});

describe('whole-catalogue rules broken by many foods at once', () => {
  test('each rule lists its first 20 foods in catalogue order, then says there are more; rules in their order', async () => {
    const brand = (n: number, region: string): string => JSON.stringify({ kind: 'brand', id: u(n), name: `Brand ${n}`, region });
    const categories = [
      JSON.stringify({ kind: 'category', id: u(10), name: 'top', region: 'us' }),
      JSON.stringify({ kind: 'category', id: u(11), name: 'leaf one', region: 'us', parent: u(10) }),
      JSON.stringify({ kind: 'category', id: u(12), name: 'leaf two', region: 'us', parent: u(10) }),
    ];
    const foods = Array.from({ length: 60 }, (_, i) => JSON.stringify({
      kind: 'food', foodId: u(1000 + i), region: 'us', brand: u(1 + (i % 2)), category: u(i % 3 ? 11 : 12), tags: [u(20)],
      name: `food ${i}`, servings: [{ name: '100 g', scale: 1, type: 'mass' }],
    }));
    const target = join(dir, 'many-problems.db');
    await importWith(target, writeJsonl('many-1.jsonl', [brand(1, 'us'), brand(2, 'us'), ...categories,
      JSON.stringify({ kind: 'tag', id: u(20), name: 'tag' }), ...foods]), PLAIN);
    // Brand 1 moves to au, leaf one gets a child, brand 2 and the tag are left out of a --replace.
    const next = writeJsonl('many-2.jsonl', [brand(1, 'au'), ...categories,
      JSON.stringify({ kind: 'category', id: u(13), name: 'under a leaf', region: 'us', parent: u(11) }), ...foods]);
    const result = await runCli(['import', 'catalog', next, '--db', target, '--replace'], PLAIN);
    assert.equal(result.code, 1, result.stderr);
    const lines = result.stderr.trim().split('\n').slice(1).map((line) => line.trim());
    const expected = (rule: string, foodsOf: (i: number) => boolean): string[] => {
      const ids = Array.from({ length: 60 }, (_, i) => i).filter(foodsOf).map((i) => u(1000 + i));
      return [...ids.slice(0, 20).map((id) => `${id} ${rule}`), '… and more of the same kind'];
    };
    const shown = lines.map((line) => {
      const match = /^food (\S+) \(many-2\.jsonl:\d+\): (category \S+ is not a leaf|brand \S+ does not exist|brand \S+ is now in region|tag \S+ does not exist)/.exec(line);
      return match ? `${match[1]} ${match[2]!.replace(/ \S+ /, ' ')}` : line;
    });
    assert.deepEqual(shown, [
      ...expected('category is not a leaf', (i) => i % 3 !== 0),
      ...expected('brand does not exist', (i) => i % 2 === 1),
      ...expected('brand is now in region', (i) => i % 2 === 0),
      ...expected('tag does not exist', () => true),
    ]);
  });
});
