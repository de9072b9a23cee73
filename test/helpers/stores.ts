import { join } from 'node:path';
import { describe } from 'node:test';
import { testDatabaseUrl, TEST_STORES, type StoreKind } from './postgres.js';

export { TEST_STORES, type StoreKind } from './postgres.js';

/**
 * A catalogue store for a test, as the CLI and the config name it: a SQLite file (`--db`) or a
 * fresh PostgreSQL database (`--database-url`).
 */
export interface TestStore {
  readonly kind: StoreKind;
  /** Arguments of the CLI (`import`, `serve`, `tokens`) that name it. */
  readonly args: readonly string[];
  /** The same as loadConfig flags. */
  readonly flags: Readonly<Record<string, string>>;
  /** The file's path, or the database's URL. */
  readonly location: string;
}

/** A SQLite file at `path` (created by the first import). */
export function sqliteStore(path: string): TestStore {
  return { kind: 'sqlite', args: ['--db', path], flags: { db: path }, location: path };
}

/** A store at this PostgreSQL URL. */
export function postgresStore(url: string): TestStore {
  return { kind: 'postgres', args: ['--database-url', url], flags: { 'database-url': url }, location: url };
}

/**
 * A new, empty store of this kind: `<dir>/<name>.db`, or a fresh PostgreSQL database (dropped
 * when the test file ends). Throws for PostgreSQL when none is reachable: TEST_STORES names it
 * only when one is.
 */
export async function newTestStore(kind: StoreKind, dir: string, name = 'catalog'): Promise<TestStore> {
  if (kind === 'sqlite') return sqliteStore(join(dir, `${name}.db`));
  const url = await testDatabaseUrl();
  if (!url) throw new Error('PostgreSQL is not reachable');
  return postgresStore(url);
}

/** A string is a SQLite path (the tests written before PostgreSQL). */
export function asTestStore(store: string | TestStore): TestStore {
  return typeof store === 'string' ? sqliteStore(store) : store;
}

/**
 * Runs `body` once per store of TEST_STORES, each in a suite of its own named after the store:
 * the contract's tests, on SQLite and on PostgreSQL.
 */
export function forEachStore(body: (kind: StoreKind) => void): void {
  for (const kind of TEST_STORES) void describe(`on ${kind}`, () => body(kind));
}
