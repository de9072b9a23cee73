// The two stores must give the same answers: one generated catalogue imported through the real
// CLI into SQLite and into PostgreSQL, thousands of generated requests (every parameter of every
// resource, records by id and revision, barcodes, errors, SOAP foodSearch and getFood) sent to
// a server on each, the answers compared byte for byte. Last-Modified (and the ETag made from
// it) aside: it is the time of each import. A second PostgreSQL replica copies the rows to its
// own disk (--row-copy-dir) and reads its pages from there: it must answer the same bytes too.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { importInto } from '../helpers/cli.js';
import { tempDir } from '../helpers/paths.js';
import { NO_POSTGRES, TEST_STORES } from '../helpers/postgres.js';
import { random, richCatalog, upcA, type RichCatalog } from '../helpers/random-catalog.js';
import { localRowsReady, startTestServer, TEST_TOKEN, type TestServer } from '../helpers/server.js';
import { envelope } from '../helpers/soap.js';
import { newTestStore } from '../helpers/stores.js';

const SEED = 20261124;
const catalog: RichCatalog = richCatalog(SEED, 1500);
/** Requests per kind of request below; about 4,000 in all. */
const ROUNDS = 400;

const servers: { sqlite?: TestServer; postgres?: TestServer; copied?: TestServer } = {};
let cleanup = (): void => {};

before(async () => {
  if (!TEST_STORES.includes('postgres')) return;
  const tmp = tempDir();
  cleanup = tmp.cleanup;
  const file = join(tmp.dir, 'random.json');
  writeFileSync(file, JSON.stringify(catalog));
  for (const kind of ['sqlite', 'postgres'] as const) {
    const store = await newTestStore(kind, tmp.dir, 'random');
    await importInto(store, 'catalog', [file]);
    servers[kind] = await startTestServer(store);
    if (kind === 'postgres') {
      servers.copied = await startTestServer(store, { FOODLOOKUP_ROW_COPY_DIR: tmp.dir });
      await localRowsReady(servers.copied.url);
    }
  }
});

after(async () => {
  await servers.sqlite?.close();
  await servers.postgres?.close();
  await servers.copied?.close();
  cleanup();
});

const rnd = random(SEED + 1);
const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)]!;
const chance = (p: number): boolean => rnd() < p;
const some = <T>(list: readonly T[], max: number): T[] => Array.from({ length: 1 + Math.floor(rnd() * max) }, () => pick(list));

const WORDS = ['apple', 'äpfel', 'APPLE', 'cheese', 'cheeses', 'chedar', 'milk', 'bread', 'rye', 'oat', 'oats', 'creme', 'crème', 'brûlée',
  'raw', 'cooked', 'salt', 'zebra', 'nut', 'nuts', 'ch', 'br', 'a', 'xyzzy', 'top', 'leaf', 'tag', 'co', 'farms', '"', '-', '', '\u0000', 'cheese*', '🧀'];
const FOOD_FIELDS = ['foodId', 'revisionId', 'region', 'brand', 'brand(name)', 'category', 'category(hierarchy)', 'tags', 'tags(name)', 'name',
  'otherNames', 'description', 'note', 'classification', 'mass', 'volume', 'servings', 'servings(name,scale)', 'defaultServing', 'upcs',
  'nutrients', 'nutrients(energy,fat)', '$summary', '$detailed', 'nope'];
const NAMED_FIELDS = { brands: ['id', 'name', 'region', 'id,name'], categories: ['id', 'name', 'region', 'parent', 'hierarchy', 'hierarchy(name)', 'isLeaf'], tags: ['id', 'name'] };
const LIMITS = ['1', '5', '10', '20', '30', '50', '100', '1', '5', '10', '20', '30', '50', '100', '7'];

const brandIds = catalog.brands.map((b) => b.id).concat(['72e34d90-9563-4433-8ec4-c51801d06330', '4a497106-5e8c-4729-9451-667c2b57514b']);
const categoryIds = catalog.categories.map((c) => c.id);
const tagIds = catalog.tags.map((t) => t.id);
const foodIds = catalog.foods.map((f) => f.foodId);
const classifications = [...new Set(catalog.foods.map((f) => f.classification))];
const barcodes = catalog.foods.flatMap((f) => Object.keys(f.upcs ?? {}));

/** A barcode as a client may send it: as stored, as EAN-13 / GTIN-14, unknown, or malformed. */
function barcode(): string {
  const code = pick(barcodes);
  return pick([code, `0${code}`, `00${code}`, upcA(999_999), 'not a code', code.toLowerCase()]);
}
const idList = (ids: readonly string[]): string => (chance(0.3) ? '!' : '') + some(ids, 3).map((id) => (chance(0.1) ? id.toUpperCase() : id)).join(',');
const idFilter = (ids: readonly string[]): string => some(ids, 3).map((id) => (chance(0.3) ? `!${id}` : id)).join(',');
const quoted = (values: readonly string[]): string => (chance(0.3) ? '!' : '') + some(values, 2).map((v) => `"${v.replace(/"/g, '\\"')}"`).join(',');
const query = (): string => some(WORDS, 3).join(' ');

function matching(p: URLSearchParams): void {
  if (chance(0.5)) p.set('query', query());
  if (chance(0.3)) p.set('query-type', pick(['fts', 'prefix', 'fts', 'prefix', 'other']));
}
function paging(p: URLSearchParams): void {
  if (chance(0.7)) p.set('limit', pick(LIMITS));
  if (chance(0.5)) p.set('offset', pick(['0', '1', '19', '100', '999', '1400', '1500', '5000', '-1']));
}

function foodsRequest(): string {
  const p = new URLSearchParams();
  matching(p);
  paging(p);
  if (chance(0.3)) p.set('region', pick(['au', 'us', 'AU', 'us', 'eu']));
  if (chance(0.2)) p.set(pick(['brands', 'brand']), idFilter(brandIds));
  if (chance(0.2)) p.set('tags', idFilter(tagIds));
  if (chance(0.2)) p.set('categories', idList(categoryIds));
  if (chance(0.2)) p.set('classifications', quoted(classifications));
  if (chance(0.3)) p.set('grouping', pick(['brand', 'classification', 'brand', 'classification', 'none']));
  if (chance(0.2)) p.set('grouping-order', pick(['rank', 'name', 'name:desc', 'rank:asc', 'rank:desc', 'bad']));
  if (chance(0.2)) p.set('grouping-limit', pick(['1', '2', '5', '3', '0']));
  if (chance(0.3)) p.set('order', pick(['rank', 'name', 'name:desc', 'rank:desc', 'name:asc', 'asc']));
  if (chance(0.1)) p.set(pick(['upcs', 'upc']), some([barcode(), barcode()], 2).join(','));
  if (chance(0.4)) p.set('fields', some(FOOD_FIELDS, 3).join(','));
  return `/v1/foods?${p.toString()}`;
}

function namedRequest(resource: 'brands' | 'categories' | 'tags'): string {
  const p = new URLSearchParams();
  matching(p);
  paging(p);
  if (chance(0.4)) p.set('order', pick(['asc', 'desc', 'name:desc', 'name:asc', 'rank']));
  if (resource !== 'tags' && chance(0.3)) p.set('region', pick(['au', 'us']));
  if (chance(0.25)) p.set('classifications', quoted(classifications));
  if (resource !== 'categories' && chance(0.25)) p.set('categories', idList(categoryIds));
  if (resource !== 'brands' && chance(0.25)) p.set('brands', idList(brandIds));
  if (resource !== 'tags' && chance(0.25)) p.set('tags', idFilter(tagIds));
  if (resource === 'categories' && chance(0.25)) p.set('parents', idList(categoryIds));
  if (resource === 'categories' && chance(0.25)) p.set('is-leaf', pick(['true', 'false', 'TRUE', 'maybe']));
  if (chance(0.3)) p.set('fields', some(NAMED_FIELDS[resource], 2).join(','));
  return `/v1/${resource}?${p.toString()}`;
}

function recordRequest(): string {
  const [resource, ids] = pick([['foods', foodIds], ['brands', brandIds], ['categories', categoryIds], ['tags', tagIds]] as const);
  const id = chance(0.1) ? '00000000-0000-4000-8000-00000000beef' : chance(0.1) ? pick(ids).toUpperCase() : pick(ids);
  const fields = resource === 'foods' && chance(0.3) ? `?fields=${encodeURIComponent(some(FOOD_FIELDS, 2).join(','))}` : '';
  return `/v1/${resource}/${id}${fields}`;
}

interface Answer { status: number; headers: [string, string][]; body: string }

/** Headers that differ by the time of the import or of the request. */
const PER_IMPORT = new Set(['last-modified', 'etag', 'date', 'x-request-id', 'keep-alive', 'connection']);

async function answer(server: TestServer, path: string, init: RequestInit = {}): Promise<Answer> {
  const res = await server.fetch(path, init);
  const headers = [...res.headers].filter(([name]) => !PER_IMPORT.has(name)).sort(([a], [b]) => a.localeCompare(b));
  return { status: res.status, headers, body: await res.text() };
}

async function compare(path: string, init: RequestInit = {}): Promise<Answer> {
  const [a, b, c] = await Promise.all([answer(servers.sqlite!, path, init), answer(servers.postgres!, path, init), answer(servers.copied!, path, init)]);
  const what = `${init.method ?? 'GET'} ${path} ${typeof init.body === 'string' ? init.body : ''}`;
  assert.deepEqual(b, a, what);
  assert.deepEqual(c, a, `${what} (rows from the replica's copy)`);
  return a;
}

const soap = (body: string): RequestInit => ({ method: 'POST', headers: { 'content-type': 'application/soap+xml; charset=utf-8' }, body, token: null } as RequestInit);

/** Runs `count` generated requests, 8 at a time; the statuses seen, to show the generator reaches beyond 200. */
async function run(count: number, make: () => { path: string; init?: RequestInit }): Promise<Map<number, number>> {
  const requests = Array.from({ length: count }, make);
  const statuses = new Map<number, number>();
  for (let i = 0; i < requests.length; i += 8) {
    const answers = await Promise.all(requests.slice(i, i + 8).map((r) => compare(r.path, r.init)));
    for (const a of answers) statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
  }
  return statuses;
}

test('SQLite and PostgreSQL give the same answers to thousands of generated requests', async (t) => {
  if (!servers.postgres) return t.skip(NO_POSTGRES);
  const seen = new Map<string, Map<number, number>>();
  seen.set('foods', await run(ROUNDS * 3, () => ({ path: foodsRequest() })));
  for (const resource of ['brands', 'categories', 'tags'] as const) seen.set(resource, await run(ROUNDS, () => ({ path: namedRequest(resource) })));
  seen.set('records', await run(ROUNDS, () => ({ path: recordRequest() })));
  seen.set('revisions', await run(ROUNDS / 4, () => ({ path: `/v1/foods/${pick(foodIds)}` })));
  // Deep pages of every collection, where the stores page differently (SQL offsets, the engine's tiers).
  seen.set('deep pages', await run(ROUNDS / 4, () => ({ path: `/v1/${pick(['foods', 'brands', 'categories', 'tags'])}?limit=100&offset=${Math.floor(rnd() * 1600)}&order=${pick(['name:asc', 'name:desc'])}` })));
  seen.set('soap', await run(ROUNDS, () => {
    const body = chance(0.5)
      ? envelope('foodSearch', { devkey: TEST_TOKEN, terms: query() })
      : envelope('getFood', { devkey: TEST_TOKEN, id: chance(0.1) ? 'not-an-id' : chance(0.1) ? '00000000-0000-4000-8000-00000000beef' : pick(foodIds) });
    return { path: '/soap/1.2', init: soap(body) };
  }));
  // The generator reaches errors as well as answers, and every resource answers some of both.
  for (const [kind, statuses] of seen) {
    t.diagnostic(`${kind}: ${JSON.stringify(Object.fromEntries(statuses))}`);
    assert.ok((statuses.get(200) ?? 0) > 0, `${kind}: no 200 among ${JSON.stringify(Object.fromEntries(statuses))}`);
  }
  assert.ok((seen.get('foods')!.get(400) ?? 0) > 0);
  assert.ok((seen.get('records')!.get(404) ?? 0) > 0);
  assert.ok((seen.get('soap')!.get(400) ?? 0) > 0);
});

test('revision ids and barcodes find the same foods in both stores', async (t) => {
  if (!servers.postgres) return t.skip(NO_POSTGRES);
  const food = (await compare(`/v1/foods/${foodIds[3]}?fields=revisionId`)).body;
  const { revisionId } = (JSON.parse(food) as { food: { revisionId: string } }).food;
  await compare(`/v1/foods/${revisionId}`);
  for (const code of barcodes.slice(0, 50)) await compare(`/v1/foods?upcs=${encodeURIComponent(code)}&fields=foodId,upcs`);
  // Several codes at once, filtered, ordered and paged: PostgreSQL does it in memory, SQLite in SQL.
  const valid = barcodes.filter((code) => /^\d+$/.test(code));
  let most = 0;
  for (let i = 0; i < 12; i++) {
    const codes = [...valid.slice(i * 6, i * 6 + 6), upcA(999_999)].join(',');
    for (const rest of ['', '&order=name:desc', '&limit=5&offset=1', '&region=au', '&order=name:desc&offset=3&limit=1', `&brands=!${brandIds[i]}`, '&offset=9']) {
      const { body } = await compare(`/v1/foods?upcs=${codes}${rest}&fields=foodId,name`);
      most = Math.max(most, (JSON.parse(body) as { metadata: { total: number } }).metadata.total);
    }
  }
  assert.ok(most >= 6, `a list of six codes found ${most} foods`);
});
