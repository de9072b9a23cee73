import type { BrandQuery, CategoryQuery, Direction, FoodQuery, Ordering, TagQuery, TextMatch } from '../store/catalog-store.js';
import { errors } from '../errors.js';
import { param, parseParams, type RawQuery } from './params.js';
import { queryWords } from '../domain/text.js';
import { tooManyWords } from '../search/plan.js';

/** The parameters of each collection (service.md 4.2–4.5); one spec per endpoint. */
const PAGING = { limit: param.limit, offset: param.offset } as const;
const MATCHING = { query: param.text, 'query-type': param.queryType } as const;

export const FOOD_PARAMS = {
  ...PAGING, ...MATCHING,
  region: param.region,
  fields: param.text,
  brands: param.idFilter,
  brand: param.idFilter,
  tags: param.idFilter,
  categories: param.idList,
  classifications: param.classifications,
  grouping: param.grouping,
  'grouping-order': param.ranking,
  'grouping-limit': param.positiveInteger,
  order: param.ranking,
  upcs: param.barcodes,
  upc: param.barcodes,
} as const;

export const BRAND_PARAMS = {
  ...PAGING, ...MATCHING,
  region: param.region,
  fields: param.text,
  order: param.nameDirection,
  classifications: param.classifications,
  categories: param.idList,
  tags: param.idFilter,
} as const;

export const CATEGORY_PARAMS = {
  ...PAGING, ...MATCHING,
  region: param.region,
  fields: param.text,
  order: param.nameDirection,
  classifications: param.classifications,
  brands: param.idList,
  tags: param.idFilter,
  parents: param.idList,
  'is-leaf': param.boolean,
} as const;

export const TAG_PARAMS = {
  ...PAGING, ...MATCHING,
  fields: param.text,
  order: param.nameDirection,
  classifications: param.classifications,
  categories: param.idList,
  brands: param.idList,
} as const;

export const RECORD_PARAMS = { fields: param.text } as const;

export interface ListRequest<Q> {
  readonly query: Q;
  /** The raw `fields` selector; undefined when absent or empty. */
  readonly fields: string | undefined;
}

function textMatch(query: string | undefined, type: TextMatch['type'] | undefined): TextMatch | undefined {
  if (query === undefined || query.trim() === '') return undefined;
  const tooMany = type === 'prefix' ? undefined : tooManyWords(queryWords(query));
  if (tooMany !== undefined) throw errors.invalidParameter('query', tooMany);
  return { query, type: type ?? 'fts' };
}

const fieldsOf = (fields: string | undefined): string | undefined => (fields === undefined || fields === '' ? undefined : fields);

/** The object without its undefined members: optional query members stay absent. */
function present<T extends Record<string, unknown>>(members: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(members).filter(([, v]) => v !== undefined)) as { [K in keyof T]?: Exclude<T[K], undefined> };
}

export function foodListRequest(raw: RawQuery): ListRequest<FoodQuery> {
  const p = parseParams(raw, FOOD_PARAMS);
  if (p.brands && p.brand) throw errors.invalidParameter('brand', "give either 'brands' or 'brand', not both");
  if (p.upcs && p.upc) throw errors.invalidParameter('upc', "give either 'upcs' or 'upc', not both");
  const match = textMatch(p.query, p['query-type']);
  const defaultOrder: Ordering = { field: match ? 'rank' : 'name', direction: 'asc' };
  const grouping = p.grouping
    ? { by: p.grouping, order: p['grouping-order'] ?? defaultOrder, ...present({ limit: p['grouping-limit'] }) }
    : undefined;
  const query: FoodQuery = {
    limit: p.limit ?? 20,
    offset: p.offset ?? 0,
    order: p.order ?? defaultOrder,
    ...present({
      match, grouping, region: p.region, brands: p.brands ?? p.brand, tags: p.tags, categories: p.categories,
      classifications: p.classifications, upcs: p.upcs ?? p.upc,
    }),
  };
  return { query, fields: fieldsOf(p.fields) };
}

/** Paging, direction and match: what every name-ordered collection has. */
function namedListBase(p: { limit?: number; offset?: number; order?: Direction; query?: string; 'query-type'?: TextMatch['type'] }) {
  return { limit: p.limit ?? 20, offset: p.offset ?? 0, direction: p.order ?? 'asc', ...present({ match: textMatch(p.query, p['query-type']) }) };
}

export function brandListRequest(raw: RawQuery): ListRequest<BrandQuery> {
  const p = parseParams(raw, BRAND_PARAMS);
  const { region, classifications, categories, tags } = p;
  return { query: { ...namedListBase(p), ...present({ region, classifications, categories, tags }) }, fields: fieldsOf(p.fields) };
}

export function categoryListRequest(raw: RawQuery): ListRequest<CategoryQuery> {
  const p = parseParams(raw, CATEGORY_PARAMS);
  const { region, classifications, brands, tags, parents } = p;
  return {
    query: { ...namedListBase(p), ...present({ region, classifications, brands, tags, parents, isLeaf: p['is-leaf'] }) },
    fields: fieldsOf(p.fields),
  };
}

export function tagListRequest(raw: RawQuery): ListRequest<TagQuery> {
  const p = parseParams(raw, TAG_PARAMS);
  const { classifications, categories, brands } = p;
  return { query: { ...namedListBase(p), ...present({ classifications, categories, brands }) }, fields: fieldsOf(p.fields) };
}

export function recordRequest(raw: RawQuery): { fields: string | undefined } {
  return { fields: fieldsOf(parseParams(raw, RECORD_PARAMS).fields) };
}
