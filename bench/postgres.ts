/**
 * The PostgreSQL side of `npm run bench -- --store postgres`: where the catalogue lives, whether
 * it is already there, and how big it is.
 */
import { readFileSync } from 'node:fs';
import { withClient } from '../src/store/postgres/connection.js';

/** $BENCH_DATABASE_URL, else database `foodlookup_bench_<foods>` on the PostgreSQL of scripts/test-services.sh. */
export function benchDatabaseUrl(foods: number): string {
  const given = process.env['BENCH_DATABASE_URL'];
  if (given) return given;
  let server = 'postgres://postgres@127.0.0.1:5432/postgres';
  try {
    server = readFileSync(`${process.env['FOODLOOKUP_PG_DIR'] || '/tmp/foodlookup-pg'}/url`, 'utf8').trim() || server;
  } catch {
    // test-services.sh has not run: the machine's own PostgreSQL
  }
  const url = new URL(server);
  url.pathname = `/foodlookup_bench_${foods}`;
  return url.toString();
}

/** Creates the URL's database when missing (through the server's `postgres` database). */
export async function ensureDatabase(url: string): Promise<void> {
  const name = decodeURIComponent(new URL(url).pathname.slice(1));
  if (!/^[a-z0-9_]+$/.test(name)) throw new Error(`bench database names are [a-z0-9_]+, not '${name}'`);
  const admin = new URL(url);
  admin.pathname = '/postgres';
  await withClient(admin.toString(), async (client) => {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount === 0) await client.query(`CREATE DATABASE ${name}`);
  });
}

/** Foods in the current catalogue version, or 0 when nothing was imported yet. */
export async function catalogFoods(url: string): Promise<number> {
  return withClient(url, async (client) => {
    const meta = await client.query<{ value: string }>(
      "SELECT value FROM foodlookup_meta WHERE key = 'catalog_schema'",
    ).catch(() => ({ rows: [] as { value: string }[] }));
    const schema = meta.rows[0]?.value;
    if (!schema || !/^foodlookup_cat_\d+$/.test(schema)) return 0;
    const counted = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${schema}.foods`);
    return counted.rows[0]?.n ?? 0;
  });
}

/**
 * Writes the server's dirty buffers out now (CHECKPOINT), so that an import's ~2 GB are not
 * written back while the scenarios run. A role that may not checkpoint leaves it to the server.
 */
export async function checkpoint(url: string): Promise<void> {
  await withClient(url, async (client) => {
    await client.query('CHECKPOINT').catch(() => undefined);
  });
}

/** The database's size on disk (all versions it holds). */
export async function databaseBytes(url: string): Promise<number> {
  return withClient(url, async (client) => Number((await client.query<{ n: string }>('SELECT pg_database_size(current_database())::text AS n')).rows[0]?.n ?? 0));
}

/**
 * Reads the current catalogue version's foods table whole (a column no index holds: a scan of
 * every heap page) and its name index (prefix searches' places) through the server, so that
 * the OS page cache holds them as run.ts readWhole holds the SQLite file. Without it a
 * PostgreSQL scenario read rows from disk that the SQLite scenarios found in memory: this VM
 * reclaims idle file pages within minutes: 28 % of the served version's table was out of the
 * page cache (fincore) ~1.5 h after its import, although requests had read parts of it back
 * meanwhile. Returns the seconds it took.
 */
export async function readCatalogue(url: string): Promise<number> {
  const started = performance.now();
  await withClient(url, async (client) => {
    const meta = await client.query<{ value: string }>("SELECT value FROM foodlookup_meta WHERE key = 'catalog_schema'");
    const schema = meta.rows[0]?.value;
    if (!schema || !/^foodlookup_cat_\d+$/.test(schema)) throw new Error(`${url}: no catalogue to read`);
    await client.query(`SELECT max(updated_at) FROM ${schema}.foods`);
    await client.query('SET enable_seqscan = off');
    await client.query(`SELECT count(*) FROM (SELECT name_key, id FROM ${schema}.foods ORDER BY name_key, id) s`);
  });
  return (performance.now() - started) / 1000;
}
