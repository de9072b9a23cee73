import type { CatalogBrand, CatalogCategory, CatalogFood, CatalogTag, Serving, Upc } from './records.js';
import { SERVING_TYPES } from './records.js';
import { isNutrientKey, type Nutrients } from './nutrients.js';
import { isRegion, type Region } from './regions.js';
import { isUuid, normaliseId } from './ids.js';

/** The record-local rules of contract C4; rules that need other records live in the store. */
export type Checked<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly reason: string };

class Invalid extends Error {}

type Obj = Record<string, unknown>;

function object(value: unknown, what: string): Obj {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Invalid(`${what} must be an object`);
  return value as Obj;
}

function text(o: Obj, key: string, what: string): string {
  const v = o[key];
  if (typeof v !== 'string') throw new Invalid(`${what}.${key} must be a string`);
  return v;
}

function name(o: Obj, key: string, what: string): string {
  const v = text(o, key, what).trim();
  if (v === '') throw new Invalid(`${what}.${key} must not be empty`);
  if (v.length > 1000) throw new Invalid(`${what}.${key} is longer than 1000 characters`);
  return v;
}

function optionalText(o: Obj, key: string, what: string): string | undefined {
  return o[key] === undefined || o[key] === null ? undefined : text(o, key, what);
}

function uuid(o: Obj, key: string, what: string): string {
  const v = o[key];
  if (typeof v !== 'string' || !isUuid(v)) throw new Invalid(`${what}.${key} must be a uuid, got ${JSON.stringify(v)?.slice(0, 60)}`);
  return normaliseId(v);
}

function region(o: Obj, what: string): Region {
  const v = o['region'];
  if (typeof v !== 'string' || !isRegion(v)) throw new Invalid(`${what}.region must be "au" or "us", got ${JSON.stringify(v)?.slice(0, 20)}`);
  return v;
}

function number(v: unknown, what: string, { positive = false } = {}): number {
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new Invalid(`${what} must be a finite number`);
  if (v < 0 || (positive && v === 0)) throw new Invalid(`${what} must be ${positive ? '> 0' : '≥ 0'}, got ${v}`);
  return v;
}

function optionalNumber(o: Obj, key: string, what: string): number | undefined {
  return o[key] === undefined || o[key] === null ? undefined : number(o[key], `${what}.${key}`);
}

function check<T>(build: () => T): Checked<T> {
  try {
    return { ok: true, value: build() };
  } catch (error) {
    if (error instanceof Invalid) return { ok: false, reason: error.message };
    throw error;
  }
}

export function checkBrand(raw: unknown): Checked<CatalogBrand> {
  return check(() => {
    const o = object(raw, 'brand');
    return { id: uuid(o, 'id', 'brand'), name: name(o, 'name', 'brand'), region: region(o, 'brand') };
  });
}

export function checkCategory(raw: unknown): Checked<CatalogCategory> {
  return check(() => {
    const o = object(raw, 'category');
    const parent = o['parent'] === undefined || o['parent'] === null ? undefined : uuid(o, 'parent', 'category');
    const id = uuid(o, 'id', 'category');
    if (parent === id) throw new Invalid('category.parent is the category itself');
    return { id, name: name(o, 'name', 'category'), region: region(o, 'category'), ...(parent ? { parent } : {}) };
  });
}

export function checkTag(raw: unknown): Checked<CatalogTag> {
  return check(() => {
    const o = object(raw, 'tag');
    return { id: uuid(o, 'id', 'tag'), name: name(o, 'name', 'tag') };
  });
}

function servings(raw: unknown): Serving[] {
  if (!Array.isArray(raw) || raw.length === 0) throw new Invalid('food.servings must be a list of at least one serving');
  const list = raw.map((item, i): Serving => {
    const what = `food.servings[${i}]`;
    const o = object(item, what);
    const type = o['type'];
    if (typeof type !== 'string' || !(SERVING_TYPES as readonly string[]).includes(type)) {
      throw new Invalid(`${what}.type must be one of mass, volume, serving`);
    }
    const isDefault = o['isDefault'];
    if (isDefault !== undefined && typeof isDefault !== 'boolean') throw new Invalid(`${what}.isDefault must be true or false`);
    const serving = { name: name(o, 'name', what), scale: number(o['scale'], `${what}.scale`, { positive: true }), type: type as Serving['type'] };
    return isDefault === true ? { ...serving, isDefault } : serving;
  });
  if (list.filter((s) => s.isDefault === true).length > 1) throw new Invalid('food.servings: at most one serving may have isDefault true');
  return list;
}

function upcs(raw: unknown, servingCount: number): Record<string, Upc> {
  if (raw === undefined || raw === null) return {};
  const o = object(raw, 'food.upcs');
  const out: Record<string, Upc> = {};
  for (const [code, value] of Object.entries(o)) {
    const what = `food.upcs[${JSON.stringify(code)}]`;
    if (!/^[0-9A-Za-z-]{1,64}$/.test(code)) throw new Invalid(`${what}: a barcode is 1–64 letters or digits`);
    const u = object(value, what);
    const index = u['servingIndex'];
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= servingCount) {
      throw new Invalid(`${what}.servingIndex must point at an existing serving (0..${servingCount - 1})`);
    }
    out[code] = { servingIndex: index, quantity: number(u['quantity'], `${what}.quantity`, { positive: true }) };
  }
  return out;
}

/**
 * The record's own object, once every key and value has passed: a copy built key by key cost
 * ~12 µs a food, because catalogues list nutrients in any order and each new order of keys is
 * a new object shape for V8 to build, property by property.
 */
function nutrients(raw: unknown): Nutrients {
  if (raw === undefined || raw === null) return {};
  const o = object(raw, 'food.nutrients');
  for (const key of Object.keys(o)) {
    if (!isNutrientKey(key)) throw new Invalid(`food.nutrients: unknown nutrient key ${JSON.stringify(key)}`);
    const value = o[key];
    // The usual value skips building the message `number` would need: this runs ~15 times a food.
    if (!(typeof value === 'number' && Number.isFinite(value) && value >= 0)) number(value, `food.nutrients.${key}`);
  }
  return o;
}

function otherNames(raw: unknown): string[] | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!Array.isArray(raw) || raw.some((n) => typeof n !== 'string')) throw new Invalid('food.otherNames must be a list of strings');
  return raw as string[];
}

function tagIds(raw: unknown): string[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw new Invalid('food.tags must be a list of tag ids');
  const ids = raw.map((t, i) => {
    if (typeof t !== 'string' || !isUuid(t)) throw new Invalid(`food.tags[${i}] must be a uuid`);
    return normaliseId(t);
  });
  return [...new Set(ids)];
}

export function checkFood(raw: unknown): Checked<CatalogFood> {
  return check(() => {
    const o = object(raw, 'food');
    const s = servings(o['servings']);
    const revision = o['revisionId'] === undefined || o['revisionId'] === null ? undefined : uuid(o, 'revisionId', 'food');
    const others = otherNames(o['otherNames']);
    const description = optionalText(o, 'description', 'food');
    const note = optionalText(o, 'note', 'food');
    const mass = optionalNumber(o, 'mass', 'food');
    const volume = optionalNumber(o, 'volume', 'food');
    const classification = o['classification'] === undefined ? '' : text(o, 'classification', 'food').trim();
    return {
      foodId: uuid(o, 'foodId', 'food'),
      ...(revision ? { revisionId: revision } : {}),
      region: region(o, 'food'),
      brand: uuid(o, 'brand', 'food'),
      category: uuid(o, 'category', 'food'),
      tags: tagIds(o['tags']),
      name: name(o, 'name', 'food'),
      ...(others ? { otherNames: others } : {}),
      ...(description !== undefined ? { description } : {}),
      ...(note !== undefined ? { note } : {}),
      classification,
      ...(mass !== undefined ? { mass } : {}),
      ...(volume !== undefined ? { volume } : {}),
      servings: s,
      upcs: upcs(o['upcs'], s.length),
      nutrients: nutrients(o['nutrients']),
    };
  });
}
