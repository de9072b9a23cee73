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
 * Brands, categories and tags of one catalogue version, held in memory: every food response
 * embeds them, and they are few next to the foods. Made again when the version moves. What
 * the search engine asks beyond record rids (the category closure, the foods of
 * classifications and barcodes: RecordRids) each store answers its own way.
 */
export class CatalogDictionary implements FoodContext, FoodJsonContext, Pick<RecordRids, 'brandRid' | 'tagRid' | 'limits'> {
  readonly brands = new Map<string, Stamped<Brand>>();
  /** Rids by id, for the in-memory filters (food-filters.ts). */
  private readonly brandRids = new Map<string, number>();
  private readonly tagRids = new Map<string, number>();
  readonly limits = { brand: 0, category: 0, tag: 0 };
  readonly categories = new Map<string, Stamped<Category>>();
  readonly tagsById = new Map<string, Stamped<Tag> & { order: number }>();
  /** Serialised once per record and version, one map per kind: keys are bare ids, no per-call concatenation. */
  private readonly brandText = new Map<string, string>();
  private readonly categoryText = new Map<string, string>();
  private readonly tagText = new Map<string, { json: string; order: number }>();

  constructor(readonly state: CatalogState, rows: DictionaryRows) {
    for (const row of rows.brands) {
      this.brands.set(row.id, { value: brandRowToBrand(row), lastModified: row.updated_at });
      this.brandRids.set(row.id, row.rid);
      this.limits.brand = Math.max(this.limits.brand, row.rid + 1);
    }
    for (const row of rows.categories) {
      this.categories.set(row.id, { value: categoryRowToCategory(row), lastModified: row.updated_at });
      this.limits.category = Math.max(this.limits.category, row.rid + 1);
    }
    let order = 0;
    for (const row of rows.tagsInNameOrder) {
      const tag = { value: tagRowToTag(row), lastModified: row.updated_at, order };
      this.tagsById.set(row.id, tag);
      this.tagText.set(row.id, { json: JSON.stringify(tag.value), order });
      this.tagRids.set(row.id, row.rid);
      this.limits.tag = Math.max(this.limits.tag, row.rid + 1);
      order++;
    }
  }

  brandRid(id: string): number | undefined {
    return this.brandRids.get(id);
  }

  tagRid(id: string): number | undefined {
    return this.tagRids.get(id);
  }

  brand(id: string): Brand | undefined {
    return this.brands.get(id)?.value;
  }

  category(id: string): Category | undefined {
    return this.categories.get(id)?.value;
  }

  tags(ids: readonly string[]): Tag[] {
    const found = ids.map((id) => this.tagsById.get(id)).filter((t) => t !== undefined);
    return found.sort((a, b) => a.order - b.order).map((t) => t.value);
  }

  /** A record's JSON, serialised on first use in this version. */
  private static text(texts: Map<string, string>, id: string, record: object | undefined): string | undefined {
    let text = texts.get(id);
    if (text === undefined && record !== undefined) {
      text = JSON.stringify(record);
      texts.set(id, text);
    }
    return text;
  }

  brandJson(id: string): string | undefined {
    return this.brandText.get(id) ?? CatalogDictionary.text(this.brandText, id, this.brand(id));
  }

  categoryJson(id: string): string | undefined {
    return this.categoryText.get(id) ?? CatalogDictionary.text(this.categoryText, id, this.category(id));
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
    const found: { json: string; order: number }[] = [];
    for (const id of ids) {
      const tag = this.tagText.get(id);
      if (tag !== undefined) found.push(tag);
    }
    if (found.length > 1) found.sort((a, b) => a.order - b.order);
    return `[${found.map((t) => t.json).join(',')}]`;
  }
}
