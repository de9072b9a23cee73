import { hash } from 'node:crypto';
import type { CatalogFood, Serving, Upc } from './records.js';
import { NUTRIENT_KEYS, type NutrientKey, type Nutrients } from './nutrients.js';
import { ID_NAMESPACES } from './ids.js';

/** The revision namespace, then room for a food's canonical JSON as UTF-8 (grown when short). */
let named = Buffer.alloc(64 * 1024);
Buffer.from(ID_NAMESPACES.revision.replace(/-/g, ''), 'hex').copy(named);

/**
 * RFC 4122 uuid v5 (SHA-1 of namespace + name). The same as `uuid`'s v5, computed with
 * node:crypto on the UTF-8 bytes directly: `uuid` converts the name to bytes in JS, which
 * was 7 % of a large import's time, and this runs once per imported food. One-shot `hash` into
 * hex: a Hash object with two updates, a digest Buffer and its hex was 9 % of the import
 * worker's time.
 */
function uuidV5(name: string): string {
  let length = 16 + named.write(name, 16, 'utf8');
  // write() stops before a character that does not fit, so only a write that ends this near the
  // end may have been cut short.
  if (length > named.length - 4) {
    named = Buffer.concat([named.subarray(0, 16), Buffer.from(name, 'utf8')]);
    length = named.length;
  }
  const hex = hash('sha1', named.subarray(0, length), 'hex');
  // Version 5 in the high nibble of byte 6; variant 10xx in the high bits of byte 8.
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

const json = JSON.stringify;

/** The nutrient keys in canonical (sorted) order. */
const SORTED_NUTRIENT_KEYS: readonly NutrientKey[] = [...NUTRIENT_KEYS].sort();

function canonicalStrings(list: readonly string[]): string {
  let out = '[';
  for (let i = 0; i < list.length; i++) out += (i > 0 ? ',' : '') + json(list[i]);
  return `${out}]`;
}

/** The place of a food's default serving: the one marked `isDefault`, else the first. */
export function defaultServingIndex(servings: readonly Serving[]): number {
  const marked = servings.findIndex((s) => s.isDefault === true);
  return marked === -1 ? 0 : marked;
}

/**
 * The servings as the revision covers them: `isDefault` only where the data made another
 * serving than the first the default, so the revisions of foods whose default is their first
 * serving stayed what they were before servings had defaults.
 */
function canonicalServings(servings: readonly Serving[], defaultIndex: number): string {
  let out = '[';
  for (let i = 0; i < servings.length; i++) {
    const s = servings[i]!;
    out += `${i > 0 ? ',' : ''}{${i === defaultIndex && i > 0 ? '"isDefault":true,' : ''}"name":${json(s.name)},"scale":${json(s.scale)},"type":${json(s.type)}}`;
  }
  return `${out}]`;
}

/** One serving as responses show it (service.md 2.1 member order, then `isDefault`). */
function servingJson(s: Serving, isDefault: boolean): string {
  return `{"name":${json(s.name)},"scale":${json(s.scale)},"type":${json(s.type)},"isDefault":${isDefault}}`;
}

/** The servings with `isDefault` on each, and the default one, as a food's stored body holds them. */
export function servingsForBody(servings: readonly Serving[], defaultIndex = defaultServingIndex(servings)): {
  servings: string;
  defaultServing: string;
} {
  let out = '[';
  for (let i = 0; i < servings.length; i++) out += (i > 0 ? ',' : '') + servingJson(servings[i]!, i === defaultIndex);
  return { servings: `${out}]`, defaultServing: servingJson(servings[defaultIndex]!, true) };
}

function canonicalUpcs(upcs: Readonly<Record<string, Upc>>): string {
  let out = '{';
  for (const code of Object.keys(upcs).sort()) {
    const upc = upcs[code]!;
    out += `${out.length > 1 ? ',' : ''}${json(code)}:{"quantity":${json(upc.quantity)},"servingIndex":${json(upc.servingIndex)}}`;
  }
  return `${out}}`;
}

/** Each nutrient key's place in sorted order. */
const SORTED_PLACE = new Map<string, number>(SORTED_NUTRIENT_KEYS.map((key, i) => [key, i]));
/** Reused by canonicalNutrients: each place's value, valid where `stamped` holds the current stamp. */
const values = new Float64Array(SORTED_NUTRIENT_KEYS.length);
const stamped = new Uint32Array(SORTED_NUTRIENT_KEYS.length);
let stamp = 0;

/**
 * The food's own keys are visited, each put at its sorted place, and the places written in
 * order: reading all 22 keys by name from objects whose keys come in any order (a new V8 shape
 * for each order) was a tenth of the import worker's time.
 */
function canonicalNutrients(nutrients: Nutrients): string {
  stamp = (stamp + 1) >>> 0 || 1;
  for (const key in nutrients) {
    const value = nutrients[key as NutrientKey];
    const place = SORTED_PLACE.get(key);
    if (value === undefined || place === undefined) continue;
    values[place] = value;
    stamped[place] = stamp;
  }
  let out = '{';
  for (let i = 0; i < SORTED_NUTRIENT_KEYS.length; i++) {
    if (stamped[i] === stamp) out += `${out.length > 1 ? ',' : ''}"${SORTED_NUTRIENT_KEYS[i]!}":${json(values[i])}`;
  }
  return `${out}}`;
}

/** Canonical JSON of the members a food's stored body holds too (food-row.ts), written once for both. */
export interface CanonicalParts {
  readonly description: string | undefined;
  readonly note: string | undefined;
  readonly mass: string | undefined;
  readonly volume: string | undefined;
  readonly nutrients: string;
  readonly otherNames: string | undefined;
  readonly servings: string;
  /** The servings as responses show them (with `isDefault`), and the default one. */
  readonly bodyServings: string;
  readonly defaultServing: string;
  readonly upcs: string;
}

export function canonicalParts(food: CatalogFood): CanonicalParts {
  const optional = <T>(value: T | undefined, write: (v: T) => string): string | undefined => (value === undefined ? undefined : write(value));
  const defaultIndex = defaultServingIndex(food.servings);
  const body = servingsForBody(food.servings, defaultIndex);
  return {
    description: optional(food.description, json),
    note: optional(food.note, json),
    mass: optional(food.mass, json),
    volume: optional(food.volume, json),
    nutrients: canonicalNutrients(food.nutrients),
    otherNames: optional(food.otherNames, canonicalStrings),
    servings: canonicalServings(food.servings, defaultIndex),
    bodyServings: body.servings,
    defaultServing: body.defaultServing,
    upcs: canonicalUpcs(food.upcs),
  };
}

/** `,"key":text`, or nothing for an undefined member. */
export function member(key: string, text: string | undefined): string {
  return text === undefined ? '' : `,"${key}":${text}`;
}

/**
 * Stable JSON of a food without its revisionId, tags sorted: the members of CatalogFood in
 * sorted key order at every level, undefined members left out. Written out member by member
 * for the one shape it serves: a generic sorter (Object.keys + sort at every level) was a
 * sixth of the import worker's time. test/unit/catalog-rules.test.ts holds the generic form
 * and checks that both give the same text, so every revision stays what it was.
 */
export function canonicalFood(food: CatalogFood, parts: CanonicalParts = canonicalParts(food)): string {
  return `{"brand":${json(food.brand)},"category":${json(food.category)},"classification":${json(food.classification)}` +
    member('description', parts.description) +
    member('foodId', json(food.foodId)) +
    member('mass', parts.mass) +
    member('name', json(food.name)) +
    member('note', parts.note) +
    member('nutrients', parts.nutrients) +
    member('otherNames', parts.otherNames) +
    member('region', json(food.region)) +
    member('servings', parts.servings) +
    member('tags', canonicalStrings([...food.tags].sort())) +
    member('upcs', parts.upcs) +
    member('volume', parts.volume) +
    '}';
}

/**
 * The revision a food's content implies: uuid v5 over its canonical JSON without
 * `revisionId`. It changes exactly when the content changes; tag order does not count.
 */
export function deriveRevisionId(food: CatalogFood, parts?: CanonicalParts): string {
  return uuidV5(canonicalFood(food, parts));
}
