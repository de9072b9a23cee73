import { after, before } from 'node:test';
import { importInto, type CliResult } from './cli.js';
import { fixturePath, tempDir } from './paths.js';
import { startTestServer, type TestServer } from './server.js';
import { newTestStore, type StoreKind, type TestStore } from './stores.js';

export interface ImportedServer {
  readonly server: TestServer;
  /** The temporary directory holding the database, for the test's own files; removed after. */
  readonly dir: string;
  /** The import's output (its summary line on stdout). */
  readonly imported: CliResult;
}

/**
 * The real server over `paths` imported with `format` through the real CLI into a fresh store
 * (SQLite file `<dir>/<format>.db` by default, or a fresh PostgreSQL database): started before
 * the calling suite's tests, closed after.
 */
export function importedServer(format: string, paths: readonly string[], kind: StoreKind = 'sqlite'): ImportedServer {
  const holder: { server?: TestServer; dir?: string; imported?: CliResult } = {};
  let cleanup = (): void => {};
  before(async () => {
    const tmp = tempDir();
    cleanup = tmp.cleanup;
    holder.dir = tmp.dir;
    const store = await newTestStore(kind, tmp.dir, format);
    holder.imported = await importInto(store, format, paths);
    holder.server = await startTestServer(store);
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

/** The real server over the fixture catalogue (test/fixtures/catalog.json), on SQLite unless told. */
export function fixtureServer(kind: StoreKind = 'sqlite'): { readonly server: TestServer } {
  return importedServer('catalog', [fixturePath('catalog.json')], kind);
}

/**
 * A store holding the fixture catalogue (a SQLite file in a temporary directory unless told),
 * imported through the real CLI before the calling suite's tests and removed after them (for
 * tests that start the server themselves). `db` is the SQLite file's path; `store` names either.
 */
export function fixtureDatabase(kind: StoreKind = 'sqlite'): { readonly db: string; readonly store: TestStore } {
  let store: TestStore | undefined;
  let cleanup = (): void => {};
  before(async () => {
    const tmp = tempDir();
    cleanup = tmp.cleanup;
    store = await newTestStore(kind, tmp.dir);
    await importInto(store, 'catalog', [fixturePath('catalog.json')]);
  });
  after(() => cleanup());
  const made = (): TestStore => {
    if (store === undefined) throw new Error('the fixture database is made in before()');
    return store;
  };
  return {
    get db(): string {
      return made().location;
    },
    get store(): TestStore {
      return made();
    },
  };
}
