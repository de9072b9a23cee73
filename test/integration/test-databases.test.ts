import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import { ADMIN_DATABASE_URL, NO_POSTGRES, TEST_STORES, dropTestDatabase, testDatabaseUrl } from '../helpers/postgres.js';

async function databaseExists(name: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: ADMIN_DATABASE_URL });
  await client.connect();
  try {
    return (await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1;
  } finally {
    await client.end();
  }
}

test('the suite loops over PostgreSQL whenever one is reachable', () => {
  assert.ok(TEST_STORES.includes('sqlite'));
  if (!process.env['FOODLOOKUP_TEST_STORES']) assert.equal(TEST_STORES.includes('postgres'), ADMIN_DATABASE_URL !== undefined);
});

test('each test database is fresh and empty, and gone once dropped', async (t) => {
  const url = await testDatabaseUrl();
  if (!url) return t.skip(NO_POSTGRES);
  const other = await testDatabaseUrl();
  assert.ok(other && other !== url);
  const name = new URL(url).pathname.slice(1);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const tables = await client.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema')");
  assert.equal(tables.rows[0]?.n, 0);
  await client.end();
  assert.equal(await databaseExists(name), true);
  await dropTestDatabase(url);
  assert.equal(await databaseExists(name), false);
});
