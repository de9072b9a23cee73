import BetterSqlite3, { type Database } from 'better-sqlite3';
import { isBusyError } from './busy.js';
import { sizeNewPages } from './page-size.js';

/**
 * The journal an import writes through. Readers use WAL, so an import never blocks them; but in
 * WAL mode every page an import writes is written twice (to the WAL, then copied into the
 * database by the checkpoint at commit), and every page it reads back is first looked up in
 * the WAL index. A first import of 1,000,000 foods took 138 s in WAL mode and 111 s with a
 * rollback journal, its commit 12 s against 0.3 s (`git log -p bench/README.md`).
 *
 * So an import takes the rollback journal when nothing else has the database open, and keeps
 * WAL otherwise: leaving WAL needs every other connection closed, and SQLite refuses at once
 * (SQLITE_BUSY) when one is open, whatever its state. A server that is running therefore
 * keeps answering from the old catalogue during the import, as before.
 */

/**
 * Switches to a rollback journal when this is the only connection; returns whether it did.
 * FULL sync: in rollback mode NORMAL may lose the database to a power cut at a bad moment.
 */
export function takeRollbackJournal(db: Database, path: string): boolean {
  if (path === ':memory:' || path === '') return false;
  const timeout = db.pragma('busy_timeout', { simple: true }) as number;
  db.pragma('busy_timeout = 0');
  try {
    if (db.pragma('journal_mode = DELETE', { simple: true }) !== 'delete') return false;
  } catch (error) {
    if (isBusyError(error)) return false;
    throw error;
  } finally {
    db.pragma(`busy_timeout = ${timeout}`);
  }
  db.pragma('synchronous = FULL');
  return true;
}

/**
 * Back to WAL once the import's transaction has ended (committed or rolled back). A connection
 * that is not ours (ours all enter WAL) may have begun reading in between and hold the lock
 * the switch needs: then the database stays in rollback mode until one of ours opens it
 * (enterWal), rather than a committed import being reported as failed.
 */
export function returnToWal(db: Database): void {
  db.pragma('synchronous = NORMAL');
  try {
    db.pragma('journal_mode = WAL');
  } catch (error) {
    if (!isBusyError(error)) throw error;
  }
}

/**
 * How long a new connection keeps trying to enter WAL while the file is busy. Two processes
 * opening a database at rest (rollback mode) at the same moment, two replicas or two workers,
 * both switch it to WAL; where waiting could deadlock, SQLite answers SQLITE_BUSY at once
 * rather than call the busy handler (sqlite3_busy_handler's documentation). One of two
 * replicas the test suite started together failed so, with the import's message below. Tried
 * again, the file is in WAL; an import that has it to itself holds it far longer.
 */
const ENTER_WAL_RETRY_MS = 1000;

/**
 * Puts a new connection in WAL mode, as every connection of ours reads and writes, an empty
 * file's pages sized first (WAL mode fixes them). It fails only while an import has the
 * database to itself in rollback mode (after `retryMs`, or the busy timeout when one wait
 * lasts longer): that is said in so many words rather than as a bare SQLITE_BUSY, also when
 * reading the page count is what waited.
 */
export function enterWal(db: Database, path: string, retryMs = ENTER_WAL_RETRY_MS): void {
  const deadline = performance.now() + retryMs;
  for (let pause = 5; ; pause = Math.min(2 * pause, 100)) {
    try {
      sizeNewPages(db);
      db.pragma('journal_mode = WAL');
      return;
    } catch (error) {
      if (!isBusyError(error)) throw error;
      if (performance.now() + pause > deadline) {
        throw new Error(`${path} is being written by an import that has it to itself (no server had it open when the import began); ` +
          'open it once the import has finished. A server started before an import keeps serving during it.');
      }
    }
    // Synchronous, as the connection's own busy timeout waits: stores are opened synchronously.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, pause);
  }
}

/**
 * Leaves the database at `path` in rollback-journal mode when nothing else has it open (else it
 * stays in WAL: SQLITE_BUSY, ignored). A database at rest then has no -wal and -shm files and
 * needs none, so SQLite can read it from a read-only file or folder, where it could not create
 * the -shm a WAL database needs. The commands that write and end (import, tokens) call it; the
 * next writable connection enters WAL again (enterWal). Servers do not: several open the file
 * at once, and would race to switch the mode back and forth.
 */
export function restInRollbackMode(path: string): void {
  if (path === ':memory:') return;
  const db = new BetterSqlite3(path, { fileMustExist: true, timeout: 0 });
  try {
    db.pragma('journal_mode = DELETE');
  } catch (error) {
    if (!isBusyError(error)) throw error;
  } finally {
    db.close();
  }
}

/**
 * Reads once through a read-only connection, so that a database SQLite cannot read from where
 * it is fails at startup with the reason: one left in WAL mode (an unclean stop, an older
 * version) whose folder is read-only and lacks the -shm file SQLite would have to create.
 */
export function checkReadable(db: Database, path: string): void {
  try {
    db.prepare('SELECT count(*) FROM sqlite_master').get();
  } catch (error) {
    const code = (error as { code?: string }).code ?? '';
    if (!code.startsWith('SQLITE_READONLY') && !code.startsWith('SQLITE_CANTOPEN')) throw error;
    throw new Error(`cannot read ${path} from a read-only folder: it was left in WAL mode without its ${path}-shm file. ` +
      "Run 'foodlookup tokens list' on it once where it can be written (commands that write leave it ready for read-only use), " +
      `or run: sqlite3 ${path} 'PRAGMA journal_mode=DELETE'`);
  }
}
