import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { openSync, readSync, closeSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { readCatalog } from '../../src/importers/catalog/reader.js';
import { ImportFailed, runImport } from '../../src/importers/run-import.js';
import { SqliteCatalogStore } from '../../src/store/sqlite/store.js';
import { SqliteTokenStore } from '../../src/store/sqlite/token-store.js';
import { enterWal, restInRollbackMode, returnToWal, takeRollbackJournal } from '../../src/store/sqlite/import-journal.js';
import { PAGE_SIZE_BYTES } from '../../src/store/sqlite/page-size.js';
import { fixturePath, tempDir } from '../helpers/paths.js';
import { fixtureCatalog } from '../helpers/fixture-catalog.js';

/** The journal mode the file itself records: bytes 18 and 19 of the header are 2 in WAL mode, 1 otherwise. */
function fileIsWal(path: string): boolean {
  const header = Buffer.alloc(20);
  const fd = openSync(path, 'r');
  try {
    readSync(fd, header, 0, 20, 0);
  } finally {
    closeSync(fd);
  }
  return header[18] === 2 && header[19] === 2;
}

const foodCount = (db: Database.Database): number => db.prepare('SELECT count(*) FROM foods').pluck().get() as number;

/**
 * A catalogue store on a new file, closed and the file removed once `use` is done; `make`, when
 * given, creates the file first (another program, another page size).
 */
async function withStoreFile(
  use: (store: SqliteCatalogStore, path: string, dir: string) => Promise<void>,
  make?: (path: string) => void | Promise<void>,
): Promise<void> {
  const { dir, cleanup } = tempDir();
  const path = join(dir, 'catalog.db');
  let store: SqliteCatalogStore | undefined;
  try {
    await make?.(path);
    store = new SqliteCatalogStore(path);
    await use(store, path, dir);
  } finally {
    await store?.close();
    cleanup();
  }
}

/** Imports the fixture catalogue; `onFinishing` runs while the import's transaction is still open. */
const importFixture = (store: SqliteCatalogStore, onFinishing?: () => void) =>
  runImport(store, readCatalog([fixturePath('catalog.json')], {}), { replace: false, skipInvalid: false, ...(onFinishing ? { onFinishing } : {}) });

// An import takes a rollback journal only when nothing else has the database open (import-journal.ts).
describe('the journal an import writes through', () => {
  test('alone, an import writes through a rollback journal and leaves the database in WAL mode', () => withStoreFile(async (store, path) => {
    const during: string[] = [];
    const summary = await importFixture(store, () => during.push(store.connection.pragma('journal_mode', { simple: true }) as string));
    assert.ok(summary.added > 0);
    assert.deepEqual(during, ['delete']);
    assert.equal(store.connection.pragma('journal_mode', { simple: true }), 'wal');
    assert.equal(fileIsWal(path), true);
  }));

  test('while another connection has the database open, the import keeps WAL and that connection reads on', () => withStoreFile(async (store, path) => {
    const reader = new Database(path, { readonly: true, timeout: 0 });
    try {
      const before = foodCount(reader);
      const seen: { mode: string; foods: number }[] = [];
      await importFixture(store, () => seen.push({ mode: store.connection.pragma('journal_mode', { simple: true }) as string, foods: foodCount(reader) }));
      // The reader saw the catalogue as it was, mid-import, without waiting for the writer.
      assert.deepEqual(seen, [{ mode: 'wal', foods: before }]);
      assert.ok(foodCount(reader) > before);
    } finally {
      reader.close();
    }
  }));

  const openers: [string, (path: string) => Promise<void>][] = [
    ['a catalogue store', (path) => new SqliteCatalogStore(path).close()],
    ['a token store (tokens commands)', (path) => SqliteTokenStore.open(path).close()],
  ];
  for (const [what, open] of openers) test(`${what} opened while an import has the database to itself fails with a message that says so`, () => withStoreFile(async (store, path) => {
    let opened: unknown;
    await importFixture(store, () => {
      try {
        open(path).catch(() => undefined);
        opened = 'opened';
      } catch (error) {
        opened = error;
      }
    });
    assert.ok(opened instanceof Error, `expected an error, got ${String(opened)}`);
    assert.match(opened.message, /is being written by an import that has it to itself/);
    // The import itself went through, and the database is shared again.
    const again = new SqliteCatalogStore(path, { readonly: true });
    assert.ok((await again.state()).version > 0);
    await again.close();
  }));

  // Two replicas (or workers) opening a file at rest at the same moment both switch it to WAL;
  // where waiting could deadlock SQLite answers SQLITE_BUSY at once, without its busy timeout
  // (seen once with two replicas started together). Here a real connection's first two switches
  // are answered so by a wrapper: the race itself cannot be timed from a test.
  test('a connection that meets another one switching the file to WAL tries again, and serves in WAL', () => withStoreFile(async (store, path) => {
    await importFixture(store);
    await store.close();
    restInRollbackMode(path);
    assert.equal(fileIsWal(path), false);
    const db = new Database(path);
    try {
      let refused = 0;
      const meetsAnother = new Proxy(db, {
        get(target, key) {
          if (key !== 'pragma') return Reflect.get(target, key, target) as unknown;
          return (source: string, options?: Database.PragmaOptions) => {
            if (source === 'journal_mode = WAL' && refused < 2) {
              refused++;
              throw new Database.SqliteError('database is locked', 'SQLITE_BUSY');
            }
            return target.pragma(source, options);
          };
        },
      });
      enterWal(meetsAnother, path);
      assert.equal(refused, 2);
      assert.equal(db.pragma('journal_mode', { simple: true }), 'wal');
      assert.ok(fileIsWal(path));
      // Refused throughout, it gives up after its retries with the import's message.
      const alwaysBusy = new Proxy(db, {
        get: (target, key) => key === 'pragma'
          ? () => { throw new Database.SqliteError('database is locked', 'SQLITE_BUSY'); }
          : Reflect.get(target, key, target) as unknown,
      });
      const started = performance.now();
      assert.throws(() => enterWal(alwaysBusy, path, 60), /is being written by an import that has it to itself/);
      assert.ok(performance.now() - started >= 30, 'it waited before giving up');
    } finally {
      db.close();
    }
  }));

  // A large import spills its cache and holds the file's exclusive lock: then even reading the
  // page count (a new file's page size, page-size.ts) waits, and must fail with the same words.
  for (const [what, open] of openers) test(`${what} opened while an import holds the exclusive lock fails with a message that says so`, () => withStoreFile(async (store, path) => {
    await importFixture(store);
    await store.close();
    const writer = new Database(path);
    try {
      writer.pragma('journal_mode = DELETE');
      writer.exec('BEGIN EXCLUSIVE');
      await assert.rejects(async () => open(path), /is being written by an import that has it to itself/);
      writer.exec('ROLLBACK');
    } finally {
      writer.close();
    }
  }));

  test('a failed import alone rolls back and leaves the database in WAL mode, as it was', () => withStoreFile(async (store, path, dir) => {
    await importFixture(store);
    const version = (await store.state()).version;
    const foods = foodCount(store.connection);
    const catalog = fixtureCatalog();
    catalog.foods[0]!.brand = '00000000-0000-4000-8000-00000000dead';
    const broken = join(dir, 'broken.json');
    writeFileSync(broken, JSON.stringify(catalog));
    await assert.rejects(runImport(store, readCatalog([broken], {}), { replace: false, skipInvalid: false }), ImportFailed);
    assert.equal((await store.state()).version, version);
    assert.equal(foodCount(store.connection), foods);
    assert.equal(store.connection.pragma('journal_mode', { simple: true }), 'wal');
    assert.equal(fileIsWal(path), true);
  }));

  test('the way back to WAL does not fail a finished import when a foreign reader holds the lock it needs', () => {
    const { dir, cleanup } = tempDir();
    const path = join(dir, 'plain.db');
    const db = new Database(path);
    const foreign = new Database(path, { timeout: 0 });
    try {
      db.pragma('journal_mode = WAL');
      db.exec('CREATE TABLE t (x); INSERT INTO t VALUES (1)');
      foreign.prepare('SELECT count(*) FROM t').get();
      assert.equal(takeRollbackJournal(db, path), false, 'another connection is open');
      foreign.close();
      assert.equal(takeRollbackJournal(db, path), true);
      const reader = new Database(path, { timeout: 0 });
      reader.exec('BEGIN');
      reader.prepare('SELECT count(*) FROM t').get();
      db.pragma('busy_timeout = 0');
      returnToWal(db);
      assert.equal(db.pragma('journal_mode', { simple: true }), 'delete');
      reader.exec('COMMIT');
      reader.close();
      returnToWal(db);
      assert.equal(db.pragma('journal_mode', { simple: true }), 'wal');
    } finally {
      if (foreign.open) foreign.close();
      db.close();
      cleanup();
    }
  });
});

describe('the page size of the file', () => {
  const pageSize = (db: Database.Database): number => db.pragma('page_size', { simple: true }) as number;

  test('a new file gets 16 KiB pages and an import keeps them', () => withStoreFile(async (store, path) => {
    assert.equal(pageSize(store.connection), PAGE_SIZE_BYTES);
    assert.equal(PAGE_SIZE_BYTES, 16_384);
    await importFixture(store);
    const reader = new Database(path, { readonly: true });
    try {
      assert.equal(pageSize(reader), PAGE_SIZE_BYTES);
      assert.ok(foodCount(reader) > 0);
    } finally {
      reader.close();
    }
  }));

  test('a file that `tokens create` makes first gets 16 KiB pages, which the catalogue then keeps', () => withStoreFile(async (store) => {
    await importFixture(store);
    assert.equal(pageSize(store.connection), PAGE_SIZE_BYTES);
  }, (path) => SqliteTokenStore.open(path, { create: true }).close()));

  test('a file made with other pages keeps them: the store opens, imports into and reads it', () => withStoreFile(async (store) => {
    assert.equal(pageSize(store.connection), 4096);
    const summary = await importFixture(store);
    assert.ok(summary.added > 0);
    assert.equal(pageSize(store.connection), 4096);
    assert.ok(foodCount(store.connection) > 0);
  }, (path) => {
    const made = new Database(path);
    made.pragma('page_size = 4096');
    made.pragma('journal_mode = WAL');
    made.close();
  }));
});
