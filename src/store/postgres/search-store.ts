import type { Readable } from 'node:stream';
import type pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { isGenericBrand } from '../../domain/regions.js';
import { compareCodePoints } from '../../domain/text.js';
import { nameKey, needsCodePoints, ridOfKey } from './name-runs.js';
import { buildSearchData, type BuildOptions, type SearchFoodRow, type SearchSource } from '../../search/build.js';
import { copyBinaryRows } from './copy-binary.js';
import { copyLines, parseField } from './copy-text.js';

/**
 * The PostgreSQL side of the search engine's store interface (src/search/README.md): the rows the
 * engine builds from, read from a catalogue version's schema inside the import's transaction,
 * and that version's search_blobs table. The builder reads synchronously, so the rows are read
 * first (through COPY, the fastest way out of PostgreSQL) and handed over from memory.
 */

/**
 * Reads a COPY … TO STDOUT through `read`. pg bounds a query object by its own `query_timeout`
 * when it has one (`readTimeoutMs`), else by the client's (a pool's: a request's 4.5 s), and
 * clears that bound's timer only when the object calls back, which pg-copy-streams' never does:
 * left running, it kept the process alive for the whole bound after every load, and then made
 * the finished stream emit an error. It is called back here when the read is over.
 */
export async function copyOutOf<T>(client: pg.ClientBase, copy: string, read: (stream: Readable) => Promise<T>, readTimeoutMs?: number): Promise<T> {
  const query: ReturnType<typeof copyTo> & { query_timeout?: number; callback?: () => void } = copyTo(copy);
  if (readTimeoutMs !== undefined) query.query_timeout = readTimeoutMs;
  try {
    return await read(client.query(query));
  } finally {
    query.callback?.();
  }
}

/** Fields of each line of a COPY (…) TO STDOUT, parsed; `readTimeoutMs` as copyOutOf's. */
async function copyOut(client: pg.ClientBase, sql: string, each: (fields: string[]) => void, readTimeoutMs?: number): Promise<void> {
  await copyOutOf(client, `COPY (${sql}) TO STDOUT`, async (stream) => {
    for await (const fields of copyLines(stream)) each(fields);
  }, readTimeoutMs);
}

/**
 * Every row the builder reads, of the catalogue in `schema`, held in memory. `readTimeoutMs`
 * bounds each read on the client's side in place of the client's own bound (a replica's
 * load: readSearchBlobs).
 */
export async function readSearchSource(client: pg.ClientBase, schema: string, readTimeoutMs?: number): Promise<SearchSource> {
  const foods: SearchFoodRow[] = [];
  let ridLimit = 0;
  await copyOut(client, `SELECT f.rid, f.name_key, f.classification_fold, f.other_names_fold, f.description_fold, f.servings, f.region,
      coalesce(b.rid, 0), coalesce(c.rid, 0)
    FROM ${schema}.foods f LEFT JOIN ${schema}.brands b ON b.id = f.brand_id LEFT JOIN ${schema}.categories c ON c.id = f.category_id`,
  (row) => {
    const rid = Number(row[0]);
    if (rid >= ridLimit) ridLimit = rid + 1;
    foods.push({
      rid, name: parseField(row[1]!)!, classification: parseField(row[2]!)!, otherNames: parseField(row[3]!)!, description: parseField(row[4]!)!,
      servings: Number(row[5]), region: parseField(row[6]!)!, brand: Number(row[7]), category: Number(row[8]),
    });
  }, readTimeoutMs);
  const nameOrder: number[] = [];
  await copyOut(client, `SELECT rid FROM ${schema}.foods ORDER BY name_key, id`, (row) => nameOrder.push(Number(row[0])), readTimeoutMs);
  const brands: { rid: number; name: string; generic: boolean }[] = [];
  await copyOut(client, `SELECT rid, id, name_key FROM ${schema}.brands`, (row) => {
    brands.push({ rid: Number(row[0]), name: parseField(row[2]!)!, generic: isGenericBrand(parseField(row[1]!)!) });
  }, readTimeoutMs);
  const tagFoods: { tag: number; foods: number[] }[] = [];
  // Tags by id, each tag's foods by rid: the order of SQLite's (tag_id, food_rid) key.
  await copyOut(client, `SELECT t.rid, ft.food_rid FROM ${schema}.tags t LEFT JOIN ${schema}.food_tags ft ON ft.tag_id = t.id
    ORDER BY t.id, ft.food_rid`, (row) => {
    const tag = Number(row[0]);
    let last = tagFoods[tagFoods.length - 1];
    if (last?.tag !== tag) tagFoods.push((last = { tag, foods: [] }));
    if (row[1] !== '\\N') last.foods.push(Number(row[1]));
  }, readTimeoutMs);
  return { ridLimit, foods: () => foods, nameOrder: () => nameOrder, brands: () => brands, tagFoods: () => tagFoods };
}

/**
 * Rids in (name, id) order by code point. Without a code unit from U+D800 on (nearly every
 * catalogue), JavaScript's own string order is that order: each food becomes one string
 * (name-runs.ts `nameKey`), sorted by the engine's own comparison. With a comparator function
 * calling back into JavaScript, a million foods took 5.2–6.1 s here; sorted as strings, 2.3–2.9 s.
 */
function nameOrder(foods: readonly ImportedFood[]): number[] {
  if (foods.some(needsCodePoints)) {
    const order = Uint32Array.from(foods.keys());
    order.sort((a, b) => compareCodePoints(foods[a]!.name, foods[b]!.name) || compareCodePoints(foods[a]!.id, foods[b]!.id));
    return Array.from(order, (i) => foods[i]!.rid);
  }
  return foods.map(nameKey).sort().map(ridOfKey);
}

/** A food as an import holds it for the search data: the foods columns the builder reads, by id. */
export interface ImportedFood {
  readonly rid: number;
  readonly id: string;
  readonly name: string;
  readonly classification: string;
  readonly otherNames: string;
  readonly description: string;
  readonly servings: number;
  readonly region: string;
  readonly brandId: string;
  readonly categoryId: string;
  readonly tags: readonly string[];
}

/**
 * The builder's source from what an import holds in memory, the same rows readSearchSource would
 * read back from the version it wrote: no round trip through PostgreSQL, and the build can run
 * while the server builds the version's indexes. `foods` in any order, each rid once.
 */
export function importedSearchSource(
  foods: readonly ImportedFood[],
  brands: Iterable<{ readonly rid: number; readonly id: string; readonly name_key: string }>,
  categoryRid: (id: string) => number | undefined,
  tags: Iterable<{ readonly rid: number; readonly id: string }>,
  /** The foods' rids in name order when the import made it already (name-runs.ts). */
  order?: readonly number[],
): SearchSource {
  const brandList = [...brands];
  const brandRid = new Map(brandList.map((b) => [b.id, b.rid]));
  let ridLimit = 0;
  for (const food of foods) if (food.rid >= ridLimit) ridLimit = food.rid + 1;
  const byRid: (ImportedFood | undefined)[] = new Array<ImportedFood | undefined>(ridLimit).fill(undefined);
  for (const food of foods) byRid[food.rid] = food;
  return {
    ridLimit,
    *foods(): Iterable<SearchFoodRow> {
      for (const f of byRid) {
        if (f === undefined) continue;
        yield {
          rid: f.rid, name: f.name, classification: f.classification, otherNames: f.otherNames, description: f.description,
          servings: f.servings, region: f.region, brand: brandRid.get(f.brandId) ?? 0, category: categoryRid(f.categoryId) ?? 0,
        };
      }
    },
    nameOrder: () => order ?? nameOrder(foods),
    brands: () => brandList.map((b) => ({ rid: b.rid, name: b.name_key, generic: isGenericBrand(b.id) })),
    *tagFoods() {
      const foodsOf = new Map<string, number[]>();
      for (const f of byRid) {
        if (f === undefined) continue;
        for (const tag of f.tags) {
          let list = foodsOf.get(tag);
          if (!list) foodsOf.set(tag, (list = []));
          list.push(f.rid);
        }
      }
      for (const tag of [...tags].sort((a, b) => compareCodePoints(a.id, b.id))) yield { tag: tag.rid, foods: foodsOf.get(tag.id) ?? [] };
    },
  };
}

/** How PostgreSQL's search data is built: with the names in name order, so that a replica finds a prefix's run in memory. */
export const PG_BUILD: BuildOptions = { nameKeys: true };

/** The blobs of the search data built from `source`, in the order the builder wrote them. */
export function buildSearchBlobs(source: SearchSource): [string, Uint8Array][] {
  const blobs: [string, Uint8Array][] = [];
  buildSearchData(source, { put: (name, value) => blobs.push([name, value.slice()]) }, PG_BUILD);
  return blobs;
}

/** Rows per INSERT of blobs: few round trips, no statement of more than a few MiB. */
const BLOB_BATCH_BYTES = 8 * 1024 * 1024;

/** Writes blobs into the version's (empty) search_blobs table. */
export async function writeSearchBlobs(client: pg.ClientBase, schema: string, blobs: readonly (readonly [string, Uint8Array])[]): Promise<void> {
  let batch: (string | Buffer)[] = [];
  let bytes = 0;
  const flush = async (): Promise<void> => {
    if (batch.length === 0) return;
    const values = Array.from({ length: batch.length / 2 }, (_, i) => `($${2 * i + 1}, $${2 * i + 2})`).join(', ');
    await client.query(`INSERT INTO ${schema}.search_blobs (key, value) VALUES ${values}`, batch);
    batch = [];
    bytes = 0;
  };
  for (const [name, value] of blobs) {
    batch.push(name, Buffer.from(value.buffer, value.byteOffset, value.byteLength));
    bytes += value.byteLength;
    if (bytes >= BLOB_BATCH_BYTES || batch.length >= 2000) await flush();
  }
  await flush();
}

/** Rebuilds the search data of the catalogue in `schema` (its search_blobs replaced whole), inside the caller's transaction. */
export async function rebuildSearchData(client: pg.ClientBase, schema: string): Promise<void> {
  const blobs = buildSearchBlobs(await readSearchSource(client, schema));
  await client.query(`DELETE FROM ${schema}.search_blobs`);
  await writeSearchBlobs(client, schema, blobs);
}

/**
 * Every search blob of the version in `schema`, in memory (the engine reads them synchronously),
 * each as the bytes stored, through COPY's binary format (copy-binary.ts). `readTimeoutMs`
 * bounds the read on the client's side, in place of the pool's bound for a request.
 */
export async function readSearchBlobs(client: pg.ClientBase, schema: string, readTimeoutMs: number): Promise<Map<string, Uint8Array>> {
  const blobs = new Map<string, Uint8Array>();
  const names = new TextDecoder();
  await copyOutOf(client, `COPY (SELECT key, value FROM ${schema}.search_blobs) TO STDOUT (FORMAT binary)`, async (stream) => {
    for await (const [key, value] of copyBinaryRows(stream)) {
      if (!key || !value) throw new Error(`${schema}.search_blobs holds a NULL`);
      blobs.set(names.decode(key), value);
    }
  }, readTimeoutMs);
  return blobs;
}
