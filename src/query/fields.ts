/**
 * The `fields` selector (contract C3 "Partial responses"): parsed once per distinct
 * selector into a selection tree checked against the record schema, then applied to records.
 *
 * Grammar: selectors := selector (',' selector)* ; selector := path ['(' selectors ')'] ;
 * path := name ('/' name)*. Names are any characters but `,()/`, spaces around them trimmed.
 */
import { NUTRIENT_KEYS } from '../domain/nutrients.js';

export type ResourceKind = 'food' | 'brand' | 'category' | 'tag';

export interface FieldsContext {
  readonly resource: ResourceKind;
  /** True on /foods, /brands, …; false on /foods/{id} and the like. */
  readonly collection: boolean;
  /** True only on /foods when the request has `grouping`. */
  readonly grouping: boolean;
}

export interface FieldsError {
  readonly message: "Unknown path in 'fields'" | "Invalid 'fields'";
  readonly details: string;
}

/** `true` selects a value whole; a map selects some members (of each element, for lists). */
export type Projection = true | ReadonlyMap<string, Projection>;

export type FieldsResult =
  | { readonly ok: true; readonly projection: Projection | null }
  | { readonly ok: false; readonly error: FieldsError };

/** Deeper nesting than any record has is refused before it costs anything. */
const MAX_DEPTH = 32;
const MAX_LENGTH = 16 * 1024;

// ---- schema ---------------------------------------------------------------------------

type Schema =
  | { readonly kind: 'leaf' }
  /** Members by name: a Map, so a selector naming `constructor` or `__proto__` finds nothing. */
  | { readonly kind: 'object'; readonly fields: ReadonlyMap<string, Schema> }
  /** Keyed maps: `nutrients` (keys restricted) and `upcs` (any barcode). */
  | { readonly kind: 'map'; readonly keys?: ReadonlySet<string>; readonly value: Schema };

const leaf: Schema = { kind: 'leaf' };
const object = (fields: Record<string, Schema>): Schema => ({ kind: 'object', fields: new Map(Object.entries(fields)) });

const BRAND = object({ id: leaf, name: leaf, region: leaf });
const CATEGORY = object({
  id: leaf, region: leaf, name: leaf, parent: leaf, hierarchy: object({ id: leaf, name: leaf }), isLeaf: leaf,
});
const TAG = object({ id: leaf, name: leaf });
const FOOD_FIELDS: Record<string, Schema> = {
  foodId: leaf, revisionId: leaf, region: leaf, brand: BRAND, category: CATEGORY, tags: TAG, name: leaf,
  otherNames: leaf, description: leaf, note: leaf, classification: leaf, mass: leaf, volume: leaf,
  servings: object({ name: leaf, scale: leaf, type: leaf, isDefault: leaf }),
  defaultServing: object({ name: leaf, scale: leaf, type: leaf, isDefault: leaf }),
  upcs: { kind: 'map', value: object({ servingIndex: leaf, quantity: leaf }) },
  nutrients: { kind: 'map', keys: new Set(NUTRIENT_KEYS), value: leaf },
};
const FOOD = object(FOOD_FIELDS);
const FOOD_GROUPED = object({ ...FOOD_FIELDS, grouping: object({ name: leaf, id: leaf }) });

const SCHEMAS: Readonly<Record<Exclude<ResourceKind, 'food'>, Schema>> = { brand: BRAND, category: CATEGORY, tag: TAG };

const WRAPPERS: Readonly<Record<ResourceKind, readonly [single: string, plural: string]>> = {
  food: ['food', 'foods'], brand: ['brand', 'brands'], category: ['category', 'categories'], tag: ['tag', 'tags'],
};

const ALIASES: ReadonlyMap<string, readonly string[]> = new Map([
  ['$summary', ['revisionId', 'brand', 'name', 'classification']],
  ['$detailed', ['revisionId', 'foodId', 'brand', 'tags', 'name', 'otherNames', 'description', 'classification', 'note', 'mass',
    'volume', 'servings', 'defaultServing', 'upcs', 'nutrients']],
]);

// ---- parsing --------------------------------------------------------------------------

interface Node {
  readonly name: string;
  readonly children: Node[];
  /** True when written with parentheses: `a(b)` selects only b, `a` everything. */
  readonly grouped: boolean;
}

class SyntaxProblem extends Error {}

/** Parses the selector text into a tree; paths `a/b/c` become nested single-child nodes. */
function parse(text: string): Node[] {
  let i = 0;
  const fail = (what: string): never => {
    throw new SyntaxProblem(`${what} at position ${i + 1}`);
  };
  const list = (depth: number): Node[] => {
    if (depth > MAX_DEPTH) fail(`Nesting deeper than ${MAX_DEPTH} levels`);
    const nodes: Node[] = [];
    for (;;) {
      nodes.push(selector(depth));
      if (text[i] === ',') {
        i++;
        continue;
      }
      return nodes;
    }
  };
  const name = (): string => {
    const start = i;
    while (i < text.length && !',()/'.includes(text[i]!)) i++;
    const value = text.slice(start, i).trim();
    if (value === '') {
      i = start;
      fail(text[i] === '/' || text[start - 1] === '/' ? "Empty name around '/'" : 'Empty selector');
    }
    return value;
  };
  const selector = (depth: number): Node => {
    const segments = [name()];
    while (text[i] === '/') {
      i++;
      segments.push(name());
      if (segments.length > MAX_DEPTH) fail(`Nesting deeper than ${MAX_DEPTH} levels`);
    }
    let children: Node[] = [];
    let grouped = false;
    if (text[i] === '(') {
      i++;
      if (text[i] === ')') fail('Empty parentheses');
      children = list(depth + 1);
      if (text[i] !== ')') fail('Unbalanced parentheses: missing )');
      i++;
      grouped = true;
      while (text[i] === ' ') i++;
    }
    if (i < text.length && text[i] !== ',' && text[i] !== ')') fail(`Unexpected '${text[i]}'`);
    // Build the path from its last segment up.
    let node: Node = { name: segments[segments.length - 1]!, children, grouped };
    for (let s = segments.length - 2; s >= 0; s--) node = { name: segments[s]!, children: [node], grouped: true };
    return node;
  };
  const nodes = list(0);
  if (i < text.length) fail(text[i] === ')' ? 'Unbalanced parentheses: ) without (' : `Unexpected '${text[i]}'`);
  return nodes;
}

// ---- resolving against the schema ----------------------------------------------------

class UnknownPath extends Error {}

type Mutable = true | Map<string, Mutable>;

function merge(into: Map<string, Mutable>, key: string, value: Mutable): void {
  const existing = into.get(key);
  if (existing === undefined) into.set(key, value);
  else if (existing === true || value === true) into.set(key, true);
  else for (const [k, v] of value) merge(existing, k, v);
}

function resolve(nodes: readonly Node[], schema: Schema, prefix: string, into: Map<string, Mutable>, aliases: boolean): void {
  for (const node of nodes) {
    const path = prefix === '' ? node.name : `${prefix}/${node.name}`;
    const alias = aliases ? ALIASES.get(node.name) : undefined;
    if (alias) {
      if (node.grouped) throw new UnknownPath(`${path}/${node.children[0]?.name ?? ''}`);
      for (const field of alias) merge(into, field, true);
      continue;
    }
    let child: Schema | undefined;
    if (schema.kind === 'object') child = schema.fields.get(node.name);
    else if (schema.kind === 'map') child = !schema.keys || schema.keys.has(node.name) ? schema.value : undefined;
    if (!child) throw new UnknownPath(path);
    if (!node.grouped) {
      merge(into, node.name, true);
      continue;
    }
    if (child.kind === 'leaf') throw new UnknownPath(`${path}/${node.children[0]!.name}`);
    const sub = new Map<string, Mutable>();
    resolve(node.children, child, path, sub, false);
    merge(into, node.name, sub);
  }
}

function freeze(selection: Mutable): Projection {
  if (selection === true) return true;
  return new Map([...selection].map(([k, v]) => [k, freeze(v)]));
}

function compile(raw: string, ctx: FieldsContext): FieldsResult {
  if (raw.length > MAX_LENGTH) {
    return { ok: false, error: { message: "Invalid 'fields'", details: `Longer than ${MAX_LENGTH} characters` } };
  }
  let nodes: Node[];
  try {
    nodes = parse(raw);
  } catch (error) {
    if (error instanceof SyntaxProblem) return { ok: false, error: { message: "Invalid 'fields'", details: error.message } };
    throw error;
  }
  const schema = ctx.resource === 'food' ? (ctx.grouping ? FOOD_GROUPED : FOOD) : SCHEMAS[ctx.resource];
  const wrapper = WRAPPERS[ctx.resource][ctx.collection ? 1 : 0];
  const selection = new Map<string, Mutable>();
  let everything = false;
  try {
    for (const node of nodes) {
      if (node.name === wrapper) {
        // `foods` alone is the whole record; `foods(…)` and `foods/…` select inside it.
        if (node.grouped) resolve(node.children, schema, wrapper, selection, ctx.resource === 'food');
        else everything = true;
      } else if (ctx.collection && node.name === 'metadata') {
        if (node.grouped && !node.children.every((c) => ['total', 'limit', 'offset'].includes(c.name) && !c.grouped)) {
          throw new UnknownPath(`metadata/${node.children.find((c) => !['total', 'limit', 'offset'].includes(c.name) || c.grouped)!.name}`);
        }
      } else {
        resolve([node], schema, '', selection, ctx.resource === 'food');
      }
    }
  } catch (error) {
    if (error instanceof UnknownPath) return { ok: false, error: { message: "Unknown path in 'fields'", details: `Path: '${error.message}'` } };
    throw error;
  }
  if (everything) return { ok: true, projection: true };
  // Only `metadata` was selected: the records come whole.
  if (selection.size === 0) return { ok: true, projection: null };
  return { ok: true, projection: freeze(selection) };
}

const cache = new Map<string, FieldsResult>();
const CACHE_SIZE = 500;

/** Compiles a selector for one kind of endpoint; `null` projection means everything. */
export function compileFields(raw: string | undefined, ctx: FieldsContext): FieldsResult {
  if (raw === undefined || raw.trim() === '') return { ok: true, projection: null };
  const key = `${ctx.resource}|${ctx.collection ? 1 : 0}|${ctx.grouping ? 1 : 0}|${raw}`;
  let result = cache.get(key);
  if (!result) {
    result = compile(raw, ctx);
    if (cache.size >= CACHE_SIZE) cache.clear();
    cache.set(key, result);
  }
  return result;
}

function apply(value: unknown, projection: Projection): unknown {
  if (projection === true || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => apply(item, projection));
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value as Record<string, unknown>)) {
    const sub = projection.get(key);
    if (sub !== undefined) out[key] = apply(member, sub);
  }
  return out;
}

/** The record with only the selected members, in the record's own member order. */
export function project<T extends object>(record: T, projection: Projection): Record<string, unknown> {
  return apply(record, projection) as Record<string, unknown>;
}
