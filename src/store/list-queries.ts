import { fold } from '../../domain/text.js';
import type {
  BrandQuery, CategoryQuery, Direction, FoodFilters, FoodQuery, IdFilter, ListFilter, TagQuery, TextMatch,
} from '../catalog-store.js';

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

/** Long id lists travel as one JSON parameter: no placeholder limit, one prepared shape. */
const inList = (column: string, values: readonly string[], negate = false): [string, string] => [
  `${column} ${negate ? 'NOT IN' : 'IN'} (SELECT value FROM json_each(?))`,
  JSON.stringify(values),
];

interface Condition {
  readonly sql: string;
  readonly params: readonly unknown[];
}

function idFilter(column: string, filter: IdFilter | undefined, out: Condition[]): void {
  if (!filter) return;
  if (filter.include.length > 0) {
    const [sql, p] = inList(column, filter.include);
    out.push({ sql, params: [p] });
  }
  if (filter.exclude.length > 0) {
    const [sql, p] = inList(column, filter.exclude, true);
    out.push({ sql, params: [p] });
  }
}

function listFilter(column: string, filter: ListFilter | undefined, out: Condition[], subquery?: string): void {
  if (!filter) return;
  const json = JSON.stringify(filter.values);
  const source = subquery ?? 'SELECT value FROM json_each(?)';
  out.push({ sql: `${column} ${filter.inverted ? 'NOT IN' : 'IN'} (${source})`, params: [json] });
}

/** Conditions on foods aliased `f`; every filter of contract C3 pushed into SQL. */
export function foodConditions(filters: FoodFilters): Condition[] {
  const out: Condition[] = [];
  if (filters.region) out.push({ sql: 'f.region = ?', params: [filters.region] });
  idFilter('f.brand_id', filters.brands, out);
  if (filters.tags) {
    const { include, exclude } = filters.tags;
    if (include.length > 0) {
      out.push({
        sql: `f.rid IN (SELECT food_rid FROM food_tags WHERE tag_id IN (SELECT value FROM json_each(?))
              GROUP BY food_rid HAVING count(*) = ?)`,
        params: [JSON.stringify(include), include.length],
      });
    }
    if (exclude.length > 0) {
      out.push({
        sql: 'f.rid NOT IN (SELECT food_rid FROM food_tags WHERE tag_id IN (SELECT value FROM json_each(?)))',
        params: [JSON.stringify(exclude)],
      });
    }
  }
  listFilter('f.category_id', filters.categories, out,
    'SELECT descendant_id FROM category_closure WHERE ancestor_id IN (SELECT value FROM json_each(?))');
  if (filters.upcs) {
    out.push({ sql: 'f.rid IN (SELECT food_rid FROM food_upcs WHERE upc_key IN (SELECT value FROM json_each(?)))', params: [JSON.stringify(filters.upcs)] });
  }
  if (filters.classifications) {
    listFilter('f.classification_key', {
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
function matchParts(m: Matcher, alias: string): { conditions: Condition[]; rank: OrderTerm[] } {
  switch (m.kind) {
    case 'none':
      return { conditions: [], rank: [] };
    case 'prefix':
      return {
        conditions: [{ sql: `${alias}.name_key >= ? AND ${alias}.name_key < ?`, params: [m.key, m.upper] }],
        rank: [[`(${alias}.name_key = ?)`, 'desc'], [`length(${alias}.name_key)`, 'asc']],
      };
    case 'fts':
      return { conditions: [{ sql: `${alias}.rid IN (SELECT value FROM json_each(?))`, params: [JSON.stringify(m.rids)] }], rank: [] };
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
export function foodsQuery(q: FoodQuery, ranked: () => readonly number[] = () => []): BuiltQuery {
  const m = matcher(q.match, ranked);
  const conditions = foodConditions(q);
  let from = 'foods f';
  const fromParams: unknown[] = [];
  let rankTerms: OrderTerm[] = [];
  const rankParams: unknown[] = [];
  if (m.kind === 'fts') {
    from = 'foods f JOIN json_each(?) m ON m.value = f.rid';
    fromParams.push(JSON.stringify(m.rids));
    rankTerms = [['m.key', 'asc']];
  } else {
    const parts = matchParts(m, 'f');
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
  const groupFrom = byBrand ? `${from} JOIN brands b ON b.id = f.brand_id` : from;
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
  table: string,
  alias: string,
  conditions: Condition[],
  match: Matcher,
  direction: Direction,
  paging: { limit: number; offset: number },
): BuiltQuery {
  const all = [...matchParts(match, alias).conditions, ...conditions];
  const page = new Sql().add(`SELECT ${alias}.* FROM ${table} ${alias}`);
  where(page, all);
  page.add(`ORDER BY ${orderBy([[`${alias}.name_key`, 'asc'], [`${alias}.id`, 'asc']], direction)} LIMIT ? OFFSET ?`,
    paging.limit, paging.offset);
  const count = new Sql().add(`SELECT count(*) FROM ${table} ${alias}`);
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
function ofFoods(recordColumn: string, selectColumn: string, filters: FoodFilters, from = 'foods f'): Condition {
  const conditions = foodConditions(filters);
  const broad = [filters.categories, filters.classifications].some((l) => l?.inverted)
    || [filters.brands, filters.tags].some((f) => f !== undefined && f.include.length === 0 && f.exclude.length > 0);
  const sql = new Sql();
  if (broad) {
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

/** `!A,B` on a whole list means "in neither A nor B": every id excluded. */
function wholeListAsIdFilter(list: ListFilter | undefined): IdFilter | undefined {
  if (!list) return undefined;
  return list.inverted ? { include: [], exclude: list.values } : { include: list.values, exclude: [] };
}

/** `matched`: the engine's matching rids, for an fts query. */
export function brandsQuery(q: BrandQuery, matched: () => readonly number[] = () => []): BuiltQuery {
  const conditions: Condition[] = [];
  if (q.region) conditions.push({ sql: 'b.region = ?', params: [q.region] });
  const filters: FoodFilters = { region: q.region, classifications: q.classifications, categories: q.categories, tags: q.tags };
  if (hasFoodFilter(filters)) {
    conditions.push(ofFoods('b.id', 'f.brand_id', filters));
  }
  return namedListQuery('brands', 'b', conditions, matcher(q.match, matched), q.direction, q);
}

export function categoriesQuery(q: CategoryQuery, matched: () => readonly number[] = () => []): BuiltQuery {
  const conditions: Condition[] = [];
  if (q.region) conditions.push({ sql: 'c.region = ?', params: [q.region] });
  if (q.isLeaf !== undefined) conditions.push({ sql: 'c.is_leaf = ?', params: [q.isLeaf ? 1 : 0] });
  if (q.parents) {
    const json = JSON.stringify(q.parents.values);
    conditions.push(q.parents.inverted
      ? { sql: '(c.parent_id IS NULL OR c.parent_id NOT IN (SELECT value FROM json_each(?)))', params: [json] }
      : { sql: 'c.parent_id IN (SELECT value FROM json_each(?))', params: [json] });
  }
  const filters: FoodFilters = {
    region: q.region, classifications: q.classifications, tags: q.tags, brands: wholeListAsIdFilter(q.brands),
  };
  if (hasFoodFilter(filters)) {
    conditions.push(ofFoods('c.id', 'f.category_id', filters));
  }
  return namedListQuery('categories', 'c', conditions, matcher(q.match, matched), q.direction, q);
}

export function tagsQuery(q: TagQuery, matched: () => readonly number[] = () => []): BuiltQuery {
  const conditions: Condition[] = [];
  const filters: FoodFilters = {
    classifications: q.classifications, categories: q.categories, brands: wholeListAsIdFilter(q.brands),
  };
  if (hasFoodFilter(filters)) {
    conditions.push(ofFoods('t.id', 'ft.tag_id', filters, 'food_tags ft JOIN foods f ON f.rid = ft.food_rid'));
  }
  return namedListQuery('tags', 't', conditions, matcher(q.match, matched), q.direction, q);
}
