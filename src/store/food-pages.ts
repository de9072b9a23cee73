import type { FoodHit, FoodQuery, FoodsOptions, Page } from './catalog-store.js';
import type { CatalogDictionary } from './dictionary.js';
import { foodJson, foodRowToFood, foodRowToFoodHead, foodRowToJson, type FoodJsonRow, type FoodRow } from './record-rows.js';
import type { FoodFacts } from '../search/search-index.js';
import type { Correction } from '../search/plan.js';
import { Synonyms } from '../search/synonyms.js';

/**
 * What both stores do with a page of food rows once they have it: the API's foods, with their
 * `grouping` when the query grouped, as objects or as JSON text.
 */

/** A page with the corrections of its query's words, when there were any (contract C3). */
export function withCorrections<T>(page: Page<T>, corrections: readonly Correction[]): Page<T> {
  return corrections.length === 0 ? page : { ...page, corrections };
}

/** A page of food rows in order, with the dictionary of the version they were read in. */
export interface FoodRowsPage {
  readonly dictionary: CatalogDictionary;
  readonly total: number;
  readonly rows: readonly FoodRow[];
  readonly corrections: readonly Correction[];
  /** The rows' rids in order and the search data's facts of their version: their records are then found by rid (linkedFoodJson). */
  readonly linked?: { readonly rids: readonly number[]; readonly facts: FoodLinks };
}

export function foodHitsPage(query: FoodQuery, page: FoodRowsPage, options: FoodsOptions = { body: true }): Page<FoodHit> {
  const { dictionary, total, rows, corrections } = page;
  const by = query.grouping?.by;
  const items = rows.map((row): FoodHit => {
    const food = options.body ? foodRowToFood(row, dictionary) : foodRowToFoodHead(row, dictionary);
    if (by === 'brand') return { food, grouping: { name: food.brand.name, id: food.brand.id } };
    if (by === 'classification') return { food, grouping: { name: row.classification } };
    return { food };
  });
  return withCorrections({ total, items }, corrections);
}

export function foodJsonPage(query: FoodQuery, page: FoodRowsPage): Page<string> {
  const { dictionary, total, rows, corrections, linked } = page;
  const by = query.grouping?.by;
  const items = rows.map((row, i) => {
    const json = linked === undefined ? foodRowToJson(row, dictionary) : linkedFoodJson(row, linked.rids[i]!, linked.facts, dictionary);
    if (by === undefined) return json;
    const grouping = by === 'brand'
      ? `{"name":${JSON.stringify(dictionary.brand(row.brand_id)!.name)},"id":"${row.brand_id}"}`
      : `{"name":${JSON.stringify(row.classification)}}`;
    return `${json.slice(0, -1)},"grouping":${grouping}}`;
  });
  return withCorrections({ total, items }, corrections);
}

/** A food's brand, category and tags by its rid: the search data's facts of the version its row was read in. */
export type FoodLinks = Pick<FoodFacts, 'brand' | 'category' | 'tagStart' | 'tagRids'>;

/**
 * A food's JSON from its row's own columns, its records found by rid: an array read each,
 * where the row's ids were hashed into the dictionary's maps, and four columns fewer to read.
 */
export function linkedFoodJson(row: FoodJsonRow, rid: number, links: FoodLinks, dictionary: CatalogDictionary): string {
  return foodJson(
    row,
    dictionary.brandJsonOfRid(links.brand[rid]!),
    dictionary.categoryJsonOfRid(links.category[rid]!),
    dictionary.tagsJsonOfRids(links.tagRids, links.tagStart[rid]!, links.tagStart[rid + 1]!),
  );
}

let shippedSynonyms: Synonyms | undefined;
/** The synonym list that ships with the service, read once per process. */
export function defaultSynonyms(): Synonyms {
  return (shippedSynonyms ??= Synonyms.load(['default']));
}
