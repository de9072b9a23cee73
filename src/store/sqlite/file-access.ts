import { accessSync, constants, existsSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Config } from '../../config.js';

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

/**
 * Where the served database cannot be written: a sentence for the operator, said at startup
 * (the service only reads; what it loses is recording tokens' last use).
 */
export function readOnlyNotice(config: Config): string | undefined {
  if (config.databaseUrl) return undefined;
  const access = databaseAccess(config.dbPath);
  if (!access.exists) {
    throw new Error(`no database at ${config.dbPath}: load one with 'foodlookup import <format> <path…> --db ${config.dbPath}', ` +
      "or run 'foodlookup start' to build the bundled USDA catalogue");
  }
  return access.readOnlyBecause === undefined
    ? undefined
    : `serving ${config.dbPath} read-only, as ${access.readOnlyBecause}: access tokens cannot be created there and their last use is not recorded`;
}
