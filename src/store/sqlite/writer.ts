import type { Database, Statement } from 'better-sqlite3';
import { availableParallelism } from 'node:os';
import { envInteger } from '../../config.js';
import type { CatalogBrand, CatalogCategory, CatalogTag } from '../../domain/records.js';
import { describeSource } from '../../domain/records.js';
import { fold } from '../../domain/text.js';
import { RecordRejected, type ImportRecord, type ImportTransaction, type PutOutcome } from '../catalog-store.js';
import { foodRow, type FoodRow } from '../food-row.js';
import {
  GENERIC_IDS, PROBLEM_SAMPLE, brandProblem, categoryTree, foodCheckCondition, foodProblems, foodReferenceProblem, listProblems,
  type CategoryTreeRow, type FoodCheckRow,
} from '../import-rules.js';
import { buildThreadMinFoods } from '../../search/build-thread.js';
import { foodRidLimit, rebuildSearchData, startSearchRebuild, type SearchRebuild } from './search-store.js';

/**
 * An import that writes this many foods, and at least a quarter as many as the catalogue held,
 * drops the foods' secondary indexes and builds them again before the checks: CREATE INDEX
 * sorts once, where each written food cost a random-order insert into five B-trees that at a
 * million foods no longer fit the cache. The unique indexes stay: the record phase looks foods
 * up by id and revision, and a UNIQUE constraint's index cannot be dropped.
 */
export function bulkMinFoods(): number {
  return envInteger('FOODLOOKUP_IMPORT_BULK_MIN', 0, 20_000);
}

/** The foods' index in name order: the search data build needs the name order (startSearchRebuild). */
const NAME_INDEX = 'foods_name';

/** The page cache (and so the sorter's memory) while dropped indexes are built, in KiB. */
const INDEX_BUILD_CACHE_KIB = 8192;

interface BrandLookup { rid: number; name: string; region: string }
interface CategoryLookup { rid: number; name: string; region: string; parent_id: string | null }
interface TagLookup { rid: number; name: string }

/**
 * Rows by id as this transaction sees them, read once: every food names a brand, a category
 * and its tags, and a statement per name was a fifth of the record phase. Writers of this
 * import call `forget` so the next read sees their write; nothing else writes meanwhile.
 * Holds one entry per distinct id asked about, never per food.
 */
class RowCache<T> {
  private readonly rows = new Map<string, T | null>();

  constructor(private readonly read: (id: string) => T | undefined) {}

  get(id: string): T | undefined {
    let row = this.rows.get(id);
    if (row === undefined) {
      row = this.read(id) ?? null;
      this.rows.set(id, row);
    }
    return row ?? undefined;
  }

  forget(id: string): void {
    this.rows.delete(id);
  }
}

export interface ImportHooks {
  /** After COMMIT: readers on this connection cannot see their own commits in `PRAGMA data_version`. */
  readonly committed?: () => void;
  /** After COMMIT or ROLLBACK, when the transaction is over. */
  readonly ended?: () => void;
}

/**
 * One import in one SQLite transaction. Records are upserted as they arrive; the rules that
 * need the whole catalogue run in `check()`, and derived data (category hierarchy, leaf
 * flags, closure, dependent foods' change times) is rebuilt there for what changed.
 */
export class SqliteImport implements ImportTransaction {
  private readonly now = Date.now();
  private readonly changedBrands = new Set<string>();
  private readonly changedCategories = new Set<string>();
  /** Categories were added, changed or removed: the tree's derived data must be rebuilt. */
  private treeChanged = false;
  private readonly changedTags = new Set<string>();
  /**
   * A brand, category or tag was added or changed while foods were in the catalogue (from
   * before, or put earlier in this import): only then can a food that passed its checks when
   * it was put break a rule by the end (foodProblems). A first import lists them before its
   * foods, and skips a pass over every food (~3 s at 1,000,000 foods).
   */
  private referencesMovedUnderFoods = false;
  private readonly foodsAtStart: boolean;
  private changedFoods = 0;
  /** Foods added or changed by put: decides when the secondary indexes go (bulkMinFoods). */
  private writtenFoods = 0;
  /** Foods inserted by this import: all stamped with `now`. */
  private addedFoods = 0;
  private readonly bulkAt: number;
  /** The foods' secondary indexes this import dropped, to be built again by the same SQL. */
  private droppedIndexes: { name: string; sql: string }[] = [];
  /** The search data being rebuilt on its own thread while check() goes on. */
  private rebuild: SearchRebuild | undefined;
  private open = true;
  private readonly s: Record<string, Statement>;
  private readonly brands: RowCache<BrandLookup>;
  private readonly categories: RowCache<CategoryLookup>;
  private readonly tags: RowCache<TagLookup>;
  /** Whether a category has a child, by id. */
  private readonly hasChild: RowCache<true>;

  constructor(
    private readonly db: Database,
    private readonly replace: boolean,
    private readonly hooks: ImportHooks = {},
  ) {
    db.exec('BEGIN IMMEDIATE');
    // Appended in file order, indexed only when asked (sourceOf, --replace): a keyed table took a
    // random-order B-tree insert per record, which at a million records spilled the temp cache.
    // A record listed twice has two rows; the later one is its source, as an upsert kept it before.
    db.exec(`CREATE TEMP TABLE IF NOT EXISTS import_seen (kind TEXT NOT NULL, id TEXT NOT NULL, source TEXT NOT NULL)`);
    db.exec('DROP INDEX IF EXISTS temp.import_seen_id');
    db.exec('DELETE FROM temp.import_seen');
    this.s = {
      seen: db.prepare('INSERT INTO temp.import_seen (kind, id, source) VALUES (?, ?, ?)'),
      brandGet: db.prepare('SELECT rid, name, region FROM brands WHERE id = ?'),
      brandIns: db.prepare('INSERT INTO brands (id, name, name_key, region, updated_at) VALUES (?, ?, ?, ?, ?)'),
      brandUpd: db.prepare('UPDATE brands SET name = ?, name_key = ?, region = ?, updated_at = ? WHERE rid = ?'),
      catGet: db.prepare('SELECT rid, name, region, parent_id FROM categories WHERE id = ?'),
      catIns: db.prepare('INSERT INTO categories (id, name, name_key, region, parent_id, updated_at) VALUES (?, ?, ?, ?, ?, ?)'),
      catUpd: db.prepare('UPDATE categories SET name = ?, name_key = ?, region = ?, parent_id = ?, updated_at = ? WHERE rid = ?'),
      catHasChild: db.prepare('SELECT 1 FROM categories WHERE parent_id = ? LIMIT 1'),
      tagGet: db.prepare('SELECT rid, name FROM tags WHERE id = ?'),
      tagIns: db.prepare('INSERT INTO tags (id, name, name_key, updated_at) VALUES (?, ?, ?, ?)'),
      tagUpd: db.prepare('UPDATE tags SET name = ?, name_key = ?, updated_at = ? WHERE rid = ?'),
      foodGet: db.prepare('SELECT rid, revision_id, content_hash FROM foods WHERE id = ?'),
      foodByRevision: db.prepare('SELECT id FROM foods WHERE revision_id = ? AND id <> ?'),
      foodIns: db.prepare(`INSERT INTO foods (id, revision_id, content_hash, region, brand_id, category_id, name, name_key,
        classification, classification_key, classification_fold, other_names_fold, description_fold, servings, tag_ids, body, updated_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      foodUpd: db.prepare(`UPDATE foods SET revision_id = ?, content_hash = ?, region = ?, brand_id = ?, category_id = ?,
        name = ?, name_key = ?, classification = ?, classification_key = ?, classification_fold = ?, other_names_fold = ?,
        description_fold = ?, servings = ?, tag_ids = ?, body = ?, updated_at = ? WHERE rid = ?`),
      foodTagsDel: db.prepare('DELETE FROM food_tags WHERE food_rid = ?'),
      foodTagsIns: db.prepare('INSERT INTO food_tags (tag_id, food_rid) VALUES (?, ?)'),
      foodUpcsDel: db.prepare('DELETE FROM food_upcs WHERE food_rid = ?'),
      foodUpcsIns: db.prepare('INSERT OR IGNORE INTO food_upcs (upc_key, food_rid) VALUES (?, ?)'),
    };
    const foods = (db.prepare('SELECT max(rid) FROM foods').pluck().get() as number | null) ?? 0;
    this.bulkAt = Math.max(bulkMinFoods(), Math.ceil(foods / 4));
    this.foodsAtStart = foods > 0;
    this.brands = new RowCache((id) => this.s['brandGet']!.get(id) as BrandLookup | undefined);
    this.categories = new RowCache((id) => this.s['catGet']!.get(id) as CategoryLookup | undefined);
    this.tags = new RowCache((id) => this.s['tagGet']!.get(id) as TagLookup | undefined);
    this.hasChild = new RowCache((id) => (this.s['catHasChild']!.get(id) ? true : undefined));
  }

  put(record: ImportRecord): Promise<PutOutcome> {
    const source = describeSource(record.source);
    let outcome: PutOutcome;
    let id: string;
    switch (record.kind) {
      case 'brand':
        outcome = this.putBrand(record.value);
        id = record.value.id;
        break;
      case 'category':
        outcome = this.putCategory(record.value);
        id = record.value.id;
        break;
      case 'tag':
        outcome = this.putTag(record.value);
        id = record.value.id;
        break;
      case 'food':
        outcome = this.putFood(foodRow(record.value));
        id = record.value.foodId;
        break;
      case 'food-row':
        outcome = this.putFood(record.row);
        id = record.row.foodId;
        break;
    }
    this.s['seen']!.run(record.kind === 'food-row' ? 'food' : record.kind, id, source);
    return Promise.resolve(outcome);
  }

  private putBrand(brand: CatalogBrand): PutOutcome {
    const row = this.brands.get(brand.id);
    const problem = brandProblem(brand);
    if (problem !== undefined) throw new RecordRejected(problem);
    if (row && row.name === brand.name && row.region === brand.region) return 'unchanged';
    const key = fold(brand.name);
    this.referenceMoved();
    this.changedBrands.add(brand.id);
    this.brands.forget(brand.id);
    if (!row) {
      this.s['brandIns']!.run(brand.id, brand.name, key, brand.region, this.now);
      return 'added';
    }
    this.s['brandUpd']!.run(brand.name, key, brand.region, this.now, row.rid);
    return 'changed';
  }

  private putCategory(category: CatalogCategory): PutOutcome {
    const row = this.categories.get(category.id);
    const parent = category.parent ?? null;
    if (row && row.name === category.name && row.region === category.region && row.parent_id === parent) return 'unchanged';
    const key = fold(category.name);
    this.referenceMoved();
    this.changedCategories.add(category.id);
    this.treeChanged = true;
    this.categories.forget(category.id);
    if (row?.parent_id != null) this.hasChild.forget(row.parent_id);
    if (parent !== null) this.hasChild.forget(parent);
    if (!row) {
      this.s['catIns']!.run(category.id, category.name, key, category.region, parent, this.now);
      return 'added';
    }
    this.s['catUpd']!.run(category.name, key, category.region, parent, this.now, row.rid);
    return 'changed';
  }

  private putTag(tag: CatalogTag): PutOutcome {
    const row = this.tags.get(tag.id);
    if (row && row.name === tag.name) return 'unchanged';
    const key = fold(tag.name);
    this.referenceMoved();
    this.changedTags.add(tag.id);
    this.tags.forget(tag.id);
    if (!row) {
      this.s['tagIns']!.run(tag.id, tag.name, key, this.now);
      return 'added';
    }
    this.s['tagUpd']!.run(tag.name, key, this.now, row.rid);
    return 'changed';
  }

  private referenceMoved(): void {
    if (this.foodsAtStart || this.writtenFoods > 0) this.referencesMovedUnderFoods = true;
  }

  private putFood(food: FoodRow): PutOutcome {
    const row = this.s['foodGet']!.get(food.foodId) as { rid: number; revision_id: string; content_hash: string } | undefined;
    if (row && row.revision_id === food.revisionId && row.content_hash === food.contentHash) return 'unchanged';

    const problem = foodReferenceProblem(food, {
      brand: (id) => this.brands.get(id),
      category: (id) => this.categories.get(id),
      hasChild: (id) => this.hasChild.get(id) !== undefined,
      tagExists: (id) => this.tags.get(id) !== undefined,
    });
    if (problem !== undefined) throw new RecordRejected(problem);
    // A derived revision covers the foodId, so only a given one can clash with another food's.
    const clash = food.revisionGiven ? (this.s['foodByRevision']!.get(food.revisionId, food.foodId) as { id: string } | undefined) : undefined;
    if (clash) throw new RecordRejected(`revisionId ${food.revisionId} is already the revision of food ${clash.id}`);

    const columns = [
      food.revisionId, food.contentHash, food.region, food.brand, food.category, food.name, food.nameKey,
      food.classification, food.classificationKey, food.classificationFold, food.otherNamesFold, food.descriptionFold, food.servings,
      food.tagsJson, food.body, this.now,
    ] as const;
    let rid: number | bigint;
    if (row) {
      this.s['foodUpd']!.run(...columns, row.rid);
      rid = row.rid;
      this.s['foodTagsDel']!.run(rid);
      this.s['foodUpcsDel']!.run(rid);
    } else {
      rid = this.s['foodIns']!.run(food.foodId, ...columns).lastInsertRowid;
      this.addedFoods++;
    }
    for (const tag of food.tags) this.s['foodTagsIns']!.run(tag, rid);
    if (food.upcKeys !== '') for (const key of food.upcKeys.split(',')) this.s['foodUpcsIns']!.run(key, rid);
    this.changedFoods++;
    if (++this.writtenFoods === this.bulkAt) this.dropIndexes();
    return row ? 'changed' : 'added';
  }

  /** Inside the import's transaction, so a rollback brings them back as they were. */
  private dropIndexes(): void {
    this.droppedIndexes = this.db
      .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'foods' AND sql IS NOT NULL ORDER BY name")
      .all() as { name: string; sql: string }[];
    for (const { name } of this.droppedIndexes) this.db.exec(`DROP INDEX "${name.replace(/"/g, '""')}"`);
  }

  /** Builds the dropped indexes again, the name index first; `nameIndexBuilt` as soon as that one is there. */
  private restoreIndexes(nameIndexBuilt: () => void): void {
    const nameFirst = [...this.droppedIndexes].sort((a, b) => Number(b.name === NAME_INDEX) - Number(a.name === NAME_INDEX));
    if (nameFirst[0]?.name !== NAME_INDEX) nameIndexBuilt();
    if (nameFirst.length === 0) return;
    // SQLite's sorter may hold as much memory as the page cache is allowed, in fresh allocations
    // on top of the cache's own: a small cache while the indexes are built keeps the import's
    // peak memory where it was without the sort. The sorter then merges runs from temp files; the
    // build reads the table and appends to the index in order, which needs no cache to speak of.
    // The sorter's helper threads sort and merge those runs on the other cores: the five
    // indexes of 1,000,000 foods took 7.8-8.0 s without them, 6.3-6.5 s with two.
    const cache = this.db.pragma('cache_size', { simple: true }) as number;
    const threads = this.db.pragma('threads', { simple: true }) as number;
    this.db.pragma(`cache_size = -${INDEX_BUILD_CACHE_KIB}`);
    this.db.pragma(`threads = ${availableParallelism()}`);
    try {
      // The search data build waits for the name order.
      for (const { name, sql } of nameFirst) {
        this.db.exec(sql);
        if (name === NAME_INDEX) nameIndexBuilt();
      }
    } finally {
      this.db.pragma(`cache_size = ${cache}`);
      this.db.pragma(`threads = ${threads}`);
    }
    this.droppedIndexes = [];
  }

  /** Where a record of this import came from, for messages. */
  private sourceOf(kind: string, id: string): string {
    this.indexSeen();
    const row = this.db.prepare('SELECT source FROM temp.import_seen WHERE kind = ? AND id = ? ORDER BY rowid DESC LIMIT 1').get(kind, id) as
      | { source: string }
      | undefined;
    return row ? ` (${row.source})` : ' (already in the catalogue)';
  }

  /** One sort when the records are in, instead of one B-tree insert per record. */
  private indexSeen(): void {
    this.db.exec('CREATE INDEX IF NOT EXISTS temp.import_seen_id ON import_seen (kind, id)');
  }

  /** Removes what a --replace import did not list. */
  private deleteUnseen(): void {
    this.indexSeen();
    const unseenFoods = this.db
      .prepare("SELECT rid FROM foods WHERE id NOT IN (SELECT id FROM temp.import_seen WHERE kind = 'food')")
      .pluck()
      .all() as number[];
    for (const rid of unseenFoods) {
      this.s['foodTagsDel']!.run(rid);
      this.s['foodUpcsDel']!.run(rid);
    }
    this.db.prepare("DELETE FROM foods WHERE id NOT IN (SELECT id FROM temp.import_seen WHERE kind = 'food')").run();
    this.changedFoods += unseenFoods.length;
    const drop = (table: string, kind: string, keep: readonly string[] = []): number => {
      const keepList = keep.map((id) => `'${id}'`).join(',') || "''";
      const where = `id NOT IN (SELECT id FROM temp.import_seen WHERE kind = '${kind}') AND id NOT IN (${keepList})`;
      return this.db.prepare(`DELETE FROM ${table} WHERE ${where}`).run().changes;
    };
    const dropped = drop('tags', 'tag') + drop('brands', 'brand', [...GENERIC_IDS]);
    const droppedCategories = drop('categories', 'category');
    if (droppedCategories > 0) this.treeChanged = true;
    this.changedFoods += dropped + droppedCategories;
  }

  /** Recomputes hierarchy, leaf flags and the closure; returns tree problems. */
  private rebuildCategories(problems: string[]): void {
    const rows = this.db.prepare('SELECT id, name, region, parent_id, is_leaf, hierarchy FROM categories').all() as CategoryTreeRow[];
    const tree = categoryTree(rows, (id) => this.sourceOf('category', id));
    problems.push(...tree.problems);
    const update = this.db.prepare('UPDATE categories SET is_leaf = ?, hierarchy = ?, updated_at = ? WHERE id = ?');
    const updateDerived = this.db.prepare('UPDATE categories SET is_leaf = ?, hierarchy = ? WHERE id = ?');
    this.db.exec('DELETE FROM category_closure');
    const closure = this.db.prepare('INSERT INTO category_closure (ancestor_id, descendant_id) VALUES (?, ?)');
    for (const [ancestor, descendant] of tree.closure) closure.run(ancestor, descendant);
    for (const { id, isLeaf, hierarchy, touched } of tree.updates) {
      // A renamed ancestor changes this category's representation: it counts as changed.
      if (touched) {
        update.run(isLeaf, hierarchy, this.now, id);
        this.changedCategories.add(id);
      } else {
        updateDerived.run(isLeaf, hierarchy, id);
      }
    }
  }

  private listProblems(problems: string[], sql: string, describe: (row: Record<string, string>) => string): void {
    listProblems(this.db.prepare(`${sql} LIMIT ${PROBLEM_SAMPLE + 1}`).all() as Record<string, string>[], problems, describe);
  }

  /**
   * The rules between a food and its brand and category, in one pass over the foods instead of
   * one per rule: each pass reads the whole foods table, seconds at a million foods.
   */
  private foodProblems(problems: string[], everything: boolean, at: (id: string) => string): void {
    const rows = this.db.prepare(`SELECT f.id, f.brand_id, f.category_id, c.id IS NULL AS no_category, c.is_leaf = 0 AS not_leaf,
        b.id IS NULL AS no_brand, b.region AS brand_region, c.region AS category_region,
        b.region <> f.region AS wrong_brand, c.region <> f.region AS wrong_category
      FROM foods f LEFT JOIN categories c ON c.id = f.category_id LEFT JOIN brands b ON b.id = f.brand_id
      WHERE ${foodCheckCondition(everything)}
      ORDER BY f.rid`).iterate() as IterableIterator<FoodCheckRow>;
    foodProblems(rows, problems, everything, at);
  }

  async check(): Promise<readonly string[]> {
    const problems: string[] = [];
    if (this.replace) this.deleteUnseen();
    // A large catalogue's search data is built on a thread of its own, beside the indexes and
    // checks below (search/build-thread.ts): every food is read and sent first, the name order
    // once the name index is built. The records cannot change any more; propagateChanges only
    // moves change times, which the search data does not hold.
    if (this.searchDataChanges() && foodRidLimit(this.db) >= buildThreadMinFoods()) this.rebuild = await startSearchRebuild(this.db);
    this.restoreIndexes(() => this.rebuild?.nameOrder());
    if (this.treeChanged) this.rebuildCategories(problems);
    const at = (id: string): string => this.sourceOf('food', id);
    const everything = this.replace || this.changedBrands.size > 0 || this.changedCategories.size > 0 || this.changedTags.size > 0;
    const foodsMayBreak = this.replace || this.referencesMovedUnderFoods;
    if (foodsMayBreak) this.foodProblems(problems, everything, at);
    if (foodsMayBreak && everything) {
      // Missing tags are found in food_tags alone; only their foods are looked up. Same order as
      // scanning food_tags_food: food_rid, then tag_id.
      this.listProblems(problems,
        `SELECT f.id, x.tag_id FROM (SELECT food_rid, tag_id FROM food_tags WHERE tag_id NOT IN (SELECT id FROM tags)) x
          JOIN foods f ON f.rid = x.food_rid ORDER BY x.food_rid, x.tag_id`,
        (r) => `food ${r['id']}${at(r['id']!)}: tag ${r['tag_id']} does not exist`);
    }
    if (problems.length === 0) await this.propagateChanges();
    else await this.stopRebuild();
    return problems;
  }

  /** Whether the search data must be rebuilt: anything it is made of changed. */
  private searchDataChanges(): boolean {
    return this.changedFoods + this.changedBrands.size + this.changedCategories.size + this.changedTags.size > 0;
  }

  private async stopRebuild(): Promise<void> {
    const rebuild = this.rebuild;
    this.rebuild = undefined;
    await rebuild?.stop();
  }

  /** Foods show their brand, category path and tags: when those change, so do the foods. */
  private async propagateChanges(): Promise<void> {
    const list = (ids: Set<string>): string => JSON.stringify([...ids]);
    // When this import added every food there is (a first import), all already carry `now` and
    // the update would change none: it would only read the whole foods table to find that out.
    const allAdded = () => (this.db.prepare('SELECT count(*) FROM foods').pluck().get() as number) === this.addedFoods;
    if (this.changedBrands.size + this.changedCategories.size + this.changedTags.size > 0 && !allAdded()) {
      const touched = this.db.prepare(`UPDATE foods SET updated_at = ? WHERE updated_at <> ? AND (
          brand_id IN (SELECT value FROM json_each(?))
          OR category_id IN (SELECT value FROM json_each(?))
          OR rid IN (SELECT food_rid FROM food_tags WHERE tag_id IN (SELECT value FROM json_each(?))))`)
        .run(this.now, this.now, list(this.changedBrands), list(this.changedCategories), list(this.changedTags));
      this.changedFoods += touched.changes;
    }
    if (this.searchDataChanges()) {
      if (this.rebuild) await this.rebuild.finish();
      else rebuildSearchData(this.db);
      this.rebuild = undefined;
      this.db.prepare("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'catalog_version'").run();
      this.db.prepare("UPDATE meta SET value = ? WHERE key = 'last_modified'").run(String(this.now));
      // For /metrics (foodlookup_last_import_duration_seconds): records, checks and search data.
      this.db.prepare("INSERT INTO meta (key, value) VALUES ('last_import_seconds', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value")
        .run(String((Date.now() - this.now) / 1000));
    }
  }

  commit(): Promise<void> {
    if (this.open) {
      this.open = false;
      this.db.exec('COMMIT');
      this.hooks.committed?.();
      this.hooks.ended?.();
    }
    return Promise.resolve();
  }

  async rollback(): Promise<void> {
    await this.stopRebuild();
    if (this.open) {
      this.open = false;
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      this.hooks.ended?.();
    }
  }
}
