import type { CatalogBrand, CategoryPathEntry } from '../domain/records.js';
import { GENERIC_BRAND_IDS, GENERIC_BRAND_NAME } from '../domain/regions.js';
import type { FoodRow } from './food-row.js';

/**
 * The import rules every store applies the same way (contract C4), apart from how it reads its
 * rows: the checks of a record as it is put, the category tree's derived data and problems, and
 * the rules between foods and their brand and category when the whole catalogue is checked.
 * Each store (sqlite/writer.ts, postgres/writer.ts) feeds these from its own tables.
 */

export const GENERIC_IDS: ReadonlySet<string> = new Set(Object.values(GENERIC_BRAND_IDS));

/** At most this many problems of one kind are listed; the rest are counted. */
export const PROBLEM_SAMPLE = 20;

/** Why a brand record may not be put, or undefined. */
export function brandProblem(brand: CatalogBrand): string | undefined {
  if (GENERIC_IDS.has(brand.id) && (brand.name !== GENERIC_BRAND_NAME || GENERIC_BRAND_IDS[brand.region] !== brand.id)) {
    return `brand ${brand.id} is the generic '${GENERIC_BRAND_NAME}' brand of its region: it may be listed only unchanged`;
  }
  return undefined;
}

/** What a food's checks need to know of the catalogue as the import has made it so far. */
export interface FoodReferences {
  brand(id: string): { readonly region: string } | undefined;
  category(id: string): { readonly region: string } | undefined;
  /** Whether some category has this one as its parent. */
  hasChild(id: string): boolean;
  tagExists(id: string): boolean;
}

/** Why a food may not be put given its brand, category and tags, or undefined. */
export function foodReferenceProblem(food: FoodRow, refs: FoodReferences): string | undefined {
  const brand = refs.brand(food.brand);
  if (!brand) return `brand ${food.brand} does not exist (a brand must come before the foods that use it, or already be in the catalogue)`;
  if (brand.region !== food.region) return `brand ${food.brand} is in region ${brand.region}, the food in ${food.region}`;
  const category = refs.category(food.category);
  if (!category) return `category ${food.category} does not exist (a category must come before the foods in it, or already be in the catalogue)`;
  if (category.region !== food.region) return `category ${food.category} is in region ${category.region}, the food in ${food.region}`;
  if (refs.hasChild(food.category)) return `category ${food.category} is not a leaf: it has child categories`;
  for (const tag of food.tags) {
    if (!refs.tagExists(tag)) return `tag ${tag} does not exist (a tag must come before the foods that carry it)`;
  }
  return undefined;
}

export interface CategoryTreeRow {
  readonly id: string;
  readonly name: string;
  readonly region: string;
  readonly parent_id: string | null;
  readonly is_leaf: number;
  readonly hierarchy: string;
}

/** A category whose derived data moved: `touched` when its representation changed (a renamed ancestor), so its updated_at moves. */
export interface CategoryUpdate {
  readonly id: string;
  readonly isLeaf: number;
  readonly hierarchy: string;
  readonly touched: boolean;
}

/**
 * The tree's derived data from every category row: each category's path (hierarchy), leaf flag
 * and closure pairs (ancestor, descendant), the rows whose derived data changed, and the tree's
 * problems (missing parent, parent in another region, cycle). `sourceOf` names where a category came from.
 */
export function categoryTree(
  rows: readonly CategoryTreeRow[],
  sourceOf: (id: string) => string,
): { problems: string[]; closure: [string, string][]; updates: CategoryUpdate[] } {
  const problems: string[] = [];
  const byId = new Map(rows.map((r) => [r.id, r]));
  const children = new Set<string>();
  for (const row of rows) {
    if (row.parent_id === null) continue;
    const parent = byId.get(row.parent_id);
    if (!parent) {
      problems.push(`category ${row.id}${sourceOf(row.id)}: parent ${row.parent_id} does not exist`);
      continue;
    }
    if (parent.region !== row.region) {
      problems.push(`category ${row.id}${sourceOf(row.id)}: parent ${parent.id} is in region ${parent.region}, the category in ${row.region}`);
    }
    children.add(row.parent_id);
  }
  const paths = new Map<string, CategoryPathEntry[]>();
  const pathOf = (start: CategoryTreeRow): CategoryPathEntry[] | undefined => {
    const chain: CategoryTreeRow[] = [];
    const onChain = new Set<string>();
    let node: CategoryTreeRow | undefined = start;
    while (node && !paths.has(node.id)) {
      if (onChain.has(node.id)) return undefined;
      onChain.add(node.id);
      chain.push(node);
      node = node.parent_id === null ? undefined : byId.get(node.parent_id);
    }
    let path = node ? paths.get(node.id)! : [];
    for (const entry of chain.reverse()) {
      path = [...path, { id: entry.id, name: entry.name }];
      paths.set(entry.id, path);
    }
    return paths.get(start.id);
  };
  const closure: [string, string][] = [];
  const updates: CategoryUpdate[] = [];
  for (const row of rows) {
    const path = pathOf(row);
    if (!path) {
      problems.push(`category ${row.id}${sourceOf(row.id)}: its parents form a cycle`);
      continue;
    }
    for (const ancestor of path) closure.push([ancestor.id, row.id]);
    const isLeaf = children.has(row.id) ? 0 : 1;
    const hierarchy = JSON.stringify(path);
    if (hierarchy !== row.hierarchy || isLeaf !== row.is_leaf) {
      updates.push({ id: row.id, isLeaf, hierarchy, touched: hierarchy !== row.hierarchy && row.hierarchy !== '[]' });
    }
  }
  return { problems, closure, updates };
}

/** A food with its brand and category as the whole-catalogue check reads them (1/0 flags, as SQL gives them). */
export interface FoodCheckRow {
  id: string;
  brand_id: string;
  category_id: string;
  no_category: number;
  not_leaf: number;
  no_brand: number;
  brand_region: string | null;
  category_region: string | null;
  wrong_brand: number;
  wrong_category: number;
}

/** The SQL condition of the rows foodProblems needs, over `foods f`, `categories c`, `brands b`. */
export function foodCheckCondition(everything: boolean): string {
  return everything ? 'c.is_leaf = 0 OR c.id IS NULL OR b.id IS NULL OR b.region <> f.region OR c.region <> f.region' : 'c.is_leaf = 0';
}

/**
 * The rules between a food and its brand and category, from the rows that break one (in rid
 * order), each rule keeping its own sample as its own scan listed them, the rules in their
 * order. Without `everything` only the leaf rule is checked (the others cannot have come to fail).
 */
export function foodProblems(rows: Iterable<FoodCheckRow>, problems: string[], everything: boolean, at: (id: string) => string): void {
  type Row = FoodCheckRow;
  const rules: { test: (r: Row) => boolean; describe: (r: Row) => string }[] = [
    { test: (r) => Number(r.not_leaf) === 1, describe: (r) => `food ${r.id}${at(r.id)}: category ${r.category_id} is not a leaf (it has child categories)` },
  ];
  if (everything) {
    rules.push(
      { test: (r) => Number(r.no_brand) === 1, describe: (r) => `food ${r.id}${at(r.id)}: brand ${r.brand_id} does not exist` },
      { test: (r) => Number(r.no_category) === 1, describe: (r) => `food ${r.id}${at(r.id)}: category ${r.category_id} does not exist` },
      { test: (r) => Number(r.wrong_brand) === 1, describe: (r) => `food ${r.id}${at(r.id)}: brand ${r.brand_id} is now in region ${r.brand_region}` },
      { test: (r) => Number(r.wrong_category) === 1, describe: (r) => `food ${r.id}${at(r.id)}: category ${r.category_id} is now in region ${r.category_region}` },
    );
  }
  const found: Row[][] = rules.map(() => []);
  let open = rules.length;
  for (const row of rows) {
    rules.forEach((rule, i) => {
      if (found[i]!.length > PROBLEM_SAMPLE || !rule.test(row)) return;
      found[i]!.push(row);
      if (found[i]!.length > PROBLEM_SAMPLE) open--;
    });
    if (open === 0) break;
  }
  rules.forEach((rule, i) => {
    for (const row of found[i]!.slice(0, PROBLEM_SAMPLE)) problems.push(rule.describe(row));
    if (found[i]!.length > PROBLEM_SAMPLE) problems.push('… and more of the same kind');
  });
}

/** A sample of rows as problem lines: PROBLEM_SAMPLE of them, then a note when the query found more (it asks for one more). */
export function listProblems<T>(rows: readonly T[], problems: string[], describe: (row: T) => string): void {
  for (const row of rows.slice(0, PROBLEM_SAMPLE)) problems.push(describe(row));
  if (rows.length > PROBLEM_SAMPLE) problems.push('… and more of the same kind');
}
