import type { Brand, Category, CategoryPathEntry, Food, Serving, Tag, Upc } from '../domain/records.js';
import type { Nutrients } from '../domain/nutrients.js';
import type { Region } from '../domain/regions.js';

export interface BrandRow { id: string; name: string; region: string; updated_at: number }
export interface CategoryRow {
  id: string; name: string; region: string; parent_id: string | null; is_leaf: number; hierarchy: string; updated_at: number;
}
export interface TagRow { id: string; name: string; name_key: string; updated_at: number }
export interface FoodRow {
  id: string; revision_id: string; region: string; brand_id: string; category_id: string; name: string;
  classification: string; tag_ids: string; body: string; updated_at: number;
}

/** The columns every food query selects, in FoodRow's shape. */
export const FOOD_COLUMNS = 'f.id, f.revision_id, f.region, f.brand_id, f.category_id, f.name, f.classification, f.tag_ids, f.body, f.updated_at';
/** FOOD_COLUMNS without the stored body (an empty text in its place): for FoodHead. */
export const FOOD_HEAD_COLUMNS = FOOD_COLUMNS.replace('f.body', "'' AS body");

/** A food's members that come from its stored body: a selection without them is answered by FoodHead. */
export const FOOD_BODY_MEMBERS: ReadonlySet<string> = new Set<keyof Food>([
  'otherNames', 'description', 'note', 'mass', 'volume', 'servings', 'defaultServing', 'upcs', 'nutrients',
]);

/** A food without its body's members (FOOD_BODY_MEMBERS), in the API's member order. */
export type FoodHead = Pick<Food, 'foodId' | 'revisionId' | 'region' | 'brand' | 'category' | 'tags' | 'name' | 'classification'>;

/**
 * A row of `SELECT f.rid, ${FOOD_COLUMNS}` read as an array: SQLite's values, or the text
 * PostgreSQL sends (numbers as text). Both stores read a page's rows this way: building a row
 * object column by column cost more than this one object literal.
 */
export type FoodValues = readonly [
  rid: number | string, id: string, revision_id: string, region: string, brand_id: string, category_id: string,
  name: string, classification: string, tag_ids: string, body: string, updated_at: number | string,
];

export function foodRowOf(values: FoodValues): FoodRow & { rid: number } {
  const [rid, id, revision_id, region, brand_id, category_id, name, classification, tag_ids, body, updated_at] = values;
  return { rid: Number(rid), id, revision_id, region, brand_id, category_id, name, classification, tag_ids, body, updated_at: Number(updated_at) };
}

export function brandRowToBrand(row: BrandRow): Brand {
  return { id: row.id, name: row.name, region: row.region as Region };
}

export function categoryRowToCategory(row: CategoryRow): Category {
  return {
    id: row.id,
    region: row.region as Region,
    name: row.name,
    ...(row.parent_id !== null ? { parent: row.parent_id } : {}),
    hierarchy: JSON.parse(row.hierarchy) as CategoryPathEntry[],
    isLeaf: row.is_leaf === 1,
  };
}

export function tagRowToTag(row: TagRow): Tag {
  return { id: row.id, name: row.name };
}

interface FoodBody {
  otherNames?: string[];
  description?: string;
  note?: string;
  mass?: number;
  volume?: number;
  servings: Serving[];
  defaultServing: Serving;
  upcs: Record<string, Upc>;
  nutrients: Nutrients;
}

/** What a food row needs from the rest of the catalogue to become an API food. */
export interface FoodContext {
  brand(id: string): Brand | undefined;
  category(id: string): Category | undefined;
  /** Tags in name order. */
  tags(ids: readonly string[]): Tag[];
}

/** Builds the API food (service.md 2.1 member order); optional members only when known. */
export function foodRowToFood(row: FoodRow, context: FoodContext): Food {
  const body = JSON.parse(row.body) as FoodBody;
  return {
    ...leadingMembers(row, context),
    ...(body.otherNames !== undefined ? { otherNames: body.otherNames } : {}),
    ...(body.description !== undefined ? { description: body.description } : {}),
    ...(body.note !== undefined ? { note: body.note } : {}),
    classification: row.classification,
    ...(body.mass !== undefined ? { mass: body.mass } : {}),
    ...(body.volume !== undefined ? { volume: body.volume } : {}),
    servings: body.servings,
    defaultServing: body.defaultServing,
    upcs: body.upcs,
    nutrients: body.nutrients,
  };
}

/**
 * The food without its body (which the row need not hold): for a `fields` selection of none of
 * its members, where parsing every food's body was most of a page's cost.
 */
export function foodRowToFoodHead(row: FoodRow, context: FoodContext): FoodHead {
  return { ...leadingMembers(row, context), classification: row.classification };
}

/** The members a food's JSON begins with, up to its name. */
function leadingMembers(row: FoodRow, context: FoodContext): Omit<FoodHead, 'classification'> {
  const brand = context.brand(row.brand_id);
  const category = context.category(row.category_id);
  if (!brand || !category) throw new Error(`food ${row.id} refers to a missing brand or category`);
  return {
    foodId: row.id,
    revisionId: row.revision_id,
    region: row.region as Region,
    brand,
    category,
    tags: context.tags(JSON.parse(row.tag_ids) as string[]),
    name: row.name,
  };
}

/** JSON fragments of the records a food embeds, serialised once per catalogue version. */
export interface FoodJsonContext {
  brandJson(id: string): string | undefined;
  categoryJson(id: string): string | undefined;
  /** The tags of a stored `tag_ids` text, in name order. */
  tagsJson(tagIds: string): string;
}

/**
 * Where the stored body's first member after `note` begins: the body is written by
 * JSON.stringify with otherNames, description, note, mass, volume, servings… in that order and
 * servings always present. A key's quote can only follow `{` or `,` outside strings (inside a
 * string every quote is escaped), so the search cannot land inside a value.
 */
function classificationSlot(body: string): number {
  for (const key of ['"mass":', '"volume":', '"servings":']) {
    for (let i = body.indexOf(key); i !== -1; i = body.indexOf(key, i + 1)) {
      const before = body[i - 1];
      if (before === '{' || before === ',') return i;
    }
  }
  throw new Error('stored food body has no servings');
}

/**
 * The API food as JSON text, spliced from the stored row and pre-serialised brand, category
 * and tags: no parse and re-serialise of the body. Member order as foodRowToFood.
 */
export function foodRowToJson(row: FoodRow, context: FoodJsonContext): string {
  return foodJson(row, context.brandJson(row.brand_id), context.categoryJson(row.category_id), context.tagsJson(row.tag_ids));
}

/** The columns of a food row that its JSON takes as they are: the brand, category and tags come from elsewhere (foodJson). */
export type FoodJsonRow = Pick<FoodRow, 'id' | 'revision_id' | 'region' | 'name' | 'classification' | 'body'>;

/** The columns `SELECT f.rid, ${FOOD_JSON_COLUMNS}` reads, in FoodJsonValues' order. */
export const FOOD_JSON_COLUMNS = 'f.id, f.revision_id, f.region, f.name, f.classification, f.body';
export type FoodJsonValues = readonly [rid: number, id: string, revision_id: string, region: string, name: string, classification: string, body: string];

/** The API food as JSON text from its row and its brand's, category's and tags' JSON. */
export function foodJson(row: FoodJsonRow, brand: string | undefined, category: string | undefined, tags: string): string {
  if (brand === undefined || category === undefined) throw new Error(`food ${row.id} refers to a missing brand or category`);
  const slot = classificationSlot(row.body);
  return `{"foodId":"${row.id}","revisionId":"${row.revision_id}","region":"${row.region}","brand":${brand},"category":${category},`
    + `"tags":${tags},"name":${JSON.stringify(row.name)},${row.body.slice(1, slot)}`
    + `"classification":${JSON.stringify(row.classification)},${row.body.slice(slot)}`;
}
