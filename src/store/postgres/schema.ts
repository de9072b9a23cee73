import type pg from 'pg';
import { GENERIC_BRAND_IDS, GENERIC_BRAND_NAME, REGIONS } from '../../domain/regions.js';
import { fold } from '../../domain/text.js';
import { rebuildSearchData } from './search-store.js';
import { TOKEN_DDL } from './token-store.js';

/**
 * The PostgreSQL schema. Two kinds of tables:
 * - in the database's default schema, what outlives catalogue versions: `foodlookup_meta` and
 *   the token tables, created and upgraded by numbered migrations;
 * - each committed catalogue version N in a schema of its own, `foodlookup_cat_<N>`, with the
 *   tables of SQLite's catalogue (store/sqlite/schema.ts, same columns). An import fills
 *   version N+1 beside N and switches `foodlookup_meta.catalog_schema` in its transaction, so a
 *   replica answers each request wholly from the version it has loaded.
 * Text keys are `COLLATE "C"`: byte order, as SQLite's BINARY, so name order is the same in both
 * stores (UTF-8 byte order = code point order).
 */

/** Version of the non-versioned tables (the migrations below). */
export const SCHEMA_VERSION = 2;

/** pg_advisory_xact_lock key of migrations: replicas that start at once migrate one after the other. */
export const MIGRATION_LOCK = 0x666f6f6401;
/** pg_advisory_xact_lock key of imports: a second import waits for the first to end, then builds on what it left. */
export const IMPORT_LOCK = 0x666f6f6402;

/** The channel an import NOTIFYs with the new catalogue version as payload. */
export const CATALOG_CHANNEL = 'foodlookup_catalog';

export const META_TABLE = 'foodlookup_meta';
/** Schemas of catalogue versions start with this, then the version number. */
export const CATALOG_SCHEMA_PREFIX = 'foodlookup_cat_';

/** The (unquoted, always safe) name of catalogue version N's schema. */
export function catalogSchemaName(version: number): string {
  if (!Number.isSafeInteger(version) || version < 1) throw new Error(`not a catalogue version: ${version}`);
  return `${CATALOG_SCHEMA_PREFIX}${version}`;
}

/** The version a catalogue schema name holds, or undefined for another name. */
export function catalogVersionOf(schema: string): number | undefined {
  const match = /^foodlookup_cat_([1-9][0-9]*)$/.exec(schema);
  return match ? Number(match[1]) : undefined;
}

const C = 'COLLATE "C"';

/**
 * The tables of one catalogue version, without keys or indexes: an import loads them with COPY
 * first and builds those once after (catalogIndexesDdl), one sort each instead of a B-tree
 * insert per row. Same columns as SQLite's; times are ms since the epoch (bigint).
 */
export function catalogTablesDdl(schema: string): string {
  return `
CREATE SCHEMA ${schema};
CREATE TABLE ${schema}.brands (
  rid integer NOT NULL,
  id text ${C} NOT NULL,
  name text NOT NULL,
  name_key text ${C} NOT NULL,
  region text ${C} NOT NULL,
  updated_at bigint NOT NULL
);
CREATE TABLE ${schema}.categories (
  rid integer NOT NULL,
  id text ${C} NOT NULL,
  name text NOT NULL,
  name_key text ${C} NOT NULL,
  region text ${C} NOT NULL,
  parent_id text ${C},
  is_leaf integer NOT NULL DEFAULT 1,
  hierarchy text NOT NULL DEFAULT '[]',
  updated_at bigint NOT NULL
);
CREATE TABLE ${schema}.category_closure (
  ancestor_id text ${C} NOT NULL,
  descendant_id text ${C} NOT NULL
);
CREATE TABLE ${schema}.tags (
  rid integer NOT NULL,
  id text ${C} NOT NULL,
  name text NOT NULL,
  name_key text ${C} NOT NULL,
  updated_at bigint NOT NULL
);
CREATE TABLE ${schema}.foods (
  rid integer NOT NULL,
  id text ${C} NOT NULL,
  revision_id text ${C} NOT NULL,
  content_hash text ${C} NOT NULL,
  region text ${C} NOT NULL,
  brand_id text ${C} NOT NULL,
  category_id text ${C} NOT NULL,
  name text NOT NULL,
  name_key text ${C} NOT NULL,
  classification text NOT NULL,
  classification_key text ${C} NOT NULL,
  classification_fold text NOT NULL,
  other_names_fold text NOT NULL DEFAULT '',
  description_fold text NOT NULL DEFAULT '',
  servings integer NOT NULL DEFAULT 0,
  tag_ids text NOT NULL,
  body text NOT NULL,
  updated_at bigint NOT NULL
);
CREATE TABLE ${schema}.food_tags (
  tag_id text ${C} NOT NULL,
  food_rid integer NOT NULL
);
CREATE TABLE ${schema}.food_upcs (
  upc_key text ${C} NOT NULL,
  food_rid integer NOT NULL
);
CREATE TABLE ${schema}.search_blobs (
  key text ${C} PRIMARY KEY,
  value bytea NOT NULL
);
-- Packed integers that pglz barely shrinks (118 of 123 MB at 1,000,000 foods): stored out of
-- line as they are, none of the server's time spent trying to compress them on write or
-- decompressing them when a replica loads the version.
ALTER TABLE ${schema}.search_blobs ALTER COLUMN value SET STORAGE EXTERNAL;
`;
}

/** Keys and indexes of one catalogue version, as SQLite's schema has them; built after the rows are in. */
export function catalogIndexStatements(schema: string): string[] {
  return [
    `ALTER TABLE ${schema}.brands ADD PRIMARY KEY (rid), ADD UNIQUE (id)`,
    `CREATE INDEX brands_name ON ${schema}.brands (name_key, id)`,
    `CREATE INDEX brands_region_name ON ${schema}.brands (region, name_key, id)`,
    `ALTER TABLE ${schema}.categories ADD PRIMARY KEY (rid), ADD UNIQUE (id)`,
    `CREATE INDEX categories_name ON ${schema}.categories (name_key, id)`,
    `CREATE INDEX categories_parent ON ${schema}.categories (parent_id)`,
    `ALTER TABLE ${schema}.category_closure ADD PRIMARY KEY (ancestor_id, descendant_id)`,
    `ALTER TABLE ${schema}.tags ADD PRIMARY KEY (rid), ADD UNIQUE (id)`,
    `CREATE INDEX tags_name ON ${schema}.tags (name_key, id)`,
    `ALTER TABLE ${schema}.foods ADD PRIMARY KEY (rid)`,
    `ALTER TABLE ${schema}.foods ADD UNIQUE (id)`,
    `ALTER TABLE ${schema}.foods ADD UNIQUE (revision_id)`,
    `CREATE INDEX foods_name ON ${schema}.foods (name_key, id) INCLUDE (rid)`,
    `CREATE INDEX foods_region_name ON ${schema}.foods (region, name_key, id)`,
    `CREATE INDEX foods_brand ON ${schema}.foods (brand_id)`,
    `CREATE INDEX foods_category ON ${schema}.foods (category_id)`,
    `CREATE INDEX foods_classification ON ${schema}.foods (classification_key)`,
    `ALTER TABLE ${schema}.food_tags ADD PRIMARY KEY (tag_id, food_rid)`,
    `CREATE INDEX food_tags_food ON ${schema}.food_tags (food_rid)`,
    `ALTER TABLE ${schema}.food_upcs ADD PRIMARY KEY (upc_key, food_rid)`,
    `CREATE INDEX food_upcs_food ON ${schema}.food_upcs (food_rid)`,
  ];
}

/** The whole DDL of catalogue version N: its schema, tables, keys and indexes. */
export function catalogSchemaDdl(version: number): string {
  const schema = catalogSchemaName(version);
  return `${catalogTablesDdl(schema)}\n${catalogIndexStatements(schema).join(';\n')};\n`;
}

/** A migration of the non-versioned tables: run once, in order, under MIGRATION_LOCK. */
export interface Migration {
  readonly version: number;
  readonly sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  { version: 1, sql: `CREATE TABLE IF NOT EXISTS ${META_TABLE} (key text ${C} PRIMARY KEY, value text NOT NULL)` },
  // The token tables (token-store.ts): shared by every replica.
  { version: 2, sql: TOKEN_DDL },
];

/** foodlookup_meta as key → value. */
export async function readMeta(client: pg.ClientBase | pg.Pool): Promise<Map<string, string>> {
  const rows = await client.query<{ key: string; value: string }>(`SELECT key, value FROM ${META_TABLE}`);
  return new Map(rows.rows.map((r) => [r.key, r.value]));
}

export async function setMeta(client: pg.ClientBase, key: string, value: string): Promise<void> {
  await client.query(`INSERT INTO ${META_TABLE} (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, [key, value]);
}

/** Catalogue version 1: no records but the two generic brands (as SQLite's migrate adds them), and its search data. */
async function createFirstCatalog(client: pg.ClientBase, now: number): Promise<void> {
  const schema = catalogSchemaName(1);
  await client.query(catalogTablesDdl(schema));
  let rid = 0;
  for (const region of REGIONS) {
    await client.query(`INSERT INTO ${schema}.brands (rid, id, name, name_key, region, updated_at) VALUES ($1, $2, $3, $4, $5, $6)`,
      [++rid, GENERIC_BRAND_IDS[region], GENERIC_BRAND_NAME, fold(GENERIC_BRAND_NAME), region, now]);
  }
  for (const statement of catalogIndexStatements(schema)) await client.query(statement);
  await rebuildSearchData(client, schema);
  await setMeta(client, 'catalog_schema', schema);
  await setMeta(client, 'catalog_version', '1');
  await setMeta(client, 'last_modified', String(now));
}

/**
 * Creates or upgrades the tables, and the first catalogue version when there is none, in one
 * transaction under an advisory lock: replicas that start at once do it one after the other,
 * and the later ones find nothing left to do. Throws when the database's schema is newer.
 */
export async function migrate(pool: pg.Pool, migrations: readonly Migration[] = MIGRATIONS): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    const exists = (await client.query(`SELECT to_regclass($1) IS NOT NULL AS exists`, [META_TABLE])).rows[0] as { exists: boolean };
    const meta = exists.exists ? await readMeta(client) : new Map<string, string>();
    const stored = Number(meta.get('schema_version') ?? 0);
    const newest = Math.max(...migrations.map((m) => m.version));
    if (stored > newest) {
      throw new Error(`database schema ${stored} is newer than this program (${newest}); upgrade foodlookup`);
    }
    for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
      if (migration.version > stored) await client.query(migration.sql);
    }
    if (newest > stored) await setMeta(client, 'schema_version', String(newest));
    if (!meta.has('catalog_schema')) await createFirstCatalog(client, Date.now());
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
