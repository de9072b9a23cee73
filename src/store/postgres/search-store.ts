import type pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { GENERIC_BRAND_IDS } from '../../domain/regions.js';
import { MemoryBlobs } from '../../search/blobs.js';
import { buildSearchData, type SearchFoodRow, type SearchSource } from '../../search/build.js';
import { copyLines, parseField } from './copy-text.js';

/**
 * The PostgreSQL side of the search engine's store interface (src/search/README.md): the rows the
 * engine builds from, read from a catalogue version's schema inside the import's transaction,
 * and that version's search_blobs table. The builder reads synchronously, so the rows are read
 * first (through COPY, the fastest way out of PostgreSQL) and handed over from memory.
 */

/** Fields of each line of a COPY (…) TO STDOUT, parsed. */
async function copyOut(client: pg.ClientBase, sql: string, each: (fields: string[]) => void): Promise<void> {
  const stream = client.query(copyTo(`COPY (${sql}) TO STDOUT`));
  for await (const fields of copyLines(stream)) each(fields);
}

/** Every row the builder reads, of the catalogue in `schema`, held in memory. */
export async function readSearchSource(client: pg.ClientBase, schema: string): Promise<SearchSource> {
  const generic = new Set<string>(Object.values(GENERIC_BRAND_IDS));
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
  });
  const nameOrder: number[] = [];
  await copyOut(client, `SELECT rid FROM ${schema}.foods ORDER BY name_key, id`, (row) => nameOrder.push(Number(row[0])));
  const brands: { rid: number; name: string; generic: boolean }[] = [];
  await copyOut(client, `SELECT rid, id, name_key FROM ${schema}.brands`, (row) => {
    brands.push({ rid: Number(row[0]), name: parseField(row[2]!)!, generic: generic.has(parseField(row[1]!)!) });
  });
  const tagFoods: { tag: number; foods: number[] }[] = [];
  // Tags by id, each tag's foods by rid: the order of SQLite's (tag_id, food_rid) key.
  await copyOut(client, `SELECT t.rid, ft.food_rid FROM ${schema}.tags t LEFT JOIN ${schema}.food_tags ft ON ft.tag_id = t.id
    ORDER BY t.id, ft.food_rid`, (row) => {
    const tag = Number(row[0]);
    let last = tagFoods[tagFoods.length - 1];
    if (last?.tag !== tag) tagFoods.push((last = { tag, foods: [] }));
    if (row[1] !== '\\N') last.foods.push(Number(row[1]));
  });
  return { ridLimit, foods: () => foods, nameOrder: () => nameOrder, brands: () => brands, tagFoods: () => tagFoods };
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
export async function rebuildSearchData(client: pg.ClientBase, schema: string): Promise<{ words: number }> {
  const source = await readSearchSource(client, schema);
  const blobs: [string, Uint8Array][] = [];
  const built = buildSearchData(source, { put: (name, value) => blobs.push([name, value.slice()]) });
  await client.query(`DELETE FROM ${schema}.search_blobs`);
  await writeSearchBlobs(client, schema, blobs);
  return { words: built.words };
}

/** Every search blob of the version in `schema`, in memory: the engine reads them synchronously. */
export async function loadSearchBlobs(client: pg.ClientBase | pg.Pool, schema: string): Promise<MemoryBlobs> {
  const blobs = new MemoryBlobs();
  const rows = await client.query<{ key: string; value: Buffer }>(`SELECT key, value FROM ${schema}.search_blobs`);
  for (const row of rows.rows) blobs.put(row.key, row.value);
  return blobs;
}
