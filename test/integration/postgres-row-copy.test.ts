import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { ConfigError, loadConfig } from '../../src/config.js';
import { openPool } from '../../src/store/postgres/connection.js';
import { ROW_FILE_COLUMNS, RowFile } from '../../src/store/postgres/row-file.js';
import { FOOD_COLUMNS, foodRowOf, type FoodValues } from '../../src/store/record-rows.js';
import { fixtureCatalog, IDS } from '../helpers/fixture-catalog.js';
import { fixturePath, tempDir } from '../helpers/paths.js';
import { runCli } from '../helpers/cli.js';
import { ADMIN_DATABASE_URL, NO_POSTGRES, testDatabaseUrl } from '../helpers/postgres.js';
import { basic, localRowsReady, spawnServe, startTestServer, TEST_TOKEN, type TestServer } from '../helpers/server.js';
import { postgresStore } from '../helpers/stores.js';
import { random } from '../helpers/random-catalog.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

/**
 * A PostgreSQL replica's copy of the catalogue's rows on its own disk (--row-copy-dir,
 * store/postgres/row-file.ts): made from COPY's binary output however it is cut into chunks,
 * read by the pages of searches without PostgreSQL, made again for each new version, and
 * leaving no file behind.
 */

/** The copies this process holds open: unlinked files of the folder (the descriptor keeps them). */
function openCopies(dir: string): string[] {
  return readdirSync('/proc/self/fd').flatMap((fd) => {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      return target.startsWith(`${dir}/foodlookup-rows-`) ? [target] : [];
    } catch {
      return [];
    }
  });
}

describe("a replica's copy of the rows on its own disk", { skip: ADMIN_DATABASE_URL ? false : NO_POSTGRES }, () => {
  const temp = tempDir('foodlookup-row-copy-');
  const copies = join(temp.dir, 'copies');
  let proxy: TcpProxy;
  let server: TestServer;
  let url: URL;

  before(async () => {
    url = new URL((await testDatabaseUrl())!);
    const imported = await runCli(['import', 'catalog', fixturePath('catalog.json'), '--database-url', url.toString()]);
    assert.equal(imported.code, 0, imported.stderr);
    proxy = await startTcpProxy(Number(url.port || 5432), url.hostname);
    const proxied = new URL(url);
    proxied.host = `127.0.0.1:${proxy.port}`;
    mkdirSync(copies);
    server = await startTestServer(postgresStore(proxied.toString()), { FOODLOOKUP_ROW_COPY_DIR: copies });
    await localRowsReady(server.url);
  });

  after(async () => {
    await proxy?.restore();
    await server?.close();
    await proxy?.close();
    temp.cleanup();
  });

  it('leaves no name in the folder: one unlinked file, held open', () => {
    assert.deepEqual(readdirSync(copies), []);
    const open = openCopies(copies);
    assert.equal(open.length, 1, JSON.stringify(open));
    assert.match(open[0]!, / \(deleted\)$/);
  });

  it('answers searches never asked before from the copy while PostgreSQL is away', async () => {
    await proxy.cut();
    try {
      // PostgreSQL is really away: a list of brands is paged in SQL.
      assert.equal((await server.get('/v1/brands?classifications=Cheese')).status, 503);
      for (const query of ['cheese', 'milk', 'brie', 'macadamia', 'cheddar sharp']) {
        const answer = await server.get(`/v1/foods?query=${encodeURIComponent(query)}&limit=5&fields=foodId,name,nutrients`);
        assert.equal(answer.status, 200, `${query}: ${answer.text}`);
        const items = (answer.body as { foods: { foodId: string; name: string }[] }).foods;
        assert.ok(items.length > 0, `${query}: ${answer.text}`);
      }
      const page = await server.get('/v1/foods?limit=100&order=name:desc');
      assert.equal(page.status, 200, page.text);
    } finally {
      await proxy.restore();
    }
  });

  it('copies each new version and frees the copy of the one before', async () => {
    const before = await server.get('/readyz');
    const version = (before.body as { catalog: { version: number } }).catalog.version;
    const changed = fixtureCatalog();
    const food = changed.foods.find((f) => f.foodId === IDS.brie)!;
    food.name = `${String(food.name)} (rennet-free)`;
    const file = join(temp.dir, 'changed.json');
    writeFileSync(file, JSON.stringify(changed));
    const imported = await runCli(['import', 'catalog', file, '--database-url', url.toString(), '--replace']);
    assert.equal(imported.code, 0, imported.stderr);
    await localRowsReady(server.url, version + 1);
    assert.equal(openCopies(copies).length, 1, JSON.stringify(openCopies(copies)));
    await proxy.cut();
    try {
      const answer = await server.get('/v1/foods?query=rennet&fields=name');
      assert.equal(answer.status, 200, answer.text);
      assert.deepEqual((answer.body as { foods: { name: string }[] }).foods.map((i) => i.name), [food.name]);
    } finally {
      await proxy.restore();
    }
  });
});

describe('a copy that fails', { skip: ADMIN_DATABASE_URL ? false : NO_POSTGRES }, () => {
  it('is logged with its reason (never the password), leaves the pages to PostgreSQL, and is made again later', async () => {
    const temp = tempDir('foodlookup-row-copy-fail-');
    const url = new URL((await testDatabaseUrl())!);
    const imported = await runCli(['import', 'catalog', fixturePath('catalog.json'), '--database-url', url.toString()]);
    assert.equal(imported.code, 0, imported.stderr);
    const proxy = await startTcpProxy(Number(url.port || 5432), url.hostname);
    // The server trusts local connections: a password it ignores, which no line may show.
    const proxied = new URL(url);
    proxied.host = `127.0.0.1:${proxy.port}`;
    proxied.username = 'postgres';
    proxied.password = 'row-copy-secret';
    let served: Awaited<ReturnType<typeof spawnServe>> | undefined;
    try {
      served = await spawnServe(postgresStore(proxied.toString()), { FOODLOOKUP_ROW_COPY_DIR: temp.dir, FOODLOOKUP_ROW_COPY_RETRY_MS: '300' });
      await localRowsReady(served.url);
      const first = ((await (await fetch(`${served.url}/readyz`)).json()) as { catalog: { version: number } }).catalog.version;
      const logged = async (message: string, version: number): Promise<Record<string, unknown> | undefined> => {
        const until = Date.now() + 15_000;
        for (;;) {
          const found = served!.stdout().split('\n').filter((l) => l.includes(message)).map((l) => JSON.parse(l) as Record<string, unknown>)
            .find((line) => line['version'] === version);
          if (found !== undefined || Date.now() > until) return found;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      };
      assert.ok(await logged('rows copied to the local disk', first), served.stdout());
      // The next version's copy: PostgreSQL stops answering the moment it asks for the rows, and is cut then.
      proxy.hangOn('COPY (SELECT f.rid');
      const changed = fixtureCatalog();
      changed.foods[0]!.name = 'Cheese, a new version';
      const file = join(temp.dir, 'changed.json');
      writeFileSync(file, JSON.stringify(changed));
      const again = await runCli(['import', 'catalog', file, '--database-url', url.toString()]);
      assert.equal(again.code, 0, again.stderr);
      const until = Date.now() + 10_000;
      while (!served.stdout().includes(`"version":${first + 1}`) && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
      await new Promise((resolve) => setTimeout(resolve, 200));
      await proxy.cut();
      await proxy.restore();
      const failed = await logged('rows not copied to the local disk', first + 1);
      assert.ok(failed, served.stdout() + served.stderr());
      assert.equal(failed['level'], 40);
      assert.equal(failed['retryInMs'], 300);
      assert.equal(typeof failed['err'], 'string');
      const copied = await logged('rows copied to the local disk', first + 1);
      assert.ok(copied, served.stdout());
      assert.equal(copied['level'], 30);
      await localRowsReady(served.url, first + 1);
      const answer = await fetch(`${served.url}/v1/foods?query=cheese&limit=5`, { headers: { authorization: basic(TEST_TOKEN) } });
      assert.equal(answer.status, 200);
      assert.doesNotMatch(served.stdout() + served.stderr(), /row-copy-secret/);
    } finally {
      await served?.stop();
      await proxy.close();
      temp.cleanup();
    }
  });
});

describe("a copy made from COPY's binary output cut anywhere", { skip: ADMIN_DATABASE_URL ? false : NO_POSTGRES }, () => {
  const temp = tempDir('foodlookup-row-file-');
  let pool: pg.Pool;
  let output: Buffer;
  let expected: (ReturnType<typeof foodRowOf>)[];
  let ridLimit: number;

  before(async () => {
    const url = (await testDatabaseUrl())!;
    const imported = await runCli(['import', 'catalog', fixturePath('catalog.json'), '--database-url', url]);
    assert.equal(imported.code, 0, imported.stderr);
    // No request bound on this pool: pg-copy-streams' reads would leave its timer running.
    pool = openPool(url, { max: 1, statementTimeoutMs: 0 });
    const schema = (await pool.query<{ value: string }>("SELECT value FROM foodlookup_meta WHERE key = 'catalog_schema'")).rows[0]!.value;
    const rows = await pool.query<FoodValues & unknown[]>({ text: `SELECT f.rid, ${FOOD_COLUMNS} FROM ${schema}.foods f ORDER BY f.rid`, rowMode: 'array' });
    expected = rows.rows.map((values) => foodRowOf(values));
    ridLimit = expected[expected.length - 1]!.rid + 1;
    const client = await pool.connect();
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of client.query(copyTo(`COPY (SELECT ${ROW_FILE_COLUMNS} FROM ${schema}.foods f) TO STDOUT (FORMAT binary)`))) chunks.push(chunk as Buffer);
      output = Buffer.concat(chunks);
    } finally {
      client.release();
    }
  });

  after(async () => {
    await pool?.end();
    temp.cleanup();
  });

  /** The output in pieces of 1 to `most` bytes. */
  function cut(bytes: Buffer, seed: number, most: number): Buffer[] {
    const r = random(seed);
    const pieces: Buffer[] = [];
    for (let at = 0; at < bytes.length;) {
      const n = 1 + Math.floor(r() * most);
      pieces.push(bytes.subarray(at, at + n));
      at += n;
    }
    return pieces;
  }

  it('gives every row as PostgreSQL has it, however the chunks fall', async () => {
    assert.ok(expected.length >= 5 && output.length > 2000, `${expected.length} rows, ${output.length} bytes`);
    for (const [seed, most] of [[1, 1], [2, 3], [3, 17], [4, 300], [5, output.length]] as const) {
      const file = await RowFile.copy(Readable.from(cut(output, seed, most)), temp.dir, ridLimit, new AbortController().signal);
      try {
        assert.deepEqual(expected.map((row) => file.row(row.rid)), expected, `pieces of up to ${most} bytes`);
        assert.deepEqual([...expected].reverse().map((row) => file.row(row.rid)), [...expected].reverse());
        // A rid with no row: the caller reads from PostgreSQL.
        assert.equal(file.row(ridLimit + 5), undefined);
        assert.equal(file.row(-1), undefined);
      } finally {
        file.close();
      }
      assert.equal(file.row(expected[0]!.rid), undefined, 'a closed copy reads nothing');
    }
    assert.deepEqual(readdirSync(temp.dir), []);
  });

  it('refuses a cut-off stream, a stream that is not binary, a rid out of range and an abort, leaving no file', async () => {
    const attempt = (bytes: Buffer[], limit = ridLimit, signal = new AbortController().signal): Promise<RowFile> =>
      RowFile.copy(Readable.from(bytes), temp.dir, limit, signal);
    await assert.rejects(attempt([output.subarray(0, output.length - 2)]), /ended before its trailer/);
    await assert.rejects(attempt([Buffer.from('1\tabc\n'.repeat(10))]), /not in the binary format/);
    await assert.rejects(attempt([output], expected[expected.length - 1]!.rid), /beyond the catalogue's/);
    await assert.rejects(attempt([output, Buffer.from([0, 1])]), /goes on after its end/);
    const stop = new AbortController();
    stop.abort();
    await assert.rejects(attempt(cut(output, 9, 100), ridLimit, stop.signal), { name: 'AbortError' });
    assert.deepEqual(readdirSync(temp.dir), []);
    assert.deepEqual(openCopies(temp.dir), []);
  });
});

describe('the row copy folder, configured', () => {
  it('must be a folder the process can write to, and is used with PostgreSQL only', () => {
    const postgres = { 'database-url': 'postgres://u@db.example.com/f' };
    assert.throws(() => loadConfig({ ...postgres, 'row-copy-dir': '/nonexistent/foodlookup' }, {}), (error: unknown) =>
      error instanceof ConfigError && /row copy dir '\/nonexistent\/foodlookup' must be a folder this process can write to: ENOENT/.test(error.message));
    assert.throws(() => loadConfig(postgres, { FOODLOOKUP_ROW_COPY_DIR: fixturePath('catalog.json') }), /is not a folder/);
    assert.equal(loadConfig({ ...postgres, 'row-copy-dir': '.' }, {}).rowCopyDir, process.cwd());
    assert.equal(loadConfig({ db: 'x.db', 'row-copy-dir': '/nonexistent' }, {}).rowCopyDir, undefined);
  });

  it('stops serve with a usage error naming the folder', async () => {
    const result = await runCli(['serve', '--database-url', 'postgres://u@127.0.0.1:1/f', '--row-copy-dir', '/nonexistent/rows']);
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr.split('\n')[0]!, /^foodlookup serve: row copy dir '\/nonexistent\/rows' must be a folder/);
  });
});
