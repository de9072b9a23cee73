import { errors } from '../errors.js';
import { isRegion, type Region } from '../domain/regions.js';
import type { Direction, IdFilter, ListFilter, MatchType, Ordering } from '../store/catalog-store.js';
import { barcodeKeys } from '../domain/barcodes.js';
import { ListSyntaxError, parseClassifications, parseIdFilter, parseIdList } from './id-lists.js';

/** A parameter parser: raw text in, typed value out; throws a 400 naming the parameter. */
export type Param<T> = (raw: string, name: string) => T;

export type RawQuery = Readonly<Record<string, string | readonly string[] | undefined>>;

export const LIMITS = [1, 5, 10, 20, 30, 50, 100] as const;
const MAX_OFFSET = 2_147_483_647;

const invalid = errors.invalidParameter;

function oneOf<T extends string>(values: readonly T[], rule: string): Param<T> {
  return (raw, name) => {
    if ((values as readonly string[]).includes(raw)) return raw as T;
    throw invalid(name, rule);
  };
}

export const param = {
  limit: ((raw, name) => {
    const n = /^\d{1,3}$/.test(raw) ? Number(raw) : NaN;
    if ((LIMITS as readonly number[]).includes(n)) return n;
    throw invalid(name, `must be one of ${LIMITS.join(', ')}`);
  }) as Param<number>,

  offset: ((raw, name) => {
    const digits = raw.replace(/^0+(?=\d)/, '');
    if (/^\d{1,10}$/.test(digits) && Number(digits) <= MAX_OFFSET) return Number(digits);
    throw invalid(name, `must be a whole number from 0 to ${MAX_OFFSET}`);
  }) as Param<number>,

  positiveInteger: ((raw, name) => {
    const digits = raw.replace(/^0+(?=\d)/, '');
    if (/^\d{1,10}$/.test(digits) && Number(digits) >= 1 && Number(digits) <= MAX_OFFSET) return Number(digits);
    throw invalid(name, `must be a whole number from 1 to ${MAX_OFFSET}`);
  }) as Param<number>,

  region: ((raw, name) => {
    if (isRegion(raw)) return raw;
    throw invalid(name, "must be 'au' or 'us'");
  }) as Param<Region>,

  text: ((raw) => raw) as Param<string>,

  queryType: oneOf<MatchType>(['fts', 'prefix'], "must be 'fts' or 'prefix'"),

  grouping: oneOf<'brand' | 'classification'>(['brand', 'classification'], "must be 'brand' or 'classification'"),

  boolean: ((raw, name) => {
    const lower = raw.toLowerCase();
    if (lower === 'true' || lower === 'false') return lower === 'true';
    throw invalid(name, "must be 'true' or 'false'");
  }) as Param<boolean>,

  /** `rank|name[:asc|desc]` (foods and grouping-order). */
  ranking: ((raw, name) => {
    const match = /^(rank|name)(?::(asc|desc))?$/.exec(raw);
    if (!match) throw invalid(name, "must be 'rank' or 'name', optionally followed by ':asc' or ':desc'");
    return { field: match[1] as Ordering['field'], direction: (match[2] ?? 'asc') as Direction };
  }) as Param<Ordering>,

  /** Brands, categories and tags are always in name order: only the direction is chosen. */
  nameDirection: ((raw, name) => {
    const match = /^(?:name:)?(asc|desc)$/.exec(raw);
    if (!match) throw invalid(name, "must be 'asc', 'desc', 'name:asc' or 'name:desc'");
    return match[1] as Direction;
  }) as Param<Direction>,

  idFilter: listParam<IdFilter>(parseIdFilter),
  idList: listParam<ListFilter>(parseIdList),
  classifications: listParam<ListFilter>(parseClassifications),

  /** Comma-separated barcodes, as their lookup keys (domain/barcodes.ts); empty items are ignored. */
  barcodes: ((raw, name) => {
    const keys = new Set<string>();
    for (const code of raw.split(',')) {
      if (code.trim() === '') continue;
      const found = barcodeKeys(code);
      if (found === undefined) {
        throw invalid(name, `'${code.length > 40 ? `${code.slice(0, 40)}…` : code}' is not a barcode: give 6 to 14 digits (EAN-13, UPC-A, UPC-E, EAN-8 or GTIN-14)`);
      }
      for (const key of found) keys.add(key);
    }
    return [...keys];
  }) as Param<readonly string[]>,
} as const;

function listParam<T>(parse: (raw: string) => T): Param<T> {
  return (raw, name) => {
    try {
      return parse(raw);
    } catch (error) {
      if (error instanceof ListSyntaxError) throw invalid(name, error.message);
      throw error;
    }
  };
}

export type ParamSpec = Readonly<Record<string, Param<unknown>>>;
export type Parsed<S extends ParamSpec> = { -readonly [K in keyof S]?: S[K] extends Param<infer T> ? T : never };

/**
 * Parses the known parameters of one endpoint by its spec. Unknown parameters are ignored;
 * a known one given twice is a 400; values that are empty count as absent only for `query`
 * and `fields` (blank means none), everything else is validated even if it has no effect.
 */
export function parseParams<S extends ParamSpec>(query: RawQuery, spec: S): Parsed<S> {
  const out: Record<string, unknown> = {};
  for (const [name, parse] of Object.entries(spec)) {
    const raw = query[name];
    if (raw === undefined) continue;
    if (typeof raw !== 'string') throw invalid(name, 'given more than once');
    if (raw === '' && (name === 'brands' || name === 'brand' || name === 'tags' || name === 'categories' ||
      name === 'classifications' || name === 'parents' || name === 'upcs' || name === 'upc')) continue;
    out[name] = parse(raw, name);
  }
  return out as Parsed<S>;
}
