import { closeSync, existsSync, mkdirSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { loadConfig } from '../config.js';
import { isRegion } from '../domain/regions.js';
import { formatNames, formatReader } from '../importers/formats.js';
import { ImportFailed, runImportFromFiles, type ImportSummary } from '../importers/run-import.js';
import { ImportOutcomeUnknown, type CatalogWriter } from '../store/catalog-store.js';
import { openStore } from '../store/open-store.js';
import { checkConnection, endPool, openPool } from '../store/postgres/connection.js';
import { beginPostgresImport } from '../store/postgres/writer.js';
import { databaseAccess } from '../store/sqlite/file-access.js';
import { restInRollbackMode } from '../store/sqlite/import-journal.js';
import { Progress } from './progress.js';
import { UsageError } from './usage.js';
import '../importers/register-all.js';


/** Foods apart from the brands, categories and tags that come with them: operators count foods. */
export function summaryLine(summary: ImportSummary, seconds: number): string {
  const { foods, skipped } = summary;
  const others = { added: summary.added - foods.added, changed: summary.changed - foods.changed, unchanged: summary.unchanged - foods.unchanged };
  const total = foods.added + foods.changed + foods.unchanged;
  return `imported ${total} ${total === 1 ? 'food' : 'foods'}: ${foods.added} added, ${foods.changed} changed, ${foods.unchanged} unchanged, ` +
    `${skipped} skipped; brands, categories and tags: ${others.added} added, ${others.changed} changed, ${others.unchanged} unchanged; ` +
    `in ${seconds.toFixed(1)} s`;
}

/** Why an import that added and changed nothing did so, or undefined when it did something. */
export function nothingAddedReason(summary: ImportSummary): string | undefined {
  if (summary.added + summary.changed > 0) return undefined;
  if (summary.unchanged === 0 && summary.skipped === 0) return 'nothing was imported: the files hold no records';
  if (summary.skipped === 0) return 'nothing was added or changed: every record is already in the catalogue as it is (re-importing the same data changes nothing)';
  if (summary.unchanged === 0) return 'nothing was imported: every record was skipped (the reasons are above)';
  return `nothing was added or changed: ${summary.unchanged} records are already in the catalogue as they are and ${summary.skipped} were skipped (the reasons are above)`;
}

/** What each format reads, for "this is not …" when a file of another kind is given. */
const FORMAT_KINDS: Readonly<Record<string, string>> = {
  catalog: 'a catalog .json or .jsonl file', 'usda-sr': 'a USDA SR ASCII file', off: 'an Open Food Facts JSONL dump, CSV export or API product file',
  fdc: 'a FoodData Central CSV file', ausnut: 'an AUSNUT CSV',
};

/**
 * A file of the wrong kind named before anything is read: a zip or Excel workbook (`PK`) or
 * another binary file where the format reads text (gzip is read where `.gz` is).
 */
function wrongKind(format: string, path: string): string | undefined {
  const kind = FORMAT_KINDS[format];
  if (kind === undefined || statSync(path).isDirectory()) return undefined;
  const head = Buffer.alloc(512);
  const fd = openSync(path, 'r');
  let length: number;
  try {
    length = readSync(fd, head, 0, head.length, 0);
  } finally {
    closeSync(fd);
  }
  const bytes = head.subarray(0, length);
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) return undefined;
  if (bytes[0] === 0x50 && bytes[1] === 0x4b) return `${path}: this is not ${kind}: it is a zip archive or an Excel workbook (save the sheet as CSV, UTF-8, or unzip it)`;
  if (bytes.includes(0)) return `${path}: this is not ${kind}: it is a binary file`;
  return undefined;
}

export async function importCommand(values: Record<string, string | boolean | undefined>, positionals: string[]): Promise<number> {
  const [format, ...paths] = positionals;
  if (!format) throw new UsageError('name a format and at least one path');
  if (!formatReader(format)) throw new UsageError(`unknown format '${format}' (known: ${formatNames().join(', ')})`);
  if (paths.length === 0) throw new UsageError('name at least one path to import');
  for (const path of paths) if (!existsSync(path)) throw new UsageError(`no such file or folder: ${path}`);
  const region = values['region'];
  if (region !== undefined && (typeof region !== 'string' || !isRegion(region))) throw new UsageError("--region must be 'au' or 'us'");
  for (const path of paths) {
    const wrong = wrongKind(format, path);
    if (wrong !== undefined) {
      process.stderr.write(`import failed, nothing was changed: ${wrong}\n`);
      return 1;
    }
  }
  const config = loadConfig(values);
  if (config.databaseUrl) {
    const writer = await postgresWriter(config.databaseUrl);
    try {
      return await importInto(writer, format, paths, values);
    } finally {
      await writer.close();
    }
  }
  const access = databaseAccess(config.dbPath);
  if (access.readOnlyBecause !== undefined) {
    process.stderr.write(`foodlookup import: cannot import into ${config.dbPath}: ${access.readOnlyBecause}\n`);
    return 1;
  }
  // A database this import creates is removed again if the import fails: none is left empty.
  const createdFolder = access.exists ? undefined : mkdirSync(dirname(config.dbPath), { recursive: true });
  const store = await openStore(config, { readonly: false });
  let failed = true;
  try {
    const status = await importInto(store, format, paths, values);
    failed = status !== 0;
    return status;
  } finally {
    await store.close();
    if (failed && !access.exists) {
      for (const suffix of ['', '-journal', '-wal', '-shm']) rmSync(`${config.dbPath}${suffix}`, { force: true });
      if (createdFolder !== undefined) rmSync(createdFolder, { recursive: true, force: true });
    } else {
      // Ready to be served from a read-only file or folder (a container's data volume).
      restInRollbackMode(config.dbPath);
    }
  }
}

/**
 * The PostgreSQL catalogue's writer: an import needs no reader (no dictionary or search data in
 * memory), only the pool its transaction is started from. The server must answer first.
 */
async function postgresWriter(url: string): Promise<CatalogWriter & { close(): Promise<void> }> {
  const pool = openPool(url, { max: 2, applicationName: 'foodlookup import' });
  try {
    await checkConnection(pool, url);
  } catch (error) {
    await endPool(pool);
    throw error;
  }
  return { beginImport: (options) => beginPostgresImport(pool, options), close: () => endPool(pool) };
}

/** Runs the import with progress on stderr and the summary on stdout; the exit status. */
async function importInto(
  writer: CatalogWriter,
  format: string,
  paths: readonly string[],
  values: Record<string, string | boolean | undefined>,
): Promise<number> {
  const region = values['region'] as 'au' | 'us' | undefined;
  const progress = new Progress(process.stderr);
  const started = performance.now();
  try {
    const readerOptions = { ...(region ? { region } : {}), onProgress: (f: number) => progress.fraction(f) };
    const summary = await runImportFromFiles(writer, format, paths, readerOptions, {
      replace: values['replace'] === true,
      skipInvalid: values['skip-invalid'] === true,
      onSkip: (message) => progress.message(`skipped ${message}`),
      onRecords: (count) => progress.records(count),
      onFinishing: () => progress.status('checking the catalogue, ranking common words…'),
    });
    progress.done();
    process.stdout.write(`${summaryLine(summary, (performance.now() - started) / 1000)}\n`);
    const nothing = nothingAddedReason(summary);
    if (nothing !== undefined) process.stderr.write(`${nothing}\n`);
    return 0;
  } catch (error) {
    progress.done();
    if (error instanceof ImportOutcomeUnknown) {
      process.stderr.write(`import outcome unknown: ${error.message}\n`);
      return 1;
    }
    if (error instanceof ImportFailed || error instanceof Error) {
      process.stderr.write(`import failed, nothing was changed: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}
