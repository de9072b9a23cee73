import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { CatalogRecord, CatalogFood, SourceRef } from '../../domain/records.js';
import { GENERIC_BRAND_IDS, type Region } from '../../domain/regions.js';
import { deriveId } from '../../domain/ids.js';
import { fold } from '../../domain/text.js';
import { readLines } from '../line-reader.js';
import { FirstSeen } from '../first-seen.js';
import type { SourceReader } from '../formats.js';
import {
  MAX_CATEGORY_DEPTH, labelServing, nutrientsOf, regionsOf, tagName, usefulTags, type OffProduct,
} from './mapping.js';

/** Fixed forever: every Open Food Facts id derives from it. */
const NS = '6f0c1d2e-3a4b-5c6d-8e7f-9a0b1c2d3e4f';

const list = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string')
  : typeof value === 'string' && value !== '' ? value.split(',') : [];
const text = (value: unknown): string => (typeof value === 'string' ? value.trim() : typeof value === 'number' ? String(value) : '');
const number = (value: unknown): number | undefined => {
  const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  return Number.isFinite(n) ? n : undefined;
};

/** JSONL dump object → product (nutriments nested under `nutriments`). */
function fromJson(o: Record<string, unknown>): OffProduct {
  const nutriments = (o['nutriments'] ?? {}) as Record<string, unknown>;
  const per100g: Record<string, number> = {};
  for (const [key, value] of Object.entries(nutriments)) {
    if (!key.endsWith('_100g')) continue;
    const n = number(value);
    if (n !== undefined) per100g[key.slice(0, -5)] = n;
  }
  return {
    code: text(o['code']), name: text(o['product_name']) || text(o['product_name_en']), genericName: text(o['generic_name']),
    brands: text(o['brands']), categories: list(o['categories_tags']), labels: list(o['labels_tags']),
    countries: list(o['countries_tags']), servingSize: text(o['serving_size']), servingQuantity: number(o['serving_quantity']),
    per100g,
  };
}

/** CSV export row (tab-separated, one product per line, header first) → product. */
function fromRow(header: readonly string[], fields: readonly string[]): OffProduct {
  const get = (name: string): string => fields[header.indexOf(name)] ?? '';
  const per100g: Record<string, number> = {};
  header.forEach((column, i) => {
    if (!column.endsWith('_100g')) return;
    const n = number(fields[i]);
    if (n !== undefined) per100g[column.slice(0, -5)] = n;
  });
  return {
    code: get('code').trim(), name: get('product_name').trim(), genericName: get('generic_name').trim(), brands: get('brands'),
    categories: list(get('categories_tags')), labels: list(get('labels_tags')), countries: list(get('countries_tags')),
    servingSize: get('serving_size'), servingQuantity: number(get('serving_quantity')), per100g,
  };
}

/** Emits each brand, category and tag once, just before the first food that needs it. */
class Emitter {
  private readonly seen = new FirstSeen();

  /** `labelRegion`: whose label rules the product's values follow (see nutrientsOf). */
  *records(product: OffProduct, region: Region, labelRegion: Region, source: SourceRef): Generator<CatalogRecord> {
    const brandName = product.brands.split(',')[0]?.trim() ?? '';
    const brand = brandName === '' ? GENERIC_BRAND_IDS[region] : deriveId(NS, `brand:${region}:${fold(brandName)}`);
    if (brandName !== '' && this.seen.first(brand)) yield { kind: 'brand', value: { id: brand, name: brandName, region }, source };

    const path = usefulTags(product.categories).slice(0, MAX_CATEGORY_DEPTH);
    let parent: string | undefined;
    let key = `cat:${region}`;
    for (const tag of path) {
      key += `/${tag}`;
      const id = deriveId(NS, key);
      if (this.seen.first(id)) yield { kind: 'category', value: { id, name: tagName(tag), region, ...(parent ? { parent } : {}) }, source };
      parent = id;
    }
    // Foods sit in a leaf of their own under the deepest node, so no node ever has both
    // foods and children, whatever paths later products bring.
    const leafName = path.length > 0 ? tagName(path[path.length - 1]!) : 'Uncategorized';
    const leaf = deriveId(NS, `${key}#foods`);
    if (this.seen.first(leaf)) yield { kind: 'category', value: { id: leaf, name: leafName, region, ...(parent ? { parent } : {}) }, source };

    const tags: string[] = [];
    for (const label of usefulTags(product.labels)) {
      const id = deriveId(NS, `label:${label}`);
      tags.push(id);
      if (this.seen.first(id)) yield { kind: 'tag', value: { id, name: tagName(label) }, source };
    }

    const label = labelServing(product.servingSize, product.servingQuantity);
    const servings = [{ name: '100 g', scale: 1, type: 'mass' as const }, ...(label ? [label] : [])];
    const food: CatalogFood = {
      foodId: deriveId(NS, `food:${region}:${product.code}`),
      region, brand, category: leaf, tags,
      name: product.name,
      ...(product.genericName && product.genericName !== product.name ? { otherNames: [product.genericName] } : {}),
      classification: leafName === 'Uncategorized' ? '' : leafName,
      mass: 100,
      servings,
      upcs: /^[0-9]{6,14}$/.test(product.code) ? { [product.code]: { servingIndex: label ? 1 : 0, quantity: 1 } } : {},
      nutrients: nutrientsOf(product.per100g, labelRegion),
    };
    yield { kind: 'food', value: food, source };
  }
}

function* mapProduct(product: OffProduct, source: SourceRef, emitter: Emitter): Generator<CatalogRecord> {
  const regions = regionsOf(product.countries);
  if (product.code === '') {
    yield { kind: 'invalid', reason: 'no code', source };
  } else if (product.name === '') {
    yield { kind: 'invalid', reason: `product ${product.code} has no product_name`, source };
  } else if (regions.length === 0) {
    const where = product.countries.join(',') || 'no countries';
    yield { kind: 'skipped', reason: `product ${product.code} is not sold in Australia or the United States (${where})`, source };
  } else {
    // One set of values for both regions: a product sold in Australia only carries an Australian
    // label; one sold in both is taken as US-labelled (which label OFF holds is not recorded).
    const labelRegion = regions.length === 1 ? regions[0]! : 'us';
    for (const region of regions) yield* emitter.records(product, region, labelRegion, source);
  }
}

/**
 * A product file saved from the Open Food Facts API (`api-product-CODE.json`, any formatting):
 * `{"code", "status", "product": {…}}`; also a bare product object or a list of them.
 */
function* readApiFile(path: string, emitter: Emitter): Generator<CatalogRecord> {
  const file = basename(path);
  let o: unknown;
  try {
    o = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new Error(`${file}: not valid JSON: ${(error as Error).message}`);
  }
  const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
  if (isObject(o) && 'product' in o) {
    const source = { file, record: 'product' };
    if (!isObject(o['product'])) {
      yield { kind: 'invalid', reason: `the API found no product (${typeof o['status_verbose'] === 'string' ? o['status_verbose'] : 'no product object'})`, source };
      return;
    }
    const product = o['product'];
    if (product['code'] === undefined && typeof o['code'] === 'string') product['code'] = o['code'];
    yield* mapProduct(fromJson(product), source, emitter);
    return;
  }
  const list = Array.isArray(o) ? o : [o];
  for (const [i, item] of list.entries()) {
    const source = { file, record: Array.isArray(o) ? `[${i}]` : 'product' };
    if (!isObject(item) || !('code' in item)) {
      yield { kind: 'invalid', reason: 'not an Open Food Facts product (an API answer has "product"; a product has "code")', source };
      continue;
    }
    yield* mapProduct(fromJson(item), source, emitter);
  }
}

/**
 * `foodlookup import off FILE…`: the JSONL dump (`.jsonl[.gz]`), the CSV export (`.csv[.gz]`,
 * tab-separated) or product files saved from the API (`.json`).
 */
export const readOff: SourceReader = async function* (paths, options) {
  const emitter = new Emitter();
  for (const path of paths) {
    const file = basename(path);
    if (/\.json$/i.test(path)) {
      yield* readApiFile(path, emitter);
      options.onProgress?.(1);
      continue;
    }
    const csv = /\.(csv|tsv)(\.gz)?$/.test(path);
    let header: string[] | undefined;
    for await (const line of readLines(path, { onProgress: options.onProgress })) {
      if (line.text.trim() === '') continue;
      const source = { file, line: line.number };
      if (csv) {
        const fields = line.text.split('\t');
        if (!header) {
          header = fields;
          if (!header.includes('code') || !header.includes('product_name')) throw new Error(`${file}: not an Open Food Facts CSV export (no code/product_name columns)`);
          continue;
        }
        if (fields.length !== header.length) {
          yield { kind: 'invalid', reason: `expected ${header.length} tab-separated fields, found ${fields.length}`, source };
          continue;
        }
        yield* mapProduct(fromRow(header, fields), source, emitter);
      } else {
        let o: unknown;
        try {
          o = JSON.parse(line.text);
        } catch (error) {
          yield { kind: 'invalid', reason: `not valid JSON: ${(error as Error).message}`, source };
          continue;
        }
        if (o === null || typeof o !== 'object' || Array.isArray(o)) {
          yield { kind: 'invalid', reason: 'a line must be one product object', source };
          continue;
        }
        yield* mapProduct(fromJson(o as Record<string, unknown>), source, emitter);
      }
    }
  }
};
