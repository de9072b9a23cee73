import { fold } from '../domain/text.js';
import type {
  BrandQuery, CategoryQuery, Direction, FoodFilters, FoodQuery, IdFilter, ListFilter, TagQuery, TextMatch,
} from './catalog-store.js';

/**
 * The SQL of the lists (/foods when the search engine leaves it to the store, /brands,
 * /categories, /tags), written once for both stores: a `Dialect` says how lists of values
 * travel as parameters and where the tables are. Parameters are `?` in order (PostgreSQL's
 * store numbers them).
 */

/** What differs between SQLite's and PostgreSQL's SQL of the same query. */
export interface Dialect {
  /** A table as the queries name it (PostgreSQL: in the version's schema). */
  table(name: string): string;
  /** A subquery of the values of one parameter, and that parameter: `SELECT value FROM json_each(?)`. */
  values(values: readonly (string | number)[], type: 'text' | 'int'): [sql: string, param: unknown];
  /**
   * A FROM item of rids in order, aliased `m`, with `m.value` the rid and `m.key` its position,
   * and its parameter.
   */
  orderedRids(rids: readonly number[]): [sql: string, param: unknown];
}

/** SQLite: lists as one JSON text parameter (no placeholder limit, one prepared shape). */
export const SQLITE_DIALECT: Dialect = {
  table: (name) => name,
  values: (values) => ['SELECT value FROM json_each(?)', JSON.stringify(values)],
  orderedRids: (rids) => ['json_each(?) m', JSON.stringify(rids)],
};

/**
 * How a query's text restricts the rows: `fts` matching is the search engine's (src/search):
 * its matches arrive as rids, in rank order for foods.
 */
export type Matcher =
  | { readonly kind: 'none' }
  | { readonly kind: 'prefix'; readonly key: string; readonly upper: string }
  | { readonly kind: 'fts'; readonly rids: readonly number[] };

/** The largest code point: `key < prefix + MAX` bounds a prefix range on an index. */
const MAX_CHAR = String.fromCodePoint(0x10ffff);

/** The matcher of a text match; `matched` is the engine's answer for fts. */
export function matcher(match: TextMatch | undefined, matched: () => readonly number[]): Matcher {
  if (!match) return { kind: 'none' };
  if (match.type === 'prefix') {
    const key = fold(match.query);
    return { kind: 'prefix', key, upper: key + MAX_CHAR };
  }
  return { kind: 'fts', rids: matched() };
}

/** A piece of SQL with its parameters, built in order. */
export class Sql {
  readonly params: unknown[] = [];
  private readonly parts: string[] = [];

  add(text: string, ...params: unknown[]): this {
    this.parts.push(text);
    this.params.push(...params);
    return this;
  }

  get text(): string {
    return this.parts.join(' ');
  }
}

function inList(d: Dialect, column: string, values: readonly string[], negate = false): Condition {
  const [sql, param] = d.values(values, 'text');
  return { sql: `${column} ${negate ? 'NOT IN' : 'IN'} (${sql})`, params: [param] };
}

interface Condition {
  readonly sql: string;
  readonly params: readonly unknown[];
}

function idFilter(d: Dialect, column: string, filter: IdFilter | undefined, out: Condition[]): void {
  if (!filter) return;
  if (filter.include.length > 0) out.push(inList(d, column, filter.include));
  if (filter.exclude.length > 0) out.push(inList(d, column, filter.exclude, true));
}

/** `column IN (subquery of the values)`, or NOT IN when the list is inverted; `source` wraps the values' subquery. */
function listFilter(d: Dialect, column: string, filter: ListFilter | undefined, out: Condition[], source = (values: string): string => values): void {
  if (!filter) return;
  const [values, param] = d.values(filter.values, 'text');
  out.push({ sql: `${column} ${filter.inverted ? 'NOT IN' : 'IN'} (${source(values)})`, params: [param] });
}

/** Conditions on foods aliased `f`; every filter of contract C3 pushed into SQL. */
export function foodConditions(d: Dialect, filters: FoodFilters): Condition[] {
  const out: Condition[] = [];
  if (filters.region) out.push({ sql: 'f.region = ?', params: [filters.region] });
  idFilter(d, 'f.brand_id', filters.brands, out);
  if (filters.tags) {
    const { include, exclude } = filters.tags;
    if (include.length > 0) {
      const [values, param] = d.values(include, 'text');
      out.push({
        sql: `f.rid IN (SELECT food_rid FROM ${d.table('food_tags')} WHERE tag_id IN (${values})
              GROUP BY food_rid HAVING count(*) = ?)`,
        params: [param, include.length],
      });
    }
    if (exclude.length > 0) {
      const [values, param] = d.values(exclude, 'text');
      out.push({ sql: `f.rid NOT IN (SELECT food_rid FROM ${d.table('food_tags')} WHERE tag_id IN (${values}))`, params: [param] });
    }
  }
  listFilter(d, 'f.category_id', filters.categories, out,
    (values) => `SELECT descendant_id FROM ${d.table('category_closure')} WHERE ancestor_id IN (${values})`);
  if (filters.upcs) {
    const [values, param] = d.values(filters.upcs, 'text');
    out.push({ sql: `f.rid IN (SELECT food_rid FROM ${d.table('food_upcs')} WHERE upc_key IN (${values}))`, params: [param] });
  }
  if (filters.classifications) {
    listFilter(d, 'f.classification_key', {
      values: filters.classifications.values.map((v) => v.toLowerCase()),
      inverted: filters.classifications.inverted,
    }, out);
  }
  return out;
}

export function hasFoodFilter(filters: FoodFilters): boolean {
  return Boolean(filters.brands || filters.tags || filters.categories || filters.classifications);
}

function where(sql: Sql, conditions: readonly Condition[]): void {
  conditions.forEach((c, i) => sql.add(`${i === 0 ? 'WHERE' : 'AND'} ${c.sql}`, ...c.params));
}

type OrderTerm = readonly [expression: string, direction: Direction];

/** `desc` is the exact reverse of `asc`, tie-breakers included (contract C3). */
function orderBy(terms: readonly OrderTerm[], direction: Direction): string {
  const flip = (d: Direction): Direction => (direction === 'asc' ? d : d === 'asc' ? 'desc' : 'asc');
  return terms.map(([e, d]) => `${e} ${flip(d).toUpperCase()}`).join(', ');
}

/** Conditions and rank terms for a text match on a table aliased `alias`. */
function matchParts(d: Dialect, m: Matcher, alias: string): { conditions: Condition[]; rank: OrderTerm[] } {
  switch (m.kind) {
    case 'none':
      return { conditions: [], rank: [] };
    case 'prefix':
      return {
        conditions: [{ sql: `${alias}.name_key >= ? AND ${alias}.name_key < ?`, params: [m.key, m.upper] }],
        rank: [[`(${alias}.name_key = ?)`, 'desc'], [`length(${alias}.name_key)`, 'asc']],
      };
    case 'fts': {
      const [values, param] = d.values(m.rids, 'int');
      return { conditions: [{ sql: `${alias}.rid IN (${values})`, params: [param] }], rank: [] };
    }
  }
}

export interface BuiltQuery {
  readonly page: Sql;
  readonly count: Sql;
  /**
   * The page rows carry `total` (a window count): where every match is visited anyway to rank
   * or group it, counting in the same pass saves running the whole query twice. The count
   * query is then needed only for a page past the end.
   */
  readonly pageCarriesTotal?: boolean;
}

/**
 * /foods, as the rids of one page in order. Only rids go through the sort: SQLite's sorter
 * carries every selected column, and a food's stored body is ~1 KB, so sorting 40,000
 * matches with their bodies cost ten times more than sorting their keys. The store fetches
 * the page's rows afterwards. fts takes the engine's matches in rank order (`ranked`, every
 * match, best first): their position is the rank. Grouping numbers foods in `order`, then
 * orders groups by their best food (rank) or name, keeping the first N of each group.
 */
export function foodsQuery(d: Dialect, q: FoodQuery, ranked: () => readonly number[] = () => []): BuiltQuery {
  const m = matcher(q.match, ranked);
  const conditions = foodConditions(d, q);
  let from = `${d.table('foods')} f`;
  const fromParams: unknown[] = [];
  let rankTerms: OrderTerm[] = [];
  const rankParams: unknown[] = [];
  if (m.kind === 'fts') {
    const [rids, param] = d.orderedRids(m.rids);
    from = `${d.table('foods')} f JOIN ${rids} ON m.value = f.rid`;
    fromParams.push(param);
    rankTerms = [['m.key', 'asc']];
  } else {
    const parts = matchParts(d, m, 'f');
    conditions.unshift(...parts.conditions);
    rankTerms = parts.rank;
    if (m.kind === 'prefix') rankParams.push(m.key);
  }
  const nameTerms: OrderTerm[] = [['f.name_key', 'asc'], ['f.id', 'asc']];
  const useRank = q.order.field === 'rank' && rankTerms.length > 0;
  const foodOrder = orderBy(useRank ? [...rankTerms, ...nameTerms] : nameTerms, q.order.direction);
  const orderParams = useRank ? rankParams : [];

  if (!q.grouping) {
    // Ranked matches are all visited to sort them: count them in the same pass.
    const windowTotal = m.kind === 'fts';
    const page = new Sql().add(`SELECT f.rid${windowTotal ? ', count(*) OVER () AS total' : ''} FROM ${from}`, ...fromParams);
    where(page, conditions);
    page.add(`ORDER BY ${foodOrder} LIMIT ? OFFSET ?`, ...orderParams, q.limit, q.offset);
    // Past the last page: the matches drive, as in the page query, and the filters are probed per match.
    const count = new Sql().add(`SELECT count(*) FROM ${from}`, ...fromParams);
    where(count, conditions);
    return { page, count, pageCarriesTotal: windowTotal };
  }

  const byBrand = q.grouping.by === 'brand';
  const groupKey = byBrand ? 'f.brand_id' : 'f.classification';
  const groupName = byBrand ? 'b.name_key' : 'f.classification_fold';
  const groupFrom = byBrand ? `${from} JOIN ${d.table('brands')} b ON b.id = f.brand_id` : from;
  const groupsRanked = q.grouping.order.field === 'rank' && rankTerms.length > 0;
  const groupOrder = orderBy(groupsRanked ? [['g.gbest', 'asc']] : [['g.gname', 'asc'], ['g.gkey', 'asc']], q.grouping.order.direction);
  const cte = new Sql().add(`WITH matched AS (SELECT f.rid, ${groupKey} AS gkey, ${groupName} AS gname,
      ROW_NUMBER() OVER (ORDER BY ${foodOrder}) AS pos FROM ${groupFrom}`, ...orderParams, ...fromParams);
  where(cte, conditions);
  cte.add(`), g AS (SELECT rid, gkey, gname, pos, MIN(pos) OVER (PARTITION BY gkey) AS gbest,
      ROW_NUMBER() OVER (PARTITION BY gkey ORDER BY pos) AS gpos FROM matched)`);
  const limitSql = q.grouping.limit !== undefined ? 'WHERE g.gpos <= ?' : '';
  const limitParams = q.grouping.limit !== undefined ? [q.grouping.limit] : [];
  const page = new Sql().add(cte.text, ...cte.params)
    .add(`SELECT g.rid, count(*) OVER () AS total FROM g ${limitSql} ORDER BY ${groupOrder}, g.pos LIMIT ? OFFSET ?`,
      ...limitParams, q.limit, q.offset);
  const count = new Sql().add(cte.text, ...cte.params).add(`SELECT count(*) FROM g ${limitSql}`, ...limitParams);
  return { page, count, pageCarriesTotal: true };
}

function namedListQuery(
  d: Dialect,
  table: string,
  alias: string,
  conditions: Condition[],
  match: Matcher,
  direction: Direction,
  paging: { limit: number; offset: number },
): BuiltQuery {
  const all = [...matchParts(d, match, alias).conditions, ...conditions];
  const page = new Sql().add(`SELECT ${alias}.* FROM ${d.table(table)} ${alias}`);
  where(page, all);
  page.add(`ORDER BY ${orderBy([[`${alias}.name_key`, 'asc'], [`${alias}.id`, 'asc']], direction)} LIMIT ? OFFSET ?`,
    paging.limit, paging.offset);
  const count = new Sql().add(`SELECT count(*) FROM ${d.table(table)} ${alias}`);
  where(count, all);
  return { page, count };
}

/**
 * "The records of the foods that pass the filters", in one of two plans:
 * - selective filters (plain ids, a classification): `record IN (SELECT … FROM matching foods)`,
 *   which walks only the matching foods through their indexes;
 * - broad filters (an inverted list, only excluded ids: most foods pass): a correlated
 *   `EXISTS (… WHERE food.record = record AND filters)` per record, which stops at the first
 *   passing food of each record instead of visiting nearly every food.
 */
function ofFoods(d: Dialect, recordColumn: string, selectColumn: string, filters: FoodFilters, from = `${d.table('foods')} f`): Condition {
  const conditions = foodConditions(d, filters);
  const sql = new Sql();
  if (broadFoodFilter(filters)) {
    sql.add(`EXISTS (SELECT 1 FROM ${from} WHERE ${selectColumn} = ${recordColumn}`);
    for (const c of conditions) sql.add(`AND ${c.sql}`, ...c.params);
    sql.add(')');
  } else {
    sql.add(`${recordColumn} IN (SELECT ${selectColumn} FROM ${from}`);
    where(sql, conditions);
    sql.add(')');
  }
  return { sql: sql.text, params: sql.params };
}

/** Filters most foods pass: an inverted list, or only excluded ids. */
export function broadFoodFilter(filters: FoodFilters): boolean {
  return [filters.categories, filters.classifications].some((l) => l?.inverted)
    || [filters.brands, filters.tags].some((f) => f !== undefined && f.include.length === 0 && f.exclude.length > 0);
}

/**
 * The records of the foods that pass the filters, as a condition: found by the store already
 * (`rids`: a store that holds every food's records in memory), else in SQL.
 */
function ofFoodsOrRids(d: Dialect, alias: string, rids: readonly number[] | undefined, ofFoodsSql: () => Condition): Condition {
  if (rids === undefined) return ofFoodsSql();
  const [values, param] = d.values(rids, 'int');
  return { sql: `${alias}.rid IN (${values})`, params: [param] };
}

/** The food filters of each list of records (`/brands?tags=…`: brands of the foods with those tags). */
export function brandFoodFilters(q: BrandQuery): FoodFilters {
  return { region: q.region, classifications: q.classifications, categories: q.categories, tags: q.tags };
}

export function categoryFoodFilters(q: CategoryQuery): FoodFilters {
  return { region: q.region, classifications: q.classifications, tags: q.tags, brands: wholeListAsIdFilter(q.brands) };
}

export function tagFoodFilters(q: TagQuery): FoodFilters {
  return { classifications: q.classifications, categories: q.categories, brands: wholeListAsIdFilter(q.brands) };
}

/** `!A,B` on a whole list means "in neither A nor B": every id excluded. */
function wholeListAsIdFilter(list: ListFilter | undefined): IdFilter | undefined {
  if (!list) return undefined;
  return list.inverted ? { include: [], exclude: list.values } : { include: list.values, exclude: [] };
}

/**
 * `matched`: the engine's matching rids, for an fts query; `ofFoods`: the rids of the records
 * of the foods that pass the query's food filters, when the store found them itself.
 */
export function brandsQuery(d: Dialect, q: BrandQuery, matched: () => readonly number[] = () => [], ofFoodRids?: readonly number[]): BuiltQuery {
  const conditions: Condition[] = [];
  if (q.region) conditions.push({ sql: 'b.region = ?', params: [q.region] });
  const filters = brandFoodFilters(q);
  if (hasFoodFilter(filters)) {
    conditions.push(ofFoodsOrRids(d, 'b', ofFoodRids, () => ofFoods(d, 'b.id', 'f.brand_id', filters)));
  }
  return namedListQuery(d, 'brands', 'b', conditions, matcher(q.match, matched), q.direction, q);
}

export function categoriesQuery(d: Dialect, q: CategoryQuery, matched: () => readonly number[] = () => [], ofFoodRids?: readonly number[]): BuiltQuery {
  const conditions: Condition[] = [];
  if (q.region) conditions.push({ sql: 'c.region = ?', params: [q.region] });
  if (q.isLeaf !== undefined) conditions.push({ sql: 'c.is_leaf = ?', params: [q.isLeaf ? 1 : 0] });
  if (q.parents) {
    const [values, param] = d.values(q.parents.values, 'text');
    conditions.push(q.parents.inverted
      ? { sql: `(c.parent_id IS NULL OR c.parent_id NOT IN (${values}))`, params: [param] }
      : { sql: `c.parent_id IN (${values})`, params: [param] });
  }
  const filters = categoryFoodFilters(q);
  if (hasFoodFilter(filters)) {
    conditions.push(ofFoodsOrRids(d, 'c', ofFoodRids, () => ofFoods(d, 'c.id', 'f.category_id', filters)));
  }
  return namedListQuery(d, 'categories', 'c', conditions, matcher(q.match, matched), q.direction, q);
}

export function tagsQuery(d: Dialect, q: TagQuery, matched: () => readonly number[] = () => [], ofFoodRids?: readonly number[]): BuiltQuery {
  const conditions: Condition[] = [];
  const filters = tagFoodFilters(q);
  if (hasFoodFilter(filters)) {
    conditions.push(ofFoodsOrRids(d, 't', ofFoodRids, () =>
      ofFoods(d, 't.id', 'ft.tag_id', filters, `${d.table('food_tags')} ft JOIN ${d.table('foods')} f ON f.rid = ft.food_rid`)));
  }
  return namedListQuery(d, 'tags', 't', conditions, matcher(q.match, matched), q.direction, q);
}
