import { after, before } from 'node:test';
import { join } from 'node:path';
import { importInto, type CliResult } from './cli.js';
import { fixturePath, tempDir } from './paths.js';
import { startTestServer, type TestServer } from './server.js';

export interface ImportedServer {
  readonly server: TestServer;
  /** The temporary directory holding the database, for the test's own files; removed after. */
  readonly dir: string;
  /** The import's output (its summary line on stdout). */
  readonly imported: CliResult;
}

/**
 * The real server over `paths` imported with `format` through the real CLI into a fresh SQLite
 * file (`<dir>/<format>.db`): started before the calling file's tests, closed after.
 */
export function importedServer(format: string, paths: readonly string[]): ImportedServer {
  const holder: { server?: TestServer; dir?: string; imported?: CliResult } = {};
  let cleanup = (): void => {};
  before(async () => {
    const tmp = tempDir();
    cleanup = tmp.cleanup;
    holder.dir = tmp.dir;
    const db = join(tmp.dir, `${format}.db`);
    holder.imported = await importInto(db, format, paths);
    holder.server = await startTestServer(db);
  });
  after(async () => {
    await holder.server?.close();
    cleanup();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the imported server starts in before()');
    return value;
  };
  return {
    get server(): TestServer {
      return started(holder.server);
    },
    get dir(): string {
      return started(holder.dir);
    },
    get imported(): CliResult {
      return started(holder.imported);
    },
  };
}

/** The real server over the fixture catalogue (test/fixtures/catalog.json). */
export function fixtureServer(): { readonly server: TestServer } {
  return importedServer('catalog', [fixturePath('catalog.json')]);
}

/**
 * A SQLite file holding the fixture catalogue, imported through the real CLI into a temporary
 * directory before the calling file's tests and removed after them (for tests that start the
 * server themselves).
 */
export function fixtureDatabase(): { readonly db: string } {
  let db: string | undefined;
  let cleanup = (): void => {};
  before(async () => {
    const tmp = tempDir();
    cleanup = tmp.cleanup;
    db = join(tmp.dir, 'catalog.db');
    await importInto(db, 'catalog', [fixturePath('catalog.json')]);
  });
  after(() => cleanup());
  return {
    get db(): string {
      if (db === undefined) throw new Error('the fixture database is made in before()');
      return db;
    },
  };
}
