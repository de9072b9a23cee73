/**
 * A cold search's page of rows on the PostgreSQL store, alone: 20 random rows of the current
 * catalogue version by their row addresses (the store's TID scan), read one page at a time
 * through pg's own Query (arrays of text, a parser per value that returns it, as the store read
 * them before text-rows.ts) and through the store's TextRowsQuery (no row description), in
 * alternating blocks so that both see the same machine. Prints the wall time and this
 * process's CPU time a page for each.
 *
 *   node dist/bench/row-reads.js [--database-url postgres://…/foodlookup_bench_1000000] [--blocks 40] [--block 100]
 *
 * The database is the bench's (bench/postgres.ts benchDatabaseUrl, 1,000,000 foods) unless given.
 */
import pg from 'pg';
import { parseArgs } from 'node:util';
import { openPool, withClient } from '../src/store/postgres/connection.js';
import { FOOD_COLUMNS } from '../src/store/record-rows.js';
import { textRows, type TextRow } from '../src/store/postgres/text-rows.js';
import { benchDatabaseUrl } from './postgres.js';
import { seededRandom } from './random.js';

const { values } = parseArgs({
  options: {
    'database-url': { type: 'string' },
    blocks: { type: 'string', default: '40' },
    block: { type: 'string', default: '100' },
  },
});
const url = values['database-url'] ?? benchDatabaseUrl(1_000_000);
const { schema, blocks } = await withClient(url, async (client) => {
  const meta = await client.query<{ value: string }>("SELECT value FROM foodlookup_meta WHERE key = 'catalog_schema'");
  const name = meta.rows[0]?.value;
  if (!name || !/^foodlookup_cat_\d+$/.test(name)) throw new Error(`${url}: no catalogue`);
  const pages = await client.query<{ n: number }>(`SELECT relpages::int AS n FROM pg_class WHERE oid = '${name}.foods'::regclass`);
  return { schema: name, blocks: pages.rows[0]!.n };
});

const statement = { name: 'bench_rows_tid', text: `SELECT f.rid, ${FOOD_COLUMNS} FROM ${schema}.foods f WHERE f.ctid = ANY($1::tid[])` };
const random = seededRandom(7);
/** 20 addresses of random blocks (a block holds ~7 rows: lines 1–6 exist in nearly every one). */
const page = (): string => `{${Array.from({ length: 20 }, () => `"(${Math.floor(random() * blocks)},${1 + Math.floor(random() * 6)})"`).join(',')}}`;
const AS_TEXT: pg.CustomTypesConfig = { getTypeParser: ((): unknown => (value: string): string => value) as pg.CustomTypesConfig['getTypeParser'] };

const pool = openPool(url, { max: 2 });
const ways: Record<string, (addresses: string) => Promise<readonly unknown[]>> = {
  "pg's Query": async (addresses) => (await pool.query<TextRow>({ ...statement, values: [addresses], types: AS_TEXT, rowMode: 'array' })).rows,
  TextRowsQuery: (addresses) => textRows(pool, statement, [addresses]),
};
const totals = new Map(Object.keys(ways).map((name) => [name, { wall: 0, cpu: 0, pages: 0, rows: 0 }]));
const size = Number(values.block);
for (let b = 0; b < Number(values.blocks) + 2; b++) {
  for (const [name, read] of Object.entries(ways)) {
    const pages = Array.from({ length: size }, page);
    const cpu = process.cpuUsage();
    const started = performance.now();
    let rows = 0;
    for (const addresses of pages) rows += (await read(addresses)).length;
    const wall = performance.now() - started;
    const used = process.cpuUsage(cpu);
    // The first two blocks of each warm up (connections, preparation, JIT).
    if (b < 2) continue;
    const t = totals.get(name)!;
    t.wall += wall * 1000;
    t.cpu += used.user + used.system;
    t.pages += size;
    t.rows += rows;
  }
}
await pool.end();
process.stdout.write(`pages of 20 random rows by address, ${schema}, ${Number(values.blocks) * size} a way in blocks of ${size}:\n`);
for (const [name, t] of totals) {
  process.stdout.write(`${name.padEnd(14)} wall ${Math.round(t.wall / t.pages)} µs a page, our CPU ${Math.round(t.cpu / t.pages)} µs (${(t.rows / t.pages).toFixed(1)} rows a page)\n`);
}
