import type { Dialect, Sql } from '../list-queries.js';

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
