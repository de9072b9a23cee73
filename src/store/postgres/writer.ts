import pg from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import type { CatalogBrand, CatalogCategory, CatalogTag, SourceRef } from '../../domain/records.js';
import { describeSource } from '../../domain/records.js';
import { envInteger } from '../../config.js';
import { fold } from '../../domain/text.js';
import { ImportOutcomeUnknown, RecordRejected, type ImportRecord, type ImportTransaction, type PutOutcome } from '../catalog-store.js';
import { foodRow, type FoodRow } from '../food-row.js';
import {
  GENERIC_IDS, PROBLEM_SAMPLE, brandProblem, categoryTree, foodCheckCondition, foodProblems, foodReferenceProblem, listProblems,
  type FoodCheckRow,
} from '../import-rules.js';
import { StoreUnavailable, closeSocket, describeDatabase, endClient, isUnavailable, unavailableOr } from './connection.js';
import { ImportWatchdog, importStallMs } from './import-watchdog.js';
import { copyLines, copyRow, parseField } from './copy-text.js';
import { CATALOG_CHANNEL, CATALOG_SCHEMA_PREFIX, IMPORT_LOCK, catalogIndexStatements, catalogSchemaName, catalogTablesDdl, catalogVersionOf, migrate, readMeta, setMeta } from './schema.js';
import { SearchIndex } from '../../search/search-index.js';
import { NameRuns } from './name-runs.js';
import { buildSearchBlobs, importedSearchSource, rebuildSearchData, writeSearchBlobs, type ImportedFood } from './search-store.js';

/**
 * One import into PostgreSQL, with the SQLite writer's rules and outcomes (sqlite/writer.ts,
 * store/import-rules.ts), written as a new catalogue version beside the current one
 * (schema.ts): the import creates schema N+1 in its transaction, streams the foods it adds or
 * changes into it with COPY as they arrive, copies the foods it leaves alone from version N in
 * one statement at the end, builds the indexes, checks the whole-catalogue rules, builds the
 * search data and switches foodlookup_meta to N+1. Nothing of it is visible before COMMIT, and a
 * failed or killed import leaves version N exactly as it was.
 *
 * Everything a record's checks need is held in memory (brands, categories and tags whole; of
 * the foods already there only id, rid, revision and content hash): a query per record would
 * be a round trip per record, and the COPY stream occupies the connection while records arrive.
 */

interface BrandRow { rid: number; id: string; name: string; name_key: string; region: string; updated_at: number }
interface CategoryRow {
  rid: number; id: string; name: string; name_key: string; region: string; parent_id: string | null;
  is_leaf: number; hierarchy: string; updated_at: number;
}
interface TagRow { rid: number; id: string; name: string; name_key: string; updated_at: number }

/** A food of version N: `fate` 0 not listed (yet), 1 listed unchanged, 2 written again by this import. */
interface OldFood { readonly rid: number; readonly revision: string; readonly hash: string; fate: 0 | 1 | 2; source?: PackedSource }
/** A food this import wrote: what the next record of it is compared with, and its search data's row. */
interface WrittenFood extends ImportedFood { readonly revision: string; readonly hash: string; source: PackedSource }

/** Where a record came from: a file's number and a line in one number, or the record's own SourceRef when it has no line. */
type PackedSource = number | SourceRef;

/**
 * The sources of a million foods as numbers rather than each record's object with its own copy
 * of the file's name: they are only read to name a food in a problem.
 */
class SourceBook {
  private readonly files: string[] = [];
  private readonly numbers = new Map<string, number>();

  pack(source: SourceRef): PackedSource {
    if (source.line === undefined || source.record !== undefined) return source;
    let file = this.numbers.get(source.file);
    if (file === undefined) {
      file = this.files.length;
      this.files.push(source.file);
      this.numbers.set(source.file, file);
    }
    return file * LINES + source.line;
  }

  unpack(packed: PackedSource): SourceRef {
    return typeof packed === 'number' ? { file: this.files[Math.floor(packed / LINES)]!, line: packed % LINES } : packed;
  }
}

/** Lines a file may have in a PackedSource (and files: 2^21). */
const LINES = 2 ** 32;

/** A food written twice by one import: its first rows are already streamed, these replace them. */
interface Rewrite { food: string; tags: string; upcs: string }

const FOOD_COLUMNS = 'rid, id, revision_id, content_hash, region, brand_id, category_id, name, name_key, classification, classification_key, ' +
  'classification_fold, other_names_fold, description_fold, servings, tag_ids, body, updated_at';

/** The tables whose statistics the planner reads (search_blobs is only ever read whole). */
const ANALYZED = ['brands', 'categories', 'category_closure', 'tags', 'foods', 'food_tags', 'food_upcs'];

/** maintenance_work_mem while the new version's indexes are built. */
const INDEX_BUILD_MEMORY = '256MB';

/**
 * The new version's tables are created by the import's own transaction, so its rows can be
 * written frozen and their pages all-visible: nobody reads them before the commit, and
 * after it neither the replicas' first reads nor vacuum need to set hint bits (dirtying,
 * and writing again, every page of a 1.5 GB foods table), and index-only scans work at once.
 */
const FREEZE = 'WITH (FREEZE)';

/**
 * COPY data is handed to the socket in pieces of about this many characters
 * (FOODLOOKUP_PG_COPY_CHUNK: tests cross many pieces with a small file).
 */
const COPY_CHUNK = envInteger('FOODLOOKUP_PG_COPY_CHUNK', 1, 256 * 1024);

/** Characters of foods rows after which the tags and barcodes gathered meanwhile are copied (copyLinks): 64 MiB. */
const LINKS_EVERY = 256 * COPY_CHUNK;

/** Lines for a later COPY, kept as a few large strings instead of a string a row. */
class LineBuffer {
  private readonly chunks: string[] = [];
  private current = '';
  add(line: string): void {
    this.current += line;
    if (this.current.length >= COPY_CHUNK) {
      this.chunks.push(this.current);
      this.current = '';
    }
  }
  drain(): string[] {
    if (this.current !== '') this.chunks.push(this.current);
    this.current = '';
    return this.chunks.splice(0);
  }
}

/**
 * PostgreSQL's text cannot hold U+0000 (SQLite's can): a record with it in a name is refused as it
 * is put, naming its line, so that --skip-invalid leaves it out instead of the whole COPY failing.
 * Ids are UUIDs, checked before they get here.
 */
function refuseNul(kind: string, ...texts: string[]): void {
  for (const text of texts) {
    if (text.includes('\0')) throw new RecordRejected(`the ${kind}'s text holds the character U+0000, which the PostgreSQL store cannot keep`);
  }
}

export interface PostgresImportOptions {
  readonly replace: boolean;
}

/**
 * Starts an import on a connection of its own, made like the pool's but without the pool's
 * statement bounds: its COPY and index builds run for longer than a request may. A server that
 * goes away meanwhile fails the import with a StoreUnavailable naming it (never the password).
 */
export async function beginPostgresImport(pool: pg.Pool, options: PostgresImportOptions): Promise<ImportTransaction> {
  const where = pool.options.connectionString ?? '';
  const opened: { transaction?: PostgresImport } = {};
  // Also what a method throws before it returns its promise (put, once the COPY has failed). Once
  // the connection is lost, whatever fails next (a write to the closed socket) fails for that reason.
  const named = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (err) {
      const lost = opened.transaction?.connectionLost;
      if (opened.transaction?.committing === true && (lost !== undefined || isUnavailable(err))) {
        const why = lost ?? (err instanceof Error ? err.message : String(err));
        throw new ImportOutcomeUnknown(`the connection to PostgreSQL at ${describeDatabase(where)} was lost while it committed (${why}): ` +
          'the import may have been committed or not; import the same files again to settle it (a second import of them changes nothing)');
      }
      if (lost !== undefined) throw new StoreUnavailable(describeDatabase(where), lost);
      throw unavailableOr(err, where) as Error;
    }
  };
  const open = await named(() => openImport(pool, options));
  opened.transaction = open;
  return {
    put: (record) => named(() => open.put(record)),
    check: () => named(() => open.check()),
    commit: () => named(() => open.commit()),
    rollback: () => named(() => open.rollback()),
  };
}

async function openImport(pool: pg.Pool, options: PostgresImportOptions): Promise<PostgresImport> {
  await migrate(pool);
  const { statement_timeout: _s, query_timeout: _q, ...config } = pool.options;
  void _s;
  void _q;
  const client = new pg.Client({ ...config, application_name: 'foodlookup import' });
  // A server that answers nothing fails the import: its connection is closed under it.
  const watchdog = new ImportWatchdog(config.connectionString ?? '', importStallMs(), (why) => {
    transaction.lose(new Error(why));
    closeSocket(client);
  });
  const transaction = new PostgresImport(client, options.replace, watchdog);
  // The connection broke: the next statement fails and the import with it; nothing was committed.
  client.on('error', (err) => transaction.lose(err));
  client.on('end', () => transaction.lose(new Error('the server closed the connection')));
  try {
    await client.connect();
    await transaction.begin();
    return transaction;
  } catch (err) {
    watchdog.stop();
    await endClient(client);
    throw err;
  }
}

export class PostgresImport implements ImportTransaction {
  private readonly now = Date.now();
  private oldSchema = '';
  private newSchema = '';
  private newVersion = 0;
  private readonly brands = new Map<string, BrandRow>();
  private readonly categories = new Map<string, CategoryRow>();
  private readonly tags = new Map<string, TagRow>();
  /** Children of each category, by parent id: a food goes only into a leaf. */
  private readonly children = new Map<string, number>();
  private maxBrandRid = 0;
  private maxCategoryRid = 0;
  private maxTagRid = 0;
  private maxFoodRid = 0;
  private readonly oldFoods = new Map<string, OldFood>();
  /** Version N's foods by revision, read the first time a record gives its own revisionId. */
  private oldRevisions: Map<string, string> | undefined;
  private readonly written = new Map<string, WrittenFood>();
  /**
   * The food of each revision this import wrote, made the first time a record gives its own
   * revisionId (a derived one covers its foodId and clashes with none): a million entries
   * fewer to keep, and to mark at every garbage collection, for a catalogue without them.
   */
  private writtenRevisions: Map<string, string> | undefined;
  private readonly rewrites = new Map<number, Rewrite>();
  /**
   * The written foods' name order, made as they come (name-runs.ts); dropped (the build then
   * sorts every food) when a food is written twice.
   */
  private nameRuns: NameRuns | undefined = new NameRuns();
  private readonly foodTagLines = new LineBuffer();
  private readonly foodUpcLines = new LineBuffer();
  /** Where each record of this import came from, by kind and id (the latest, as SQLite's import_seen gives it). */
  /** Where each food's latest record came from is on its OldFood or WrittenFood (the latter when there is one). */
  private readonly sources = new SourceBook();
  private readonly otherSources = new Map<string, SourceRef>();
  private readonly seenBrands = new Set<string>();
  private readonly seenCategories = new Set<string>();
  private readonly seenTags = new Set<string>();
  private readonly changedBrands = new Set<string>();
  private readonly changedCategories = new Set<string>();
  private readonly changedTags = new Set<string>();
  private treeChanged = false;
  private referencesMovedUnderFoods = false;
  private foodsAtStart = false;
  private changedFoods = 0;
  private writtenFoods = 0;
  private addedFoods = 0;
  private copy: Writable | undefined;
  private copyDone: Promise<void> | undefined;
  private copyError: Error | undefined;
  private pending = '';
  /** Characters of foods rows streamed since their tags and barcodes were last copied. */
  private sinceLinks = 0;
  /** Whether check() found something to commit: otherwise the new version is rolled back and N stays. */
  private changed = false;
  private open = true;
  /** Why the connection was lost, when it was: the server went away or ended it. */
  connectionLost: string | undefined;

  /** Set while COMMIT is on its way: a connection lost then leaves the outcome unknown. */
  committing = false;

  constructor(private readonly client: pg.Client, private readonly replace: boolean, private readonly watchdog?: { stop(): void }) {}

  /** The connection failed or ended while the import had it open. */
  lose(err: Error): void {
    if ((this.open || this.committing) && this.connectionLost === undefined) this.connectionLost = err.message || String(err);
  }

  async begin(): Promise<void> {
    const db = this.client;
    await db.query('BEGIN');
    // A second import waits here for the first to end, then builds on the version it left.
    await db.query('SELECT pg_advisory_xact_lock($1)', [IMPORT_LOCK]);
    // The indexes of a million foods sort in memory rather than in temp files.
    await db.query(`SET LOCAL maintenance_work_mem = '${INDEX_BUILD_MEMORY}'`);
    const meta = await readMeta(db);
    this.oldSchema = meta.get('catalog_schema') ?? '';
    const oldVersion = catalogVersionOf(this.oldSchema);
    if (oldVersion === undefined) throw new Error(`foodlookup_meta names no catalogue version (catalog_schema '${this.oldSchema}')`);
    this.newVersion = Math.max(oldVersion, Number(meta.get('catalog_version') ?? 0)) + 1;
    this.newSchema = catalogSchemaName(this.newVersion);
    await db.query(`DROP SCHEMA IF EXISTS ${this.newSchema} CASCADE`);
    await db.query(catalogTablesDdl(this.newSchema));
    const old = this.oldSchema;
    for (const r of (await db.query<BrandRow>(`SELECT rid, id, name, name_key, region, updated_at FROM ${old}.brands`)).rows) {
      this.brands.set(r.id, { ...r, updated_at: Number(r.updated_at) });
      this.maxBrandRid = Math.max(this.maxBrandRid, r.rid);
    }
    const categories = await db.query<CategoryRow>(`SELECT rid, id, name, name_key, region, parent_id, is_leaf, hierarchy, updated_at FROM ${old}.categories`);
    for (const r of categories.rows) {
      this.categories.set(r.id, { ...r, updated_at: Number(r.updated_at) });
      this.maxCategoryRid = Math.max(this.maxCategoryRid, r.rid);
      if (r.parent_id !== null) this.children.set(r.parent_id, (this.children.get(r.parent_id) ?? 0) + 1);
    }
    for (const r of (await db.query<TagRow>(`SELECT rid, id, name, name_key, updated_at FROM ${old}.tags`)).rows) {
      this.tags.set(r.id, { ...r, updated_at: Number(r.updated_at) });
      this.maxTagRid = Math.max(this.maxTagRid, r.rid);
    }
    for await (const [id, rid, revision, hash] of copyLines(db.query(copyTo(`COPY ${old}.foods (id, rid, revision_id, content_hash) TO STDOUT`)))) {
      const n = Number(rid);
      this.oldFoods.set(parseField(id!)!, { rid: n, revision: parseField(revision!)!, hash: parseField(hash!)!, fate: 0 });
      if (n > this.maxFoodRid) this.maxFoodRid = n;
    }
    this.foodsAtStart = this.oldFoods.size > 0;
  }

  put(record: ImportRecord): Promise<PutOutcome> {
    this.assertOpen();
    switch (record.kind) {
      case 'brand':
        return Promise.resolve(this.seen(this.putBrand(record.value), 'brand', record.value.id, record.source));
      case 'category':
        return Promise.resolve(this.seen(this.putCategory(record.value), 'category', record.value.id, record.source));
      case 'tag':
        return Promise.resolve(this.seen(this.putTag(record.value), 'tag', record.value.id, record.source));
      case 'food':
        return this.putFood(foodRow(record.value), record.source);
      case 'food-row':
        return this.putFood(record.row, record.source);
    }
  }

  private assertOpen(): void {
    if (!this.open) throw new Error('this import is over');
    if (this.copyError !== undefined) throw this.copyError;
  }

  private seen(outcome: PutOutcome, kind: 'brand' | 'category' | 'tag', id: string, source: SourceRef): PutOutcome {
    this.otherSources.set(`${kind}\0${id}`, source);
    (kind === 'brand' ? this.seenBrands : kind === 'category' ? this.seenCategories : this.seenTags).add(id);
    return outcome;
  }

  private referenceMoved(): void {
    if (this.foodsAtStart || this.writtenFoods > 0) this.referencesMovedUnderFoods = true;
  }

  private putBrand(brand: CatalogBrand): PutOutcome {
    const row = this.brands.get(brand.id);
    const problem = brandProblem(brand);
    if (problem !== undefined) throw new RecordRejected(problem);
    if (row && row.name === brand.name && row.region === brand.region) return 'unchanged';
    refuseNul('brand', brand.name);
    this.referenceMoved();
    this.changedBrands.add(brand.id);
    const fields = { name: brand.name, name_key: fold(brand.name), region: brand.region, updated_at: this.now };
    if (!row) {
      this.brands.set(brand.id, { rid: ++this.maxBrandRid, id: brand.id, ...fields });
      return 'added';
    }
    Object.assign(row, fields);
    return 'changed';
  }

  private putCategory(category: CatalogCategory): PutOutcome {
    const row = this.categories.get(category.id);
    const parent = category.parent ?? null;
    if (row && row.name === category.name && row.region === category.region && row.parent_id === parent) return 'unchanged';
    refuseNul('category', category.name);
    this.referenceMoved();
    this.changedCategories.add(category.id);
    this.treeChanged = true;
    if (row?.parent_id != null) this.children.set(row.parent_id, this.children.get(row.parent_id)! - 1);
    if (parent !== null) this.children.set(parent, (this.children.get(parent) ?? 0) + 1);
    const fields = { name: category.name, name_key: fold(category.name), region: category.region, parent_id: parent, updated_at: this.now };
    if (!row) {
      this.categories.set(category.id, { rid: ++this.maxCategoryRid, id: category.id, ...fields, is_leaf: 1, hierarchy: '[]' });
      return 'added';
    }
    Object.assign(row, fields);
    return 'changed';
  }

  private putTag(tag: CatalogTag): PutOutcome {
    const row = this.tags.get(tag.id);
    if (row && row.name === tag.name) return 'unchanged';
    refuseNul('tag', tag.name);
    this.referenceMoved();
    this.changedTags.add(tag.id);
    const fields = { name: tag.name, name_key: fold(tag.name), updated_at: this.now };
    if (!row) {
      this.tags.set(tag.id, { rid: ++this.maxTagRid, id: tag.id, ...fields });
      return 'added';
    }
    Object.assign(row, fields);
    return 'changed';
  }

  private async putFood(food: FoodRow, source: SourceRef): Promise<PutOutcome> {
    const old = this.oldFoods.get(food.foodId);
    const current = this.written.get(food.foodId) ?? old;
    if (current && current.revision === food.revisionId && current.hash === food.contentHash) {
      if (old && old.fate === 0) old.fate = 1;
      current.source = this.sources.pack(source);
      return 'unchanged';
    }
    // The body is JSON, where U+0000 is escaped; these columns hold the texts as they are.
    refuseNul('food', food.name, food.classification, food.otherNamesFold, food.descriptionFold);
    let brand: BrandRow | undefined;
    let category: CategoryRow | undefined;
    const problem = foodReferenceProblem(food, {
      brand: (id) => (brand = this.brands.get(id)),
      category: (id) => (category = this.categories.get(id)),
      hasChild: (id) => (this.children.get(id) ?? 0) > 0,
      tagExists: (id) => this.tags.has(id),
    });
    if (problem !== undefined) throw new RecordRejected(problem);
    // A derived revision covers the foodId, so only a given one can clash with another food's.
    const clash = food.revisionGiven ? await this.revisionOwner(food.revisionId, food.foodId) : undefined;
    if (clash !== undefined) throw new RecordRejected(`revisionId ${food.revisionId} is already the revision of food ${clash}`);

    const before = this.written.get(food.foodId);
    let rid: number;
    if (before) {
      rid = before.rid;
      this.nameRuns = undefined;
      if (this.writtenRevisions?.get(before.revision) === food.foodId) this.writtenRevisions.delete(before.revision);
    } else if (old) {
      rid = old.rid;
      old.fate = 2;
    } else {
      rid = ++this.maxFoodRid;
      this.addedFoods++;
    }
    // Each record brings its own copies of its brand's, category's, tags' and region's strings:
    // kept for the search data are the catalogue's own (the brand's region is the food's),
    // some 250 MB and four million objects fewer at a million foods.
    const written: WrittenFood = {
      rid, revision: food.revisionId, hash: food.contentHash, id: food.foodId, name: food.nameKey, classification: food.classificationFold,
      otherNames: food.otherNamesFold, description: food.descriptionFold, servings: food.servings, region: brand!.region,
      brandId: brand!.id, categoryId: category!.id, tags: Array.from(new Set(food.tags), (tag) => this.tags.get(tag)!.id),
      source: this.sources.pack(source),
    };
    this.written.set(food.foodId, written);
    this.writtenRevisions?.set(food.revisionId, food.foodId);
    this.nameRuns?.add(written);

    const line = copyRow([
      rid, food.foodId, food.revisionId, food.contentHash, food.region, food.brand, food.category, food.name, food.nameKey,
      food.classification, food.classificationKey, food.classificationFold, food.otherNamesFold, food.descriptionFold, food.servings,
      food.tagsJson, food.body, this.now,
    ]);
    let tags = '';
    for (const tag of new Set(food.tags)) tags += copyRow([tag, rid]);
    let upcs = '';
    if (food.upcKeys !== '') for (const key of new Set(food.upcKeys.split(','))) upcs += copyRow([key, rid]);
    if (before) {
      this.rewrites.set(rid, { food: line, tags, upcs });
    } else {
      await this.stream(line);
      if (tags !== '') this.foodTagLines.add(tags);
      if (upcs !== '') this.foodUpcLines.add(upcs);
    }
    this.changedFoods++;
    this.writtenFoods++;
    return before || old ? 'changed' : 'added';
  }

  /** The other food whose current revision this is, or undefined. */
  private async revisionOwner(revision: string, foodId: string): Promise<string | undefined> {
    if (this.writtenRevisions === undefined) {
      this.writtenRevisions = new Map();
      for (const food of this.written.values()) this.writtenRevisions.set(food.revision, food.id);
    }
    const written = this.writtenRevisions.get(revision);
    if (written !== undefined && written !== foodId) return written;
    if (this.oldRevisions === undefined) {
      // The connection carries the foods' COPY: it ends here and starts again with the next food.
      await this.endCopy();
      this.oldRevisions = new Map();
      for await (const [rev, id] of copyLines(this.client.query(copyTo(`COPY ${this.oldSchema}.foods (revision_id, id) TO STDOUT`)))) {
        this.oldRevisions.set(parseField(rev!)!, parseField(id!)!);
      }
    }
    const old = this.oldRevisions.get(revision);
    // A food of version N this import wrote again has another revision now (else `written` had it).
    if (old !== undefined && old !== foodId && !this.written.has(old)) return old;
    return undefined;
  }

  /** Appends a foods row to the COPY into the new version, starting one when none is under way. */
  private async stream(line: string): Promise<void> {
    this.pending += line;
    if (this.pending.length < COPY_CHUNK) return;
    await this.flush();
  }

  private async flush(): Promise<void> {
    if (this.pending === '') return;
    if (!this.copy) {
      const copy = this.client.query(copyFrom(`COPY ${this.newSchema}.foods (${FOOD_COLUMNS}) FROM STDIN ${FREEZE}`));
      this.copyDone = new Promise<void>((resolve, reject) => {
        copy.on('finish', resolve);
        copy.on('error', (err) => {
          this.copyError = err instanceof Error ? err : new Error(String(err));
          reject(err);
        });
      });
      this.copyDone.catch(() => undefined);
      this.copy = copy;
    }
    const chunk = this.pending;
    this.pending = '';
    if (!this.copy.write(chunk)) await Promise.race([once(this.copy, 'drain'), this.copyDone]);
    if (this.copyError !== undefined) throw this.copyError;
    this.sinceLinks += chunk.length;
    if (this.sinceLinks >= LINKS_EVERY) await this.copyLinks();
  }

  /**
   * The tags and barcodes of the foods streamed so far, through COPYs of their own between two
   * of the foods' (one COPY at a time on a connection): while the records arrive the server
   * and this thread have time to spare, at the end they would have none.
   */
  private async copyLinks(): Promise<void> {
    await this.endCopy();
    this.sinceLinks = 0;
    await this.copyIn('food_tags', 'tag_id, food_rid', this.foodTagLines.drain());
    await this.copyIn('food_upcs', 'upc_key, food_rid', this.foodUpcLines.drain());
  }

  private async endCopy(): Promise<void> {
    await this.flush();
    if (!this.copy) return;
    const copy = this.copy;
    const done = this.copyDone!;
    this.copy = undefined;
    this.copyDone = undefined;
    copy.end();
    await done;
  }

  /** Rows through one COPY FROM STDIN. */
  private async copyIn(table: string, columns: string, chunks: Iterable<string>): Promise<void> {
    const copy = this.client.query(copyFrom(`COPY ${this.newSchema}.${table} (${columns}) FROM STDIN ${FREEZE}`));
    const done = new Promise<void>((resolve, reject) => {
      copy.on('finish', resolve);
      copy.on('error', reject);
    });
    done.catch(() => undefined);
    for (const chunk of chunks) {
      if (chunk !== '' && !copy.write(chunk)) await Promise.race([once(copy, 'drain'), done]);
    }
    copy.end();
    await done;
  }

  private sourceOf(kind: string, id: string): string {
    const packed = kind === 'food' ? (this.written.get(id) ?? this.oldFoods.get(id))?.source : this.otherSources.get(`${kind}\0${id}`);
    const source = packed === undefined ? undefined : this.sources.unpack(packed);
    return source ? ` (${describeSource(source)})` : ' (already in the catalogue)';
  }

  /** --replace: what the import did not list goes (the generic brands stay). */
  private deleteUnseen(): number[] {
    const gone: number[] = [];
    for (const food of this.oldFoods.values()) if (food.fate === 0) gone.push(food.rid);
    this.changedFoods += gone.length;
    let dropped = 0;
    for (const id of [...this.tags.keys()]) if (!this.seenTags.has(id) && this.tags.delete(id)) dropped++;
    for (const id of [...this.brands.keys()]) if (!this.seenBrands.has(id) && !GENERIC_IDS.has(id) && this.brands.delete(id)) dropped++;
    for (const id of [...this.categories.keys()]) {
      if (!this.seenCategories.has(id) && this.categories.delete(id)) {
        dropped++;
        this.treeChanged = true;
      }
    }
    this.changedFoods += dropped;
    return gone;
  }

  /**
   * The foods of version N this import leaves as they are, with their tags and barcodes, into
   * N+1; returns them as the search data reads them.
   */
  private async carryOverFoods(skip: readonly number[]): Promise<ImportedFood[]> {
    if (this.oldFoods.size === skip.length) return [];
    const db = this.client;
    const [from, to] = [this.oldSchema, this.newSchema];
    let where = '';
    if (skip.length > 0) {
      await db.query('CREATE TEMP TABLE import_skip (rid integer NOT NULL) ON COMMIT DROP');
      const rows = new LineBuffer();
      for (const rid of skip) rows.add(`${rid}\n`);
      const copy = db.query(copyFrom('COPY import_skip (rid) FROM STDIN'));
      const done = new Promise<void>((resolve, reject) => {
        copy.on('finish', resolve);
        copy.on('error', reject);
      });
      for (const chunk of rows.drain()) if (!copy.write(chunk)) await once(copy, 'drain');
      copy.end();
      await done;
      await db.query('ANALYZE import_skip');
      where = 'WHERE NOT EXISTS (SELECT 1 FROM import_skip s WHERE s.rid = %)';
    }
    await db.query(`INSERT INTO ${to}.foods SELECT * FROM ${from}.foods o ${where.replace('%', 'o.rid')}`);
    await db.query(`INSERT INTO ${to}.food_tags SELECT * FROM ${from}.food_tags o ${where.replace('%', 'o.food_rid')}`);
    await db.query(`INSERT INTO ${to}.food_upcs SELECT * FROM ${from}.food_upcs o ${where.replace('%', 'o.food_rid')}`);
    const kept: ImportedFood[] = [];
    const rows = db.query(copyTo(`COPY (SELECT rid, id, name_key, classification_fold, other_names_fold, description_fold, servings, region,
      brand_id, category_id, tag_ids FROM ${from}.foods o ${where.replace('%', 'o.rid')}) TO STDOUT`));
    for await (const f of copyLines(rows)) {
      kept.push({
        rid: Number(f[0]), id: parseField(f[1]!)!, name: parseField(f[2]!)!, classification: parseField(f[3]!)!, otherNames: parseField(f[4]!)!,
        description: parseField(f[5]!)!, servings: Number(f[6]), region: parseField(f[7]!)!, brandId: parseField(f[8]!)!,
        categoryId: parseField(f[9]!)!, tags: [...new Set(JSON.parse(parseField(f[10]!)!) as string[])],
      });
    }
    return kept;
  }

  async check(): Promise<readonly string[]> {
    this.assertOpen();
    const db = this.client;
    const to = this.newSchema;
    await this.endCopy();
    const problems: string[] = [];
    const skip = this.replace ? this.deleteUnseen() : [];
    // Nothing added, changed or removed: version N stays as it is (commit rolls N+1 back), and its
    // rows, which passed these checks when they were written, need not be copied to be checked again.
    if (this.changedFoods + this.changedBrands.size + this.changedCategories.size + this.changedTags.size === 0 && !this.treeChanged) return [];
    for (const food of this.oldFoods.values()) if (food.fate === 2) skip.push(food.rid);
    const kept = await this.carryOverFoods(skip);
    await this.copyIn('food_tags', 'tag_id, food_rid', this.foodTagLines.drain());
    await this.copyIn('food_upcs', 'upc_key, food_rid', this.foodUpcLines.drain());
    if (this.rewrites.size > 0) {
      const rids = [...this.rewrites.keys()];
      await db.query(`DELETE FROM ${to}.foods WHERE rid = ANY($1)`, [rids]);
      await db.query(`DELETE FROM ${to}.food_tags WHERE food_rid = ANY($1)`, [rids]);
      await db.query(`DELETE FROM ${to}.food_upcs WHERE food_rid = ANY($1)`, [rids]);
      const rows = [...this.rewrites.values()];
      await this.copyIn('foods', FOOD_COLUMNS, rows.map((r) => r.food));
      await this.copyIn('food_tags', 'tag_id, food_rid', rows.map((r) => r.tags));
      await this.copyIn('food_upcs', 'upc_key, food_rid', rows.map((r) => r.upcs));
    }

    let closure: [string, string][] | undefined;
    if (this.treeChanged) {
      const tree = categoryTree([...this.categories.values()], (id) => this.sourceOf('category', id));
      problems.push(...tree.problems);
      closure = tree.closure;
      for (const { id, isLeaf, hierarchy, touched } of tree.updates) {
        const row = this.categories.get(id)!;
        row.is_leaf = isLeaf;
        row.hierarchy = hierarchy;
        // A renamed ancestor changes this category's representation: it counts as changed.
        if (touched) {
          row.updated_at = this.now;
          this.changedCategories.add(id);
        }
      }
    }
    await this.writeRecords(closure);
    const at = (id: string): string => this.sourceOf('food', id);
    const everything = this.replace || this.changedBrands.size > 0 || this.changedCategories.size > 0 || this.changedTags.size > 0;
    const foodsMayBreak = this.replace || this.referencesMovedUnderFoods;
    const checks = foodsMayBreak ? [this.foodCheckSql(everything), ...(everything ? [this.tagCheckSql()] : [])] : [];
    // One simple query of every index statement, ANALYZE and the whole-catalogue checks: the
    // server does them while this thread builds the search data (synchronous; each statement
    // sent on its own would wait for the thread). The checks' answers are its last results.
    const statements = [...catalogIndexStatements(to), ...ANALYZED.map((table) => `ANALYZE ${to}.${table}`), ...checks];
    const serverWork = db.query(statements.join(';\n')) as unknown as Promise<pg.QueryResult[]>;
    serverWork.catch(() => undefined);
    // Only a food's updated_at can move after this (propagateChanges), which the search data has
    // not. A broken tree fails the import: no search data for it.
    const searchBlobs = problems.length === 0 && this.changedFoods + this.changedBrands.size + this.changedCategories.size + this.changedTags.size > 0
      ? buildSearchBlobs(importedSearchSource([...kept, ...this.written.values()], this.brands.values(),
        (id) => this.categories.get(id)?.rid, this.tags.values(), this.nameRuns?.order(kept)))
      : [];
    const answers = (await serverWork).slice(statements.length - checks.length);
    if (foodsMayBreak) foodProblems(answers[0]!.rows as FoodCheckRow[], problems, everything, at);
    if (foodsMayBreak && everything) {
      listProblems(answers[1]!.rows as { id: string; tag_id: string }[], problems, (r) => `food ${r.id}${at(r.id)}: tag ${r.tag_id} does not exist`);
    }
    if (problems.length === 0) await this.propagateChanges(searchBlobs);
    return problems;
  }

  /** Brands, categories, tags and the closure into the new version (the closure of version N when the tree did not change). */
  private async writeRecords(closure: [string, string][] | undefined): Promise<void> {
    const brands = [...this.brands.values()].map((r) => copyRow([r.rid, r.id, r.name, r.name_key, r.region, r.updated_at]));
    await this.copyIn('brands', 'rid, id, name, name_key, region, updated_at', [brands.join('')]);
    const categories = [...this.categories.values()]
      .map((r) => copyRow([r.rid, r.id, r.name, r.name_key, r.region, r.parent_id, r.is_leaf, r.hierarchy, r.updated_at]));
    await this.copyIn('categories', 'rid, id, name, name_key, region, parent_id, is_leaf, hierarchy, updated_at', [categories.join('')]);
    const tags = [...this.tags.values()].map((r) => copyRow([r.rid, r.id, r.name, r.name_key, r.updated_at]));
    await this.copyIn('tags', 'rid, id, name, name_key, updated_at', [tags.join('')]);
    if (closure) {
      await this.copyIn('category_closure', 'ancestor_id, descendant_id', [closure.map((pair) => copyRow(pair)).join('')]);
    } else {
      await this.client.query(`INSERT INTO ${this.newSchema}.category_closure SELECT * FROM ${this.oldSchema}.category_closure`);
    }
  }

  /** The foods that break a rule, each rule's first ones in rid order (what foodProblems keeps of one pass). */
  private foodCheckSql(everything: boolean): string {
    const s = this.newSchema;
    const flags = everything ? ['not_leaf', 'no_brand', 'no_category', 'wrong_brand', 'wrong_category'] : ['not_leaf'];
    const samples = flags.map((flag) => `(SELECT * FROM p WHERE ${flag} = 1 ORDER BY rid LIMIT ${PROBLEM_SAMPLE + 1})`).join(' UNION ');
    return `WITH p AS MATERIALIZED (
        SELECT f.rid, f.id, f.brand_id, f.category_id, (c.id IS NULL)::int AS no_category, coalesce((c.is_leaf = 0)::int, 0) AS not_leaf,
          (b.id IS NULL)::int AS no_brand, b.region AS brand_region, c.region AS category_region,
          coalesce((b.region <> f.region)::int, 0) AS wrong_brand, coalesce((c.region <> f.region)::int, 0) AS wrong_category
        FROM ${s}.foods f LEFT JOIN ${s}.categories c ON c.id = f.category_id LEFT JOIN ${s}.brands b ON b.id = f.brand_id
        WHERE ${foodCheckCondition(everything)})
      SELECT * FROM (${samples}) x ORDER BY rid`;
  }

  /** The first foods listed with a tag that does not exist. */
  private tagCheckSql(): string {
    const s = this.newSchema;
    return `SELECT f.id, x.tag_id
      FROM (SELECT food_rid, tag_id FROM ${s}.food_tags WHERE tag_id NOT IN (SELECT id FROM ${s}.tags)) x
      JOIN ${s}.foods f ON f.rid = x.food_rid ORDER BY x.food_rid, x.tag_id LIMIT ${PROBLEM_SAMPLE + 1}`;
  }

  /** Foods show their brand, category path and tags: when those change, so do the foods. Then the search data and the switch. */
  private async propagateChanges(searchBlobs: readonly [string, Uint8Array][]): Promise<void> {
    const db = this.client;
    const s = this.newSchema;
    const references = this.changedBrands.size + this.changedCategories.size + this.changedTags.size;
    const kept = [...this.oldFoods.values()].filter((f) => f.fate === 1 || (f.fate === 0 && !this.replace)).length;
    // When this import added every food there is (a first import), all already carry `now`.
    const allAdded = kept + this.written.size === this.addedFoods;
    if (references > 0 && !allAdded) {
      const touched = await db.query(`UPDATE ${s}.foods SET updated_at = $1 WHERE updated_at <> $1 AND (
          brand_id = ANY($2) OR category_id = ANY($3) OR rid IN (SELECT food_rid FROM ${s}.food_tags WHERE tag_id = ANY($4)))`,
      [this.now, [...this.changedBrands], [...this.changedCategories], [...this.changedTags]]);
      this.changedFoods += touched.rowCount ?? 0;
    }
    if (this.changedFoods + references === 0) return;
    await writeSearchBlobs(db, s, searchBlobs);
    await setMeta(db, 'catalog_schema', s);
    await setMeta(db, 'catalog_version', String(this.newVersion));
    await setMeta(db, 'last_modified', String(this.now));
    // For /metrics (foodlookup_last_import_duration_seconds): records, checks and search data.
    await setMeta(db, 'last_import_seconds', String((Date.now() - this.now) / 1000));
    await db.query('SELECT pg_notify($1, $2)', [CATALOG_CHANNEL, String(this.newVersion)]);
    // Versions before the one replicas answer from until they switch are no longer read.
    const stale = await db.query<{ name: string }>(`SELECT nspname AS name FROM pg_namespace WHERE nspname LIKE $1`, [`${CATALOG_SCHEMA_PREFIX}%`]);
    const current = this.newVersion - 1;
    for (const { name } of stale.rows) {
      const version = catalogVersionOf(name);
      if (version !== undefined && version < current) await db.query(`DROP SCHEMA ${name} CASCADE`);
    }
    this.changed = true;
  }

  async commit(): Promise<void> {
    if (!this.open) return;
    this.open = false;
    try {
      // An import that changed nothing leaves version N where it is.
      this.committing = this.changed;
      await this.client.query(this.changed ? 'COMMIT' : 'ROLLBACK');
      this.committing = false;
      if (!this.changed) await this.renewSearchData();
    } finally {
      this.watchdog?.stop();
      await endClient(this.client);
    }
  }

  /**
   * Version N's search data written anew when it is not this program's (an earlier release's
   * format or ranking): without it every replica builds it in memory from the rows at every start
   * until an import changes the catalogue. Its rows are as they were, so the version does not
   * move: replicas already serving it hold the same data, built.
   */
  private async renewSearchData(): Promise<void> {
    const db = this.client;
    await db.query('BEGIN');
    try {
      await db.query('SELECT pg_advisory_xact_lock($1)', [IMPORT_LOCK]);
      const schema = (await readMeta(db)).get('catalog_schema') ?? '';
      if (catalogVersionOf(schema) === undefined) throw new Error(`foodlookup_meta names no catalogue version (catalog_schema '${schema}')`);
      const meta = (await db.query<{ value: Buffer }>(`SELECT value FROM ${schema}.search_blobs WHERE key = 'meta'`)).rows[0]?.value;
      if (!SearchIndex.current({ get: (name) => (name === 'meta' ? meta : undefined) })) await rebuildSearchData(db, schema);
      await db.query('COMMIT');
    } catch (error) {
      await db.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  }

  async rollback(): Promise<void> {
    if (!this.open) return;
    this.open = false;
    if (this.copy) {
      // Mid-COPY: CopyFail ends it; the connection's end rolls the transaction back.
      this.copy.destroy();
    } else {
      await this.client.query('ROLLBACK').catch(() => undefined);
    }
    this.watchdog?.stop();
    await endClient(this.client);
  }
}
