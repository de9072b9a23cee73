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

/** The database's size on disk (all versions it holds). */
export async function databaseBytes(url: string): Promise<number> {
  return withClient(url, async (client) => Number((await client.query<{ n: string }>('SELECT pg_database_size(current_database())::text AS n')).rows[0]?.n ?? 0));
}
