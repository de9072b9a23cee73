import type { Brand, Category, Tag } from '../domain/records.js';
import type { CatalogState, Stamped } from './catalog-store.js';
import type { RecordRids } from '../search/food-filters.js';
import {
  brandRowToBrand, categoryRowToCategory, tagRowToTag, type BrandRow, type CategoryRow, type FoodContext, type FoodJsonContext, type TagRow,
} from './record-rows.js';

/** The rows a dictionary is made of, each with its rid; tags in name order (name_key, id). */
export interface DictionaryRows {
  readonly brands: Iterable<BrandRow & { rid: number }>;
  readonly categories: Iterable<CategoryRow & { rid: number }>;
  readonly tagsInNameOrder: Iterable<TagRow & { rid: number }>;
}

/**
 * Records of one kind held as their JSON texts by id, each one flat string: every food response
 * embeds its brand's and category's JSON, and the objects are parsed from it when asked for.
 * Held as objects beside texts, the 23,000 brands and categories of the bench's 1,000,000-food
 * catalogue were ~265,000 of a worker's ~480,000 heap objects (strings, ropes of JSON
 * parts, objects, boxed times), and every full collection marks them all; as texts they are
 * ~46,000.
 */
class RecordTexts<T> {
  private readonly at = new Map<string, number>();
  private readonly texts: string[] = [];
  private readonly modified: number[] = [];
  private readonly rids: number[] = [];
  /** Index in `texts` by the record's rid (-1: none), made when first asked for. */
  private byRid: Int32Array | undefined;

  add(id: string, rid: number, record: T, lastModified: number): void {
    this.at.set(id, this.texts.length);
    this.byRid = undefined;
    this.rids.push(rid);
    // JSON.stringify returns a rope of parts; decoded from its UTF-8 bytes it is one string.
    this.texts.push(Buffer.from(JSON.stringify(record)).toString());
    this.modified.push(lastModified);
  }

  rid(id: string): number | undefined {
    const i = this.at.get(id);
    return i === undefined ? undefined : this.rids[i];
  }

  json(id: string): string | undefined {
    const i = this.at.get(id);
    return i === undefined ? undefined : this.texts[i];
  }

  /** The JSON of the record with this rid: an array read, where the id's lookup hashes a 36-character string. */
  jsonOfRid(rid: number): string | undefined {
    let byRid = this.byRid;
    if (byRid === undefined) {
      byRid = this.byRid = new Int32Array(this.rids.reduce((most, r) => Math.max(most, r + 1), 0)).fill(-1);
      this.rids.forEach((r, i) => (byRid![r] = i));
    }
    const i = rid < byRid.length ? byRid[rid]! : -1;
    return i < 0 ? undefined : this.texts[i];
  }

  value(id: string): T | undefined {
    const json = this.json(id);
    return json === undefined ? undefined : JSON.parse(json) as T;
  }

  stamped(id: string): Stamped<T> | undefined {
    const i = this.at.get(id);
    return i === undefined ? undefined : { value: JSON.parse(this.texts[i]!) as T, lastModified: this.modified[i]! };
  }
}

/**
 * Brands, categories and tags of one catalogue version, held in memory: every food response
 * embeds them, and they are few next to the foods. Made again when the version moves. What
 * the search engine asks beyond record rids (the category closure, the foods of
 * classifications and barcodes: RecordRids) each store answers its own way.
 */
export class CatalogDictionary implements FoodContext, FoodJsonContext, Pick<RecordRids, 'brandRid' | 'tagRid' | 'limits'> {
  private readonly brands = new RecordTexts<Brand>();
  /** Tag rids by id, for the in-memory filters (food-filters.ts); a brand's is in `brands`. */
  private readonly tagRids = new Map<string, number>();
  readonly limits = { brand: 0, category: 0, tag: 0 };
  private readonly categories = new RecordTexts<Category>();
  readonly tagsById = new Map<string, Stamped<Tag> & { order: number }>();
  /** Serialised once per tag and version: tag lists are joined from them (tagsJson). */
  private readonly tagText = new Map<string, { json: string; order: number }>();
  /** The same by tag rid (tagsJsonOfRids). */
  private readonly tagTextByRid: ({ json: string; order: number } | undefined)[] = [];
  private readonly tagScratch: { json: string; order: number }[] = [];

  constructor(readonly state: CatalogState, rows: DictionaryRows) {
    for (const row of rows.brands) {
      this.brands.add(row.id, row.rid, brandRowToBrand(row), row.updated_at);
      this.limits.brand = Math.max(this.limits.brand, row.rid + 1);
    }
    for (const row of rows.categories) {
      this.categories.add(row.id, row.rid, categoryRowToCategory(row), row.updated_at);
      this.limits.category = Math.max(this.limits.category, row.rid + 1);
    }
    let order = 0;
    for (const row of rows.tagsInNameOrder) {
      const tag = { value: tagRowToTag(row), lastModified: row.updated_at, order };
      this.tagsById.set(row.id, tag);
      const text = { json: JSON.stringify(tag.value), order };
      this.tagText.set(row.id, text);
      this.tagTextByRid[row.rid] = text;
      this.tagRids.set(row.id, row.rid);
      this.limits.tag = Math.max(this.limits.tag, row.rid + 1);
      order++;
    }
  }

  brandRid(id: string): number | undefined {
    return this.brands.rid(id);
  }

  tagRid(id: string): number | undefined {
    return this.tagRids.get(id);
  }

  brand(id: string): Brand | undefined {
    return this.brands.value(id);
  }

  category(id: string): Category | undefined {
    return this.categories.value(id);
  }

  /** A brand with its last-modified time, for the record's own response. */
  stampedBrand(id: string): Stamped<Brand> | undefined {
    return this.brands.stamped(id);
  }

  stampedCategory(id: string): Stamped<Category> | undefined {
    return this.categories.stamped(id);
  }

  tags(ids: readonly string[]): Tag[] {
    const found = ids.map((id) => this.tagsById.get(id)).filter((t) => t !== undefined);
    return found.sort((a, b) => a.order - b.order).map((t) => t.value);
  }

  brandJson(id: string): string | undefined {
    return this.brands.json(id);
  }

  categoryJson(id: string): string | undefined {
    return this.categories.json(id);
  }

  brandJsonOfRid(rid: number): string | undefined {
    return this.brands.jsonOfRid(rid);
  }

  categoryJsonOfRid(rid: number): string | undefined {
    return this.categories.jsonOfRid(rid);
  }

  /** The JSON list of the tags `tagRids[start … end)` (the search data's `tagRids` of a food), in name order. */
  tagsJsonOfRids(tagRids: ArrayLike<number>, start: number, end: number): string {
    let n = 0;
    for (let i = start; i < end; i++) n = this.placeTag(this.tagTextByRid[tagRids[i]!], n);
    return this.placedTagsJson(n);
  }

  /**
   * Tag lists are joined from per-tag JSON: their combinations are too many to cache. The
   * writer stores `tag_ids` as JSON.stringify of normalised uuids, `["…","…"]`, 39 characters
   * a tag: they are sliced at those places rather than parsed (anything else is parsed).
   */
  tagsJson(tagIds: string): string {
    if (tagIds === '[]') return '[]';
    const ids = (tagIds.length - 1) % 39 === 0 && tagIds.charCodeAt(1) === 34
      ? Array.from({ length: (tagIds.length - 1) / 39 }, (_, i) => tagIds.slice(2 + 39 * i, 38 + 39 * i))
      : JSON.parse(tagIds) as string[];
    let n = 0;
    for (const id of ids) n = this.placeTag(this.tagText.get(id), n);
    return this.placedTagsJson(n);
  }

  /**
   * Puts a tag among the first `n` of `tagScratch`, in name order (a food has a few: inserting
   * into a reused array, where sorting a new one per food was ~6 % of a worker's allocations at
   * 64 connections); returns how many are placed. A missing tag is left out.
   */
  private placeTag(tag: { json: string; order: number } | undefined, n: number): number {
    if (tag === undefined) return n;
    const placed = this.tagScratch;
    let at = n;
    for (; at > 0 && placed[at - 1]!.order > tag.order; at--) placed[at] = placed[at - 1]!;
    placed[at] = tag;
    return n + 1;
  }

  /** The JSON list of the first `n` tags of `tagScratch`. */
  private placedTagsJson(n: number): string {
    const placed = this.tagScratch;
    let json = '[';
    for (let i = 0; i < n; i++) json += i === 0 ? placed[i]!.json : `,${placed[i]!.json}`;
    return `${json}]`;
  }
}
