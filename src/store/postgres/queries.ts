import type { Dialect, Sql } from '../list-queries.js';
import { FOOD_COLUMNS } from '../record-rows.js';

/**
 * The lists' SQL (list-queries.ts) in PostgreSQL's dialect: tables in the schema of the
 * catalogue version being answered (`foodlookup_cat_<N>`), so that a request reads one version
 * only; lists of values as one array parameter.
 */
export class PostgresDialect implements Dialect {
  /** `schema` is a name the store made (schema.ts catalogSchemaName): safe unquoted. */
  constructor(readonly schema: string) {}

  table(name: string): string {
    return `${this.schema}.${name}`;
  }

  /** Texts with a NUL are left out: PostgreSQL's text cannot hold one, so no stored value equals them (IN and NOT IN mean the same without them). */
  values(values: readonly (string | number)[], type: 'text' | 'int'): [string, unknown] {
    return [`SELECT unnest(?::${type}[])`, values.filter((v) => typeof v !== 'string' || !v.includes('\0'))];
  }

  orderedRids(rids: readonly number[]): [string, unknown] {
    return ['unnest(?::int[]) WITH ORDINALITY AS m(value, key)', rids];
  }
}

/** A query's text with its `?` numbered as PostgreSQL's `$1, $2, …` (no `?` appears otherwise in the lists' SQL). */
export function numbered(sql: Sql): { text: string; values: unknown[] } {
  let n = 0;
  return { text: sql.text.replace(/\?/g, () => `$${++n}`), values: sql.params };
}

/**
 * Whether a prefix can match no stored name because it holds a NUL, which PostgreSQL's text
 * cannot (a parameter with one is an error there; SQLite matches nothing for it).
 */
export function unmatchablePrefix(match: { readonly type: string; readonly query: string } | undefined): boolean {
  return match?.type === 'prefix' && match.query.includes('\0');
}

/** A statement prepared once per connection: its name is unique to its text. */
export interface Prepared {
  readonly name: string;
  readonly text: string;
}

/** The reads of a version's requests, named after its schema (prepared once per connection). */
export interface FoodReads {
  /** `$1`: rids (int[]); their rows, rid first, in any order. */
  readonly rowsByRid: Prepared;
  /** `$1`: ctids (tid[], row-addresses.ts); the rows there, rid first, in any order. */
  readonly rowsByTid: Prepared;
  /** `$1`: barcode keys (text[], domain/barcodes.ts); the rows of the foods carrying one, rid first, in any order. */
  readonly rowsByUpc: Prepared;
  /** `$1`: a foodId or a current revisionId; the row, the foodId first (as SQLite's store). */
  readonly rowById: Prepared;
  /**
   * `$1`, `$2`: folded names; the rids of the first food in name order whose name_key is
   * above (`>`) or from (`>=`) each, as `a` and `b` (null past the last).
   */
  firstFrom(lo: '>' | '>=', hi: '>' | '>='): Prepared;
}

export function foodReads(dialect: PostgresDialect): FoodReads {
  const foods = dialect.table('foods');
  const named = (what: string, text: string): Prepared => ({ name: `${dialect.schema}_${what}`, text });
  const first = (n: number, op: string): string => `(SELECT rid FROM ${foods} WHERE name_key ${op} $${n} ORDER BY name_key, id LIMIT 1)`;
  const places = new Map<string, Prepared>();
  return {
    rowsByRid: named('rows', `SELECT f.rid, ${FOOD_COLUMNS} FROM ${foods} f WHERE f.rid = ANY($1::int[])`),
    rowsByTid: named('rows_tid', `SELECT f.rid, ${FOOD_COLUMNS} FROM ${foods} f WHERE f.ctid = ANY($1::tid[])`),
    rowsByUpc: named('rows_upc', `SELECT f.rid, ${FOOD_COLUMNS} FROM ${foods} f WHERE f.rid IN (SELECT food_rid FROM ${dialect.table('food_upcs')} WHERE upc_key = ANY($1::text[]))`),
    rowById: named('row', `SELECT f.rid, ${FOOD_COLUMNS} FROM ${foods} f WHERE f.id = $1 OR f.revision_id = $1 ORDER BY f.id = $1 DESC LIMIT 1`),
    firstFrom: (lo, hi) => {
      const key = `${lo === '>' ? 'a' : 'af'}${hi === '>' ? 'b' : 'bf'}`;
      let statement = places.get(key);
      if (statement === undefined) places.set(key, (statement = named(`first_${key}`, `SELECT ${first(1, lo)} AS a, ${first(2, hi)} AS b`)));
      return statement;
    },
  };
}

/** Texts as a `text[]` literal: each element quoted, its backslashes and quotes escaped. */
export function textArrayLiteral(values: readonly string[]): string {
  return `{${values.map((v) => `"${v.replace(/[\\"]/g, (c) => `\\${c}`)}"`).join(',')}}`;
}
