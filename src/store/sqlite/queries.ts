import type { BrandQuery, CategoryQuery, FoodQuery, TagQuery } from '../catalog-store.js';
import * as lists from '../list-queries.js';
import { SQLITE_DIALECT, type BuiltQuery } from '../list-queries.js';

/** The lists' SQL (list-queries.ts) in SQLite's dialect: every table in the database's one schema. */

export type { BuiltQuery };

export function foodsQuery(q: FoodQuery, ranked?: () => readonly number[]): BuiltQuery {
  return lists.foodsQuery(SQLITE_DIALECT, q, ranked);
}

export function brandsQuery(q: BrandQuery, matched?: () => readonly number[]): BuiltQuery {
  return lists.brandsQuery(SQLITE_DIALECT, q, matched);
}

export function categoriesQuery(q: CategoryQuery, matched?: () => readonly number[]): BuiltQuery {
  return lists.categoriesQuery(SQLITE_DIALECT, q, matched);
}

export function tagsQuery(q: TagQuery, matched?: () => readonly number[]): BuiltQuery {
  return lists.tagsQuery(SQLITE_DIALECT, q, matched);
}
