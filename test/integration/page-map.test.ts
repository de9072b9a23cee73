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
 * A serving process reads its database's pages once through SQLite's memory map before it
 * listens (src/store/sqlite/page-map.ts), so its first searches do not each fault pages in.
 * Measured where the kernel keeps it: the bytes of the file resident in the process's mapping
 * of it (/proc/PID/smaps).
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

describe('the database file read once through its memory map at start', () => {
  before(() => {
    db = fixture.db;
    // Pages no search reads at start: the fixture's catalogue alone is small enough for the
    // engine's warm-up to read most of it.
    const writer = new Database(db);
    writer.exec('CREATE TABLE padding (bytes BLOB NOT NULL)');
    const insert = writer.prepare('INSERT INTO padding (bytes) VALUES (randomblob(6000))');
    writer.transaction(() => {
      for (let i = 0; i < 3000; i++) insert.run();
    })();
    writer.pragma('wal_checkpoint(TRUNCATE)');
    writer.close();
  });

  test('a new server has the whole file mapped before it listens, and says so', async () => {
    const size = statSync(db).size;
    assert.ok(size > 16 * 1024 * 1024, `padded to ${size} bytes`);
    const server = await spawnServe(db);
    try {
      // The worker's log (stdout) was written before it listened.
      const line = server.stdout().split('\n').find((l) => l.includes('read the database file once through its memory map'));
      assert.ok(line !== undefined, server.stdout());
      const logged = JSON.parse(line) as { pid: number; bytes: number; ms: number };
      assert.equal(logged.bytes, size);
      assert.deepEqual(execFileSync('pgrep', ['-P', String(server.pid)], { encoding: 'utf8' }).trim().split('\n').map(Number), [logged.pid], 'the worker logged it');
      assert.ok(residentOfFile(logged.pid, db) >= 0.95 * size, `${residentOfFile(logged.pid, db)} of ${size} bytes mapped`);
      const answer = await fetch(`${server.url}/v1/foods?query=cheddar`, { headers: { authorization: basic(TEST_TOKEN) } });
      assert.equal(answer.status, 200);
    } finally {
      assert.equal(await server.stop(), 0);
    }
  });

  test('left to be mapped by use where the file is over half the available memory, or past the map', () => {
    const size = statSync(db).size;
    const reader = new Database(db, { readonly: true });
    try {
      mapForReading(reader);
      reader.prepare('SELECT count(*) FROM meta').get();
      const tooBig = mapPages(reader, 2 * size - 4096);
      assert.equal(tooBig.mapped, false);
      assert.match(tooBig.mapped ? '' : tooBig.because, /more than half the memory available/);
      assert.ok(residentOfFile('self', db) < 0.5 * size, 'nothing read');
      reader.pragma('mmap_size = 1048576');
      const pastMap = mapPages(reader, 64 * size);
      assert.match(pastMap.mapped ? '' : pastMap.because, /larger than its memory map \(1 MiB\)/);
      mapForReading(reader);
      const done = mapPages(reader, 2 * size);
      assert.equal(done.mapped, true);
      assert.ok(residentOfFile('self', db) >= 0.95 * size);
    } finally {
      reader.close();
    }
  });
});
