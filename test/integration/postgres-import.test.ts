import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { withClient } from '../../src/store/postgres/connection.js';
import { ImportWatchdog } from '../../src/store/postgres/import-watchdog.js';
import { generate } from '../../bench/generate.js';
import { runCli, type CliResult } from '../helpers/cli.js';
import { catalogJsonl, fixtureCatalog, IDS, u, type FixtureCatalog } from '../helpers/fixture-catalog.js';
import { CLI, ROOT, fixturePath, tempDir } from '../helpers/paths.js';
import { NO_POSTGRES, dropTestDatabase, testDatabaseUrl } from '../helpers/postgres.js';
import { TEST_TOKEN, basic, spawnServe } from '../helpers/server.js';
import { postgresStore } from '../helpers/stores.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

/**
 * `foodlookup import --database-url` on a real PostgreSQL, each import run beside the same
 * import into SQLite: the two must say the same (summary, skips, errors) and store the same
 * catalogue (every table's rows and every search blob, byte for byte), and PostgreSQL must keep
 * its promises of one transaction: a failed or killed import leaves the catalogue as it was.
 */

const CATALOG_TABLES: Readonly<Record<string, string>> = {
  brands: 'rid, id, name, name_key, region, updated_at',
  categories: 'rid, id, name, name_key, region, parent_id, is_leaf, hierarchy, updated_at',
  category_closure: 'ancestor_id, descendant_id',
  tags: 'rid, id, name, name_key, updated_at',
  foods: 'rid, id, revision_id, content_hash, region, brand_id, category_id, name, name_key, classification, classification_key, ' +
    'classification_fold, other_names_fold, description_fold, servings, tag_ids, body, updated_at',
  food_tags: 'tag_id, food_rid',
  food_upcs: 'upc_key, food_rid',
};

type Rows = unknown[][];

/**
 * The catalogue as comparable text: rows sorted; change times replaced by their rank among the
 * store's change times (the two stores import at different instants, but the same records must
 * carry the same import's time); blobs by hash.
 */
function normalise(tables: Record<string, Rows>, blobs: [string, Buffer][]): string {
  const times = new Set<number>();
  for (const [table, columns] of Object.entries(CATALOG_TABLES)) {
    const at = columns.split(', ').indexOf('updated_at');
    if (at >= 0) for (const row of tables[table]!) times.add(Number(row[at]));
  }
  const rank = new Map([...times].sort((a, b) => a - b).map((t, i) => [t, i]));
  const out: Record<string, string[]> = {};
  for (const [table, columns] of Object.entries(CATALOG_TABLES)) {
    const at = columns.split(', ').indexOf('updated_at');
    out[table] = tables[table]!.map((row) => JSON.stringify(row.map((v, i) => (i === at ? `t${rank.get(Number(v))}` : String(v))))).sort();
  }
  out['search_blobs'] = blobs.map(([key, value]) => `${key} ${createHash('sha256').update(value).digest('hex')}`).sort();
  return JSON.stringify(out, null, 1);
}

function sqliteCatalog(path: string): string {
  const db = new Database(path, { readonly: true });
  try {
    const tables: Record<string, Rows> = {};
    for (const [table, columns] of Object.entries(CATALOG_TABLES)) tables[table] = db.prepare(`SELECT ${columns} FROM ${table}`).raw().all() as Rows;
    // Only SQLite stores mid-sized type-ahead prefixes' lists (search/build.ts BuildOptions.prefixUnions): every other blob is the same.
    return normalise(tables, db.prepare(`SELECT key, value FROM search_blobs WHERE key NOT LIKE 'union/a%'`).raw().all() as [string, Buffer][]);
  } finally {
    db.close();
  }
}

async function meta(url: string): Promise<Map<string, string>> {
  return withClient(url, async (c) => new Map((await c.query<{ key: string; value: string }>('SELECT key, value FROM foodlookup_meta')).rows.map((r) => [r.key, r.value])));
}

/** The current catalogue version of the PostgreSQL database, as sqliteCatalog gives SQLite's. */
async function postgresCatalog(url: string): Promise<string> {
  const schema = (await meta(url)).get('catalog_schema');
  assert.match(schema ?? '', /^foodlookup_cat_\d+$/);
  return withClient(url, async (c) => {
    const tables: Record<string, Rows> = {};
    for (const [table, columns] of Object.entries(CATALOG_TABLES)) {
      tables[table] = (await c.query({ text: `SELECT ${columns} FROM ${schema}.${table}`, rowMode: 'array' })).rows as Rows;
    }
    // Only PostgreSQL stores the names in name order (search/build.ts BuildOptions.nameKeys): every other blob is the same.
    const blobs = (await c.query<{ key: string; value: Buffer }>(`SELECT key, value FROM ${schema}.search_blobs WHERE key NOT LIKE 'foods/name-key%'`)).rows;
    return normalise(tables, blobs.map((r) => [r.key, r.value]));
  });
}

/** Everything the database holds of foodlookup: meta (the import's duration aside) and every catalogue schema's rows. */
async function postgresSnapshot(url: string): Promise<string> {
  return withClient(url, async (c) => {
    const out: Record<string, unknown> = {};
    out['meta'] = (await c.query("SELECT key, value FROM foodlookup_meta WHERE key <> 'last_import_seconds' ORDER BY key")).rows;
    const schemas = (await c.query<{ name: string }>("SELECT nspname AS name FROM pg_namespace WHERE nspname LIKE 'foodlookup%' ORDER BY 1")).rows;
    for (const { name } of schemas) {
      for (const table of [...Object.keys(CATALOG_TABLES), 'search_blobs']) {
        const rows = (await c.query({ text: `SELECT * FROM ${name}.${table}`, rowMode: 'array' })).rows as Rows;
        out[`${name}.${table}`] = rows.map((r) => JSON.stringify(r.map((v) => (Buffer.isBuffer(v) ? v.toString('base64') : v)))).sort();
      }
    }
    return JSON.stringify(out);
  });
}

/** What an import printed, its duration aside. */
function said(result: CliResult): { code: number | null; stdout: string; stderr: string } {
  const clean = (text: string): string => text.replace(/ in \d+\.\d s/g, ' in … s').split('\n').filter((l) => !l.startsWith('progress:')).join('\n');
  return { code: result.code, stdout: clean(result.stdout), stderr: clean(result.stderr) };
}

let dir: string;
let cleanup: () => void;
let url: string | undefined;

before(async () => {
  ({ dir, cleanup } = tempDir());
  url = await testDatabaseUrl();
});

after(async () => {
  if (url) await dropTestDatabase(url);
  cleanup();
});

function writeJsonl(name: string, catalog: FixtureCatalog, extra: string[] = []): string {
  const path = join(dir, name);
  writeFileSync(path, catalogJsonl(catalog, extra));
  return path;
}

/** The same import into the SQLite file and the PostgreSQL database; both must say the same. */
async function twinImport(sqlite: string, database: string, file: string, flags: readonly string[] = []): Promise<CliResult> {
  const lite = await runCli(['import', 'catalog', file, '--db', sqlite, ...flags]);
  const post = await runCli(['import', 'catalog', file, '--database-url', database, ...flags]);
  assert.deepEqual(said(post), said(lite), 'PostgreSQL and SQLite answer the import alike');
  return post;
}

describe('import --database-url: the same catalogue as SQLite', () => {
  const sqlite = (): string => join(dir, 'twin.db');

  test('first import, a changed catalogue, the same again, --replace, --skip-invalid, and failures', async (t) => {
    if (!url) return t.skip(NO_POSTGRES);
    const first = await twinImport(sqlite(), url, fixturePath('catalog.json'));
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /imported 7 foods: 7 added, 0 changed, 0 unchanged, 0 skipped/);
    assert.equal(await postgresCatalog(url), sqliteCatalog(sqlite()));
    assert.equal((await meta(url)).get('catalog_schema'), 'foodlookup_cat_2');

    // A renamed brand (its foods change time), a renamed ancestor category (its descendants'
    // hierarchy and foods), a changed food, a new food; the rest as it was.
    const changed = fixtureCatalog();
    changed.brands.find((b) => b.id === IDS.acme)!.name = 'Acme Creamery';
    changed.categories.find((c) => c.id === IDS.cheese)!.name = 'Cheeses';
    changed.foods[3]!['name'] = 'Skim milk, fortified';
    changed.foods.push({ ...changed.foods[0], foodId: u(698), name: 'Cheddar, smoked', upcs: {} });
    const second = await twinImport(sqlite(), url, writeJsonl('changed.jsonl', changed));
    assert.match(second.stdout, /imported 8 foods: 1 added, 1 changed, 6 unchanged/);
    assert.equal(await postgresCatalog(url), sqliteCatalog(sqlite()));

    const again = await twinImport(sqlite(), url, writeJsonl('changed-again.jsonl', changed));
    assert.match(again.stdout, /0 added, 0 changed, 8 unchanged/);
    assert.match(again.stderr, /nothing was added or changed/);
    assert.equal((await meta(url)).get('catalog_version'), '3', 'an import that changes nothing leaves the version');

    // --replace: what the file does not list goes, the generic brands stay.
    const fewer = fixtureCatalog();
    fewer.foods = fewer.foods.filter((f) => f['region'] === 'us').slice(0, 3);
    fewer.brands = fewer.brands.filter((b) => b.region === 'us');
    fewer.tags = fewer.tags.slice(0, 2);
    for (const food of fewer.foods) food['tags'] = (food['tags'] as string[]).filter((tag) => fewer.tags.some((x) => x.id === tag));
    fewer.categories = fewer.categories.filter((c) => c.region === 'us');
    const replaced = await twinImport(sqlite(), url, writeJsonl('fewer.jsonl', fewer), ['--replace']);
    assert.equal(replaced.code, 0, replaced.stderr);
    assert.equal(await postgresCatalog(url), sqliteCatalog(sqlite()));
    const current = (await meta(url)).get('catalog_schema')!;
    const names = await withClient(url, async (c) => (await c.query(`SELECT id FROM ${current}.brands ORDER BY id`)).rows.map((r: { id: string }) => r.id));
    assert.ok(names.includes(IDS.genericAu) && names.includes(IDS.genericUs), 'the generic brands stay after --replace');

    // --skip-invalid: bad lines and a record the catalogue refuses are reported and left out.
    const catalog = fixtureCatalog();
    const bad = JSON.stringify({ kind: 'food', ...catalog.foods[0], foodId: u(699), nutrients: { fat: -1 } });
    const noBrand = JSON.stringify({ kind: 'food', ...catalog.foods[0], foodId: u(697), brand: u(999) });
    const skipping = await twinImport(sqlite(), url, writeJsonl('some-bad.jsonl', catalog, ['{not json', bad, noBrand]), ['--skip-invalid']);
    assert.equal(skipping.code, 0, skipping.stderr);
    assert.match(skipping.stdout, /3 skipped/);
    assert.match(skipping.stderr, /skipped some-bad\.jsonl:25: brand 00000000-0000-4000-8000-000000000999 does not exist/);
    assert.equal(await postgresCatalog(url), sqliteCatalog(sqlite()));
  });

  test('a failing import, in its records or in the whole-catalogue checks, changes nothing at all', async (t) => {
    if (!url) return t.skip(NO_POSTGRES);
    const catalog = fixtureCatalog();
    const before = await postgresSnapshot(url);
    const cases: [string, RegExp][] = [
      // Refused as it is put: a food in a category that has children.
      [writeJsonl('not-leaf.jsonl', catalog, [JSON.stringify({ kind: 'food', ...catalog.foods[0], foodId: u(696), category: IDS.cheese })]),
        /not-leaf\.jsonl:23: category 00000000-0000-4000-8000-000000000302 is not a leaf/],
      // Found only when the records are in: a cycle (after every food was streamed into the new version).
      [writeJsonl('cycle.jsonl', catalog, [JSON.stringify({ kind: 'category', id: IDS.dairy, name: 'Dairy', region: 'us', parent: IDS.hard })]),
        /its parents form a cycle/],
      // …and foods whose leaf category gained a child after them, each named with its own line.
      [writeJsonl('gained-child.jsonl', catalog, [JSON.stringify({ kind: 'category', id: u(399), name: 'Extra hard', region: 'us', parent: IDS.hard })]),
        /food [0-9a-f-]+ \(gained-child\.jsonl:\d+\): category 00000000-0000-4000-8000-000000000303 is not a leaf/],
    ];
    for (const [file, message] of cases) {
      const result = await runCli(['import', 'catalog', file, '--database-url', url]);
      assert.equal(result.code, 1, result.stdout);
      assert.match(result.stderr, /^import failed, nothing was changed: /m);
      assert.match(result.stderr, message);
      const lite = await runCli(['import', 'catalog', file, '--db', join(dir, 'twin.db')]);
      assert.deepEqual(said(result), said(lite));
      assert.equal(await postgresSnapshot(url), before, `${file} left the database as it was`);
    }
  });

  test('U+0000 in a name, which PostgreSQL text cannot hold: the record is refused by its line (skipped with --skip-invalid)', async (t) => {
    if (!url) return t.skip(NO_POSTGRES);
    const before = await postgresSnapshot(url);
    const catalog = fixtureCatalog();
    const file = writeJsonl('nul.jsonl', catalog, [
      JSON.stringify({ kind: 'food', ...catalog.foods[0], foodId: u(695), name: 'Cheddar\u0000cheese' }),
      JSON.stringify({ kind: 'tag', id: u(694), name: 'Odd\u0000tag' }),
    ]);
    const refused = await runCli(['import', 'catalog', file, '--database-url', url]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /import failed, nothing was changed: nul\.jsonl:23: the food's text holds the character U\+0000/);
    assert.equal(await postgresSnapshot(url), before);
    const skipped = await runCli(['import', 'catalog', file, '--database-url', url, '--skip-invalid']);
    assert.equal(skipped.code, 0, skipped.stderr);
    assert.match(skipped.stderr, /skipped nul\.jsonl:23: the food's text/);
    assert.match(skipped.stderr, /skipped nul\.jsonl:24: the tag's text/);
    assert.match(skipped.stdout, /2 skipped/);
  });

  test("an import that changes nothing still writes anew search data of another format (an earlier release's), the version unmoved", async (t) => {
    if (!url) return t.skip(NO_POSTGRES);
    const own = await testDatabaseUrl();
    try {
      const file = fixturePath('catalog.json');
      assert.equal((await runCli(['import', 'catalog', file, '--database-url', own!])).code, 0);
      const schemaOf = async (): Promise<string> => (await meta(own!)).get('catalog_schema')!;
      const schema = await schemaOf();
      const metaBlobs = (): Promise<number> => withClient(own!, async (c) => (await c.query(`SELECT 1 FROM ${schema}.search_blobs WHERE key = 'meta'`)).rowCount ?? 0);
      const expected = await postgresCatalog(own!);
      // Without its meta blob the version's search data is not this program's.
      await withClient(own!, (c) => c.query(`DELETE FROM ${schema}.search_blobs WHERE key = 'meta'`));
      assert.equal(await metaBlobs(), 0);
      const again = await runCli(['import', 'catalog', file, '--database-url', own!]);
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stdout, /0 added, 0 changed, 7 unchanged/);
      assert.equal(await schemaOf(), schema);
      assert.equal(await metaBlobs(), 1);
      assert.equal(await postgresCatalog(own!), expected);
    } finally {
      await dropTestDatabase(own!);
    }
  });

  /** The fixture catalogue and foods of these names (ids counting down from `firstId`), imported into both stores: the same catalogue. */
  async function sameCatalogWithNames(label: string, names: readonly string[], firstId: number): Promise<void> {
    const catalog = fixtureCatalog();
    await sameCatalogWith(label, names.map((name, i) => JSON.stringify({ kind: 'food', ...catalog.foods[0], foodId: u(firstId - i), name, upcs: {} })));
  }

  /** The fixture catalogue and these lines after it, imported into both stores: the same catalogue. */
  async function sameCatalogWith(label: string, extra: string[]): Promise<void> {
    const file = writeJsonl(`${label}.jsonl`, fixtureCatalog(), extra);
    const own = await testDatabaseUrl();
    try {
      const imported = await twinImport(join(dir, `${label}.db`), own!, file);
      assert.equal(imported.code, 0, imported.stderr);
      assert.equal(await postgresCatalog(own!), sqliteCatalog(join(dir, `${label}.db`)));
    } finally {
      await dropTestDatabase(own!);
    }
  }

  test('names in code point order as SQLite sorts them: U+E000–U+FFFF before characters above U+FFFF, equal names by id', async (t) => {
    if (!url) return t.skip(NO_POSTGRES);
    // In UTF-16 (JavaScript's own string order) U+1F9C0 (a surrogate pair) comes before U+E000;
    // in code point order (SQLite's BINARY, PostgreSQL's "C") after it. The search data's name
    // order must be SQLite's, byte for byte.
    await sameCatalogWithNames('code-points', ['Cheddar \u{1F9C0} aged', 'Cheddar \uE000 aged', 'Cheddar \uFFFD aged', 'Cheddar aged', 'Cheddar aged'], 680);
  });

  test('names without such characters in the same order: a name before the names it begins, equal names by id', async (t) => {
    if (!url) return t.skip(NO_POSTGRES);
    // The common path sorts one string a food (search-store.ts nameOrder): `apple` must come
    // before `apple pie` and `apple!`, which sort after it by their next character.
    await sameCatalogWithNames('ascii-names', ['Apple pie', 'Apple', 'Apple!', 'Apple', 'Apple, raw', 'Apple\tcake', 'Applesauce', 'Apple'], 690);
  });

  test('the search data is the one SQLite builds from the rows, also for a food written twice (its name order as first written is not its order) or a brand renamed after its foods', async (t) => {
    if (!url) return t.skip(NO_POSTGRES);
    const catalog = fixtureCatalog();
    const first = catalog.foods[0]!;
    const acme = catalog.brands.find((b) => b.id === IDS.acme)!;
    // The first food again under another name: the name runs made as it came are dropped.
    await sameCatalogWith('written-twice', [JSON.stringify({ kind: 'food', ...first, name: 'Gouda, smoked' })]);
    // Its brand renamed after its foods: their brand words are the new name's.
    await sameCatalogWith('brand-renamed', [JSON.stringify({ kind: 'brand', ...acme, name: 'Zebrafarm Creamery' })]);
  });

  test('foods streamed in many small pieces, their tags and barcodes copied between them, names ordered in runs: the same catalogue as SQLite', async (t) => {
    if (!url) return t.skip(NO_POSTGRES);
    const file = join(dir, 'pieces.jsonl');
    const out = createWriteStream(file);
    await generate({ foods: 3_000, seed: 11, out });
    await new Promise<void>((resolve) => out.end(resolve));
    const own = await testDatabaseUrl();
    try {
      const lite = await runCli(['import', 'catalog', file, '--db', join(dir, 'pieces.db')]);
      // Pieces of ~1,000 characters (about a food each), tags and barcodes copied every 256 of
      // them; the name order made in runs of 97 foods, merged at the end (name-runs.ts).
      const post = await runCli(['import', 'catalog', file, '--database-url', own!], { FOODLOOKUP_PG_COPY_CHUNK: '1000', FOODLOOKUP_PG_NAME_RUN: '97' });
      assert.equal(post.code, 0, post.stderr);
      assert.deepEqual(said(post), said(lite));
      assert.equal(await postgresCatalog(own!), sqliteCatalog(join(dir, 'pieces.db')));
    } finally {
      await dropTestDatabase(own!);
    }
  });

  test('a given revisionId that another food of the same import has, derived or given, is refused by its line as in SQLite', async (t) => {
    if (!url) return t.skip(NO_POSTGRES);
    const catalog = fixtureCatalog();
    // The revision SQLite derives for the first food, which the import below writes first.
    const scratch = join(dir, 'derived.db');
    assert.equal((await runCli(['import', 'catalog', fixturePath('catalog.json'), '--db', scratch])).code, 0);
    const db = new Database(scratch, { readonly: true });
    const derived = (db.prepare('SELECT revision_id FROM foods WHERE id = ?').get(catalog.foods[0]!['foodId']) as { revision_id: string }).revision_id;
    db.close();
    const food = (id: number, name: string, revisionId: string): string =>
      JSON.stringify({ kind: 'food', ...catalog.foods[0], foodId: u(id), name, revisionId, upcs: {} });
    const file = writeJsonl('revisions.jsonl', catalog, [
      food(670, 'Cheddar, the first food’s revision', derived),
      food(671, 'Cheddar, a revision of its own', u(672)),
      food(673, 'Cheddar, the same revision again', u(672)),
    ]);
    const own = await testDatabaseUrl();
    try {
      const imported = await twinImport(join(dir, 'revisions-twin.db'), own!, file, ['--skip-invalid']);
      assert.equal(imported.code, 0, imported.stderr);
      assert.match(imported.stderr, new RegExp(`revisions\\.jsonl:23: revisionId ${derived} is already the revision of food ${String(catalog.foods[0]!['foodId'])}`));
      assert.match(imported.stderr, new RegExp(`revisions\\.jsonl:25: revisionId ${u(672)} is already the revision of food ${u(671)}`));
      assert.match(imported.stdout, /8 added, 0 changed, 0 unchanged, 2 skipped/);
      assert.equal(await postgresCatalog(own!), sqliteCatalog(join(dir, 'revisions-twin.db')));
    } finally {
      await dropTestDatabase(own!);
    }
  });

  test('an unreachable server or a URL of another kind: one line naming the host, never the password, exit 1', async () => {
    const refused = await runCli(['import', 'catalog', fixturePath('catalog.json'), '--database-url', 'postgres://fl:s3cret-pw@127.0.0.1:1/foodlookup']);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /127\.0\.0\.1:1\/foodlookup/);
    assert.doesNotMatch(refused.stderr + refused.stdout, /s3cret-pw/);
    assert.equal(refused.stderr.trim().split('\n').length, 1, refused.stderr);
    const mysql = await runCli(['import', 'catalog', fixturePath('catalog.json'), '--database-url', 'mysql://fl:s3cret-pw@db.example.com/x']);
    assert.equal(mysql.code, 1);
    assert.doesNotMatch(mysql.stderr, /s3cret-pw/);
    assert.match(mysql.stderr, /postgres:\/\//);
    // The server pg connects to: `host` and `port` in the query win over the authority's.
    const queried = await runCli(['import', 'catalog', fixturePath('catalog.json'), '--database-url', 'postgres://fl@127.0.0.1:5432/foodlookup?password=s3cret-pw&port=1']);
    assert.equal(queried.code, 1);
    assert.match(queried.stderr, /PostgreSQL at 127\.0\.0\.1:1\/foodlookup is unavailable/);
    assert.doesNotMatch(queried.stderr, /s3cret-pw/);
    // A '#' ends a URL: the password's first part would have been read as the host and port.
    const hashed = await runCli(['import', 'catalog', fixturePath('catalog.json'), '--database-url', 'postgres://fl:2024#s3cret-pw@127.0.0.1:1/foodlookup']);
    assert.equal(hashed.code, 1);
    assert.match(hashed.stderr, /cannot hold '#': write it %23/);
    assert.doesNotMatch(hashed.stderr, /2024|s3cret-pw/);
    assert.equal(hashed.stderr.trim().split('\n').length, 1, hashed.stderr);
  });
});

describe('import --database-url: concurrency and a killed import', () => {
  test('imports started at once on a fresh database migrate one after the other and all commit', async (t) => {
    const fresh = await testDatabaseUrl();
    if (!fresh) return t.skip(NO_POSTGRES);
    try {
      const second = fixtureCatalog();
      second.foods[1]!['name'] = 'Cheddar cheese, mild and creamy';
      const files = [fixturePath('catalog.json'), writeJsonl('other.jsonl', second), fixturePath('catalog.json')];
      const results = await Promise.all(files.map((file) => runCli(['import', 'catalog', file, '--database-url', fresh])));
      for (const result of results) assert.equal(result.code, 0, result.stderr);
      assert.equal(results.filter((r) => /7 added/.test(r.stdout)).length, 1, 'exactly one import found the catalogue empty');
      const m = await meta(fresh);
      assert.equal(m.get('schema_version'), '2');
      const versions = await withClient(fresh, async (c) => (await c.query("SELECT nspname FROM pg_namespace WHERE nspname LIKE 'foodlookup_cat_%'")).rows.length);
      assert.ok(versions <= 2, 'at most the current version and the one before it are kept');
    } finally {
      await dropTestDatabase(fresh);
    }
  });

  /** The 60,000-food catalogue the interrupted imports read (brands, categories and tags first). */
  let big = '';
  before(async () => {
    big = join(dir, 'big.jsonl');
    const out = createWriteStream(big);
    await generate({ foods: 60_000, seed: 7, out });
    await new Promise<void>((resolve) => out.end(resolve));
  });

  /**
   * `import catalog big.jsonl --database-url url`, with `act` run once when 30,000 records are
   * read: the file starts with 23,140 brands, categories and tags, so ~6,900 foods are put by
   * then and the COPY into the new version has been under way for a while. Ends with the exit.
   */
  async function interruptedImport(url: string, act: (child: ReturnType<typeof spawn>) => Promise<void> | void, env: Record<string, string> = {}): Promise<{ code: number | null; stderr: string }> {
    // A progress line every 100 ms: by default (5 s) a fast import ends before its first one.
    const child = spawn(process.execPath, [CLI, 'import', 'catalog', big, '--database-url', url],
      { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, FOODLOOKUP_PROGRESS_MS: '100', ...env } });
    let stderr = '';
    let acted: Promise<void> | undefined;
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      const counts = [...stderr.matchAll(/progress: ([\d,]+) records/g)].map((m) => Number(m[1]!.replace(/,/g, '')));
      if (!acted && counts.some((n) => n >= 30_000)) acted = Promise.resolve(act(child));
    });
    const code = await exited;
    assert.ok(acted, `the import ended (${code}) before 30,000 records: ${stderr}`);
    await acted;
    return { code, stderr };
  }

  test('kill -9 in the middle of the foods COPY leaves the old version as it was and answering, and the next import works', async (t) => {
    const fresh = await testDatabaseUrl();
    if (!fresh) return t.skip(NO_POSTGRES);
    const serving: { stop(): Promise<number | null> }[] = [];
    try {
      assert.equal((await runCli(['import', 'catalog', fixturePath('catalog.json'), '--database-url', fresh])).code, 0);
      const before = await postgresSnapshot(fresh);
      const server = await spawnServe(postgresStore(fresh));
      serving.push(server);
      const food = async (): Promise<{ status: number; name: unknown }> => {
        const response = await fetch(`${server.url}/v1/foods/${IDS.sharp}`, { headers: { authorization: basic(TEST_TOKEN) } });
        return { status: response.status, name: ((await response.json()) as { food?: { name?: unknown } }).food?.name };
      };
      const answer = await food();
      assert.deepEqual(answer, { status: 200, name: 'Cheddar cheese, sharp' });
      const killed = await interruptedImport(fresh, async (child) => {
        // A replica answers while the import streams its foods…
        assert.deepEqual(await food(), answer);
        child.kill('SIGKILL');
      });
      assert.equal(killed.code, null, 'killed by the signal');
      // The server notices the dead connection and rolls its transaction back.
      await importSessionsGone(fresh);
      assert.equal(await postgresSnapshot(fresh), before, 'the killed import left nothing');
      // …and after it was killed.
      assert.deepEqual(await food(), answer);
      const next = await runCli(['import', 'catalog', writeJsonl('after-kill.jsonl', fixtureCatalog(), []), '--database-url', fresh]);
      assert.equal(next.code, 0, next.stderr);
      assert.match(next.stdout, /0 added, 0 changed, 7 unchanged/);
    } finally {
      for (const server of serving) await server.stop();
      await dropTestDatabase(fresh);
    }
  });

  /** Until PostgreSQL has no import session left (it notices a dead connection and rolls its transaction back). */
  async function importSessionsGone(url: string): Promise<void> {
    for (let i = 0; i < 100; i++) {
      const open = await withClient(url, async (c) => (await c.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'foodlookup import'")).rows[0] as { n: number });
      if (open.n === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.fail('the import session is still open 10 s on');
  }

  /**
   * An import of `big` (after the fixture's) through a proxy that `hang` makes answer nothing, the
   * stall bound at 2 s; after it, the proxy restored and the server's import session gone. Its
   * exit code and error lines, the ms from the hang to its end, and the catalogue before it.
   */
  async function importIntoHang(fresh: string, hang: (proxy: TcpProxy) => void): Promise<{ code: number | null; lines: string[]; waited: number; before: string; port: number }> {
    const database = new URL(fresh);
    const proxy = await startTcpProxy(Number(database.port || 5432), database.hostname);
    try {
      assert.equal((await runCli(['import', 'catalog', fixturePath('catalog.json'), '--database-url', fresh])).code, 0);
      const before = await postgresSnapshot(fresh);
      const via = new URL(fresh);
      via.hostname = '127.0.0.1';
      via.port = String(proxy.port);
      let hungAt = 0;
      const ended = await interruptedImport(via.toString(), () => {
        hang(proxy);
        hungAt = performance.now();
      }, { FOODLOOKUP_IMPORT_STALL_SECONDS: '2' });
      const waited = performance.now() - hungAt;
      await proxy.restore();
      await importSessionsGone(fresh);
      const lines = ended.stderr.split(/[\r\n]+/).filter((l) => l !== '' && !l.startsWith('progress:'));
      return { code: ended.code, lines, waited, before, port: proxy.port };
    } finally {
      await proxy.close();
    }
  }

  test('PostgreSQL answering nothing mid-COPY (a frozen host, a network that drops packets): one line naming it within the stall bound, nothing changed', async (t) => {
    const fresh = await testDatabaseUrl();
    if (!fresh) return t.skip(NO_POSTGRES);
    try {
      // Without the watchdog the import waited for ever: the test's own timeout is what it guards against.
      const ended = await importIntoHang(fresh, (proxy) => proxy.hang());
      assert.equal(ended.code, 1, ended.lines.join('\n'));
      assert.equal(ended.lines.length, 1, ended.lines.join('\n'));
      const database = new URL(fresh).pathname;
      assert.match(ended.lines[0]!, new RegExp(`^import failed, nothing was changed: PostgreSQL at 127\\.0\\.0\\.1:${ended.port}${database} is unavailable: it answered nothing for 2 s$`));
      assert.ok(ended.waited < 20_000, `the import failed ${Math.round(ended.waited)} ms after the hang`);
      assert.equal(await postgresSnapshot(fresh), ended.before);
    } finally {
      await dropTestDatabase(fresh);
    }
  });

  test('PostgreSQL answering nothing to the COMMIT: the outcome is said to be unknown, and the same import run again settles it', async (t) => {
    const fresh = await testDatabaseUrl();
    if (!fresh) return t.skip(NO_POSTGRES);
    try {
      // The migrations' own COMMIT is long past by then: the next one is the import's.
      const ended = await importIntoHang(fresh, (proxy) => proxy.hangOn('COMMIT\0'));
      assert.equal(ended.code, 1, ended.lines.join('\n'));
      assert.equal(ended.lines.length, 1, ended.lines.join('\n'));
      assert.match(ended.lines[0]!, /^import outcome unknown: the connection to PostgreSQL at 127\.0\.0\.1:\d+\/\S+ was lost while it committed \(it answered nothing for 2 s\): the import may have been committed or not; import the same files again/);
      // The COMMIT never reached the server here: nothing changed, and the import run again commits.
      assert.equal(await postgresSnapshot(fresh), ended.before);
      const again = await runCli(['import', 'catalog', big, '--database-url', fresh]);
      assert.equal(again.code, 0, again.stderr);
      assert.notEqual(await postgresSnapshot(fresh), ended.before);
    } finally {
      await dropTestDatabase(fresh);
    }
  });

  test('the server ending the import’s connection mid-COPY: one line naming the server, nothing changed', async (t) => {
    const fresh = await testDatabaseUrl();
    if (!fresh) return t.skip(NO_POSTGRES);
    try {
      assert.equal((await runCli(['import', 'catalog', fixturePath('catalog.json'), '--database-url', fresh])).code, 0);
      const before = await postgresSnapshot(fresh);
      const ended = await interruptedImport(fresh, async () => {
        await withClient(fresh, (c) => c.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'foodlookup import' AND datname = current_database()"));
      });
      assert.equal(ended.code, 1);
      const lines = ended.stderr.split(/[\r\n]+/).filter((l) => l !== '' && !l.startsWith('progress:'));
      assert.equal(lines.length, 1, ended.stderr);
      const database = new URL(fresh);
      assert.match(lines[0]!, new RegExp(`^import failed, nothing was changed: PostgreSQL at ${database.hostname}:${database.port || 5432}${database.pathname} is unavailable: `));
      assert.equal(await postgresSnapshot(fresh), before);
    } finally {
      await dropTestDatabase(fresh);
    }
  });
});

describe('import --database-url: the watchdog that ends an import on a silent server', () => {
  /**
   * Watches `url` with a 1 s stall bound for `ms`, this thread busy meanwhile in blocks of `busyMs`
   * (as an import's is, between its batches); what it called a stall, if anything.
   */
  async function watch(url: string, ms: number, busyMs = 0): Promise<string | undefined> {
    let stalled: string | undefined;
    const watchdog = new ImportWatchdog(url, 1000, (why) => {
      stalled = why;
    });
    for (const end = performance.now() + ms; performance.now() < end;) {
      for (const until = performance.now() + busyMs; performance.now() < until;);
      await new Promise((resolve) => setTimeout(resolve, busyMs > 0 ? 0 : ms));
    }
    watchdog.stop();
    return stalled;
  }

  test('a server that answers, busy import thread or not, or refuses its connections (too many clients) is no stall; one that says nothing is', async (t) => {
    const fresh = await testDatabaseUrl();
    if (!fresh) return t.skip(NO_POSTGRES);
    // Other imports, replicas and test files share a server's connection slots: a role with none
    // left gets the refusal a full server sends (53300), on the real server.
    const role = `fl_full_${randomBytes(4).toString('hex')}`;
    const database = new URL(fresh);
    const proxy = await startTcpProxy(Number(database.port || 5432), database.hostname);
    try {
      // An import's thread answers its sockets only between batches: each of a connection's round
      // trips once waited for one, and a server that answered at once looked silent.
      assert.equal(await watch(fresh, 3000, 700), undefined, 'a healthy server beside a thread busy 700 ms at a time');
      await withClient(fresh, (c) => c.query(`CREATE ROLE ${role} LOGIN CONNECTION LIMIT 0`));
      const full = new URL(fresh);
      full.username = role;
      const refused = await withClient(full.toString(), () => Promise.resolve('connected')).catch((err: { code?: string }) => err.code);
      assert.equal(refused, '53300', 'the role is refused as by a full server');
      assert.equal(await watch(full.toString(), 3000), undefined, 'refusals for 3 s are not silence');
      // The same bound against a server that answers nothing at all: through a hung proxy.
      proxy.hang();
      const hung = new URL(fresh);
      hung.hostname = '127.0.0.1';
      hung.port = String(proxy.port);
      assert.equal(await watch(hung.toString(), 3000), 'it answered nothing for 1 s');
    } finally {
      await proxy.close();
      await withClient(fresh, (c) => c.query(`DROP ROLE IF EXISTS ${role}`));
      await dropTestDatabase(fresh);
    }
  });
});
