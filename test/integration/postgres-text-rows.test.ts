import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type pg from 'pg';
import { openPool } from '../../src/store/postgres/connection.js';
import { textRows } from '../../src/store/postgres/text-rows.js';
import { ADMIN_DATABASE_URL, dropTestDatabase, NO_POSTGRES, testDatabaseUrl } from '../helpers/postgres.js';

/**
 * The page-rows query object (store/postgres/text-rows.ts) through pg's pool on a real
 * PostgreSQL: it replaces pg's own Query on the hot read, so what that gave for free is checked
 * here — preparation once per connection, the server's errors, and a connection still usable
 * after one. The stores' contract suites read every page through it as well.
 */
describe('a prepared statement read as text rows', { skip: ADMIN_DATABASE_URL ? false : NO_POSTGRES }, () => {
  let url: string;
  let pool: pg.Pool;
  const rows = { name: 'text_rows_t', text: 'SELECT n, label, big FROM t WHERE n = ANY($1::int[]) ORDER BY n' };

  before(async () => {
    url = (await testDatabaseUrl())!;
    pool = openPool(url, { max: 1 });
    await pool.query(`CREATE TABLE t (n int PRIMARY KEY, label text, big bigint)`);
    await pool.query(`INSERT INTO t VALUES (1, 'one', 9007199254740993), (2, NULL, -5), (3, 'trois, "drei"', 0)`);
  });

  after(async () => {
    await pool.end();
    await dropTestDatabase(url);
  });

  it('gives every value as the text PostgreSQL sends, NULL as null, in the statement order', async () => {
    assert.deepEqual(await textRows(pool, rows, ['{3,1,2,7}']), [
      ['1', 'one', '9007199254740993'],
      ['2', null, '-5'],
      ['3', 'trois, "drei"', '0'],
    ]);
    assert.deepEqual(await textRows(pool, rows, ['{}']), []);
  });

  it('prepares the statement once on a connection, however often it runs', async () => {
    for (let i = 0; i < 5; i++) await textRows(pool, rows, [`{${i}}`]);
    const prepared = await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_prepared_statements WHERE name = $1`, [rows.name]);
    assert.equal(prepared.rows[0]!.n, 1);
  });

  it("rejects with the server's error, and the connection answers the next query", async () => {
    await assert.rejects(textRows(pool, rows, ['not an array']), (error: Error & { code?: string }) => error.code === '22P02');
    await assert.rejects(textRows(pool, { name: 'text_rows_missing', text: 'SELECT * FROM missing' }, []), /relation "missing" does not exist/);
    assert.deepEqual(await textRows(pool, rows, ['{1}']), [['1', 'one', '9007199254740993']]);
    // A statement whose preparation failed is prepared again when it is asked for again.
    await pool.query('CREATE TABLE missing (x int)');
    await pool.query('INSERT INTO missing VALUES (42)');
    assert.deepEqual(await textRows(pool, { name: 'text_rows_missing', text: 'SELECT * FROM missing' }, []), [['42']]);
  });
});
