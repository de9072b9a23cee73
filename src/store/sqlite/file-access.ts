import { accessSync, constants, existsSync } from 'node:fs';
import { dirname } from 'node:path';

/** What SQLite may do with a database file before it is opened (docs/security.md, read-only deployments). */
export interface DatabaseAccess {
  readonly exists: boolean;
  /** Why the database cannot be written (a phrase naming the path), or undefined when it can. */
  readonly readOnlyBecause?: string;
}

function writable(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether the database at `path` exists, and whether SQLite can write it: the file itself and
 * its folder, where SQLite creates its journal (-journal, or -wal and -shm). For a file still to
 * be created, the nearest folder that exists. A read-only mount or a file the user may not
 * write reads as read-only; root is refused only by a read-only mount.
 */
export function databaseAccess(path: string): DatabaseAccess {
  if (path === ':memory:') return { exists: true };
  const exists = existsSync(path);
  if (exists && !writable(path)) return { exists, readOnlyBecause: `the file ${path} is read-only` };
  let folder = dirname(path);
  if (!exists) while (!existsSync(folder) && dirname(folder) !== folder) folder = dirname(folder);
  if (!writable(folder)) return { exists, readOnlyBecause: `its folder ${folder} is read-only, and SQLite writes its journal there` };
  return { exists };
}
