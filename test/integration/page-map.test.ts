import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import Database from 'better-sqlite3';
import { fixtureDatabase } from '../helpers/fixture-server.js';
import { basic, spawnServe, TEST_TOKEN } from '../helpers/server.js';
import { mapForReading } from '../../src/store/sqlite/store.js';
import { mapPages } from '../../src/store/sqlite/page-map.js';

/**
 * A serving process reads the pages it reads at random (foods' rows, their ids' index, search
 * blobs) once through SQLite's memory map, in turns, once it listens
 * (src/store/sqlite/page-map.ts), so its first searches do not each fault pages in. Measured
 * where the kernel keeps it: the bytes of the file resident in the process's mapping of it
 * (/proc/PID/smaps).
 */
const fixture = fixtureDatabase();
let db: string;

/** Bytes of `path` resident in process `pid`'s memory maps of it. */
function residentOfFile(pid: number | 'self', path: string): number {
  let kib = 0;
  let inFile = false;
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    // A mapping's first line: address range, permissions, offset, device, inode, path.
    if (/^[0-9a-f]+-[0-9a-f]+ /.test(line)) inFile = line.trimEnd().endsWith(` ${path}`);
    else if (inFile && line.startsWith('Rss:')) kib += Number(/(\d+) kB/.exec(line)![1]);
  }
  return kib * 1024;
}

/** Bytes of the B-trees the walk reads, and of the whole file. */
function walkedBytes(): { walked: number; file: number } {
  const reader = new Database(db, { readonly: true });
  try {
    const walked = reader.prepare<[], number>("SELECT sum(pgsize) FROM dbstat WHERE name IN ('foods', 'sqlite_autoindex_foods_1', 'search_blobs')").pluck().get()!;
    return { walked, file: statSync(db).size };
  } finally {
    reader.close();
  }
}

describe('the pages searches read at random, read once through the memory map', () => {
  before(() => {
    db = fixture.db;
    // Many more foods than the fixture's: the engine's warm-up reads none of their rows, so
    // only the walk maps their pages (the server's searches of its own are off below). The
    // rows copied under new rids and ids until there are enough.
    const writer = new Database(db);
    const columns = writer.prepare<[], string>("SELECT name FROM pragma_table_info('foods')").pluck().all();
    const copy = columns.map((c) => (c === 'rid' ? 'rid + @shift' : c === 'id' || c === 'revision_id' ? `${c} || '-' || @copy` : c)).join(', ');
    const double = writer.prepare(`INSERT INTO foods (${columns.join(', ')}) SELECT ${copy} FROM foods`);
    const ridLimit = writer.prepare<[], number>('SELECT max(rid) + 1 FROM foods').pluck();
    const foodsBytes = writer.prepare<[], number>("SELECT sum(pgsize) FROM dbstat WHERE name = 'foods'").pluck();
    writer.transaction(() => {
      for (let copyNumber = 1; foodsBytes.get()! < 24 * 2 ** 20; copyNumber++) double.run({ shift: ridLimit.get()!, copy: copyNumber });
    })();
    writer.pragma('wal_checkpoint(TRUNCATE)');
    writer.close();
  });

  test('a new server reads them once it listens, and says so in its log and on /readyz', async () => {
    const { walked, file } = walkedBytes();
    assert.ok(walked > 24 * 2 ** 20, `${walked} bytes to walk`);
    // Without the searches of its own that follow the walk (warm-searches.ts): they read rows
    // of their own, and only the walk's pages are measured here.
    const server = await spawnServe(db, { FOODLOOKUP_WARM_SEARCHES: '0' });
    try {
      const said = 'read the pages searches read at random once';
      for (let waited = 0; !server.stdout().includes(said) && waited < 20_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
      // The worker's log (stdout).
      const line = server.stdout().split('\n').find((l) => l.includes(said));
      assert.ok(line !== undefined, server.stdout());
      const logged = JSON.parse(line) as { pid: number; bytes: number; ms: number };
      // The file as the worker found it (its pages in the write-ahead log too).
      assert.ok(Math.abs(logged.bytes - file) < 0.01 * file, `${logged.bytes} bytes logged, ${file} on disk`);
      assert.deepEqual(execFileSync('pgrep', ['-P', String(server.pid)], { encoding: 'utf8' }).trim().split('\n').map(Number), [logged.pid], 'the worker logged it');
      const resident = residentOfFile(logged.pid, db);
      assert.ok(resident >= 0.95 * walked, `${resident} bytes of the file mapped, of ${walked} walked`);
      const ready = (await (await fetch(`${server.url}/readyz`)).json()) as { catalog: { filePages?: string } };
      assert.equal(ready.catalog.filePages, 'read');
      const answer = await fetch(`${server.url}/v1/foods?query=cheddar`, { headers: { authorization: basic(TEST_TOKEN) } });
      assert.equal(answer.status, 200);
    } finally {
      assert.equal(await server.stop(), 0);
    }
  });

  test('not read where the file is over half the available memory or past the map, and stopped when the connection closes', async () => {
    const { walked, file } = walkedBytes();
    const reader = new Database(db, { readonly: true });
    try {
      mapForReading(reader);
      reader.prepare('SELECT count(*) FROM meta').get();
      const tooBig = await mapPages(reader, { available: 2 * file - 4096 });
      assert.equal(tooBig.mapped, false);
      assert.match(tooBig.mapped ? '' : tooBig.because, /more than half the memory available/);
      assert.ok(residentOfFile('self', db) < 0.5 * walked, 'nothing read');
      reader.pragma('mmap_size = 1048576');
      const pastMap = await mapPages(reader, { available: 64 * file });
      assert.match(pastMap.mapped ? '' : pastMap.because, /larger than its memory map \(1 MiB\)/);
      mapForReading(reader);
      const done = await mapPages(reader, { available: 2 * file, turnMs: 1 });
      assert.equal(done.mapped, true);
      assert.ok(residentOfFile('self', db) >= 0.95 * walked, `${residentOfFile('self', db)} of ${walked} bytes`);
    } finally {
      reader.close();
    }
    const closing = new Database(db, { readonly: true });
    mapForReading(closing);
    const walking = mapPages(closing, { available: 2 * file, turnMs: 1 });
    closing.close();
    const stopped = await walking;
    assert.match(stopped.mapped ? '' : stopped.because, /the store closed first/);
  });
});
